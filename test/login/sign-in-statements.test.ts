import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountWithCredentials, recordSignIn, type SignInRecord } from '../../src/login/sign-in.repository.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { createAccount, uniqueEmail } from './fixtures.ts';

/**
 * The sign-in's two statements take every concurrent caller's input at once (one statement per
 * turn of the event loop). Whatever shares a batch, each caller gets exactly its own answer.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

const credentialIds = async (accountId: string) =>
  ((await ctx.db('credentials').where({ account_id: accountId }).orderBy('created_at').select('id')) as { id: string }[]).map((r) => r.id);

describe('account facts, read for many sign-ins at once', () => {
  it('answers each caller its own account and credentials, oldest first; unknown and repeated emails included', async () => {
    const ann = await createAccount(ctx.db);
    // Inserted newest first: the answer lists them oldest first.
    await ctx.db('credentials').insert(
      ['totp', 'totp', 'password'].map((type, i) => ({ account_id: ann.id, type, secret: 'x', created_at: new Date(Date.UTC(2030, 0, 3 - i)) })),
    );
    const bo = await createAccount(ctx.db, { email: `Bo-${uniqueEmail()}` });
    const emails = [ann.email.toUpperCase(), bo.email, uniqueEmail('nobody'), ` ${ann.email} `, bo.email.toLowerCase()];

    const together = await Promise.all(emails.map((email) => findAccountWithCredentials(ctx.db, email)));
    const alone = [];
    for (const email of emails) alone.push(await findAccountWithCredentials(ctx.db, email));

    expect(together).toEqual(alone);
    expect(together.map((facts) => facts.account?.id ?? null)).toEqual([ann.id, bo.id, null, ann.id, bo.id]);
    expect(together[0]!.credentials.map((c) => c.id)).toEqual(await credentialIds(ann.id));
    expect(together[0]!.credentials.map((c) => c.type)).toEqual(['password', 'totp', 'totp']);
    expect(together[2]).toEqual({ account: null, credentials: [] });
  });

  it('an input the database refuses fails only its own caller', async () => {
    const ann = await createAccount(ctx.db);
    // PostgreSQL cannot hold NUL in text: this email is refused, the one beside it is not.
    const [good, bad] = await Promise.allSettled([
      findAccountWithCredentials(ctx.db, ann.email),
      findAccountWithCredentials(ctx.db, 'nul\u0000@example.com'),
    ]);
    expect(good).toMatchObject({ status: 'fulfilled', value: { account: { id: ann.id } } });
    expect(bad.status).toBe('rejected');
  });
});

describe('sign-ins, recorded for many at once', () => {
  const record = (accountId: string, credentials: string[], at: Date, extra: Partial<SignInRecord> = {}): SignInRecord => ({
    accountId,
    at,
    emailVerified: false,
    clearsLock: true,
    credentialIds: credentials,
    ip: '203.0.113.7',
    userAgent: 'Browser/1.0',
    details: { method: 'password', amr: ['pwd'] },
    ...extra,
  });

  it('records every sign-in: last login, credentials last used, one audit event each in call order', async () => {
    const ann = await createAccount(ctx.db, { password: 'Ann-passw0rd!', totp: 1 });
    const bo = await createAccount(ctx.db, { password: 'Bo-passw0rd!' });
    const [annPassword, annTotp] = await credentialIds(ann.id);
    const [boPassword] = await credentialIds(bo.id);
    const t0 = new Date('2030-01-01T10:00:00.000Z');
    const later = new Date(t0.getTime() + 1000);

    await Promise.all([
      recordSignIn(ctx.db, record(ann.id, [annPassword!, annTotp!], t0, { details: { method: 'password', amr: ['pwd', 'otp', 'mfa'] } })),
      recordSignIn(ctx.db, record(bo.id, [boPassword!], t0, { emailVerified: true, details: { method: 'email_code', amr: ['otp'] } })),
      // The same account twice in one batch: the later sign-in's time stands.
      recordSignIn(ctx.db, record(ann.id, [annPassword!], later)),
    ]);

    const accounts = await ctx.db('accounts').whereIn('id', [ann.id, bo.id]).select('id', 'last_login_at', 'email_verified', 'locked_until');
    const byId = Object.fromEntries(accounts.map((a) => [a.id, a]));
    expect(byId[ann.id]).toMatchObject({ last_login_at: later, email_verified: false, locked_until: null });
    expect(byId[bo.id]).toMatchObject({ last_login_at: t0, email_verified: true });
    const used = Object.fromEntries((await ctx.db('credentials').whereIn('account_id', [ann.id, bo.id]).select('id', 'last_used_at')).map((c) => [c.id, c.last_used_at]));
    expect(used).toEqual({ [annPassword!]: later, [annTotp!]: t0, [boPassword!]: t0 });
    const events = await ctx.db('audit_events').whereIn('target_account_id', [ann.id, bo.id]).orderBy('id').select('action', 'actor_id', 'target_account_id', 'ip', 'user_agent', 'details', 'at');
    expect(events).toEqual([
      { action: 'login.succeeded', actor_id: ann.id, target_account_id: ann.id, ip: '203.0.113.7', user_agent: 'Browser/1.0', details: { method: 'password', amr: ['pwd', 'otp', 'mfa'] }, at: t0 },
      { action: 'login.succeeded', actor_id: bo.id, target_account_id: bo.id, ip: '203.0.113.7', user_agent: 'Browser/1.0', details: { method: 'email_code', amr: ['otp'] }, at: t0 },
      { action: 'login.succeeded', actor_id: ann.id, target_account_id: ann.id, ip: '203.0.113.7', user_agent: 'Browser/1.0', details: { method: 'password', amr: ['pwd'] }, at: later },
    ]);
  });

  it('keeps user agents to 512 characters and a lock cleared', async () => {
    const ann = await createAccount(ctx.db);
    await ctx.db('accounts').where({ id: ann.id }).update({ locked_until: new Date('2030-01-01T00:00:00Z') });
    await recordSignIn(ctx.db, record(ann.id, [], new Date(), { ip: null, userAgent: 'x'.repeat(600) }));
    expect(await ctx.db('accounts').where({ id: ann.id }).first('locked_until')).toEqual({ locked_until: null });
    const event = await ctx.db('audit_events').where({ target_account_id: ann.id }).first('ip', 'user_agent');
    expect(event).toEqual({ ip: null, user_agent: 'x'.repeat(512) });
  });

  it('an input the database refuses fails only its own caller', async () => {
    const ann = await createAccount(ctx.db);
    const [good, bad] = await Promise.allSettled([
      recordSignIn(ctx.db, record(ann.id, [], new Date())),
      recordSignIn(ctx.db, record(ann.id, ['not-a-uuid'], new Date())),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    expect(Number((await ctx.db('audit_events').where({ target_account_id: ann.id }).count({ n: '*' }))[0]!.n)).toBe(1);
  });

  it('inside a transaction the statement runs on the transaction and rolls back with it', async () => {
    const ann = await createAccount(ctx.db);
    await expect(
      ctx.db.transaction(async (trx) => {
        await recordSignIn(trx, record(ann.id, [], new Date()));
        expect(await trx('audit_events').where({ target_account_id: ann.id }).first('action')).toEqual({ action: 'login.succeeded' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await ctx.db('audit_events').where({ target_account_id: ann.id }).first()).toBeUndefined();
  });
});
