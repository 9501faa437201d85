import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { broadTermMatches } from '../../src/admin/accounts/account-listing.repository.ts';
import { createResetLink } from '../../src/login/reset.service.ts';
import { generateAccounts } from '../../seeds/generate-accounts.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

const byLowerCase = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

let t: AdminTestApp;
let admin: request.Agent;
let support: request.Agent;
let adminPersona: Persona;

beforeAll(async () => {
  t = await startAdminApp();
  adminPersona = await createPersona(t.ctx, { role: 'admin', totp: true, name: 'Zed Admin' });
  admin = await signIn(t, adminPersona);
  support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true, name: 'Zed Support' }));
});
afterAll(async () => {
  await t?.close();
});

async function account(fields: { email: string; name: string; is_user?: boolean; is_stakeholder?: boolean; image?: string }): Promise<string> {
  const [row] = await t.ctx.db('accounts')
    .insert({ is_user: true, is_stakeholder: false, ...fields })
    .returning('id');
  return row.id;
}

async function tenant(name: string, slug: string, inactive = false): Promise<string> {
  const [row] = await t.ctx.db('tenants').insert({ name, slug, inactive_at: inactive ? new Date('2020-01-01T00:00:00Z') : null }).returning('id');
  return row.id;
}

describe('account search and list', () => {
  let anna: string;
  let acme: string;
  let old: string;
  beforeAll(async () => {
    anna = await account({ email: 'anna.andersson@acme.test', name: 'Anna Andersson', image: 'https://img.example/a.png' });
    await account({ email: 'bertil@nordic.test', name: 'Bertil Berg', is_user: false, is_stakeholder: true });
    await account({ email: 'CASE@Upper.test', name: 'Cecilia Case' });
    await account({ email: 'under_score@x.test', name: '100% Percy' });
    acme = await tenant('Acme', 'acmesearch');
    old = await tenant('Old', 'oldsearch', true);
    await t.ctx.db('tenant_access').insert([
      { account_id: anna, tenant_id: acme, role: 'admin' },
      { account_id: anna, tenant_id: old },
    ]);
    await t.ctx.db('credentials').insert([
      { account_id: anna, type: 'password', secret: 'x' },
      { account_id: anna, type: 'oidc', provider: 'accounts.google.com', subject: 'g-anna' },
    ]);
  });

  it('finds by part of the name or the email, ignoring case, with the Account shape of the spec', async () => {
    const byName = await support.get('/api/accounts/search/ANDERS');
    expect(byName.status).toBe(200);
    expect(byName.body).toHaveLength(1);
    const [found] = byName.body;
    expect(Object.keys(found).sort()).toEqual(
      ['available_credentials', 'email', 'id', 'image', 'is_stakeholder', 'is_user', 'last_login_at', 'lock', 'locked_until', 'name', 'pending_email_change', 'tenant_access'].sort(),
    );
    expect(found).toMatchObject({ id: anna, name: 'Anna Andersson', email: 'anna.andersson@acme.test', image: 'https://img.example/a.png', is_user: true, is_stakeholder: false, last_login_at: null, locked_until: null, pending_email_change: null, lock: null });
    // Both were inserted at once (same created_at): compare without order.
    expect(found.available_credentials).toHaveLength(2);
    expect(found.available_credentials).toEqual(
      expect.arrayContaining([
        { id: expect.any(String), type: 'password', provider: null, created_at: expect.any(String), name: null },
        { id: expect.any(String), type: 'oidc', provider: 'accounts.google.com', created_at: expect.any(String), name: null },
      ]),
    );
    // Access to a deactivated tenant is listed but not active.
    expect(found.tenant_access).toEqual([
      { id: acme, slug: 'acmesearch', name: 'Acme', active: true },
      { id: old, slug: 'oldsearch', name: 'Old', active: false },
    ]);
    expect(JSON.stringify(found)).not.toContain('"secret"');

    expect((await support.get('/api/accounts/search/nordic.TEST')).body.map((a: { name: string }) => a.name)).toEqual(['Bertil Berg']);
    expect((await support.get('/api/accounts/search/case@upper')).body.map((a: { name: string }) => a.name)).toEqual(['Cecilia Case']);
  });

  it('treats % and _ as characters, not patterns', async () => {
    expect((await support.get(`/api/accounts/search/${encodeURIComponent('100%')}`)).body.map((a: { name: string }) => a.name)).toEqual(['100% Percy']);
    // As a pattern "o_e" would match "sc-ore"; as characters it matches nothing.
    expect((await support.get('/api/accounts/search/o_e')).body).toEqual([]);
    expect((await support.get('/api/accounts/search/under_')).body).toHaveLength(1);
  });

  it('answers an empty list, without asking the database, for a term with no letter or digit', async () => {
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    t.ctx.db.on('query', listener);
    try {
      // "@" and "." alone are in every email: a search for one would page through everyone.
      for (const term of ['@@@', '...', '%%%', '@', '.', '_-_', '  @  ']) {
        const res = await support.get(`/api/accounts/search/${encodeURIComponent(term)}`);
        expect([term, res.status, res.body]).toEqual([term, 200, []]);
      }
    } finally {
      t.ctx.db.removeListener('query', listener);
    }
    expect(queries.filter((sql) => /from "accounts"|from "credentials"|from "tenant_access"/.test(sql))).toEqual([]);
    // One letter or digit among them is a search again.
    expect((await support.get(`/api/accounts/search/${encodeURIComponent('@nordic.')}`)).body.map((a: { name: string }) => a.name)).toEqual(['Bertil Berg']);
  });

  it('needs a non-empty term', async () => {
    const blank = await support.get('/api/accounts/search/%20%20');
    expect([blank.status, errorType(blank)]).toEqual([422, 'validation_error']);
    expect((await support.get(`/api/accounts/search/${'x'.repeat(101)}`)).status).toBe(422);
  });

  it('answers at most 50 matches by name, in three queries whatever their number', async () => {
    await t.ctx.db('accounts').insert(
      Array.from({ length: 60 }, (_, i) => ({ email: `bulk${String(i).padStart(2, '0')}@many.test`, name: `Many ${String(i).padStart(2, '0')}`, is_user: true })),
    );
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    t.ctx.db.on('query', listener);
    const res = await support.get('/api/accounts/search/many.test');
    t.ctx.db.removeListener('query', listener);
    expect(res.body).toHaveLength(50);
    expect(res.body[0].name).toBe('Many 00');
    expect(res.body[49].name).toBe('Many 49');
    const listing = queries.filter((sql) => /from "accounts"|from "credentials"|from "tenant_access"/.test(sql));
    expect(listing).toHaveLength(3);
  });

  it('gives the same first 50 by name whichever way it searches: few matches, many, or a short term', async () => {
    await generateAccounts(t.ctx.db, broadTermMatches + 100);
    const expected = async (pattern: string) =>
      (
        await t.ctx.db('accounts')
          .whereRaw('name ilike ? or email::text ilike ?', [pattern, pattern])
          .orderByRaw('lower(name), name, email')
          .limit(50)
          .select('id')
      ).map((row: { id: string }) => row.id);
    const ids = async (term: string) => (await support.get(`/api/accounts/search/${encodeURIComponent(term)}`)).body.map((a: { id: string }) => a.id);
    // Many matches: every generated account (more than broadTermMatches), walked in name order.
    expect(await ids('bulk-')).toEqual(await expected('%bulk-%'));
    // Few matches among them: one first name in one domain.
    expect(await ids('Yusuf')).toEqual(await expected('%yusuf%'));
    // Under three characters: no trigram to look up.
    expect(await ids('ja')).toEqual(await expected('%ja%'));
    expect(await ids('bulk-')).toHaveLength(50);
  });

  it('GET /api/accounts/ lists the first 200 accounts by name', async () => {
    await t.ctx.db('accounts').insert(Array.from({ length: 200 }, (_, i) => ({ email: `zz${i}@list.test`, name: `Zz ${String(i).padStart(3, '0')}` })));
    const res = await support.get('/api/accounts/');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(200);
    const names = res.body.map((a: { name: string }) => a.name);
    expect(names[0]).toBe('100% Percy');
    // Case-insensitive, as people read names, whatever the database collation.
    expect(names).toEqual([...names].sort(byLowerCase));
  });
});

