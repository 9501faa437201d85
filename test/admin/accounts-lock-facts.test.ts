import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * The account listing says how a lock in force began (the latest `login.locked` audit event), so
 * support can tell a person's own mistyping from an attack before choosing unlock or reset.
 */
let t: AdminTestApp;
let support: request.Agent;

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const safari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

beforeAll(async () => {
  // One proxy hop trusted, so the address of the attempt is the one X-Forwarded-For names.
  t = await startAdminApp({ env: { TRUST_PROXY: '1' } });
  support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true, name: 'Sune Support' }));
});
afterAll(async () => {
  await t?.close();
});

const person = (name: string) => createPersona(t.ctx, { name, email: `${name.toLowerCase().replace(' ', '.')}-${randomBytes(3).toString('hex')}@lockfacts.test` });

const listed = async (persona: Persona) => {
  const res = await support.get(`/api/accounts/search/${encodeURIComponent(persona.email)}`);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0] as { id: string; locked_until: string | null; lock: Record<string, unknown> | null };
};

/** Ten wrong passwords through the login API from one browser and address: the tenth locks. */
async function lockOut(persona: Persona, ip: string, userAgent: string): Promise<void> {
  const browser = t.agent();
  const started = await browser.post('/auth/login/start').set('X-Forwarded-For', ip).set('User-Agent', userAgent).send({ email: persona.email });
  const statuses: [number, string | undefined][] = [];
  for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) {
    const res = await browser
      .post('/auth/login/verify-password')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', userAgent)
      .send({ session_id: started.body.session_id, email: persona.email, password: 'Wrong-Pass-1' });
    statuses.push([res.status, errorType(res)]);
  }
  expect(statuses.at(-1)).toEqual([423, 'account_locked']);
}

describe('a locked account in the listing', () => {
  it('says when the lock began, after how many failures in a row, and from which address and browser', async () => {
    const lena = await person('Lena Locked');
    const before = t.ctx.now().getTime();
    await lockOut(lena, '203.0.113.7', firefox);

    const row = await listed(lena);
    expect(row.locked_until).not.toBeNull();
    expect(row.lock).toEqual({ locked_at: expect.any(String), consecutive_failures: 10, until_password_reset: false, ip: '203.0.113.7', user_agent: firefox });
    expect(Date.parse(row.lock!.locked_at as string)).toBeGreaterThanOrEqual(before - 1000);
    const all = await support.get('/api/accounts/');
    expect(all.body.find((account: { id: string }) => account.id === lena.id)?.lock).toEqual(row.lock);
  });

  it('says the lock after 100 failures in a row lasts until a password reset', async () => {
    const cora = await person('Cora Capped');
    const meta = { accountId: cora.id, method: 'password', reason: 'invalid_credentials', ip: '198.51.100.23', userAgent: safari };
    for (let i = 1; i < lockoutPolicy.maxConsecutiveFailures; i += 1) await recordFailure(t.ctx, cora.email, meta).catch(() => {});
    await expect(recordFailure(t.ctx, cora.email, meta)).rejects.toMatchObject({ type: 'account_locked' });

    expect((await listed(cora)).lock).toMatchObject({ consecutive_failures: 100, until_password_reset: true, ip: '198.51.100.23', user_agent: safari });
  });

  it('is null for an account that is not locked, and once an unlock ends the lock', async () => {
    const nora = await person('Nora Normal');
    expect((await listed(nora)).lock).toBeNull();

    const ulla = await person('Ulla Unlocked');
    await lockOut(ulla, '203.0.113.8', firefox);
    expect((await listed(ulla)).lock).not.toBeNull();
    expect((await support.post(`/api/accounts/${ulla.id}/unlock`)).status).toBe(200);
    expect((await listed(ulla)).lock).toBeNull();
  });

  it('is null once the lock has run out, though its audit event stays', async () => {
    const olle = await person('Olle Ended');
    await lockOut(olle, '203.0.113.9', firefox);
    await t.ctx.db('accounts').where({ id: olle.id }).update({ locked_until: new Date(t.ctx.now().getTime() - 1000) });
    expect((await listed(olle)).lock).toBeNull();
  });

  it('reads the latest lock of every locked account on the page in one audit query', async () => {
    const tag = randomBytes(3).toString('hex');
    const ids: string[] = [];
    const now = t.ctx.now().getTime();
    for (let i = 0; i < 5; i += 1) {
      const [row] = await t.ctx.db('accounts')
        .insert({ email: `many-${i}-${tag}@lockfacts.test`, name: `Many Locked ${i}`, is_user: true, locked_until: new Date(now + 3600 * 1000) })
        .returning('id');
      ids.push(row.id);
      // An older lock, then the one in force: the listing names the newer one.
      await t.ctx.db('audit_events').insert([
        { action: 'login.locked', target_account_id: row.id, at: new Date(now - 7200 * 1000), ip: '192.0.2.1', user_agent: safari, details: { consecutive_failures: 10 } },
        { action: 'login.locked', target_account_id: row.id, at: new Date(now - 60 * 1000), ip: `192.0.2.${10 + i}`, user_agent: firefox, details: { consecutive_failures: 20 + i } },
      ]);
    }
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    t.ctx.db.on('query', listener);
    let res: request.Response;
    try {
      res = await support.get(`/api/accounts/search/${tag}`);
    } finally {
      t.ctx.db.removeListener('query', listener);
    }
    expect(res.body).toHaveLength(5);
    expect(res.body.map((account: { lock: { ip: string; consecutive_failures: number } }) => [account.lock.ip, account.lock.consecutive_failures])).toEqual(
      ids.map((_, i) => [`192.0.2.${10 + i}`, 20 + i]),
    );
    expect(queries.filter((sql) => /audit_events/.test(sql) && !/^insert/i.test(sql))).toHaveLength(1);
  });
});
