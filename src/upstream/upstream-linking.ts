import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { findOidcCredential, IdentityTakenError, insertOidcCredential } from '../credentials/oidc/oidc-credentials.repository.ts';
import { notifySecurityChange } from '../profile/security-notice.ts';
import { upstreamErrors } from './upstream-errors.ts';
import type { UpstreamIdentity } from './upstream-identity.ts';
import { issuerHost } from './upstream-providers.ts';

/** How the person proved who they are before the link: the audit's `via`. */
export type LinkVia = 'login-verified-email' | 'login-after-code' | 'profile';

export interface LinkInfo {
  ip: string | null;
  userAgent: string | null;
}

/**
 * Binds the identity to the account, or confirms it is already bound to it. An identity bound to
 * another account is never moved (`oauth/identity_in_use`): that account's owner must unlink it.
 * The insert and its audit event commit together; the unique index decides a race between two
 * accounts linking one identity at once. A new link is then mailed to the holder (whichever way
 * it came: an automatic link at sign-in too); confirming an existing one is not.
 */
export async function linkIdentity(ctx: Context, accountId: string, identity: UpstreamIdentity, via: LinkVia, info: LinkInfo): Promise<string> {
  const existing = await findOidcCredential(ctx.db, identity);
  if (existing) {
    if (existing.account_id !== accountId) throw upstreamErrors.identityInUse();
    return existing.id;
  }
  const now = ctx.now();
  let linked: string;
  try {
    linked = await ctx.db.transaction(async (trx) => {
      const credentialId = await insertOidcCredential(trx, accountId, identity, now);
      await recordAudit(trx, {
        action: 'upstream.linked',
        actor_id: accountId,
        target_account_id: accountId,
        ip: info.ip,
        user_agent: info.userAgent,
        details: { credential_id: credentialId, provider: identity.provider, host: issuerHost(identity.issuer), via },
        at: now,
      });
      return credentialId;
    });
  } catch (error) {
    if (error instanceof IdentityTakenError) throw upstreamErrors.identityInUse();
    throw error;
  }
  await notifySecurityChange(ctx, accountId, { change: 'upstream_linked', provider: identity.provider }, info);
  return linked;
}
