import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { activityText } from '../../portal/src/profile/activity-text.ts';
import type { ActivityEntry } from '../../src/profile/activity-summary.ts';
import { activityLimit } from '../../src/profile/activity.service.ts';
import { linkIdentity } from '../../src/upstream/upstream-linking.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authenticatorFor, registerPasskey } from '../passkeys/helpers.ts';
import { translate } from '../portal/translate.ts';
import { createTotpAccount, signIn } from '../totp/helpers.ts';

/**
 * Changes to how one signs in show up in "Recent activity" as what they are: the server's
 * summary of each audit event, and the line the portal writes for it in English and Swedish.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** The line as i18next renders it, from a catalogue. */
function line(catalogue: unknown, event: ActivityEntry): string {
  const { key, values } = activityText(event);
  let text = translate(catalogue, key);
  for (const [name, value] of Object.entries(values)) text = text.replace(`{{${name}}}`, typeof value === 'string' ? value : translate(catalogue, value.key));
  return text;
}

describe('GET /api/accounts/activity: sign-in method changes', () => {
  it('names an added and a removed passkey and a linked and an unlinked Google account, with no upstream subject or email', async () => {
    // Password and TOTP code: a sign-in that proved a second factor, as removing the passkey needs.
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signIn(t.ctx, browser, account);

    const { res: added } = await registerPasskey(browser, authenticatorFor(t), { name: 'Work laptop' });
    expect(added.status).toBe(201);
    expect((await browser.delete(`/auth/passkeys/${added.body.id}`)).status).toBe(204);
    const identity = { provider: 'google' as const, issuer: 'https://accounts.google.com', subject: 'google-subject-4711', email: account.email, emailVerified: true, tenantId: null, hostedDomain: null };
    const linked = await linkIdentity(t.ctx, account.id, identity, 'profile', { ip: '203.0.113.9', userAgent: 'Test' });
    expect((await browser.delete(`/oauth2/userinfo/credentials/${linked}`)).status).toBe(204);

    const res = await browser.get('/api/accounts/activity');
    expect(res.status).toBe(200);
    const events = (res.body as { events: ActivityEntry[] }).events.slice(0, 4);
    expect(events.map((e) => [e.action, e.by, e.details])).toEqual([
      ['credential.removed', 'you', { type: 'oidc', provider: 'accounts.google.com' }],
      ['upstream.linked', 'you', { provider: 'google' }],
      ['passkey.removed', 'you', { type: 'webauthn' }],
      ['passkey.registered', 'you', {}],
    ]);
    expect(events.map((e) => [line(en, e), line(sv, e)])).toEqual([
      ['Sign-in method removed: Google or Microsoft account', 'Inloggningssätt borttaget: Google- eller Microsoft-konto'],
      ['Sign-in with Google linked', 'Inloggning med Google kopplad'],
      ['Passkey removed', 'Inloggningsnyckel borttagen'],
      ['Passkey added', 'Inloggningsnyckel tillagd'],
    ]);
    for (const secret of ['google-subject-4711', '203.0.113.9', account.email]) expect(JSON.stringify(res.body)).not.toContain(secret);
  });
});

describe('GET /api/accounts/activity: the newest events', () => {
  it('answers the newest 20 of what happened to the account and what the person did alone, whichever kind is more numerous', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    const [other] = (await t.ctx.db('accounts').insert({ email: `other-${account.id}@example.com` }).returning('id')) as { id: string }[];

    // 90 events after the sign-in, one a second, newest first: every third one the person's own
    // (naming no account), the others about the account (failed sign-ins by nobody, an operator's
    // action). The two newest share a second; the later row comes first. Inserted oldest first.
    const base = Date.now() + 3_600_000;
    const planned = Array.from({ length: 90 }, (_, i) => ({
      i,
      at: new Date(base - Math.max(i, 1) * 1000),
      row:
        i % 3 === 0
          ? { action: 'account.setting.changed', actor_id: account.id, target_account_id: null, details: { key: 'name' } }
          : i % 3 === 1
            ? { action: 'login.failed', actor_id: null, target_account_id: account.id, details: { method: 'password' } }
            : { action: 'operator.account.locked', actor_id: other!.id, target_account_id: account.id, details: {} },
    }));
    const ids = new Map<number, string>();
    for (const { i, at, row } of [...planned].reverse()) {
      const [inserted] = (await t.ctx.db('audit_events').insert({ ...row, at }).returning('id')) as { id: string | number }[];
      ids.set(i, String(inserted!.id));
    }
    // Newer still, and not the person's activity: what they did to another account or as an
    // operator (a search names no account), what another did to another.
    await t.ctx.db('audit_events').insert([
      { action: 'operator.account.locked', actor_id: account.id, target_account_id: other!.id, at: new Date(base) },
      { action: 'operator.accounts.searched', actor_id: account.id, target_account_id: null, details: { term: 'karlsson', count: 3 }, at: new Date(base) },
      { action: 'operator.account.viewed', actor_id: other!.id, target_account_id: account.id, details: { read: 'email' }, at: new Date(base) },
      { action: 'account.setting.changed', actor_id: other!.id, target_account_id: null, at: new Date(base) },
    ]);

    const res = await browser.get('/api/accounts/activity');
    expect(res.status).toBe(200);
    const events = (res.body as { events: ActivityEntry[] }).events;
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: activityLimit }, (_, i) => ids.get(i)));
    expect(events.filter((e) => e.by === 'you')).toHaveLength(7);
  });
});
