import { expect } from 'vitest';
import type { ReceivedMail } from '../helpers/mail-server.ts';
import { createPersona, signIn, type AdminTestApp, type Persona } from './harness.ts';

export type Browser = Awaited<ReturnType<typeof signIn>>;

/**
 * The steps of an operator's email change, through the real API, for the app `app()` answers
 * (started in the test file's beforeAll): the operator asks, the new address gets a link, the
 * link is confirmed.
 */
export function emailChangeSteps(app: () => AdminTestApp) {
  let counter = 0;
  const steps = {
    /** A new address no account has. */
    fresh: (name: string) => `${name}-${++counter}-${Date.now().toString(36)}@new.example.com`,
    requestChange: (operator: Browser, accountId: string, email: string) => operator.post(`/api/accounts/${accountId}/email-change`).send({ email }),
    withdraw: (operator: Browser, accountId: string) => operator.delete(`/api/accounts/${accountId}/email-change`),
    confirm: (token: string) => app().agent().post('/auth/email-change/confirm').send({ token }),
    accountOf: (id: string) => app().ctx.db('accounts').where({ id }).first('email', 'email_verified') as Promise<{ email: string; email_verified: boolean }>,
    auditOf: (id: string, action: string) =>
      app().ctx.db('audit_events').where({ target_account_id: id, action }).orderBy('id').select('actor_id', 'details') as Promise<
        { actor_id: string | null; details: Record<string, unknown> }[]
      >,
    /** The token of the confirmation link in a mail to the new address. */
    tokenIn: (mail: ReceivedMail) => /\/login\/confirm-email\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1],
    linkMail: (email: string) => app().mail.waitFor(email, (m) => m.subject === 'Confirm your new email address'),

    /** A new admin, signed in just now (a TOTP code is accepted once, so one admin per sign-in). */
    async signedInAdmin(): Promise<{ admin: Persona; operator: Browser }> {
      const admin = await createPersona(app().ctx, { role: 'admin', totp: true });
      return { admin, operator: await signIn(app(), admin) };
    },

    /** A person to move: an account with a password, not an operator, whose address is unverified. */
    async customer(): Promise<Persona> {
      const persona = await createPersona(app().ctx, { email: steps.fresh('old').replace('new.example.com', 'old.example.com') });
      await app().ctx.db('accounts').where({ id: persona.id }).update({ email_verified: false });
      return persona;
    },

    /** Asks for the change and answers the token from the mailed link. */
    async requested(operator: Browser, person: Persona, email: string): Promise<string> {
      const res = await steps.requestChange(operator, person.id, email);
      expect([res.status, res.body]).toEqual([202, { status: 'sent' }]);
      const token = steps.tokenIn(await steps.linkMail(email));
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      return token!;
    },
  };
  return steps;
}
