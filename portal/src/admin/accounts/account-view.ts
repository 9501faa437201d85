import type { AdminAccount, PendingEmailChange } from '../../api/admin.ts';
import type { AvailableCredential } from '../../api/types.ts';
import { formatUtc } from '../utc-time.ts';

export type AccountKind = 'user' | 'stakeholder' | 'unknown';

/**
 * Most accounts a search answers (the server's searchLimit): a list this long may have more
 * behind it, and the page asks for a narrower term, as the tenant users list does.
 */
export const ACCOUNT_SEARCH_LIMIT = 50;

/**
 * The account's pending email change while its link still works, else null: as for a lock, a
 * page stays open, and a change whose link has run out is neither shown nor offered to withdraw.
 */
export function pendingChange(account: Pick<AdminAccount, 'pending_email_change'>, now: Date): PendingEmailChange | null {
  const pending = account.pending_email_change;
  return pending && Date.parse(pending.expires_at) > now.getTime() ? pending : null;
}

export type CredentialLabel = 'password' | 'google' | 'microsoft' | 'oidc' | 'webauthn' | 'totp' | 'other';

/** A credential as the console's account listing answers it (openapi.yaml, Account). */
export interface ConsoleCredential extends AvailableCredential {
  /** When it was added (ISO time). */
  created_at?: string | null;
  /** The name a passkey was given when it was added; null for other kinds. */
  name?: string | null;
}

/** The badges of an account: User and/or Stakeholder, or Unknown when it is neither. */
export function accountKinds(account: Pick<AdminAccount, 'is_user' | 'is_stakeholder'>): AccountKind[] {
  const kinds: AccountKind[] = [];
  if (account.is_user) kinds.push('user');
  if (account.is_stakeholder) kinds.push('stakeholder');
  return kinds.length > 0 ? kinds : ['unknown'];
}

/** i18n keys of the account badges. */
export const KIND_KEYS: Record<AccountKind, string> = {
  user: 'admin.account.kind_user',
  stakeholder: 'admin.account.kind_stakeholder',
  unknown: 'admin.account.kind_unknown',
};

/** i18n keys of the credential names. */
export const CREDENTIAL_KEYS: Record<CredentialLabel, string> = {
  password: 'admin.credential.password',
  google: 'provider.google',
  microsoft: 'provider.microsoft',
  oidc: 'admin.credential.oidc',
  webauthn: 'admin.credential.webauthn',
  totp: 'admin.credential.totp',
  other: 'admin.credential.other',
};

/**
 * Credential deletion is allowed except password credentials on user accounts (spec section 4):
 * a recruiter must keep a way to sign in. The server enforces the same rule (409).
 */
export function canDeleteCredential(account: Pick<AdminAccount, 'is_user'>, credential: Pick<AvailableCredential, 'type'>): boolean {
  return !(account.is_user && credential.type === 'password');
}

/**
 * The end of the account's sign-in lock while it lasts, else null. The server lists only a lock in
 * force, but a page stays open: a lock that has run out by the next render is neither shown nor
 * offered to unlock.
 */
export function lockEnd(account: Pick<AdminAccount, 'locked_until'>, now: Date): string | null {
  const end = account.locked_until ? Date.parse(account.locked_until) : Number.NaN;
  return end > now.getTime() ? account.locked_until : null;
}

/** What a credential icon shows: the type, and for oidc the provider when it is Google or Microsoft. */
export function credentialLabel(credential: Pick<AvailableCredential, 'type' | 'provider'>): CredentialLabel {
  if (credential.type === 'oidc') {
    const provider = (credential.provider ?? '').toLowerCase();
    if (provider.includes('google')) return 'google';
    if (provider.includes('microsoft')) return 'microsoft';
    return 'oidc';
  }
  const plain: readonly CredentialLabel[] = ['password', 'webauthn', 'totp'];
  return plain.find((label) => label === credential.type) ?? 'other';
}

/** The i18next `t` as credentialText uses it. */
interface CredentialText {
  (key: string): string;
  (key: string, values: Record<string, string>): string;
}

/**
 * A credential's full name, for its chip's accessible name and its delete confirmation: the kind
 * (for other upstreams, the provider), a passkey's own name, and when it was added, in UTC as the
 * console shows times. Two authenticator apps of one account differ by the time they were added, so
 * an operator helping someone who lost one phone can tell which one they delete.
 */
export function credentialText(credential: ConsoleCredential, t: CredentialText): string {
  const label = credentialLabel(credential);
  const kind = label === 'oidc' && credential.provider ? credential.provider : t(CREDENTIAL_KEYS[label]);
  const own = credential.type === 'webauthn' ? (credential.name ?? '').trim() : '';
  const named = own ? t('admin.credential.named', { kind, name: own }) : kind;
  const added = formatUtc(credential.created_at);
  return added ? t('admin.credential.added', { credential: named, time: added }) : named;
}

/**
 * What a credential chip shows beside its mark when the account has another credential of the same
 * kind (two authenticator apps look alike otherwise): the passkey's own name, else when it was added.
 */
export function credentialNote(credential: ConsoleCredential, all: readonly ConsoleCredential[]): string | null {
  const label = credentialLabel(credential);
  if (all.filter((other) => credentialLabel(other) === label).length < 2) return null;
  const own = credential.type === 'webauthn' ? (credential.name ?? '').trim() : '';
  return own || formatUtc(credential.created_at);
}

/**
 * Where the focus goes once a credential's delete button goes with it: the next one that can be
 * deleted, else the one before, else null (the row's title).
 */
export function focusAfterDelete(deletable: readonly string[], deleted: string): string | null {
  const index = deletable.indexOf(deleted);
  if (index === -1) return deletable[0] ?? null;
  return deletable[index + 1] ?? deletable[index - 1] ?? null;
}

/** Up to two initials for an account without a picture. */
export function initialsOf(name: string, email: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 0 ? words.slice(0, 2).map((word) => [...word][0] ?? '') : [[...email][0] ?? '?'];
  return letters.join('').toUpperCase();
}

/** Reset links whose email contains the filter (case-insensitive), sorted by email ascending. */
export function filterResetLinks<T extends { email: string }>(links: readonly T[], filter: string): T[] {
  const term = filter.trim().toLowerCase();
  return links.filter((link) => link.email.toLowerCase().includes(term)).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}
