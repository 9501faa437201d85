import type { Response } from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { start, type Browser } from '../login/journey.ts';
import { SoftAuthenticator, type Bend, type SoftCredential } from './soft-authenticator.ts';

/** A software authenticator for the test app's origin (config publicUrl). */
export function authenticatorFor(t: TestApp): SoftAuthenticator {
  return new SoftAuthenticator(t.ctx.config.publicUrl);
}

/** Registration from the profile: options, the authenticator's answer, verify. The browser is signed in. */
export async function registerPasskey(
  browser: Browser,
  authenticator: SoftAuthenticator,
  options: { name?: string; bend?: Bend } = {},
): Promise<{ res: Response; credential: SoftCredential }> {
  const created = await browser.post('/auth/passkeys/options').send({});
  expect(created.status).toBe(200);
  const { credential, response } = authenticator.register(created.body, options.bend);
  const res = await browser.post('/auth/passkeys/verify').send({ response, ...(options.name ? { name: options.name } : {}) });
  return { res, credential };
}

/** Start (expects CredentialsRequired with `passkey: true`) and passkey options. */
export async function passkeyOptions(browser: Browser, email: string): Promise<{ sessionId: string; options: Response }> {
  const started = await start(browser, email);
  expect(started.body).toMatchObject({ state: 'CredentialsRequired', passkey: true });
  const sessionId = started.body.session_id as string;
  const options = await browser.post('/auth/login/passkey/options').send({ session_id: sessionId });
  return { sessionId, options };
}

/** A whole passkey sign-in with `credential`; `bend` makes one thing wrong. */
export async function passkeySignIn(
  browser: Browser,
  email: string,
  authenticator: SoftAuthenticator,
  credential?: SoftCredential,
  bend?: Bend,
): Promise<Response> {
  const { sessionId, options } = await passkeyOptions(browser, email);
  expect(options.status).toBe(200);
  const response = authenticator.authenticate(options.body, credential, bend);
  return browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response });
}
