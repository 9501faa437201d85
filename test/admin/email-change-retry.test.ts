import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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

const { fresh, confirm, accountOf, auditOf, signedInAdmin, customer, requested } = emailChangeSteps(() => t);

/** What node-postgres throws when the server goes away mid-request: answered 503. */
const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), {});

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

  it('answers 200 and finishes the sign-out everywhere when the store failed after the commit', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const personBrowser = await signIn(t, person);
    const target = fresh('half');
    const token = await requested(operator, person, target);
    const set = t.ctx.store.set.bind(t.ctx.store);
    vi.spyOn(t.ctx.store, 'set').mockImplementation(async (key, value, ttl) => {
      if (key.startsWith('credentials-changed:')) throw new StoreUnavailableError('down');
      return set(key, value, ttl);
    });
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    expect((await accountOf(person.id)).email).toBe(target);
    // Not signed out: the sign-out everywhere stopped at its first step.
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(200);

    const retry = await confirm(token);
    expect([retry.status, retry.body]).toEqual([200, { status: 'changed', email: target }]);
    expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);
    // Done: the link is spent, and the change was made and recorded once.
    const spent = await confirm(token);
    expect([spent.status, errorType(spent)]).toEqual([406, 'invalid_token']);
    expect(await auditOf(person.id, 'account.email_changed')).toHaveLength(1);
  });

  it('does not give the link back when a newer request replaced it while its commit failed', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const token = await requested(operator, person, fresh('replaced'));
    const newer = fresh('newer');
    const real = t.ctx.db.transaction.bind(t.ctx.db) as (work: (trx: unknown) => Promise<unknown>) => Promise<unknown>;
    vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce(((work: (trx: unknown) => Promise<unknown>) =>
      real(async (trx) => {
        await work(trx);
        throw connectionLost();
      }).catch(async (error: unknown) => {
        // The newer request lands between the claim and the failed commit's giving back.
        vi.restoreAllMocks();
        await requested(operator, person, newer);
        throw error;
      })) as never);
    expect((await confirm(token)).status).toBe(503);
    vi.restoreAllMocks();
    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
  });
});
