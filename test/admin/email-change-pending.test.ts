import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailChangeSteps } from './email-change-steps.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * A pending email change is visible in the console: the account listing and
 * GET /api/accounts/{id}/email-change say where the account is being moved and until when, for
 * support too; only an admin requests or withdraws it.
 */
let t: AdminTestApp;
let support: Awaited<ReturnType<typeof signIn>>;

beforeAll(async () => {
  t = await startAdminApp();
  support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
});
afterAll(async () => {
  await t?.close();
});

const { fresh, requested, withdraw, confirm, signedInAdmin, customer } = emailChangeSteps(() => t);

/** The account as the console's search lists it. */
async function listed(person: Persona): Promise<{ id: string; pending_email_change: { email: string; expires_at: string } | null }> {
  const res = await support.get(`/api/accounts/search/${encodeURIComponent(person.email)}`);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0];
}

const pendingOf = (person: Persona) => support.get(`/api/accounts/${person.id}/email-change`);

describe('a pending email change in the console', () => {
  it('is listed with the new address and the end of its link, and read by support; gone once withdrawn', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    const bystander = await customer();
    expect((await listed(person)).pending_email_change).toBeNull();
    const none = await pendingOf(person);
    expect([none.status, errorType(none)]).toEqual([404, 'account/no-pending-email-change']);

    const target = fresh('moved');
    const asked = t.ctx.now().getTime();
    await requested(operator, person, target);
    const shown = (await listed(person)).pending_email_change;
    expect(shown?.email).toBe(target);
    // One hour from the request.
    expect(Date.parse(shown!.expires_at) - asked).toBeGreaterThanOrEqual(3600 * 1000);
    expect(Date.parse(shown!.expires_at) - asked).toBeLessThan(3601 * 1000);
    const read = await pendingOf(person);
    expect([read.status, read.body]).toEqual([200, shown]);
    expect((await listed(bystander)).pending_email_change).toBeNull();

    // Support reads, but does not act.
    expect((await withdraw(support, person.id)).status).toBe(403);
    expect((await withdraw(operator, person.id)).status).toBe(200);
    expect((await listed(person)).pending_email_change).toBeNull();
    expect(errorType(await pendingOf(person))).toBe('account/no-pending-email-change');
  });

  it('names the newest request, and none once the link is confirmed', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    await requested(operator, person, fresh('typo'));
    const right = fresh('right');
    const token = await requested(operator, person, right);
    expect((await listed(person)).pending_email_change?.email).toBe(right);
    expect((await confirm(token)).status).toBe(200);
    const moved = { ...person, email: right };
    expect((await listed(moved)).pending_email_change).toBeNull();
  });

  it('404 not_found for an unknown account, 422 for a malformed id', async () => {
    const unknown = await support.get('/api/accounts/0b0e8f8e-8d8a-4c4b-9d6e-111111111111/email-change');
    expect([unknown.status, errorType(unknown)]).toEqual([404, 'not_found']);
    expect((await support.get('/api/accounts/not-a-uuid/email-change')).status).toBe(422);
  });

  // Last: it moves the clock.
  it('is not listed once its hour has passed', async () => {
    const { operator } = await signedInAdmin();
    const person = await customer();
    await requested(operator, person, fresh('late'));
    t.ctx.advance(61 * 60 * 1000);
    // The console session has timed out meanwhile: a new one.
    support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
    expect((await listed(person)).pending_email_change).toBeNull();
    expect((await pendingOf(person)).status).toBe(404);
  });
});
