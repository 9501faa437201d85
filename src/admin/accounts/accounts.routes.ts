import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { accountCredentialParams, accountParams, emailChangeBody, searchParams } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { deleteAccountCredential, sendResetEmail, signAccountOutEverywhere, unlockAccount } from './account-actions.service.ts';
import { listAccountsFor, searchAccountsFor } from './account-listing.service.ts';
import { readPendingEmailChange, requestEmailChange, withdrawEmailChange } from './email-change.service.ts';
import { listActiveResetLinks } from './reset-links.service.ts';

/**
 * The console's Accounts page: search, reset mails, sign-in unlocks, signing out everywhere,
 * credential deletion, email changes, active reset links. The provider ends the account's OP sessions and grants.
 */
export function createAdminAccountsRouter(ctx: Context, provider: Provider): Router {
  const router = Router();
  const support = requireOperator(ctx, 'support');
  const admin = requireOperator(ctx, 'admin');
  /** For what amounts to signing in as the person: a recent sign-in too (operator-guard.ts). */
  const adminRecently = requireOperator(ctx, 'admin', { recentSignIn: true });

  // Each is budgeted per operator and audited (account-listing.service.ts).
  router.get('/api/accounts/', support, async (_req, res) => {
    res.json(await listAccountsFor(ctx, operatorOf(res)));
  });

  router.get('/api/accounts/search/:query', support, validate({ params: searchParams }), async (_req, res) => {
    res.json(await searchAccountsFor(ctx, operatorOf(res), res.locals.params.query));
  });

  // Admin only: a listed link sets the account's password, so reading it is signing in as that
  // person, which this product allows only to admins, through audited impersonation. Support
  // still sends the link, which goes only to the account's own address.
  router.get('/api/accounts/password-resets', adminRecently, async (_req, res) => {
    res.json(await listActiveResetLinks(ctx, operatorOf(res)));
  });

  router.post('/api/accounts/:accountId/reset-password', support, validate({ params: accountParams }), async (_req, res) => {
    await sendResetEmail(ctx, operatorOf(res), res.locals.params.accountId);
    res.json({ status: 'sent' });
  });

  // Support: ending a lock lets no one in without the password, and the run of failures (the
  // 100 cap) is kept. An operator's account needs an admin (see unlockAccount).
  router.post('/api/accounts/:accountId/unlock', support, validate({ params: accountParams }), async (_req, res) => {
    await unlockAccount(ctx, operatorOf(res), res.locals.params.accountId);
    res.json({ status: 'unlocked' });
  });

  // Support, as for unlock: signing out opens nothing, it only ends access (the person signs in
  // again with the same password), and it is what a person who lost a device asks support for.
  // An operator's account needs an admin (see signAccountOutEverywhere).
  router.post('/api/accounts/:accountId/sign-out-everywhere', support, validate({ params: accountParams }), async (_req, res) => {
    const { applications } = await signAccountOutEverywhere(ctx, provider, operatorOf(res), res.locals.params.accountId);
    res.json({ status: 'signed_out', applications });
  });

  router.delete(
    '/api/accounts/:accountId/credentials/:credentialId',
    adminRecently,
    validate({ params: accountCredentialParams }),
    async (_req, res) => {
      const { accountId, credentialId } = res.locals.params;
      await deleteAccountCredential(ctx, provider, operatorOf(res), accountId, credentialId);
      res.status(204).end();
    },
  );

  // Admin, recently signed in with a second factor, as for a credential deletion: the address is
  // where every code, reset link and notice goes, so moving it moves every way in that runs
  // through the mailbox. Nothing changes until the new address confirms (email-change.service.ts).
  router.post(
    '/api/accounts/:accountId/email-change',
    adminRecently,
    validate({ params: accountParams, body: emailChangeBody }),
    async (_req, res) => {
      await requestEmailChange(ctx, operatorOf(res), res.locals.params.accountId, res.locals.body.email);
      res.status(202).json({ status: 'sent' });
    },
  );

  // Support too: where the account is being moved and until when, as the listing shows it.
  // Budgeted and audited as a read of the account (email-change.service.ts).
  router.get('/api/accounts/:accountId/email-change', support, validate({ params: accountParams }), async (_req, res) => {
    res.json(await readPendingEmailChange(ctx, operatorOf(res), res.locals.params.accountId));
  });

  // Admin, as the request; without a recent sign-in: withdrawing only takes the link away (or, for
  // a change already made, finishes it as its confirmation would have).
  router.delete('/api/accounts/:accountId/email-change', admin, validate({ params: accountParams }), async (_req, res) => {
    const { email } = await withdrawEmailChange(ctx, provider, operatorOf(res), res.locals.params.accountId);
    res.json({ status: 'withdrawn', email });
  });

  return router;
}
