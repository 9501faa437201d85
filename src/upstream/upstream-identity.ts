import { upstreamErrors } from './upstream-errors.ts';
import type { UpstreamProviderName } from './upstream-providers.ts';

/** Who the upstream says signed in, from a validated ID token. Bound to an account by (issuer, subject). */
export interface UpstreamIdentity {
  provider: UpstreamProviderName;
  issuer: string;
  subject: string;
  email: string | null;
  /** Only a literal `email_verified: true` counts. */
  emailVerified: boolean;
  /** Microsoft's tenant id (`tid`); null for Google. */
  tenantId: string | null;
  /** Google's `hd`: the Google Workspace domain the account belongs to; null otherwise. */
  hostedDomain: string | null;
}

interface IdentityPolicy {
  /** The issuer from discovery; Microsoft's `organizations` authority publishes `{tenantid}` in it. */
  issuerTemplate: string;
  /** Microsoft: allowed tenant ids (lower case); empty allows any. */
  allowedTenants: readonly string[];
}

/**
 * The identity of ID-token claims that openid-client has already validated (signature, aud, exp,
 * nonce, iss). For Microsoft the issuer is checked once more here against the authority's
 * template with the token's own `tid` substituted (openid-client does this only for the public
 * login.microsoftonline.com host), and the tenant against the allow-list: a token from a tenant
 * outside the list never reaches account lookup.
 */
export function identityFromClaims(provider: UpstreamProviderName, claims: Record<string, unknown>, policy: IdentityPolicy): UpstreamIdentity {
  const { iss, sub, email, email_verified: emailVerified, tid, hd } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub === '') throw upstreamErrors.providerError();
  let tenantId: string | null = null;
  if (provider === 'microsoft') {
    if (typeof tid !== 'string' || tid === '') throw upstreamErrors.providerError();
    tenantId = tid.toLowerCase();
    if (iss !== policy.issuerTemplate.replace('{tenantid}', tid)) throw upstreamErrors.providerError();
    if (policy.allowedTenants.length > 0 && !policy.allowedTenants.includes(tenantId)) throw upstreamErrors.tenantNotAllowed();
  } else if (iss !== policy.issuerTemplate) {
    throw upstreamErrors.providerError();
  }
  return {
    provider,
    issuer: iss,
    subject: sub,
    email: typeof email === 'string' && email !== '' ? email : null,
    emailVerified: emailVerified === true,
    tenantId,
    hostedDomain: provider === 'google' && typeof hd === 'string' && hd !== '' ? hd.toLowerCase() : null,
  };
}

/**
 * Upstreams whose `email_verified` Nyckel trusts as proof of the mailbox. Not Microsoft: its ID
 * tokens carry no `email_verified` by default, and Entra's `email` is set by each tenant's admins
 * (the "nOAuth" account-takeover pattern), so an Entra identity never links on its own, whatever
 * its claims say.
 */
const linksAutomatically: ReadonlySet<UpstreamProviderName> = new Set(['google']);

/** Mail domains Google runs itself: it answers for their mailboxes today. */
const googleMailDomains: ReadonlySet<string> = new Set(['gmail.com', 'googlemail.com']);

/**
 * Whether Google answers for the address now: a Gmail address, or one in the Google Workspace
 * domain the account belongs to (`hd`). For any other address (a Google account made with a work
 * address elsewhere) Google checked the mailbox once, when the account was made, and keeps saying
 * `email_verified: true` after the mailbox has changed hands: Google's own guidance is to trust
 * the email of such an account only with `hd`.
 */
function googleAnswersFor(email: string, hostedDomain: string | null): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return googleMailDomains.has(domain) || (hostedDomain !== null && hostedDomain === domain);
}

/**
 * Whether a first upstream sign-in may link itself to the account the login session started
 * for. Only from a provider in `linksAutomatically`, only for an address that provider answers
 * for (googleAnswersFor), and only when it asserts, as a boolean `email_verified: true`, exactly
 * the email the session started with (case-insensitively): then the upstream has proven control
 * of that mailbox, which is what an email code proves too. Anything else (another provider,
 * unverified, another address, no claim at all) must sign in another way first and link on the
 * ask-to-create step or from the profile.
 */
export function mayLinkAutomatically(identity: UpstreamIdentity, sessionEmail: string): boolean {
  if (!linksAutomatically.has(identity.provider)) return false;
  if (!identity.emailVerified || identity.email === null) return false;
  const email = identity.email.trim().toLowerCase();
  return email === sessionEmail.trim().toLowerCase() && googleAnswersFor(email, identity.hostedDomain);
}
