import { describe, expect, it } from 'vitest';
import { identityFromClaims, mayLinkAutomatically, type UpstreamIdentity } from './upstream-identity.ts';

const google = { issuerTemplate: 'https://accounts.google.com', allowedTenants: [] };
const microsoft = { issuerTemplate: 'https://login.microsoftonline.com/{tenantid}/v2.0', allowedTenants: [] };
const tid = '72f988bf-86f1-41af-91ab-2d7cd011db47';

const errorType = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { type: string }).type;
  }
  return undefined;
};

describe('identityFromClaims', () => {
  it('takes issuer, subject, email and a literal email_verified: true from Google', () => {
    const identity = identityFromClaims('google', { iss: 'https://accounts.google.com', sub: '123', email: 'a@example.com', email_verified: true }, google);
    expect(identity).toEqual({ provider: 'google', issuer: 'https://accounts.google.com', subject: '123', email: 'a@example.com', emailVerified: true, tenantId: null, hostedDomain: null });
  });

  it('takes Google\'s hosted domain (hd), in lower case', () => {
    const identity = identityFromClaims('google', { iss: 'https://accounts.google.com', sub: '1', email: 'a@example.com', email_verified: true, hd: 'Example.com' }, google);
    expect(identity.hostedDomain).toBe('example.com');
  });

  it.each([['true'], [1], [undefined], [false]])('does not count email_verified=%j as verified', (value) => {
    const identity = identityFromClaims('google', { iss: 'https://accounts.google.com', sub: '1', email: 'a@example.com', email_verified: value }, google);
    expect(identity.emailVerified).toBe(false);
  });

  it('checks the Microsoft issuer against the template with the token tid', () => {
    const iss = `https://login.microsoftonline.com/${tid}/v2.0`;
    expect(identityFromClaims('microsoft', { iss, sub: 's', tid }, microsoft).tenantId).toBe(tid);
    expect(errorType(() => identityFromClaims('microsoft', { iss, sub: 's', tid: 'another-tenant' }, microsoft))).toBe('oauth/provider_error');
    expect(errorType(() => identityFromClaims('microsoft', { iss, sub: 's' }, microsoft))).toBe('oauth/provider_error');
  });

  it('refuses a Microsoft tenant outside the allow-list', () => {
    const iss = `https://login.microsoftonline.com/${tid}/v2.0`;
    expect(errorType(() => identityFromClaims('microsoft', { iss, sub: 's', tid }, { ...microsoft, allowedTenants: ['other'] }))).toBe('oauth/tenant_not_allowed');
    expect(identityFromClaims('microsoft', { iss, sub: 's', tid }, { ...microsoft, allowedTenants: ['other', tid] }).tenantId).toBe(tid);
  });

  it.each([
    [{ iss: 'https://evil.example', sub: '1' }],
    [{ iss: 'https://accounts.google.com' }],
    [{ iss: 'https://accounts.google.com', sub: '' }],
  ])('refuses %j', (claims) => {
    expect(errorType(() => identityFromClaims('google', claims, google))).toBe('oauth/provider_error');
  });
});

describe('mayLinkAutomatically', () => {
  const base: UpstreamIdentity = { provider: 'google', issuer: 'i', subject: 's', email: 'Ann@Example.com', emailVerified: true, tenantId: null, hostedDomain: 'example.com' };
  it.each([
    ['verified, same email (any case), in the account\'s Workspace domain', base, true],
    ['verified, same email, no Workspace domain (a Google account made with an address elsewhere)', { ...base, hostedDomain: null }, false],
    ['verified, same email, another Workspace domain', { ...base, hostedDomain: 'other.example' }, false],
    ['unverified', { ...base, emailVerified: false }, false],
    ['verified, another email', { ...base, email: 'other@example.com' }, false],
    ['no email', { ...base, email: null }, false],
    ['Microsoft without email_verified', { ...base, provider: 'microsoft' as const, emailVerified: false, tenantId: 't' }, false],
    ['Microsoft with email_verified: true, same email (nOAuth)', { ...base, provider: 'microsoft' as const, tenantId: 't' }, false],
  ])('%s → %s', (_name, identity, expected) => {
    expect(mayLinkAutomatically(identity, 'ann@example.com')).toBe(expected);
  });

  it.each([['gmail.com'], ['GoogleMail.com']])('links a verified address of Google\'s own mail (%s) without hd', (domain) => {
    expect(mayLinkAutomatically({ ...base, email: `ann@${domain}`, hostedDomain: null }, `ann@${domain.toLowerCase()}`)).toBe(true);
  });
});
