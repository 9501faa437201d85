import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emailChangeSteps } from '../admin/email-change-steps.ts';
import { startAdminApp, type AdminTestApp } from '../admin/harness.ts';

/**
 * A reset link made while an email change commits: the account was looked up by its old address,
 * and the change moved it before the link was written. The link must go where the account is
 * now, never to the mailbox it left (whoever reads that mailbox would set the moved account's
 * password). Real app, real SMTP; a spy on the database runs the confirmation at that moment.
 */
let t: AdminTestApp;
beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => vi.restoreAllMocks());

const { fresh, confirm, accountOf, signedInAdmin, customer, requested } = emailChangeSteps(() => t);

const setPasswordLink = /\/login\/set-password\/([A-Za-z0-9_-]+)/;

/** The next transaction (the reset link's) starts only once the email change is confirmed. */
function confirmBeforeNextTransaction(token: string): void {
  const real = t.ctx.db.transaction.bind(t.ctx.db) as (...args: unknown[]) => unknown;
  let first = true;
  vi.spyOn(t.ctx.db, 'transaction').mockImplementation((async (...args: unknown[]) => {
    if (first) {
      first = false;
      expect((await confirm(token)).status).toBe(200);
    }
    return real(...args);
  }) as never);
}

describe('a reset link made as an email change commits', () => {
  it('“forgot password” at the old address: the link goes to the new address, and none to the old', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('raced');
    const token = await requested(operator, person, target);

    confirmBeforeNextTransaction(token);
    expect((await t.agent().post('/auth/reset/request').send({ email: person.email })).status).toBe(200);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(target);

    const mail = await t.mail.waitFor(target, (m) => setPasswordLink.test(m.text));
    expect(t.mail.to(person.email).filter((m) => setPasswordLink.test(m.text))).toEqual([]);
    const resetToken = setPasswordLink.exec(mail.text)![1]!;
    expect((await t.agent().post('/auth/reset/confirm').send({ token: resetToken, password: 'New-Mailbox-Owner-77' })).status).toBe(200);
  });

  it('an operator’s Reset Password: the link goes to the new address, and none to the old', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('raced-operator');
    const token = await requested(operator, person, target);

    confirmBeforeNextTransaction(token);
    expect((await operator.post(`/api/accounts/${person.id}/reset-password`)).status).toBe(200);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(target);

    await t.mail.waitFor(target, (m) => setPasswordLink.test(m.text));
    expect(t.mail.to(person.email).filter((m) => setPasswordLink.test(m.text))).toEqual([]);
  });
});