describe('reset-password email', () => {
  it('mails a set-password link in the account language, answers sent, and audits', async () => {
    const id = await account({ email: 'swede@reset.test', name: 'Sven Swede' });
    await t.ctx.db('accounts').where({ id }).update({ locale: 'sv' });
    const res = await support.post(`/api/accounts/${id}/reset-password`);
    expect([res.status, res.body]).toEqual([200, { status: 'sent' }]);
    const mail = await t.mail.waitFor('swede@reset.test');
    expect(mail.subject).toBe('Återställ ditt lösenord');
    expect(mail.text).toContain(`${t.ctx.config.publicUrl}/login/set-password/`);
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.password_reset.sent', target_account_id: id }).first();
    expect(audit).toMatchObject({ target_account_id: id, actor_id: expect.any(String), details: { role: 'support' } });
    expect(JSON.stringify(audit)).not.toContain('set-password');
  });

  it.each(['support', 'admin'] as const)(
    "of an account with the %s role is refused to support (403): no link, no mail, no row, and the colleague's own reset still goes out",
    async (role) => {
      const colleague = await createPersona(t.ctx, { role, totp: true, email: `colleague-${role}@reset.test` });
      for (let i = 0; i < 6; i += 1) {
        const refused = await support.post(`/api/accounts/${colleague.id}/reset-password`);
        expect([refused.status, refused.body]).toEqual([403, { detail: [{ type: 'forbidden', msg: 'Not allowed' }] }]);
      }
      expect(await t.ctx.db('password_reset_tokens').where({ account_id: colleague.id })).toHaveLength(0);
      expect(await t.ctx.db('audit_events').where({ target_account_id: colleague.id })).toHaveLength(0);
      expect(t.mail.to(colleague.email)).toHaveLength(0);
      // The address's mail budget is untouched: the colleague's own "forgot password" mails them.
      expect((await t.agent().post('/auth/reset/request').send({ email: colleague.email })).status).toBe(200);
      await t.mail.waitFor(colleague.email);
      // An admin may.
      expect((await admin.post(`/api/accounts/${colleague.id}/reset-password`)).status).toBe(200);
    },
  );

  it('404 for an unknown account, 422 for a malformed id', async () => {
    const unknown = await support.post('/api/accounts/0b0e8f8e-8d8a-4c4b-9d6e-111111111111/reset-password');
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'not_found']);
    expect((await support.post('/api/accounts/not-a-uuid/reset-password')).status).toBe(422);
  });
});

