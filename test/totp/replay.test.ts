import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimTimeStep, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, type Browser } from '../login/journey.ts';
import { alignToStep, codeAt, createTotpAccount, passwordStep, signIn, verifyMfa, type TotpAccount } from './helpers.ts';

/**
 * RFC 6238 §5.2 and NIST SP 800-63B 5.1.4.2: once a code of time step T was accepted for a
 * credential, only codes of later steps are, although the window (one step either side) would
 * still match the code of T-1.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => alignToStep(t.ctx));

/** The code of `steps` time steps from now, submitted in a new sign-in (its own browser and login session). */
async function signInWithCode(account: TotpAccount, steps: number, browser: Browser = t.agent()) {
  const mfa = await passwordStep(browser, account.email);
  return verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!, steps));
}

const outcome = (res: Awaited<ReturnType<typeof verifyMfa>>) => (res.status === 200 ? res.body.state : errorType(res));

describe('TOTP codes are accepted only in increasing time steps, per credential', () => {
  it('after the current step’s code, the previous step’s code (still inside the window) is refused', async () => {
    const account = await createTotpAccount(t.ctx);
    expect(outcome(await signInWithCode(account, 0))).toBe('Done');
    expect(outcome(await signInWithCode(account, -1))).toBe('mfa/invalid');
  });

  it('after the next step’s code (a phone ahead of the server), the current and the previous step’s are refused', async () => {
    const account = await createTotpAccount(t.ctx);
    expect(outcome(await signInWithCode(account, 1))).toBe('Done');
    expect(outcome(await signInWithCode(account, 0))).toBe('mfa/invalid');
    expect(outcome(await signInWithCode(account, -1))).toBe('mfa/invalid');
  });

  it('codes of later steps keep working: previous, current, then next step', async () => {
    const account = await createTotpAccount(t.ctx);
    for (const steps of [-1, 0, 1]) expect([steps, outcome(await signInWithCode(account, steps))]).toEqual([steps, 'Done']);
  });

  it('another credential’s accepted step does not refuse this one’s codes', async () => {
    const [a, b] = [await createTotpAccount(t.ctx), await createTotpAccount(t.ctx)];
    expect(outcome(await signInWithCode(a, 1))).toBe('Done');
    expect(outcome(await signInWithCode(b, 0))).toBe('Done');
  });

  it('the code typed at activation sets the step: an older code of the window is refused at the next sign-in', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    const { secret } = (await browser.get('/auth/tfa/setup')).body as { secret: string };
    const activated = await browser.post('/auth/tfa/activate').send({ totp_code: await totpCodeAt(secret, t.ctx.now()) });
    expect(activated.status).toBe(200);
    const enrolled = { ...account, secrets: [secret], totpIds: [activated.body.id as string] };
    expect(outcome(await signInWithCode(enrolled, -1))).toBe('mfa/invalid');
  });

  it('simultaneous codes from several browsers: each step accepted at most once, the newest always', async () => {
    const account = await createTotpAccount(t.ctx);
    const browsers = Array.from({ length: 4 }, () => t.agent());
    const sessions = await Promise.all(browsers.map(async (browser) => (await passwordStep(browser, account.email)).body.session_id as string));
    const steps = [-1, 0, -1, 0];
    const answers = await Promise.all(
      browsers.map(async (browser, i) => verifyMfa(browser, sessions[i]!, await codeAt(t.ctx, account.secrets[0]!, steps[i]))),
    );
    const acceptedSteps = steps.filter((_, i) => answers[i]!.status === 200);
    expect(answers.every((a) => a.status === 200 || errorType(a) === 'mfa/invalid')).toBe(true);
    // The step-0 code is newer than anything accepted before it: exactly one of its two wins. The
    // step -1 code wins at most once, and only if it ran before the step-0 code (not observable here).
    expect(acceptedSteps.filter((s) => s === 0)).toHaveLength(1);
    expect(acceptedSteps.filter((s) => s === -1).length).toBeLessThanOrEqual(1);
    // Afterwards neither step works again.
    expect(outcome(await signInWithCode(account, 0))).toBe('mfa/invalid');
    expect(outcome(await signInWithCode(account, -1))).toBe('mfa/invalid');
  });
});

describe('claimTimeStep: the store claim behind it', () => {
  it.each([
    ['one step', [100], [true]],
    ['the same step twice', [100, 100], [true, false]],
    ['increasing steps', [99, 100, 101], [true, true, true]],
    ['an older step after a newer one', [100, 99], [true, false]],
    ['every step of the window below the accepted one', [101, 100, 99, 98], [true, false, false, false]],
    ['a newer step after refused older ones', [100, 99, 101, 100], [true, false, true, false]],
  ])('%s', async (_name, steps, accepted) => {
    const credentialId = randomUUID();
    const answers: boolean[] = [];
    for (const step of steps) answers.push(await claimTimeStep(t.ctx, credentialId, step));
    expect(answers).toEqual(accepted);
  });

  it('simultaneous claims (the store answers them in the order issued): the accepted steps strictly increase', async () => {
    for (let round = 0; round < 50; round += 1) {
      const credentialId = randomUUID();
      const steps = Array.from({ length: 6 }, () => 1000 + Math.floor(Math.random() * 3));
      const answers = await Promise.all(steps.map((step) => claimTimeStep(t.ctx, credentialId, step)));
      const expected = steps.map((step, i) => steps.slice(0, i).every((earlier) => earlier < step));
      expect([steps, answers]).toEqual([steps, expected]);
    }
  });

  it('is per credential', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await claimTimeStep(t.ctx, a, 100)).toBe(true);
    expect(await claimTimeStep(t.ctx, b, 99)).toBe(true);
  });
});
