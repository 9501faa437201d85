import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { accountActionRules } from '../../src/admin/accounts/action-limits.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * The budgets of the console's unlock and sign-out-everywhere (src/admin/accounts/action-limits.ts):
 * five of each per account and hour, whoever the operator, and 30 of both per operator in 15
 * minutes, whatever the account; 30 reset mails per operator in 15 minutes; 20 notifications per
 * operator and hour. A refused call answers 429 and neither changes nor records anything.
 */
let t: AdminTestApp;

beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});

const operator = async (name: string): Promise<request.Agent> => signIn(t, await createPersona(t.ctx, { role: 'support', totp: true, name }));
const person = () => createPersona(t.ctx);
const audited = (action: string, target: Persona) => t.ctx.db('audit_events').where({ action, target_account_id: target.id }).count<{ count: string }[]>({ count: '*' });
const count = async (action: string, target: Persona) => Number((await audited(action, target))[0]!.count);

/**
 * An unlock of an account its mirror shows locked for another quarter hour: an unlock is refused
 * (409) where no lock is in force, and each one ends the lock it found.
 */
async function unlock(by: request.Agent, target: Persona): Promise<number> {
  await t.ctx.db('accounts').where({ id: target.id }).update({ locked_until: new Date(t.ctx.now().getTime() + 15 * 60 * 1000) });
  return (await by.post(`/api/accounts/${target.id}/unlock`)).status;
}

/** Ten wrong passwords lock the address; answers what starting a sign-in then says. */
async function lockOut(target: Persona): Promise<string> {
  const browser = t.agent();
  const started = await browser.post('/auth/login/start').send({ email: target.email });
  for (let i = 0; i < 10; i += 1) {
    await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: target.email, password: 'Wrong-Pass-1' });
  }
  const again = await t.agent().post('/auth/login/start').send({ email: target.email });
  return again.status === 200 ? again.body.state : errorType(again)!;
}