/** An SMTP URL on a loopback port nothing listens on: every send is refused. */
async function refusedSmtpUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `smtp://127.0.0.1:${port}`;
}

describe('reset-password email when the mail server is down', () => {
  let down: AdminTestApp;
  beforeAll(async () => {
    down = await startAdminApp({ env: { SMTP_URL: await refusedSmtpUrl() } });
  });
  afterAll(async () => {
    await down?.close();
  });

  it('answers 503 (the operator may try again), and the link it made is in the audit log all the same', async () => {
    const operator = await signIn(down, await createPersona(down.ctx, { role: 'support', totp: true }));
    const target = await createPersona(down.ctx, { email: 'unmailed@reset.test' });
    const res = await operator.post(`/api/accounts/${target.id}/reset-password`);
    expect([res.status, errorType(res)]).toEqual([503, 'service_unavailable']);
    expect(res.headers['retry-after']).toBe('5');
    expect(await down.ctx.db('password_reset_tokens').where({ account_id: target.id }).whereNull('used_at')).toHaveLength(1);
    const audit = await down.ctx.db('audit_events').where({ action: 'operator.password_reset.sent', target_account_id: target.id });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: expect.any(String), details: { role: 'support' } });
  });
});

describe('credential deletion', () => {
  let user: string;
  let stakeholder: string;
  beforeAll(async () => {
    user = await account({ email: 'deletion-user@x.test', name: 'Del User' });
    stakeholder = await account({ email: 'deletion-stake@x.test', name: 'Del Stake', is_user: false, is_stakeholder: true });
  });
  const credential = async (accountId: string, type: string, provider: string | null = null) => {
    const [row] = await t.ctx.db('credentials').insert({ account_id: accountId, type, provider, subject: type === 'oidc' ? `s-${Math.random()}` : null }).returning('id');
    return row.id as string;
  };

  it('deletes an upstream or TOTP credential of the account, audited', async () => {
    const oidc = await credential(user, 'oidc', 'login.microsoftonline.com');
    const res = await admin.delete(`/api/accounts/${user}/credentials/${oidc}`);
    expect(res.status).toBe(204);
    expect(await t.ctx.db('credentials').where({ id: oidc })).toHaveLength(0);
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.credential.deleted', target_account_id: user }).first();
    expect(audit).toMatchObject({ actor_id: adminPersona.id, details: { credential_id: oidc, type: 'oidc', provider: 'login.microsoftonline.com', role: 'admin' } });
  });

  it('never the password of a User account (409 credential/password-required)', async () => {
    const pw = await credential(user, 'password');
    const res = await admin.delete(`/api/accounts/${user}/credentials/${pw}`);
    expect([res.status, errorType(res)]).toEqual([409, 'credential/password-required']);
    expect(await t.ctx.db('credentials').where({ id: pw })).toHaveLength(1);
  });

  it('the password of a Stakeholder-only account may go', async () => {
    const pw = await credential(stakeholder, 'password');
    expect((await admin.delete(`/api/accounts/${stakeholder}/credentials/${pw}`)).status).toBe(204);
  });

  it("404 when the credential belongs to another account; nothing is deleted", async () => {
    const others = await credential(stakeholder, 'totp');
    const res = await admin.delete(`/api/accounts/${user}/credentials/${others}`);
    expect([res.status, errorType(res)]).toEqual([404, 'not_found']);
    expect(await t.ctx.db('credentials').where({ id: others })).toHaveLength(1);
  });

  it("keeps an operator's last second factor (409 credential/second-factor-required), deletes one of two", async () => {
    const colleague = await createPersona(t.ctx, { role: 'support', totp: true });
    const [totp] = await t.ctx.db('credentials').where({ account_id: colleague.id, type: 'totp' }).pluck('id');
    const refused = await admin.delete(`/api/accounts/${colleague.id}/credentials/${totp}`);
    expect([refused.status, errorType(refused)]).toEqual([409, 'credential/second-factor-required']);
    expect(await t.ctx.db('credentials').where({ id: totp })).toHaveLength(1);

    const passkey = await credential(colleague.id, 'webauthn');
    expect((await admin.delete(`/api/accounts/${colleague.id}/credentials/${totp}`)).status).toBe(204);
    const last = await admin.delete(`/api/accounts/${colleague.id}/credentials/${passkey}`);
    expect([last.status, errorType(last)]).toEqual([409, 'credential/second-factor-required']);

    // Without the role, the account is anyone's: its last second factor may go.
    await t.ctx.db('operator_roles').where({ account_id: colleague.id }).delete();
    expect((await admin.delete(`/api/accounts/${colleague.id}/credentials/${passkey}`)).status).toBe(204);
  });

  it('support may not delete', async () => {
    const totp = await credential(user, 'totp');
    expect(errorType(await support.delete(`/api/accounts/${user}/credentials/${totp}`))).toBe('forbidden');
    expect(await t.ctx.db('credentials').where({ id: totp })).toHaveLength(1);
  });
});

