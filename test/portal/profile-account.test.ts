import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import type { LoginSessionResponse } from '../../portal/src/api/types.ts';
import { doneTarget, localPath } from '../../portal/src/login/done-target.ts';
import { activityText } from '../../portal/src/profile/activity-text.ts';
import { nameProblem } from '../../portal/src/profile/name-rules.ts';
import * as api from '../../portal/src/profile/profile-api.ts';
import type { ActivityEvent } from '../../portal/src/profile/profile-api.ts';
import { translate } from './translate.ts';

const origin = 'https://id.example.com';
const done = (extra: Partial<LoginSessionResponse> = {}): LoginSessionResponse => ({
  state: 'Done',
  session_id: 's',
  is_stakeholder: false,
  is_user: true,
  available_credentials: [],
  allow_totp_remember: false,
  ...extra,
});

describe('return_to after signing in again', () => {
  it.each([
    ['back to the profile', done(), 'email=a%40b.c&return_to=%2Fprofile', '/profile'],
    ['a stakeholder too, instead of the sharing portal', done({ is_stakeholder: true, is_user: false }), 'return_to=/profile', '/profile'],
    ['with its own query', done(), `return_to=${encodeURIComponent('/profile/credentials/totp/setup?x=1')}`, '/profile/credentials/totp/setup?x=1'],
    ['over the server’s usual choice', done({ redirect_to: '/login/select-tenant' }), 'email=a%40b.c&return_to=%2Fprofile', '/profile'],
    ['a stakeholder’s too', done({ redirect_to: '/auth/athena', is_stakeholder: true, is_user: false }), 'return_to=%2Fprofile', '/profile'],
    ['an OAuth interaction still wins', done({ redirect_to: '/auth/interaction/abc/finish' }), 'interaction=abc&return_to=/profile', '/auth/interaction/abc/finish'],
    ['client_id still wins', done(), 'client_id=app&return_to=/profile', '/oauth2/authorize?client_id=app&return_to=%2Fprofile'],
    ['another host is ignored', done(), 'return_to=https://evil.example/', '/login/select-tenant'],
    ['a protocol-relative path is ignored', done(), 'return_to=//evil.example/x', '/login/select-tenant'],
    ['a backslash path is ignored', done(), `return_to=${encodeURIComponent('/\\evil.example')}`, '/login/select-tenant'],
    ['a relative path is ignored', done(), 'return_to=profile', '/login/select-tenant'],
  ])('%s', (_name, session, search, target) => {
    expect(doneTarget(session, search, origin)).toBe(target);
  });

  it.each(['/\\\\evil', '/pro file', '/x\u0000', '/x\ny', 'javascript:alert(1)', '', `/${'a'.repeat(600)}`])('refuses %j', (target) => {
    expect(localPath(target)).toBeNull();
  });
});

describe('name rules (as the server checks them)', () => {
  it.each([
    ['Åsa Öberg', null],
    ['  padded  ', null],
    ['', 'required'],
    ['   ', 'required'],
    ['x'.repeat(100), null],
    ['x'.repeat(101), 'too_long'],
    ['😀'.repeat(100), null],
    ['Eve\u0007', 'invalid'],
    ['Eve\u202Egnp', 'invalid'],
  ])('%j → %s', (value, problem) => {
    expect(nameProblem(value)).toBe(problem);
  });
});

const event = (action: string, details: ActivityEvent['details'] = {}, by: ActivityEvent['by'] = 'you'): ActivityEvent => ({
  id: '1',
  action,
  at: '2026-11-20T10:00:00.000Z',
  by,
  details,
});

/** The line as i18next renders it, from a catalogue. */
function render(catalogue: unknown, input: ActivityEvent): string {
  const { key, values } = activityText(input);
  let text = translate(catalogue, key);
  for (const [name, value] of Object.entries(values)) text = text.replace(`{{${name}}}`, typeof value === 'string' ? value : translate(catalogue, value.key));
  return text;
}

