import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { createPortalSession, linkOidcSession, linkSigningIn } from '../../src/session/portal-session.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

let t: AdminTestApp;
let support: request.Agent;
let user: request.Agent;

interface Entry {
  key: string;
  ttl: number;
  model: string;
  client_id: string | null;
  signed_in_at: string | null;
  last_seen_at: string | null;
  methods: string[] | null;
  ip: string | null;
  user_agent: string | null;
}

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const safari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

beforeAll(async () => {
  t = await startAdminApp();
  support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
  user = await signIn(t, await createPersona(t.ctx));
});
afterAll(async () => {
  await t?.close();
});

const epoch = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

/** An oidc-provider session signed in as the interaction and the silent sign-in sign it in. */
async function oidcSession(accountId: string, loginTs: number, amr: string[]) {
  const session = new t.provider.Session();
  session.loginAccount({ accountId, loginTs, amr, acr: 'urn:test' });
  await session.save(600);
  return session;
}

async function entries(person: Persona): Promise<Entry[]> {
  const res = await support.get(`/api/tokens/${person.id}`);
  expect(res.status).toBe(200);
  return res.body as Entry[];
}

describe('tokens view: what tells one sign-in session from another', () => {
  it("a portal session shows its sign-in time, last use, methods, address and browser", async () => {
    const person = await createPersona(t.ctx);
    const signedIn = epoch('2030-01-01T08:00:00Z');
    const own = await createPortalSession(t.ctx, { account_id: person.id, email: person.email, amr: ['pwd', 'otp', 'mfa'], auth_time: signedIn, ip: '192.0.2.10', user_agent: firefox, persistent: true });
    await createPortalSession(t.ctx, { account_id: person.id, email: person.email, amr: ['otp'], auth_time: signedIn + 60, ip: '203.0.113.99', user_agent: safari, persistent: true });

    const portal = (await entries(person)).filter((entry) => entry.model === 'PortalSession');
    expect(portal).toHaveLength(2);
    const created = new Date(own.created_at * 1000).toISOString();
    expect(portal.find((entry) => entry.ip === '192.0.2.10')).toMatchObject({
      signed_in_at: '2030-01-01T08:00:00.000Z',
      last_seen_at: created,
      methods: ['pwd', 'otp', 'mfa'],
      user_agent: firefox,
      client_id: null,
    });
    expect(portal.find((entry) => entry.ip === '203.0.113.99')).toMatchObject({ signed_in_at: '2030-01-01T08:01:00.000Z', methods: ['otp'], user_agent: safari });
  });

  it("an OP session shows its own sign-in, and the address and browser of the Nyckel session that signed it in", async () => {
    const person = await createPersona(t.ctx);
    const base = { account_id: person.id, email: person.email, auth_time: epoch('2030-02-01T09:00:00Z') };
    const customer = await createPortalSession(t.ctx, { ...base, amr: ['pwd'], ip: '192.0.2.20', user_agent: firefox });
    const intruder = await createPortalSession(t.ctx, { ...base, amr: ['otp'], ip: '198.51.100.7', user_agent: safari });
    const signedInBySignIn = await oidcSession(person.id, epoch('2030-02-01T09:05:00Z'), ['pwd']);
    await linkSigningIn(t.ctx, signedInBySignIn.uid, customer.id);
    const signedInByInteraction = await oidcSession(person.id, epoch('2030-02-01T09:06:00Z'), ['otp']);
    await linkOidcSession(t.ctx, intruder.id, signedInByInteraction.uid);
    const orphan = await oidcSession(person.id, epoch('2030-02-01T09:07:00Z'), ['pwd', 'mfa']);

    const sessions = (await entries(person)).filter((entry) => entry.model === 'Session');
    expect(sessions.map(({ key, ttl, model, client_id, ...facts }) => facts).sort((a, b) => a.signed_in_at!.localeCompare(b.signed_in_at!))).toEqual([
      { signed_in_at: '2030-02-01T09:05:00.000Z', last_seen_at: null, methods: ['pwd'], ip: '192.0.2.20', user_agent: firefox },
      { signed_in_at: '2030-02-01T09:06:00.000Z', last_seen_at: null, methods: ['otp'], ip: '198.51.100.7', user_agent: safari },
      // Its Nyckel session is gone (or it never had one): where it came from is not known.
      { signed_in_at: '2030-02-01T09:07:00.000Z', last_seen_at: null, methods: ['pwd', 'mfa'], ip: null, user_agent: null },
    ]);
    for (const entry of sessions) expect(entry.key).toMatch(/^Session:[0-9a-f]{12}$/);

    // Still nothing that opens a session: neither the OP sessions' ids (their cookie values) nor
    // the Nyckel sessions' (theirs), whole or in part.
    const body = JSON.stringify(await entries(person));
    for (const secret of [signedInBySignIn.jti, signedInByInteraction.jti, orphan.jti, customer.id, intruder.id]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain(secret.slice(0, 12));
    }
  });

  it('tokens and grants carry no session facts (null, not guessed)', async () => {
    const person = await createPersona(t.ctx);
    const grant = new t.provider.Grant({ accountId: person.id, clientId: 'tenant-app' });
    await grant.save();
    const [entry] = await entries(person);
    expect(entry).toMatchObject({ model: 'Grant', signed_in_at: null, last_seen_at: null, methods: null, ip: null, user_agent: null });
  });
});

describe('GET /api/tokens/{account_id}/account: whose tokens they are', () => {
  it("answers the account's id and its address as it is now", async () => {
    const person = await createPersona(t.ctx);
    expect((await support.get(`/api/tokens/${person.id}/account`)).body).toEqual({ id: person.id, email: person.email });
    await t.ctx.db('accounts').where({ id: person.id }).update({ email: `moved-${person.email}` });
    expect((await support.get(`/api/tokens/${person.id.toUpperCase()}/account`)).body).toEqual({ id: person.id, email: `moved-${person.email}` });
  });

  it('404 for no such account, 422 for a malformed id, 403 for a non-operator', async () => {
    const unknown = await support.get('/api/tokens/22222222-2222-4222-8222-222222222222/account');
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'not_found']);
    expect((await support.get('/api/tokens/x/account')).status).toBe(422);
    const person = await createPersona(t.ctx);
    expect(errorType(await user.get(`/api/tokens/${person.id}/account`))).toBe('forbidden');
  });
});
