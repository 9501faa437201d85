import { describe, expect, it } from 'vitest';
import { localPath, withParam } from './local-path.ts';

describe('localPath', () => {
  it.each([
    ['/profile', '/profile'],
    ['/profile?tab=methods', '/profile?tab=methods'],
    ['/login/select-tenant', '/login/select-tenant'],
    ['/a/../profile', '/profile'],
  ])('follows the local path %s as %s', (from, expected) => {
    expect(localPath(from)).toBe(expected);
  });

  it.each([
    '//evil.example',
    '//evil.example/profile',
    'https://evil.example',
    'http://evil.example/profile',
    '/\\evil',
    '/\\/evil.example',
    '\\\\evil.example',
    // Dot segments that collapse into a protocol-relative URL once normalised.
    '/..//evil.example',
    '/%2e%2e//evil.example',
    '/%2E%2e//evil.example/x',
    '/a/..//evil.example/x',
    '/.//evil.example',
    'javascript:alert(1)',
    'profile',
    '',
    '/pro\nfile',
    '/\t/evil.example',
    '/ /evil.example',
    undefined,
    42,
    `/${'a'.repeat(600)}`,
  ])('refuses %j', (from) => {
    expect(localPath(from)).toBeNull();
  });
});

describe('withParam', () => {
  it('adds or replaces one parameter', () => {
    expect(withParam('/profile', 'error', 'oauth/access_denied')).toBe('/profile?error=oauth%2Faccess_denied');
    expect(withParam('/profile?error=x&tab=1', 'error', 'y')).toBe('/profile?error=y&tab=1');
  });
});
