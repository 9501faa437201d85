import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emailChangeSteps } from './email-change-steps.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/**
 * What ends a pending email change besides its confirmation: an admin withdrawing it, a newer
 * request, the requesting admin losing the role. And what does not: an operator's sign-out
 * everywhere and a password reset, so whoever holds the old mailbox cannot block the move. Real
 * app, real SMTP.
 */
let t: AdminTestApp;
beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => vi.restoreAllMocks());

const { fresh, requestChange, withdraw, confirm, accountOf, auditOf, tokenIn, linkMail, signedInAdmin, customer, requested } = emailChangeSteps(() => t);

describe('withdrawing a pending email change', () => {
  it('ends its link at once, audited with the address it would have moved to', async () => {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const wrong = fresh('wrong');
    const token = await requested(operator, person, wrong);
    // Asking for the current address does not end it: that is refused as unchanged.
    expect(errorType(await requestChange(operator, person.id, person.email))).toBe('account/email-unchanged');

    const res = await withdraw(operator, person.id);
    expect([res.status, res.body]).toEqual([200, { status: 'withdrawn', email: wrong }]);
    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([
      { actor_id: admin.id, details: { role: 'admin', email: wrong } },
    ]);
    // The account's activity shows it, with the address.
    const own = await signIn(t, person);
    const activity = await own.get('/api/accounts/activity');
    expect(activity.body.events).toContainEqual(expect.objectContaining({ action: 'operator.account.email_change_withdrawn', by: 'support', details: { email: wrong } }));
  });

  it('answers 404 when nothing is pending (none asked, confirmed or withdrawn), recording nothing', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const none = await withdraw(operator, person.id);
    expect([none.status, errorType(none)]).toEqual([404, 'account/no-pending-email-change']);
    const token = await requested(operator, person, fresh('kept'));
    expect((await confirm(token)).status).toBe(200);
    const done = await withdraw(operator, person.id);
    expect([done.status, errorType(done)]).toEqual([404, 'account/no-pending-email-change']);
    const unknown = await withdraw(operator, '00000000-0000-4000-8000-000000000000');
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'not_found']);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([]);
  });

  it('after two requests at once leaves no link working: the later one replaced the earlier', async () => {
    const a = await signedInAdmin();
    const b = await signedInAdmin();
    const person = await customer();
    const [first, second] = [fresh('one'), fresh('two')];
    // Two processes reading the account's pending change before either wrote it: the first two
    // reads of it wait for each other.
    const get = t.ctx.store.get.bind(t.ctx.store);
    let reads = 0;
    let release: () => void = () => {};
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(t.ctx.store, 'get').mockImplementation(async (key) => {
      const value = await get(key);
      if (key === `email-change-account:${person.id}` && ++reads <= 2) {
        if (reads === 2) release();
        await bothRead;
      }
      return value;
    });
    const [ra, rb] = await Promise.all([requestChange(a.operator, person.id, first), requestChange(b.operator, person.id, second)]);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    vi.restoreAllMocks();
    const tokens = [tokenIn(await linkMail(first))!, tokenIn(await linkMail(second))!];

    expect((await withdraw(a.operator, person.id)).status).toBe(200);
    for (const token of tokens) expect((await confirm(token)).status).toBe(406);
    expect((await accountOf(person.id)).email).toBe(person.email);
  });

  it('is for admins: support gets 403 and the link still works', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('stays');
    const token = await requested(operator, person, target);
    const support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
    const bySupport = await withdraw(support, person.id);
    expect([bySupport.status, errorType(bySupport)]).toEqual([403, 'forbidden']);
    expect((await confirm(token)).status).toBe(200);
    expect((await accountOf(person.id)).email).toBe(target);
  });
});

describe('what voids a pending email change, and what does not', () => {
  it('once the admin who asked is no longer an admin', async () => {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const token = await requested(operator, person, fresh('offboarded'));
    await t.ctx.db('operator_roles').where({ account_id: admin.id }).update({ role: 'support' });
    const res = await confirm(token);
    expect([res.status, errorType(res)]).toEqual([406, 'invalid_token']);
    expect(await auditOf(person.id, 'account.email_change_refused')).toEqual([
      { actor_id: null, details: { email: expect.stringContaining('offboarded'), reason: 'requester_not_admin', requested_by: admin.id } },
    ]);
    // Spent: the operator asks again (an admin, this time).
    await t.ctx.db('operator_roles').where({ account_id: admin.id }).update({ role: 'admin' });
    expect((await confirm(token)).status).toBe(406);
    expect((await accountOf(person.id)).email).toBe(person.email);
  });

  it('not by an operator signing the account out everywhere: the move may be the way out of a takeover', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('signed-out');
    const token = await requested(operator, person, target);
    const support = await createPersona(t.ctx, { role: 'support', totp: true });
    expect((await (await signIn(t, support)).post(`/api/accounts/${person.id}/sign-out-everywhere`)).status).toBe(200);
    expect((await confirm(token)).status).toBe(200);
    expect((await accountOf(person.id)).email).toBe(target);
    expect(await auditOf(person.id, 'account.email_change_cancelled')).toEqual([]);
  });

  it('not by a password reset: whoever holds the old mailbox cannot block the move with one', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('reset');
    const token = await requested(operator, person, target);
    expect((await t.agent().post('/auth/reset/request').send({ email: person.email })).status).toBe(200);
    const mail = await t.mail.waitFor(person.email, (m) => /\/login\/set-password\//.test(m.text));
    const resetToken = /\/login\/set-password\/([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
    expect((await t.agent().post('/auth/reset/confirm').send({ token: resetToken, password: 'Back-In-Again-42' })).status).toBe(200);
    expect((await confirm(token)).status).toBe(200);
    expect((await accountOf(person.id)).email).toBe(target);
    expect(await auditOf(person.id, 'account.email_change_cancelled')).toEqual([]);
  });
});
