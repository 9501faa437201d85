import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { emailChangeSteps } from './email-change-steps.ts';
import { errorType, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/**
 * A confirmation that fails part way answers 503, and the portal offers Try again: the link must
 * still work for it, whether the failure came before the change was committed or after. Real app,
 * real stores; spies on the database and the store stand in for their outage.
 */
let t: AdminTestApp;
beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => vi.restoreAllMocks());

const { fresh, confirm, accountOf, auditOf, signedInAdmin, customer, requested, requestChange, withdraw, linkMail, tokenIn } = emailChangeSteps(() => t);

/** What node-postgres throws when the server goes away mid-request: answered 503. */
const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), {});

type Work = (trx: unknown) => Promise<unknown>;
const realTransaction = () => t.ctx.db.transaction.bind(t.ctx.db) as (work: Work) => Promise<unknown>;

/**
 * The next transaction does all its work (the link claimed last) and fails instead of committing;
 * `meanwhile` runs once it has failed, before the confirmation gives the link back.
 */
function commitFails(meanwhile: () => Promise<void> = async () => {}) {
  const real = realTransaction();
  vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce(((work: Work) =>
    real(async (trx) => {
      await work(trx);
      throw connectionLost();
    }).catch(async (error: unknown) => {
      vi.restoreAllMocks();
      await meanwhile();
      throw error;
    })) as never);
}

/** The mails a confirmed change sends: the security notice to the new address, the mail to the old one. */
async function changeMails(oldEmail: string, newEmail: string) {
  await settleSecurityNotices();
  return {
    notices: t.mail.to(newEmail).filter((m) => m.subject === 'This is now the email address of your account').length,
    toOld: t.mail.to(oldEmail).filter((m) => m.subject === 'Your account has a new email address').length,
  };
}

describe('Try again after a confirmation answered 503', () => {
  it('confirms when the database failed before the change', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('outage');
    const token = await requested(operator, person, target);
    vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce((() => Promise.reject(connectionLost())) as never);
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(person.email);

    const retry = await confirm(token);
    expect([retry.status, retry.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await accountOf(person.id)).email).toBe(target);
    expect((await confirm(token)).status).toBe(406);
  });

  it('confirms when the commit failed after the link was claimed: the link was given back', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('commit');
    const token = await requested(operator, person, target);
    const real = t.ctx.db.transaction.bind(t.ctx.db) as (work: (trx: unknown) => Promise<unknown>) => Promise<unknown>;
    // The whole change runs, the link is claimed, and then the transaction fails instead of committing.
    vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce(((work: (trx: unknown) => Promise<unknown>) =>
      real(async (trx) => {
        await work(trx);
        throw connectionLost();
      })) as never);
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(person.email);
    expect(await auditOf(person.id, 'account.email_changed')).toEqual([]);

    expect((await confirm(token)).status).toBe(200);
    expect((await accountOf(person.id)).email).toBe(target);
    expect(await auditOf(person.id, 'account.email_changed')).toHaveLength(1);
  });

  /** A change confirmed and committed whose sign-out everywhere failed (the store down at its first step): the person is still signed in. */
  async function committedStillSignedIn(name: string) {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const personBrowser = await signIn(t, person);
    const target = fresh(name);
    const token = await requested(operator, person, target);
    const set = t.ctx.store.set.bind(t.ctx.store);
    vi.spyOn(t.ctx.store, 'set').mockImplementation(async (key, value, ttl) => {
      if (key.startsWith('credentials-changed:')) throw new StoreUnavailableError('down');
      return set(key, value, ttl);
    });
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(target);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(200);
    return { admin, operator, person, personBrowser, target, token };
  }

  it('answers 200 and finishes the sign-out everywhere when the store failed after the commit', async () => {
    const { person, personBrowser, target, token } = await committedStillSignedIn('half');
    const retry = await confirm(token);
    expect([retry.status, retry.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    // Done: the link is spent, and the change was made and recorded once.
    const spent = await confirm(token);
    expect([spent.status, errorType(spent)]).toEqual([406, 'invalid_token']);
    expect(await auditOf(person.id, 'account.email_changed')).toHaveLength(1);
  });

  it('a withdrawal after a confirmation whose sign-out failed finishes the sign-out and answers 409, telling no one twice', async () => {
    const { admin, operator, person, personBrowser, target, token } = await committedStillSignedIn('withdrawn-half');
    await settleSecurityNotices();
    const mailsBefore = t.mail.to(target).length + t.mail.to(person.email).length;

    // The person never tries again; an admin withdraws what the console no longer lists.
    const res = await withdraw(operator, person.id);
    expect([res.status, errorType(res)]).toEqual([409, 'account/email-change-made']);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([]);
    // The operator's doing signed the account out: on record, with the address it has now.
    expect(await auditOf(person.id, 'operator.account.email_change_finished')).toEqual([
      { actor_id: admin.id, details: { role: 'admin', email: target } },
    ]);
    await settleSecurityNotices();
    expect(t.mail.to(target).length + t.mail.to(person.email).length).toBe(mailsBefore);
    // Finished: the link is spent, and a second withdrawal finds nothing.
    const spent = await confirm(token);
    expect([spent.status, errorType(spent)]).toEqual([406, 'invalid_token']);
    const again = await withdraw(operator, person.id);
    expect([again.status, errorType(again)]).toEqual([404, 'account/no-pending-email-change']);
  });

  it('does not give the link back when a newer request replaced it while its commit failed', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const token = await requested(operator, person, fresh('replaced'));
    // The newer request lands between the claim and the failed commit's giving back.
    commitFails(async () => {
      await requested(operator, person, fresh('newer'));
    });
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
  });

  it('refuses, sending nothing, a second link to the same address once the first one moved the account', async () => {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('twice');
    const first = await requested(operator, person, target);
    // A second request for the same address, held after it has read the account (still at the
    // old address) and kept its link, until the first link has been confirmed.
    const get = t.ctx.store.get.bind(t.ctx.store);
    let reached: () => void = () => {};
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    vi.spyOn(t.ctx.store, 'get').mockImplementation(async (key) => {
      if (holding && key === `email-change-account:${person.id}`) {
        holding = false;
        reached();
        await released;
      }
      return get(key);
    });
    // then(): supertest sends only once asked for the answer.
    const secondRequest = requestChange(operator, person.id, target).then((res) => res);
    await held;
    expect((await confirm(first)).status).toBe(200);
    release();
    expect((await secondRequest).status).toBe(202);
    vi.restoreAllMocks();
    const second = tokenIn(await linkMail(target))!;
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    const movedBrowser = await signIn(t, { ...person, email: target });

    const res = await confirm(second);
    expect([res.status, errorType(res)]).toEqual([406, 'invalid_token']);
    expect(await auditOf(person.id, 'account.email_change_refused')).toEqual([
      { actor_id: null, details: { email: target, reason: 'address_changed', requested_by: admin.id } },
    ]);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
    expect((await movedBrowser.get('/oauth2/userinfo')).status).toBe(200);
    expect(await auditOf(person.id, 'account.email_changed')).toHaveLength(1);
  });
});

