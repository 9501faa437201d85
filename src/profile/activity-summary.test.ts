import { describe, expect, it } from 'vitest';
import { summarizeActivity, tenantIdsOf, type AuditRow } from './activity-summary.ts';

const me = '11111111-1111-4111-8111-111111111111';
const operator = '22222222-2222-4222-8222-222222222222';
const tenant = '33333333-3333-4333-8333-333333333333';
const row = (action: string, details: unknown, actor: string | null = me, tenantId: string | null = null): AuditRow => ({
  id: 7,
  at: new Date('2026-11-20T10:00:00Z'),
  action,
  actor_id: actor,
  target_account_id: me,
  tenant_id: tenantId,
  details,
});

describe('summarizeActivity', () => {
  it.each([
    ['a sign-in keeps its method only', row('login.succeeded', { method: 'password', amr: ['pwd'], remembered_device: true }), 'you', { method: 'password' }],
    ['a failed attempt is nobody’s, without its email', row('login.failed', { method: 'password', reason: 'wrong', email: 'a@b.c' }, null), 'system', { method: 'password' }],
    ['a removed credential keeps type and provider', row('credential.removed', { credential_id: 'x', type: 'oidc', provider: 'accounts.google.com', via: 'profile' }), 'you', { type: 'oidc', provider: 'accounts.google.com' }],
    ['a removed passkey keeps its type', row('passkey.removed', { credential_id: 'x', type: 'webauthn', provider: null, via: 'profile' }), 'you', { type: 'webauthn' }],
    ['a linked upstream keeps the provider only', row('upstream.linked', { credential_id: 'x', provider: 'google', host: 'accounts.google.com', via: 'profile' }), 'you', { provider: 'google' }],
    ['a name change does not repeat the name', row('account.setting.changed', { key: 'name', value: 'Secret Name' }), 'you', { key: 'name' }],
    ['a language change keeps the language', row('account.setting.changed', { key: 'locale', value: 'sv' }), 'you', { key: 'locale', value: 'sv' }],
    ['an operator action is support’s, without the operator', row('operator.credential.deleted', { type: 'totp', operator_email: 'op@x' }, operator), 'support', { type: 'totp' }],
    ['an email change asked of support keeps the new address only', row('operator.account.email_change_requested', { role: 'admin', email: 'new@x.se' }, operator), 'support', { email: 'new@x.se' }],
    ['a confirmed email change keeps the new address, not the previous one or the operator', row('account.email_changed', { previous_email: 'old@x.se', email: 'new@x.se', requested_by: 'op-id' }, null), 'system', { email: 'new@x.se' }],
    ['a withdrawn email change keeps the address it would have moved to', row('operator.account.email_change_withdrawn', { role: 'admin', email: 'new@x.se' }, operator), 'support', { email: 'new@x.se' }],
    ['a withdrawal that finished a change made keeps the address the account has', row('operator.account.email_change_finished', { role: 'admin', email: 'new@x.se' }, operator), 'support', { email: 'new@x.se' }],
    ['a cancelled email change keeps the address and why', row('account.email_change_cancelled', { email: 'new@x.se', reason: 'replaced' }, null), 'system', { email: 'new@x.se', reason: 'replaced' }],
    ['a refused email change keeps the address and why, not the operator', row('account.email_change_refused', { email: 'new@x.se', reason: 'email_taken', requested_by: 'op-id' }, null), 'system', { email: 'new@x.se', reason: 'email_taken' }],
    ['forgotten remembered devices keep their count and why', row('devices.revoked_all', { count: 2, reason: 'totp_replaced' }), 'you', { count: 2, reason: 'totp_replaced' }],
    ['an unknown action shows no details', row('something.new', { secret: 'x', ip: '10.0.0.1' }), 'you', {}],
    ['details stored as a JSON string are read too', row('login.succeeded', '{"method":"email_code"}'), 'you', { method: 'email_code' }],
    ['broken details are no details', row('login.succeeded', '{not json'), 'you', {}],
  ])('%s', (_name, input, by, details) => {
    expect(summarizeActivity(input, me)).toEqual({ id: '7', action: input.action, at: '2026-11-20T10:00:00.000Z', by, details });
  });

  it('names the tenant of an impersonation (the row’s tenant_id) and never the operator’s email', () => {
    const input = row('operator.impersonation.started', { operator_email: 'op@nyckel.example', reason: 'Ticket 12', as: 'user' }, operator, tenant);
    const other = '44444444-4444-4444-8444-444444444444';
    expect(tenantIdsOf([input, row('login.succeeded', {}, me, other)])).toEqual([tenant]);
    const entry = summarizeActivity(input, me, new Map([[tenant, 'Acme']]));
    expect(entry).toMatchObject({ by: 'support', details: { tenant: 'Acme', reason: 'Ticket 12', as: 'user' } });
    expect(JSON.stringify(entry)).not.toContain('op@nyckel.example');
  });

  it('cuts long texts', () => {
    const entry = summarizeActivity(row('operator.impersonation.started', { reason: 'x'.repeat(2000) }, operator), me);
    expect(entry.details.reason).toHaveLength(500);
  });
});
