import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { auditActions, errorOf, googleVerified, locationOf, oidcCredentials, roundTrip, startLogin } from '../upstream/journey.ts';
import { startUpstream, type TestUpstream } from '../upstream/upstream-provider.ts';
import { createPersona, signIn } from './harness.ts';

/**
 * An email change and the Google or Microsoft sign-in linked to the account: the identity was
 * mostly linked through the old address, often a work account of the employer's Workspace, which
 * stays with whoever runs that domain. Real app, a real upstream provider on loopback, real SMTP.
 */
let t: TestApp;
let google: TestUpstream;
beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: 'http://127.0.0.1:3000' });
  t = await startTestApp({ env: google.env });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});
afterEach(() => vi.restoreAllMocks());

const loginPath = (sessionId: string) => `/auth/login/oauth/google?session_id=${encodeURIComponent(sessionId)}`;

/**
 * An admin moves the account to `newEmail` and the link is confirmed; the security notice to the
 * new address fails its first try, so what it says stays kept (security_notice_retries) to be read.
 * With `commitReportedFailed`, the first confirmation's commit goes through but is reported failed
 * and the database then does not answer (503), and the confirmation tried again finishes it.
 */
async function moveKeepingNotice(accountId: string, newEmail: string, options: { commitReportedFailed?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const operator = await signIn(t, await createPersona(t.ctx, { role: 'admin', totp: true }));
  expect((await operator.post(`/api/accounts/${accountId}/email-change`).send({ email: newEmail })).status).toBe(202);
  const mailed = await t.mail.waitFor(newEmail, (m) => m.subject === 'Confirm your new email address');
  const token = /\/login\/confirm-email\/([A-Za-z0-9_-]+)/.exec(mailed.text)![1]!;
  if (options.commitReportedFailed) {
    const real = t.ctx.db.transaction.bind(t.ctx.db) as (work: (trx: unknown) => Promise<unknown>) => Promise<unknown>;
    vi.spyOn(t.ctx.db, 'transaction').mockImplementationOnce((async (work: (trx: unknown) => Promise<unknown>) => {
      await real(work);
      vi.spyOn(t.ctx.db.client, 'acquireConnection').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
      throw new Error('Connection terminated unexpectedly');
    }) as never);
    expect((await t.agent().post('/auth/email-change/confirm').send({ token })).status).toBe(503);
    vi.restoreAllMocks();
  }
  const send = t.ctx.mailer.send.bind(t.ctx.mailer);
  vi.spyOn(t.ctx.mailer, 'send').mockImplementation(async (message) => {
    if (message.to === newEmail && message.kind === 'security_notice') throw new Error('mail server gone');
    return send(message);
  });
  expect((await t.agent().post('/auth/email-change/confirm').send({ token })).status).toBe(200);
  await settleSecurityNotices();
  vi.restoreAllMocks();
  const kept = await t.ctx.db('security_notice_retries').where({ account_id: accountId }).select('notice');
  return kept.map((row) => (row as { notice: Record<string, unknown> }).notice);
}

describe('a confirmed email change', () => {
  it('unlinks every Google/Microsoft identity: the old address’s Workspace account no longer signs in; audited, and the notice says so', async () => {
    const stamp = Date.now().toString(36);
    const oldEmail = `pat-${stamp}@oldcorp.example`;
    const newEmail = `pat-${stamp}@personal.example`;
    const account = await createAccount(t.ctx.db, { email: oldEmail, password: 'Correct-Horse-42!' });
    // Pat once signed in with the employer's Workspace account: linked automatically (hd = oldcorp.example).
    const sub = `workspace-${stamp}`;
    const first = t.agent();
    expect(locationOf(await roundTrip(first, google, loginPath(await startLogin(first, oldEmail)), { account: { sub, ...googleVerified(oldEmail) } }))).toBe(
      '/login/select-tenant',
    );
    const [link] = await oidcCredentials(t, account.id);
    expect(link).toBeDefined();

    // Pat left oldcorp; an admin moves the account to a personal address; Pat confirms.
    const notices = await moveKeepingNotice(account.id, newEmail);

    expect(await oidcCredentials(t, account.id)).toEqual([]);
    const rows = await auditActions(t, account.id);
    const removed = rows.filter((row) => row.action === 'credential.removed');
    // The change's id, as its account.email_changed row names it: a Try again after a commit reported failed reads both.
    const changeId = rows.find((row) => row.action === 'account.email_changed')?.details.change_id;
    expect(changeId).toEqual(expect.any(String));
    expect(removed.map((row) => row.details)).toEqual([{ credential_id: link!.id, type: 'oidc', provider: link!.provider, via: 'email_change', change_id: changeId }]);
    expect(notices).toEqual([expect.objectContaining({ change: 'operator_email_changed', credentialType: 'oidc' })]);

    // oldcorp's admin, who holds the Workspace account pat@oldcorp, cannot sign in as Pat with it.
    const intruder = t.agent();
    const res = await roundTrip(intruder, google, loginPath(await startLogin(intruder, newEmail)), { account: { sub, ...googleVerified(oldEmail) } });
    expect(errorOf(locationOf(res))).not.toBeNull();
    expect((await intruder.get('/oauth2/userinfo')).status).toBe(401);
  });

  it('says so in the notice too when Try again finishes a change whose commit was reported failed', async () => {
    const stamp = Date.now().toString(36);
    const oldEmail = `kim-${stamp}@oldcorp.example`;
    const account = await createAccount(t.ctx.db, { email: oldEmail, password: 'Correct-Horse-42!' });
    const first = t.agent();
    await roundTrip(first, google, loginPath(await startLogin(first, oldEmail)), { account: { sub: `workspace-${stamp}`, ...googleVerified(oldEmail) } });
    expect(await oidcCredentials(t, account.id)).toHaveLength(1);

    const notices = await moveKeepingNotice(account.id, `kim-${stamp}@personal.example`, { commitReportedFailed: true });

    expect(await oidcCredentials(t, account.id)).toEqual([]);
    expect(notices).toEqual([expect.objectContaining({ change: 'operator_email_changed', credentialType: 'oidc' })]);
  });

  it('unlinks nothing, and says nothing of it, for an account without such links', async () => {
    const stamp = Date.now().toString(36);
    const account = await createAccount(t.ctx.db, { email: `sam-${stamp}@oldcorp.example`, password: 'Correct-Horse-42!' });
    const notices = await moveKeepingNotice(account.id, `sam-${stamp}@personal.example`);
    expect(notices).toEqual([{ change: 'operator_email_changed', at: expect.any(String), userAgent: null, ip: null }]);
    expect((await auditActions(t, account.id)).map((row) => row.action)).not.toContain('credential.removed');
  });
});
