import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResetLink } from '../../src/login/reset.service.ts';
import * as oneOpenResetLink from '../../migrations/008_one_open_reset_link.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { createAccount } from './fixtures.ts';

/**
 * "A new link revokes older ones", also when two are made at the same moment: an operator's reset
 * mail racing the person's own "forgot password". Only real PostgreSQL runs the two at once (the
 * embedded database has one connection, which takes them in turn); both must pass.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

const tokenHash = (link: string) => createHash('sha256').update(link.split('/').at(-1)!).digest('hex');
const openLinks = (accountId: string) => ctx.db('password_reset_tokens').where({ account_id: accountId }).whereNull('used_at').select('token_hash');

describe('reset links made at once', () => {
  it('leave exactly one open, one of them', async () => {
    const account = await createAccount(ctx.db);
    for (let round = 0; round < 10; round += 1) {
      const made = await Promise.all([
        createResetLink(ctx, account.id),
        ctx.db.transaction((trx) => createResetLink(ctx, account.id, { trx })),
        createResetLink(ctx, account.id, { type: 'athena' }),
      ]);
      const open = await openLinks(account.id);
      expect(open, `round ${round}`).toHaveLength(1);
      expect(made.map((link) => tokenHash(link.link))).toContain(open[0]!.token_hash);
    }
  });

  it('while a reset is being confirmed: neither waits for the other forever', async () => {
    const account = await createAccount(ctx.db);
    const { link } = await createResetLink(ctx, account.id);
    // confirmPasswordReset's order of locks: the account's row, then its link's (spending it),
    // then the account's other open links (revokeResetTokens).
    let locked!: () => void;
    const accountLocked = new Promise<void>((resolve) => (locked = resolve));
    const confirming = ctx.db.transaction(async (trx) => {
      await trx('accounts').where({ id: account.id }).forUpdate().first('id');
      locked();
      await sleep(200);
      await trx('password_reset_tokens').where({ token_hash: tokenHash(link) }).update({ used_at: new Date() });
      await trx('password_reset_tokens').where({ account_id: account.id }).whereNull('used_at').delete();
    });
    await accountLocked;
    const [, made] = await Promise.all([confirming, createResetLink(ctx, account.id)]);
    expect(await openLinks(account.id)).toEqual([{ token_hash: tokenHash(made.link) }]);
  });
});

describe('migration 008', () => {
  it('keeps only the newest open link of each account, spent ones untouched, and refuses a second open one', async () => {
    const account = await createAccount(ctx.db);
    const other = await createAccount(ctx.db);
    await ctx.db.transaction((trx) => oneOpenResetLink.down(trx));
    const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 12, minutes));
    const link = (accountId: string, hash: string, minutes: number, used = false) => ({
      account_id: accountId,
      token_hash: hash,
      created_at: at(minutes),
      expires_at: at(minutes + 60),
      used_at: used ? at(minutes + 1) : null,
    });
    await ctx.db('password_reset_tokens').insert([
      link(account.id, 'oldest', 0),
      link(account.id, 'newest', 20),
      link(account.id, 'middle', 10),
      link(account.id, 'spent', 5, true),
      link(other.id, 'only', 0),
    ]);
    await ctx.db.transaction((trx) => oneOpenResetLink.up(trx));

    const left = await ctx.db('password_reset_tokens').whereIn('account_id', [account.id, other.id]).orderBy('token_hash').pluck('token_hash');
    expect(left).toEqual(['newest', 'only', 'spent']);
    await expect(ctx.db('password_reset_tokens').insert(link(account.id, 'second', 30))).rejects.toThrow(/password_reset_tokens_one_open/);
    await ctx.db('password_reset_tokens').insert(link(account.id, 'spent-too', 30, true));
  });
});