describe('a withdrawal while the link is being confirmed', () => {
  it('answers nothing pending, and the link is not given back when the commit fails', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const token = await requested(operator, person, fresh('withdrawn'));
    let withdrawal: Awaited<ReturnType<typeof withdraw>> | undefined;
    commitFails(async () => {
      withdrawal = await withdraw(operator, person.id);
    });
    expect((await confirm(token)).status).toBe(503);
    expect([withdrawal?.status, errorType(withdrawal!)]).toEqual([404, 'account/no-pending-email-change']);

    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([]);
  });

  it('is not undone by a giving back that checked just before it', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const token = await requested(operator, person, fresh('between'));
    // The withdrawal lands after the giving back saw the link still the account's, before its write.
    const replace = t.ctx.store.replaceIfUnchanged.bind(t.ctx.store);
    let withdrawal: Awaited<ReturnType<typeof withdraw>> | undefined;
    commitFails(async () => {
      vi.spyOn(t.ctx.store, 'replaceIfUnchanged').mockImplementation(async (key, expected, value, ttl) => {
        if (withdrawal === undefined && key.startsWith('email-change:') && JSON.parse(value).state === 'pending') {
          withdrawal = await withdraw(operator, person.id);
        }
        return replace(key, expected, value, ttl);
      });
    });
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    expect(withdrawal?.status).toBe(404);

    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
  });

  it('answers the change made, and leaves it standing, once the commit went through', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const target = fresh('first');
    const token = await requested(operator, person, target);
    // Committed, and the link still held as confirmed: the sign-out everywhere has not run yet.
    const real = realTransaction();
    let withdrawal: Awaited<ReturnType<typeof withdraw>> | undefined;
    vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce((async (work: Work) => {
      const done = await real(work);
      withdrawal = await withdraw(operator, person.id);
      return done;
    }) as never);
    const res = await confirm(token);
    expect([res.status, res.body]).toEqual([200, { status: 'changed', email: target }]);
    // Made already: the withdrawal says so, and its sign-out is the confirmation's, done twice.
    expect([withdrawal?.status, errorType(withdrawal!)]).toEqual([409, 'account/email-change-made']);
    expect(await auditOf(person.id, 'operator.account.email_change_withdrawn')).toEqual([]);
    expect((await accountOf(person.id)).email).toBe(target);
    expect(await changeMails(person.email, target)).toEqual({ notices: 1, toOld: 1 });
  });
});