describe('recent activity lines', () => {
  it.each([
    [event('login.succeeded', { method: 'password' }), 'Signed in with password', 'Inloggad med lösenord'],
    [event('login.succeeded', { method: 'google' }), 'Signed in with Google', 'Inloggad med Google'],
    [event('login.succeeded', { method: 'something-new' }), 'Signed in with another method', 'Inloggad med en annan metod'],
    [event('account.setting.changed', { key: 'locale', value: 'sv' }), 'Language changed to Svenska', 'Språket ändrat till Svenska'],
    [event('account.setting.changed', { key: 'name' }), 'Name changed', 'Namnet ändrat'],
    [event('grant.revoked', { client: 'athena' }), 'Application signed out: athena', 'Program utloggat: athena'],
    [
      event('operator.impersonation.started', { tenant: 'Acme', reason: 'Ticket 12', as: 'user' }, 'support'),
      'Support signed in as you to Acme — reason: Ticket 12',
      'Support loggade in som du i Acme — anledning: Ticket 12',
    ],
    [
      event('operator.impersonation.started', {}, 'support'),
      'Support signed in as you to a customer environment — reason: not given',
      'Support loggade in som du i en kundmiljö — anledning: inget angivet',
    ],
    [event('operator.impersonation.used', { tenant: 'Acme', client: 'tenant-app' }, 'support'), 'Support opened Acme signed in as you', 'Support öppnade Acme inloggad som du'],
    [event('operator.impersonation.used', {}, 'support'), 'Support opened a customer environment signed in as you', 'Support öppnade en kundmiljö inloggad som du'],
    [event('operator.account.unlocked', {}, 'support'), 'Support unlocked sign-in to your account', 'Support låste upp inloggningen till ditt konto'],
    [event('operator.account.signed_out', {}, 'support'), 'Support signed you out everywhere', 'Support loggade ut dig överallt'],
    [event('operator.something.new', {}, 'support'), 'Support made a change to your account', 'Support gjorde en ändring i ditt konto'],
    [event('devices.revoked_all', { count: 2, reason: 'totp_replaced' }), 'All remembered devices forgotten', 'Alla ihågkomna enheter glömda'],
    [event('devices.revoked_all', { count: 1, reason: 'signed_out_others' }), 'Remembered devices in other browsers forgotten', 'Ihågkomna enheter i andra webbläsare glömda'],
    [event('passkey.clone_suspected'), 'A passkey sign-in was refused: the passkey may have been copied', 'En inloggning med inloggningsnyckel nekades: inloggningsnyckeln kan ha kopierats'],
    [
      event('operator.account.email_change_requested', { email: 'pat@new.example' }, 'support'),
      'Support asked to change your email address to pat@new.example',
      'Support bad om att ändra din e-postadress till pat@new.example',
    ],
    [
      event('operator.account.email_change_withdrawn', { email: 'pat@new.example' }, 'support'),
      'Support withdrew the request to change your email address to pat@new.example',
      'Support drog tillbaka begäran om att ändra din e-postadress till pat@new.example',
    ],
    [
      event('account.email_change_cancelled', { email: 'pat@new.example', reason: 'replaced' }, 'system'),
      'The request to change your email address to pat@new.example was cancelled',
      'Begäran om att ändra din e-postadress till pat@new.example avbröts',
    ],
    [
      event('account.email_change_refused', { email: 'pat@new.example', reason: 'requester_not_admin' }, 'system'),
      'A confirmation of the change of your email address to pat@new.example was refused',
      'En bekräftelse av ändringen av din e-postadress till pat@new.example nekades',
    ],
    [event('brand.new.action'), 'Account activity', 'Kontoaktivitet'],
  ])('%j', (input, english, swedish) => {
    expect([render(en, input), render(sv, input)]).toEqual([english, swedish]);
  });

  it('has a text for every action the server writes about a person', () => {
    const actions = ['login.failed', 'login.locked', 'password.changed', 'password.setup_link.sent', 'totp.activated', 'device.revoked', 'device.remembered', 'devices.revoked_all', 'session.revoked', 'sessions.revoked_others', 'credential.removed', 'operator.credential.deleted', 'operator.password_reset.sent', 'operator.account.unlocked', 'operator.account.signed_out', 'operator.account.email_change_requested', 'operator.account.email_change_withdrawn', 'account.email_changed', 'account.email_change_cancelled', 'account.email_change_refused', 'operator.tokens.viewed', 'operator.impersonation.used', 'passkey.registered', 'passkey.removed', 'passkey.clone_suspected', 'upstream.linked'];
    for (const action of actions) {
      const { key } = activityText(event(action, { type: 'totp' }));
      expect([action, translate(en, key) !== key, translate(sv, key) !== key, key.endsWith('.other')]).toEqual([action, true, true, false]);
    }
  });
});

describe('profile calls', () => {
  let calls: { url: string; init: RequestInit }[] = [];
  beforeEach(() => {
    calls = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        return new Response(init.method === 'DELETE' ? null : '{}', { status: init.method === 'DELETE' ? 204 : 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('send JSON with the session cookie to the documented paths', async () => {
    await api.saveSetting({ key: 'locale', value: 'sv' });
    await api.changePassword({ current_password: 'a', new_password: 'b', sign_out_others: true });
    await api.requestPasswordSetupLink();
    await api.signOutOtherSessions();
    await api.signOutSession('a/b');
    await api.signOutApplication('g1');
    await api.accountSessions();
    await api.accountActivity();
    expect(calls.map((c) => `${c.init.method} ${c.url} ${c.init.body ?? ''}`)).toEqual([
      'POST /api/accounts/settings {"key":"locale","value":"sv"}',
      'POST /api/accounts/password {"current_password":"a","new_password":"b","sign_out_others":true}',
      'POST /api/accounts/password/setup-link {}',
      'POST /api/accounts/sessions/sign-out-others {}',
      'DELETE /api/accounts/sessions/a%2Fb ',
      'DELETE /api/accounts/applications/g1 ',
      'GET /api/accounts/sessions ',
      'GET /api/accounts/activity ',
    ]);
    for (const call of calls) {
      expect(call.init.credentials).toBe('same-origin');
      expect((call.init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    }
  });
});