describe('active password-reset links', () => {
  it('lists unused, unexpired links with their email, sorted by email, and audits the view', async () => {
    const zeta = await account({ email: 'zeta@links.test', name: 'Zeta' });
    const alpha = await account({ email: 'Alpha@links.test', name: 'Alpha' });
    const mid = await account({ email: 'mid@links.test', name: 'Mid' });
    const used = await account({ email: 'used@links.test', name: 'Used' });
    const expired = await account({ email: 'expired@links.test', name: 'Expired' });

    await createResetLink(t.ctx, mid);
    const links = {
      zeta: (await createResetLink(t.ctx, zeta)).link,
      alpha: (await createResetLink(t.ctx, alpha)).link,
      // The newer link of an account replaces the older.
      mid: (await createResetLink(t.ctx, mid)).link,
    };
    await createResetLink(t.ctx, used);
    await t.ctx.db('password_reset_tokens').where({ account_id: used }).update({ used_at: new Date() });
    await createResetLink(t.ctx, expired);
    await t.ctx.db('password_reset_tokens').where({ account_id: expired }).update({ expires_at: new Date(Date.now() - 1000) });

    const res = await admin.get('/api/accounts/password-resets');
    expect(res.status).toBe(200);
    const ours = res.body.filter((item: { email: string }) => item.email.endsWith('@links.test'));
    expect(ours.map((item: { email: string; link: string }) => [item.email, item.link])).toEqual([
      ['Alpha@links.test', links.alpha],
      ['mid@links.test', links.mid],
      ['zeta@links.test', links.zeta],
    ]);
    expect(ours[0].link).toMatch(new RegExp(`^${t.ctx.config.publicUrl}/login/set-password/[A-Za-z0-9_-]{43}$`));

    const audit = await t.ctx.db('audit_events').where({ action: 'operator.password_resets.viewed' }).orderBy('id', 'desc').first();
    expect(audit).toMatchObject({ actor_id: adminPersona.id, details: { role: 'admin', count: res.body.length } });
    // The log names whose links were shown, in the order shown (never the links themselves).
    const emails = res.body.map((item: { email: string }) => item.email);
    const idOf = new Map((await t.ctx.db('accounts').whereIn('email', emails).select('id', 'email')).map((a: { id: string; email: string }) => [a.email, a.id]));
    expect(audit.details.account_ids).toEqual(emails.map((email: string) => idOf.get(email)));
    expect(audit.details.account_ids).toEqual(expect.arrayContaining([alpha, mid, zeta]));
    expect(audit.details.account_ids).not.toContain(used);
    expect(audit.details.account_ids).not.toContain(expired);
    expect(JSON.stringify(audit)).not.toContain('set-password');
    for (const { link } of res.body as { link: string }[]) expect(JSON.stringify(audit)).not.toContain(link.split('/').pop());
  });

  it('support may not list them (403 forbidden), nor is the refusal recorded as a view', async () => {
    const id = await account({ email: 'victim@links.test', name: 'Victim' });
    // The person's own "forgot password" link: reading it would let the operator sign in as them.
    const { link } = await createResetLink(t.ctx, id);
    const views = async () => (await t.ctx.db('audit_events').where({ action: 'operator.password_resets.viewed' })).length;
    const before = await views();
    const res = await support.get('/api/accounts/password-resets');
    expect([res.status, errorType(res)]).toEqual([403, 'forbidden']);
    expect(JSON.stringify(res.body)).not.toContain(link.split('/').pop());
    expect(await views()).toBe(before);
  });

  it("never lists an operator account's link, though its reset mail is sent", async () => {
    const colleague = await createPersona(t.ctx, { role: 'admin', totp: true, email: 'colleague-admin@links.test' });
    const sent = await admin.post(`/api/accounts/${colleague.id}/reset-password`);
    expect(sent.status).toBe(200);
    await t.mail.waitFor('colleague-admin@links.test');
    expect(await t.ctx.db('password_reset_tokens').where({ account_id: colleague.id })).toHaveLength(1);
    const listed = await admin.get('/api/accounts/password-resets');
    expect(listed.status).toBe(200);
    expect((listed.body as { email: string }[]).map((item) => item.email)).not.toContain('colleague-admin@links.test');
  });

  it('the listed link is the one that works, and stops being listed once used', async () => {
    const id = await account({ email: 'works@links.test', name: 'Works' });
    const { link } = await createResetLink(t.ctx, id);
    const listed = (await admin.get('/api/accounts/password-resets')).body.find((i: { email: string }) => i.email === 'works@links.test');
    expect(listed.link).toBe(link);
    const token = link.split('/').pop()!;
    expect((await t.agent().post('/auth/reset/confirm').send({ token, password: 'Brand-New-Pass-7' })).status).toBe(200);
    const after = (await admin.get('/api/accounts/password-resets')).body.map((i: { email: string }) => i.email);
    expect(after).not.toContain('works@links.test');
  });

  it('stores the token sealed, never in clear', async () => {
    const id = await account({ email: 'sealed@links.test', name: 'Sealed' });
    const { link } = await createResetLink(t.ctx, id);
    const row = await t.ctx.db('password_reset_tokens').where({ account_id: id }).first();
    const token = link.split('/').pop()!;
    expect(row.token_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(t.ctx.secretBox.open(row.token_sealed)).toBe(token);
  });
});
