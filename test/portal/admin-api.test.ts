import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as admin from '../../portal/src/api/admin.ts';
import { ApiError, setLanguageSource } from '../../portal/src/api/client.ts';

interface Call {
  url: string;
  init: RequestInit;
}

let calls: Call[] = [];

function answer(status: number, body?: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const text = body === undefined ? null : JSON.stringify(body);
      return new Response(status === 204 ? null : text, { status, headers: { 'Content-Type': 'application/json' } });
    }),
  );
}

beforeEach(() => {
  calls = [];
  setLanguageSource(() => 'en');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('operator console calls (spec section 7)', () => {
  it.each([
    ['getOperator', () => admin.getOperator(), 'GET', '/api/operator', undefined],
    ['listAccounts', () => admin.listAccounts(), 'GET', '/api/accounts/', undefined],
    ['searchAccounts', () => admin.searchAccounts('anna svensson'), 'GET', '/api/accounts/search/anna%20svensson', undefined],
    ['searchAccounts keeps a slash inside the segment', () => admin.searchAccounts('a/b'), 'GET', '/api/accounts/search/a%2Fb', undefined],
    ['sendAccountPasswordReset', () => admin.sendAccountPasswordReset('a1'), 'POST', '/api/accounts/a1/reset-password', undefined],
    ['requestAccountEmailChange', () => admin.requestAccountEmailChange('a1', 'new@example.com'), 'POST', '/api/accounts/a1/email-change', { email: 'new@example.com' }],
    ['withdrawAccountEmailChange', () => admin.withdrawAccountEmailChange('a1'), 'DELETE', '/api/accounts/a1/email-change', undefined],
    ['unlockAccount', () => admin.unlockAccount('a1'), 'POST', '/api/accounts/a1/unlock', undefined],
    ['signAccountOutEverywhere', () => admin.signAccountOutEverywhere('a1'), 'POST', '/api/accounts/a1/sign-out-everywhere', undefined],
    ['deleteAccountCredential', () => admin.deleteAccountCredential('a1', 'c1'), 'DELETE', '/api/accounts/a1/credentials/c1', undefined],
    ['listPasswordResets', () => admin.listPasswordResets(), 'GET', '/api/accounts/password-resets', undefined],
    ['listInvoice', () => admin.listInvoice(), 'GET', '/api/invoice/', undefined],
    ['listTenants', () => admin.listTenants(), 'GET', '/api/tenants/', undefined],
    ['searchTenants', () => admin.searchTenants('acme'), 'GET', '/api/tenants/search/acme', undefined],
    ['getTenant', () => admin.getTenant('t1'), 'GET', '/api/tenants/t1', undefined],
    ['listTenantUsers', () => admin.listTenantUsers('t1'), 'GET', '/api/tenants/t1/users', undefined],
    ['createTenant', () => admin.createTenant({ name: 'Acme', slug: 'acme' }), 'POST', '/api/tenants', { name: 'Acme', slug: 'acme' }],
    ['getTenantSettings', () => admin.getTenantSettings('t1'), 'GET', '/api/tenants/t1/settings', undefined],
    ['setTenantSetting', () => admin.setTenantSetting('t1', { key: 'k', value: 1 }), 'POST', '/api/tenants/t1/settings', { key: 'k', value: 1 }],
    ['getSmsSettings', () => admin.getSmsSettings('t1'), 'GET', '/api/tenants/t1/settings/sms', undefined],
    [
      'setSmsSetting',
      () => admin.setSmsSetting('t1', { key: 'system_sms', value: { value: true } }),
      'POST',
      '/api/tenants/t1/settings/sms',
      { key: 'system_sms', value: { value: true } },
    ],
    ['getSmsCredits', () => admin.getSmsCredits('t1'), 'GET', '/api/tenants/t1/settings/sms/credits', undefined],
    ['addSmsCredits', () => admin.addSmsCredits('t1', 500), 'POST', '/api/tenants/t1/settings/sms/credits', { credits: 500 }],
    [
      'sendNotification',
      () => admin.sendNotification({ message: 'Hej', admins_only: true, tenants: ['t1'], popup: false, new_functionality: true }),
      'POST',
      '/api/notification/',
      { message: 'Hej', admins_only: true, tenants: ['t1'], popup: false, new_functionality: true },
    ],
    ['listTokens', () => admin.listTokens('a1'), 'GET', '/api/tokens/a1', undefined],
  ] as const)('%s → %s %s', async (_name, call, method, url, payload) => {
    answer(200, []);
    await call();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe(url);
    expect(calls[0]?.init.method).toBe(method);
    expect(calls[0]?.init.credentials).toBe('same-origin');
    if (payload === undefined) expect(calls[0]?.init.body).toBeUndefined();
    else expect(JSON.parse(String(calls[0]?.init.body))).toEqual(payload);
  });

  it('a 204 answer is fine for a deletion', async () => {
    answer(204);
    await expect(admin.deleteAccountCredential('a1', 'c1')).resolves.toBeUndefined();
  });

  it('a withdrawn email change answers the address it would have moved to; nothing pending is a 404 with its type', async () => {
    answer(200, { status: 'withdrawn', email: 'typo@example.com' });
    await expect(admin.withdrawAccountEmailChange('a1')).resolves.toEqual({ status: 'withdrawn', email: 'typo@example.com' });
    answer(404, { detail: [{ type: 'account/no-pending-email-change', msg: 'x' }] });
    await expect(admin.withdrawAccountEmailChange('a1')).rejects.toMatchObject({ status: 404, type: 'account/no-pending-email-change' });
  });

  it('a refusal carries the status and type', async () => {
    answer(409, { detail: [{ type: 'credential/password-required', msg: 'x' }] });
    const failure = await admin.deleteAccountCredential('a1', 'c1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 409, type: 'credential/password-required' });
  });
});
