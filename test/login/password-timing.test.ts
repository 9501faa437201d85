import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, start } from './journey.ts';

/**
 * A wrong password for an account without a password credential (Google only) takes about as long
 * as one for an account with a password: the verifier does the same argon2id work against a dummy
 * hash (src/credentials/password/password.verifier.ts), so the answer time does not tell which it
 * was. Without that work the answer comes back several times faster.
 *
 * Made to hold on a loaded 2-core CI machine: the two kinds run interleaved (each round in the
 * other order), each from a fresh account and login session (no lockout, no cached state), and the
 * medians are compared with a wide margin (without > with / 2; equalised they are close, without
 * the dummy work `without` is a fraction of `with`).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const rounds = 7;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Time of one wrong-password verify-password call, for a fresh account of the kind given. */
async function timeWrongPassword(kind: 'with' | 'without'): Promise<number> {
  const account = await createAccount(t.ctx.db, kind === 'with' ? { password: 'Correct-Horse-9' } : { oidc: ['accounts.google.com'] });
  const browser = t.agent();
  const started = await start(browser, account.email);
  expect(started.body.state).toBe('CredentialsRequired');
  const body = { session_id: started.body.session_id, email: account.email, password: 'Wrong-Horse-9' };
  const began = performance.now();
  const res = await browser.post('/auth/login/verify-password').send(body);
  const took = performance.now() - began;
  expect([res.status, errorType(res)]).toEqual([401, 'invalid_credentials']);
  return took;
}

it('a wrong password takes as long without a password credential as with one (medians of interleaved runs)', async () => {
  // Warm-up, not measured: the first dummy verification makes the dummy hash.
  await timeWrongPassword('without');
  await timeWrongPassword('with');

  const times = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
    for (const kind of order) times[kind].push(await timeWrongPassword(kind));
  }
  const withPassword = median(times.with);
  const withoutPassword = median(times.without);
  expect(withoutPassword, `median ms: with ${withPassword.toFixed(1)}, without ${withoutPassword.toFixed(1)}`).toBeGreaterThan(withPassword / 2);
}, 60_000);
