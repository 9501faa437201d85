import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { activityText } from '../../portal/src/profile/activity-text.ts';
import type { ActivityEntry } from '../../src/profile/activity-summary.ts';
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
      ['Passkey removed', 'Inloggningsnyckel (passkey) borttagen'],
      ['Passkey added', 'Inloggningsnyckel (passkey) tillagd'],
    ]);
    for (const secret of ['google-subject-4711', '203.0.113.9', account.email]) expect(JSON.stringify(res.body)).not.toContain(secret);
  });
});
