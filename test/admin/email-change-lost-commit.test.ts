import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { emailChangeSteps } from './email-change-steps.ts';
import { errorType, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/**
 * A confirmation whose commit went through but was reported failed (the connection lost after
 * COMMIT reached the server) is a change made: the person moved, and must be signed out
 * everywhere with both addresses told, whatever asks next (the confirmation itself, Try again, a
 * withdrawal). Real app, real stores; spies on the database stand in for the lost connection.
 */
let t: AdminTestApp;
beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => vi.restoreAllMocks());

const { fresh, confirm, accountOf, auditOf, signedInAdmin, customer, requested, withdraw } = emailChangeSteps(() => t);

type Work = (trx: unknown) => Promise<unknown>;

/**
 * The next transaction commits, and then the connection is lost: the commit is reported failed.
 * `silent`: the database then does not answer the next query either (the confirmation cannot
 * ask whether its change committed).
 */
function commitReportedFailed({ silent = false } = {}) {
  const real = t.ctx.db.transaction.bind(t.ctx.db) as (work: Work) => Promise<unknown>;
  vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce((async (work: Work) => {
    await real(work);
    if (silent) vi.spyOn(t.ctx.db.client, 'acquireConnection').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    throw new Error('Connection terminated unexpectedly');
  }) as never);
}

/** The mails a confirmed change sends: the security notice to the new address, the mail to the old one. */
async function changeMails(oldEmail: string, newEmail: string) {
  await settleSecurityNotices();
  return {
    notices: t.mail.to(newEmail).filter((m) => m.subject === 'This is now the email address of your account').length,
    toOld: t.mail.to(oldEmail).filter((m) => m.subject === 'Your account has a new email address').length,
  };
}

/** A person signed in, and their change committed though the confirmation answered 503: the link is pending again. */
async function lostCommit(name: string) {
  const { admin, operator } = await signedInAdmin();
  const person = await customer();
  const personBrowser = await signIn(t, person);
  const target = fresh(name);
  const token = await requested(operator, person, target);
  commitReportedFailed({ silent: true });
  expect((await confirm(token)).status).toBe(503);
  vi.restoreAllMocks();
  expect((await accountOf(person.id)).email).toBe(target);
  expect(await changeMails(person.email, target)).toEqual({ notices: 0, toOld: 0 });
  return { admin, operator, person, personBrowser, target, token };
}

describe('a commit reported failed that went through', () => {
  it('is finished at once when the database answers after the failure: 200, no Try again needed', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const personBrowser = await signIn(t, person);
    const target = fresh('at-once');
    const token = await requested(operator, person, target);
    commitReportedFailed();
    const res = await confirm(token);
    expect([res.status, res.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect(await auditOf(person.id, 'account.email_changed')).toHaveLength(1);
    const spent = await confirm(token);
    expect([spent.status, errorType(spent)]).toEqual([406, 'invalid_token']);
    const pending = await operator.get(`/api/accounts/${person.id}/email-change`);
    expect([pending.status, errorType(pending)]).toEqual([404, 'account/no-pending-email-change']);
  });

  it('gives the link back when the database does not answer, and Try again finishes it', async () => {
    const { person, personBrowser, target, token } = await lostCommit('ambiguous');
    const retry = await confirm(token);
    expect([retry.status, retry.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect(await auditOf(person.id, 'account.email_change_refused')).toEqual([]);
    expect(await auditOf(person.id, 'account.email_changed')).toEqual([
      { actor_id: null, details: expect.objectContaining({ email: target, change_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) }) },
    ]);
    const spent = await confirm(token);
    expect([spent.status, errorType(spent)]).toEqual([406, 'invalid_token']);
  });

  it('is finished by Try again though the admin who asked is no longer one: it was valid when committed', async () => {
    const { admin, person, personBrowser, target, token } = await lostCommit('demoted');
    await t.ctx.db('operator_roles').where({ account_id: admin.id }).update({ role: 'support' });
    const retry = await confirm(token);
    expect([retry.status, retry.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect(await auditOf(person.id, 'account.email_change_refused')).toEqual([]);
  });

  it('is not withdrawn: the withdrawal finishes it, telling both addresses and signing the account out, and answers 409', async () => {
    const { admin, operator, person, personBrowser, target, token } = await lostCommit('withdrawn');
    // The console lists the change as pending, though the account has moved.
    expect((await operator.get(`/api/accounts/${person.id}/email-change`)).status).toBe(200);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(200);

    const res = await withdraw(operator, person.id);
    expect([res.status, errorType(res)]).toEqual([409, 'account/email-change-made']);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([]);
    expect(await auditOf(person.id, 'operator.account.email_change_finished')).toEqual([
      { actor_id: admin.id, details: { role: 'admin', email: target } },
    ]);
    const pending = await operator.get(`/api/accounts/${person.id}/email-change`);
    expect([pending.status, errorType(pending)]).toEqual([404, 'account/no-pending-email-change']);
    const again = await withdraw(operator, person.id);
    expect([again.status, errorType(again)]).toEqual([404, 'account/no-pending-email-change']);

    // Finished: the link is spent, as after a confirmation.
    const retry = await confirm(token);
    expect([retry.status, errorType(retry)]).toEqual([406, 'invalid_token']);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect((await accountOf(person.id)).email).toBe(target);
  });

});
