import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { deleteAccountCredential } from '../../src/admin/accounts/account-actions.service.ts';
import { verifyPassword } from '../../src/credentials/password/hashing.ts';
import { confirmPasswordReset, createResetLink } from '../../src/login/reset.service.ts';
import { changePassword } from '../../src/profile/password.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, passwordHashOf } from '../login/fixtures.ts';

/**
 * Every writer of an account's password, credentials and reset links locks the account's row
 * first, so two of them wait for each other instead of deadlocking (40P01, a 500 for one of the
 * two requests). Each case runs two real service calls on two connections, lined up by a third
 * that holds a lock one of them needs half way: the first call waits there holding what it took
 * before, the second goes as far as it can, then the hold ends. Without one lock order the two
 * then wait for each other. Only real PostgreSQL runs them at once: the embedded database has one
 * connection, which the hold would keep to itself.
 */
const password = 'Correct-horse9!';
const client = { ip: '127.0.0.1', userAgent: 'lock-order test', acceptLanguage: undefined };
let app: TestApp;

type Outcome = { ok: true } | { ok: false; error: unknown };
const settle = (call: Promise<unknown>): Promise<Outcome> =>
  call.then(
    () => ({ ok: true }),
    (error: unknown) => ({ ok: false, error }),
  );

/** Resolves once `count` statements of this database wait for a lock; fails after 3 s. */
async function lockWaiters(count: number): Promise<void> {
  for (const deadline = Date.now() + 3000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const [row] = (await app.ctx.db.raw(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))
      .rows as { n: number }[];
    if (row!.n >= count) return;
  }
  throw new Error(`fewer than ${count} statements waited for a lock`);
}

/** Starts each call once the ones before it wait for a lock, while `hold` keeps one; then lets go. */
async function linedUp(hold: (trx: Knex.Transaction) => Promise<unknown>, calls: (() => Promise<unknown>)[]): Promise<Outcome[]> {
  const holder = await app.ctx.db.transaction();
  const started: Promise<Outcome>[] = [];
  try {
    await hold(holder);
    for (const call of calls) {
      started.push(settle(call()));
      await lockWaiters(started.length);
    }
  } finally {
    await holder.commit();
  }
  return Promise.all(started);
}

const codeOf = (outcome: Outcome) => (outcome.ok ? 'ok' : ((outcome.error as { code?: string; type?: string }).type ?? (outcome.error as { code?: string }).code));

async function accountWithLink(options: { is_user?: boolean } = {}) {
  const account = await createAccount(app.ctx.db, { password, ...options });
  const { link } = await createResetLink(app.ctx, account.id);
  const credential = (await app.ctx.db('credentials').where({ account_id: account.id, type: 'password' }).first('id')) as { id: string };
  return { ...account, credentialId: credential.id, token: link.split('/').at(-1)! };
}

function profileRequest(account: { id: string; email: string }) {
  const now = Math.floor(Date.now() / 1000);
  return {
    session: { id: `lock-order-${account.id}`, account_id: account.id, email: account.email, amr: ['pwd'], auth_time: now, created_at: now, ip: null, user_agent: null },
    opSessionCookie: undefined,
    info: { ip: client.ip, userAgent: client.userAgent },
  };
}

const changeTo = (account: { id: string; email: string }, newPassword: string) => () =>
  changePassword(app.ctx, app.provider, profileRequest(account), { current_password: password, new_password: newPassword, sign_out_others: false });

const lockRow = (table: string, id: string) => (trx: Knex.Transaction) => trx(table).where({ id }).forUpdate().first('id');
const openLinks = (accountId: string) => app.ctx.db('password_reset_tokens').where({ account_id: accountId }).whereNull('used_at').pluck('id');

describe.skipIf(!process.env.DATABASE_URL)('lock order: the account row, then its credentials and reset links', () => {
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a reset confirmed while the password is changed in the profile: the change wins, the link is dead', async () => {
    const account = await accountWithLink();
    // The change holds the account and waits for its password credential; the confirmation comes meanwhile.
    const outcomes = await linedUp(lockRow('credentials', account.credentialId), [
      changeTo(account, 'Changed-in-profile-1'),
      () => confirmPasswordReset(app.ctx, app.provider, { token: account.token, password: 'Reset-by-link-22', client }),
    ]);
    expect(outcomes.map(codeOf)).toEqual(['ok', 'reset_failed']);
    expect((await verifyPassword(await passwordHashOf(app.ctx.db, account.id), 'Changed-in-profile-1')).ok).toBe(true);
    expect(await openLinks(account.id)).toEqual([]);
  });

  it('a reset link made while the password is changed: both go through, the new link stays open', async () => {
    const account = await accountWithLink();
    const outcomes = await linedUp(lockRow('credentials', account.credentialId), [
      changeTo(account, 'Changed-in-profile-3'),
      () => createResetLink(app.ctx, account.id),
    ]);
    expect(outcomes.map(codeOf)).toEqual(['ok', 'ok']);
    expect(await openLinks(account.id)).toHaveLength(1);
    expect((await verifyPassword(await passwordHashOf(app.ctx.db, account.id), 'Changed-in-profile-3')).ok).toBe(true);
  });

  it("an operator deletes a stakeholder's password while a reset sets it: both go through, in turn", async () => {
    const account = await accountWithLink({ is_user: false });
    const support = await createAccount(app.ctx.db);
    const operator = { account_id: support.id, email: support.email, role: 'support' as const, ip: null, user_agent: null, session_id: 'lock-order' };
    // The confirmation holds the account and waits for its link; the operator's deletion comes meanwhile.
    const outcomes = await linedUp(
      (trx) => trx('password_reset_tokens').where({ account_id: account.id }).forUpdate().first('id'),
      [
        () => confirmPasswordReset(app.ctx, app.provider, { token: account.token, password: 'Reset-by-link-44', client }),
        () => deleteAccountCredential(app.ctx, app.provider, operator, account.id, account.credentialId),
      ],
    );
    expect(outcomes.map(codeOf)).toEqual(['ok', 'ok']);
    expect(await app.ctx.db('credentials').where({ account_id: account.id, type: 'password' }).pluck('id')).toEqual([]);
  });
});
