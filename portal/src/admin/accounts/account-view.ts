import type { AdminAccount } from '../../api/admin.ts';
import type { AvailableCredential } from '../../api/types.ts';

export type AccountKind = 'user' | 'stakeholder' | 'unknown';

export type CredentialLabel = 'password' | 'google' | 'microsoft' | 'oidc' | 'webauthn' | 'totp' | 'other';

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
