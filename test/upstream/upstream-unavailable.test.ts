import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { errorOf, locationOf, startLogin } from './journey.ts';

/**
 * A provider without configuration is hidden and refused; a configured one that cannot be
 * reached answers a clear error at once (the discovery has a timeout and is retried later).
 */
let t: TestApp;
let closedIssuer: string;

beforeAll(async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedIssuer = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await new Promise((resolve) => probe.close(resolve));
  t = await startTestApp({ env: { GOOGLE_CLIENT_ID: 'nyckel', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_ISSUER: closedIssuer } });
});
afterAll(async () => {
  await t?.close();
});

describe('providers that cannot be used', () => {
  it('lists only the configured provider', async () => {
    expect((await t.agent().get('/auth/providers')).body).toEqual({ providers: [{ id: 'google', host: new URL(closedIssuer).host }] });
  });

  it('answers oauth/provider_not_configured for Microsoft, and oauth/provider_unavailable for an unreachable Google', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    const browser = t.agent();
    const sessionId = await startLogin(browser, account.email);
    const microsoft = await browser.get(`/auth/login/oauth/microsoft?session_id=${sessionId}`).redirects(0);
    expect(errorOf(locationOf(microsoft))).toBe('oauth/provider_not_configured');
    const google = await browser.get(`/auth/login/oauth/google?session_id=${sessionId}`).redirects(0);
    expect(errorOf(locationOf(google))).toBe('oauth/provider_unavailable');
    expect(locationOf(google)).toContain(`session_id=${sessionId}`);
  });

  it('refuses a callback for a provider that is not configured', async () => {
    const res = await t.agent().get('/auth/oauth/callback/microsoft?code=x&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').redirects(0);
    expect(errorOf(locationOf(res))).toBe('oauth/state_mismatch');
  });
});