describe("the console's account actions", () => {
  it('unlock: five per account and hour across operators; the sixth is refused with 429, ends no lock and records nothing', async () => {
    const [sara, sven] = [await operator('Sara'), await operator('Sven')];
    const target = await person();
    const bystander = await person();
    expect(accountActionRules.target.points).toBe(5);
    for (const by of [sara, sara, sven, sara, sven]) expect(await unlock(by, target)).toBe(200);

    expect(await lockOut(target)).toBe('account_locked');
    const refused = await sven.post(`/api/accounts/${target.id}/unlock`);
    expect([refused.status, errorType(refused)]).toEqual([429, 'too_many_requests']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(await count('operator.account.unlocked', target)).toBe(5);
    expect(await lockOut(target)).toBe('account_locked');

    // Another account, and the other action on this one, have budgets of their own.
    expect(await unlock(sven, bystander)).toBe(200);
    expect((await sven.post(`/api/accounts/${target.id}/sign-out-everywhere`)).status).toBe(200);
  });

  it('sign out everywhere: five per account and hour; the sixth is refused and records nothing', async () => {
    const sara = await operator('Sara');
    const target = await person();
    for (let i = 0; i < 5; i += 1) expect((await sara.post(`/api/accounts/${target.id}/sign-out-everywhere`)).status).toBe(200);
    const refused = await sara.post(`/api/accounts/${target.id}/sign-out-everywhere`);
    expect([refused.status, errorType(refused)]).toEqual([429, 'too_many_requests']);
    expect(await count('operator.account.signed_out', target)).toBe(5);
  });

  it('one operator: 30 in 15 minutes over any accounts, then 429 on any account; other operators go on', async () => {
    const [olga, otto] = [await operator('Olga'), await operator('Otto')];
    const targets = await Promise.all(Array.from({ length: 7 }, () => person()));
    expect(accountActionRules.operator.points).toBe(30);
    for (const target of targets.slice(0, 6)) {
      for (const action of ['unlock', 'unlock', 'unlock', 'sign-out-everywhere', 'sign-out-everywhere']) {
        expect(action === 'unlock' ? await unlock(olga, target) : (await olga.post(`/api/accounts/${target.id}/${action}`)).status).toBe(200);
      }
    }
    const fresh = targets[6]!;
    expect(await unlock(olga, fresh)).toBe(429);
    expect(await count('operator.account.unlocked', fresh)).toBe(0);
    expect(await unlock(otto, fresh)).toBe(200);
  });

  it('reset mails: 30 per operator in 15 minutes over any accounts, then 429, with no link made or row written; other operators go on', async () => {
    const [rita, rolf] = [await operator('Rita'), await operator('Rolf')];
    expect(accountActionRules.operatorMail.points).toBe(30);
    const targets = await Promise.all(Array.from({ length: 31 }, () => person()));
    for (const target of targets.slice(0, 30)) expect((await rita.post(`/api/accounts/${target.id}/reset-password`)).status).toBe(200);

    const fresh = targets[30]!;
    const refused = await rita.post(`/api/accounts/${fresh.id}/reset-password`);
    expect([refused.status, errorType(refused)]).toEqual([429, 'too_many_requests']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await count('operator.password_reset.sent', fresh)).toBe(0);
    expect(await t.ctx.db('password_reset_tokens').where({ account_id: fresh.id }).first('id')).toBeUndefined();
    // The person's own mail budget was not spent by the refusal: another operator still mails them.
    expect((await rolf.post(`/api/accounts/${fresh.id}/reset-password`)).status).toBe(200);
    expect(await count('operator.password_reset.sent', fresh)).toBe(1);
  });

  it("a call refused for the account's budget gives the operator's point back: the operator goes on helping others", async () => {
    const sara = await operator('Sara');
    const busy = await person();
    const { target, operator: own } = accountActionRules;
    for (let i = 0; i < target.points; i += 1) expect(await unlock(sara, busy)).toBe(200);
    for (let i = 0; i < 3; i += 1) expect(await unlock(sara, busy)).toBe(429);
    // Only the calls that went through counted against Sara: the rest of her 30 are there.
    const others = await Promise.all(Array.from({ length: own.points - target.points + 1 }, () => person()));
    for (const other of others.slice(0, -1)) expect(await unlock(sara, other)).toBe(200);
    expect(await unlock(sara, others.at(-1)!)).toBe(429);
  });

  it('notifications: 20 per operator and hour, then 429 with nothing stored; other operators go on', async () => {
    const [nina, nils] = [await operator('Nina'), await operator('Nils')];
    expect(accountActionRules.operatorNotification.points).toBe(20);
    const body = (message: string) => ({ message, admins_only: false, tenants: [], popup: true, new_functionality: false });
    for (let i = 0; i < 20; i += 1) expect((await nina.post('/api/notification/').send(body(`Release ${i}`))).status).toBe(201);
    const refused = await nina.post('/api/notification/').send(body('One too many'));
    expect([refused.status, errorType(refused)]).toEqual([429, 'too_many_requests']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.ctx.db('notifications').where({ message: 'One too many' }).first('id')).toBeUndefined();
    expect((await nils.post('/api/notification/').send(body('From Nils'))).status).toBe(201);
  });

  it('costs nothing when the account does not exist, the role may not act on it, or it is not locked', async () => {
    const sara = await operator('Sara');
    const admin = await createPersona(t.ctx, { role: 'admin', totp: true });
    const target = await person();
    for (let i = 0; i < 6; i += 1) {
      expect(await unlock(sara, admin)).toBe(403);
      expect((await sara.post('/api/accounts/00000000-0000-4000-8000-000000000000/unlock')).status).toBe(404);
      expect((await sara.post(`/api/accounts/${target.id}/unlock`)).status).toBe(409);
    }
    expect(await unlock(sara, target)).toBe(200);
  });
});
