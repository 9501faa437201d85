import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperatorRole, grantOperatorRole } from '../../src/admin/operators.repository.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTotpAccount, signIn } from '../totp/helpers.ts';
import { authenticatorFor, registerPasskey } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const grant = (accountId: string) =>
  t.ctx.db.transaction((trx) => grantOperatorRole(trx, { accountId, role: 'admin', grantedBy: null, at: t.ctx.now() }));

describe('an operator account must have TOTP or a passkey', () => {
  it('refuses the role to an account with only a password (or only Google), and grants nothing', async () => {
    for (const options of [{ totp: 0 }, { totp: 0, password: false, oidc: ['accounts.google.com'] }]) {
      const account = await createTotpAccount(t.ctx, options);
      await expect(grant(account.id)).rejects.toMatchObject({
        type: 'operator/second-factor-required',
        status: 409,
        message: 'An operator account must have an authenticator app (TOTP) or a passkey',
      });
      expect(await findOperatorRole(t.ctx.db, account.id)).toBeNull();
    }
  });

  it('grants the role to an account with TOTP', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 1 });
    expect(await grant(account.id)).toBeNull();
    expect(await findOperatorRole(t.ctx.db, account.id)).toBe('admin');
  });

  it('grants the role to an account once it has registered a passkey', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    await expect(grant(account.id)).rejects.toMatchObject({ type: 'operator/second-factor-required' });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    expect((await registerPasskey(browser, authenticatorFor(t))).res.status).toBe(201);
    expect(await grant(account.id)).toBeNull();
    expect(await findOperatorRole(t.ctx.db, account.id)).toBe('admin');
  });
});
