import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorRecentSignInSeconds } from '../../src/admin/operator-guard.ts';
import { loggableUrl } from '../../src/observability/access-log.ts';
import { noticeRetrySeconds, retryFailedNotices, settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { captureLogs } from '../helpers/log-capture.ts';
import { emailChangeSteps } from './email-change-steps.ts';
import { createPersona, errorType, password, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/**
 * "Change email" in the console, for a person whose address changed: the operator asks, the new
 * address gets a link, and only its confirmation changes the account (DESIGN: every code, link
 * and notice goes to accounts.email). Real app, real SMTP.
 */
let t: AdminTestApp;

beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});

const { fresh, requestChange, confirm, accountOf, auditOf, tokenIn, linkMail, signedInAdmin, customer, requested } = emailChangeSteps(() => t);

afterEach(() => vi.restoreAllMocks());

describe('an operator changes an account’s email address', () => {
  it('moves the account once the new address confirms: verified, signed out everywhere, signs in only with the new address; both addresses told (the old one without the new address in full); audited without the token', async () => {
    const logs = captureLogs(t.ctx.logger);
    try {
      const person = await customer();
      const newEmail = fresh('moved');
      const personBrowser = await signIn(t, person);
      expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(200);
      const { admin, operator } = await signedInAdmin();

      // Mixed case and spaces: normalised as every address is.
      const res = await requestChange(operator, person.id, `  ${newEmail.toUpperCase()} `);
      expect([res.status, res.body]).toEqual([202, { status: 'sent' }]);
      const link = await linkMail(newEmail);
      expect(link.text).toContain(`${t.ctx.config.publicUrl}/login/confirm-email/`);
      expect(link.text).toContain(newEmail);
      const token = tokenIn(link)!;
      const notice = await t.mail.waitFor(person.email, (m) => m.subject === 'A change of your email address was requested');
      // The new address masked: the old mailbox may be someone else's now.
      const masked = `${newEmail[0]}***@new.example.com`;
      expect(notice.text).toContain(`Support asked to change your account's email address to ${masked}`);
      expect(notice.text + notice.html).not.toContain(newEmail);
      expect(notice.text).toContain('If you did not ask for it, contact your administrator.');
      expect(notice.text).not.toContain(token);
      // Nothing changed yet.
      expect(await accountOf(person.id)).toEqual({ email: person.email, email_verified: false });
      expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(200);

      const confirmed = await confirm(token);
      expect([confirmed.status, confirmed.body]).toEqual([200, { status: 'changed', email: newEmail }]);
      expect(await accountOf(person.id)).toEqual({ email: newEmail, email_verified: true });
      // The portal session carried the old address: it is over.
      expect((await personBrowser.get('/oauth2/userinfo')).status).toBe(401);

      // The new address signs in; the old one is an address without an account.
      await signIn(t, { ...person, email: newEmail });
      const old = await t.agent().post('/auth/login/start').send({ email: person.email });
      expect(old.body.state).toBe('OTPRequired');
      const oldPassword = await t
        .agent()
        .post('/auth/login/verify-password')
        .send({ session_id: old.body.session_id, email: person.email, password });
      expect(oldPassword.body.state).not.toBe('Done');

      await settleSecurityNotices();
      const securityNotice = t.mail.to(newEmail).find((m) => m.subject === 'This is now the email address of your account');
      expect(securityNotice?.text).toContain('Sign in with this address from now on.');
      expect(securityNotice?.text).toContain('If you did not ask for this, contact your administrator.');
      const moved = await t.mail.waitFor(person.email, (m) => m.subject === 'Your account has a new email address');
      expect(moved.text).toContain(`changed to ${masked}`);
      expect(moved.text + moved.html).not.toContain(newEmail);

      expect(await auditOf(person.id, 'operator.account.email_change_requested')).toEqual([
        { actor_id: admin.id, details: { role: 'admin', email: newEmail } },
      ]);
      expect(await auditOf(person.id, 'account.email_changed')).toEqual([
        { actor_id: null, details: { previous_email: person.email, email: newEmail, requested_by: admin.id, change_id: expect.any(String) } },
      ]);
      const everything = JSON.stringify(await t.ctx.db('audit_events').select('*'));
      expect(everything).not.toContain(token);
      expect(logs.text()).not.toContain(token);
      // The page's URL carries the token: the access log leaves it out.
      expect(loggableUrl(`/login/confirm-email/${token}`)).toBe('/login/confirm-email/[redacted]');
    } finally {
      logs.stop();
    }
  });

  it('keeps the mails to the old address and tries them again while its mail server fails, as security notices', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const newEmail = fresh('queued');
    const send = t.ctx.mailer.send.bind(t.ctx.mailer);
    vi.spyOn(t.ctx.mailer, 'send').mockImplementation(async (message) => {
      if (message.to === person.email) throw new Error('connect ECONNREFUSED');
      return send(message);
    });
    expect((await confirm(await requested(operator, person, newEmail))).status).toBe(200);
    await settleSecurityNotices();
    vi.restoreAllMocks();
    const kept = () => t.ctx.db('security_notice_retries').where({ account_id: person.id }).orderBy('id').select('notice', 'attempts');
    expect(await kept()).toEqual([
      { notice: expect.objectContaining({ to: person.email, mail: { kind: 'email_change_requested', email: expect.stringMatching(/^q\*\*\*@/) } }), attempts: 1 },
      { notice: expect.objectContaining({ to: person.email, mail: { kind: 'email_changed', email: expect.stringMatching(/^q\*\*\*@/) } }), attempts: 1 },
    ]);

    t.ctx.advance(noticeRetrySeconds[0] * 1000);
    expect((await retryFailedNotices(t.ctx)).sent).toBeGreaterThanOrEqual(2);
    await t.mail.waitFor(person.email, (m) => m.subject === 'A change of your email address was requested');
    await t.mail.waitFor(person.email, (m) => m.subject === 'Your account has a new email address');
    expect(await kept()).toEqual([]);
  });

  it('a link works once, a newer request replaces it (audited), and it expires after an hour', async () => {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const typo = fresh('typo');
    const first = await requested(operator, person, typo);
    const second = await requested(operator, person, fresh('right'));
    expect(await auditOf(person.id, 'account.email_change_cancelled')).toEqual([{ actor_id: admin.id, details: { email: typo, reason: 'replaced' } }]);
    expect(errorType(await confirm(first))).toBe('invalid_token');
    expect((await confirm(first)).status).toBe(406);
    expect((await confirm(second)).status).toBe(200);
    const again = await confirm(second);
    expect([again.status, errorType(again)]).toEqual([406, 'invalid_token']);

    const later = await customer();
    const expiring = await requested(operator, later, fresh('late'));
    t.ctx.advance(61 * 60 * 1000);
    expect((await confirm(expiring)).status).toBe(406);
    expect((await accountOf(later.id)).email).toBe(later.email);
  });

  it('refuses bad tokens with 406, never a 500', async () => {
    for (const token of ['', 'x', 'a'.repeat(512), '../../etc', '%00']) {
      expect((await confirm(token)).status).toBe(406);
    }
    expect((await t.agent().post('/auth/email-change/confirm').send({ token: 'a'.repeat(513) })).status).toBe(422);
    expect((await t.agent().post('/auth/email-change/confirm').send({ token: 42 })).status).toBe(422);
    expect((await t.agent().post('/auth/email-change/confirm').send('nonsense')).status).toBeLessThan(500);
  });

  it('is refused when the address is taken, at the request and at the confirmation', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const other = await customer();
    const taken = await requestChange(operator, person.id, other.email.toUpperCase());
    expect([taken.status, errorType(taken)]).toEqual([409, 'account/email-taken']);

    const wanted = fresh('contested');
    const token = await requested(operator, person, wanted);
    await createPersona(t.ctx, { email: wanted });
    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([409, 'account/email-taken']);
    expect((await accountOf(person.id)).email).toBe(person.email);
    expect(await auditOf(person.id, 'account.email_changed')).toEqual([]);
    // Refused, recorded, and spent: the operator asks again.
    expect(await auditOf(person.id, 'account.email_change_refused')).toEqual([
      { actor_id: null, details: { email: wanted, reason: 'email_taken', requested_by: expect.any(String) } },
    ]);
    expect((await confirm(token)).status).toBe(406);
    expect(await auditOf(person.id, 'account.email_change_refused')).toHaveLength(1);
  });

  it('is refused, recorded, when the account’s address changed after the request', async () => {
    const { admin, operator } = await signedInAdmin();
    const person = await customer();
    const wanted = fresh('stale');
    const token = await requested(operator, person, wanted);
    const elsewhere = fresh('elsewhere');
    await t.ctx.db('accounts').where({ id: person.id }).update({ email: elsewhere });
    const res = await t.agent().set('User-Agent', 'Confirming Browser').post('/auth/email-change/confirm').send({ token });
    expect([res.status, errorType(res)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(elsewhere);
    const [row] = await t.ctx.db('audit_events').where({ target_account_id: person.id, action: 'account.email_change_refused' }).select('actor_id', 'user_agent', 'details');
    expect(row).toEqual({ actor_id: null, user_agent: 'Confirming Browser', details: { email: wanted, reason: 'address_changed', requested_by: admin.id } });
  });

  it('answers 409 for the current address, 422 for a malformed one, 404 for an unknown account', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const same = await requestChange(operator, person.id, ` ${person.email.toUpperCase()}`);
    expect([same.status, errorType(same)]).toEqual([409, 'account/email-unchanged']);
    for (const bad of ['not-an-address', 'a@', '', `${'a'.repeat(250)}@x.se`]) {
      expect((await requestChange(operator, person.id, bad)).status).toBe(422);
    }
    expect((await operator.post(`/api/accounts/${person.id}/email-change`).send({})).status).toBe(422);
    expect((await requestChange(operator, '00000000-0000-4000-8000-000000000000', fresh('nobody'))).status).toBe(404);
    expect(await auditOf(person.id, 'operator.account.email_change_requested')).toEqual([]);
  });

  it('is refused for an operator’s account (revoke the role first): at the request, and at the confirmation for a role granted since', async () => {
    const { operator } = await signedInAdmin();
    for (const role of ['admin', 'support'] as const) {
      const colleague = await createPersona(t.ctx, { role, totp: true });
      const target = fresh(`grab-${role}`);
      const res = await requestChange(operator, colleague.id, target);
      expect([res.status, errorType(res)]).toEqual([409, 'account/operator-account']);
      expect(await auditOf(colleague.id, 'operator.account.email_change_requested')).toEqual([]);
      expect(t.mail.to(target)).toEqual([]);
    }

    const person = await customer();
    const token = await requested(operator, person, fresh('promoted'));
    await t.ctx.db('operator_roles').insert({ account_id: person.id, role: 'support' });
    const late = await confirm(token);
    expect([late.status, errorType(late)]).toEqual([406, 'invalid_token']);
    expect((await accountOf(person.id)).email).toBe(person.email);
    expect((await auditOf(person.id, 'account.email_change_refused')).map((row) => row.details.reason)).toEqual(['operator_account']);
  });

  it('is for admins with a recent second-factor sign-in only', async () => {
    const person = await customer();
    const target = fresh('refused');
    const support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
    const bySupport = await requestChange(support, person.id, target);
    expect([bySupport.status, errorType(bySupport)]).toEqual([403, 'forbidden']);

    const { operator } = await signedInAdmin();
    t.ctx.advance((operatorRecentSignInSeconds + 60) * 1000);
    const stale = await requestChange(operator, person.id, target);
    expect([stale.status, errorType(stale)]).toEqual([403, 'operator/reauthentication-required']);

    expect(t.mail.to(target)).toEqual([]);
    expect(await auditOf(person.id, 'operator.account.email_change_requested')).toEqual([]);
  });
});
