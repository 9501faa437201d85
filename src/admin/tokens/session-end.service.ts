import type Provider from 'oidc-provider';
import { findAccountById } from '../../accounts/accounts.repository.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { listAccountKeys } from '../../oidc/account-keys.ts';
import { endSignIn } from '../../profile/sessions.service.ts';
import { listPortalSessions, type PortalSessionWithId } from '../../session/portal-session.ts';
import { assertMayActOn } from '../accounts/account-actions.service.ts';
import { spendAccountAction } from '../accounts/action-limits.ts';
import { recordAfterChange } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';
import { portalSessionLabel, portalSessionsByOidcUid, tokenLabel } from './tokens.service.ts';

/** One browser's sign-in, as the tokens view groups it: what ending the row `key` ends. */
interface SignIn {
  model: 'Session' | 'PortalSession';
  /** The live Nyckel session of that browser; null for an OP session whose Nyckel session has ended. */
  portal: PortalSessionWithId | null;
  /** The OP sessions of that browser: the row's own, and every one its Nyckel session signed in. */
  uids: string[];
}

/**
 * The account's sign-in whose tokens-view row is `key` (sessionKeySchema), or null when the account
 * has none by that key: ended since, another account's, or never one. Matched among this account's
 * own entries only, so a key seen on another account's page ends nothing here.
 *
 * A `PortalSession` row is that Nyckel session. An OP `Session` row is the browser it was signed in
 * from: the Nyckel session that signed it in, when that one lives (the view shows its address and
 * browser on the row). Ending only the OP session would change nothing there: while the Nyckel
 * session lives, that browser's next authorization is signed in again without a question
 * (silent-sign-in.ts, the interaction route). An OP session whose Nyckel session is gone is ended
 * on its own, with its applications.
 */
async function findSignIn(ctx: Context, accountId: string, key: string): Promise<SignIn | null> {
  const [entries, portalSessions] = await Promise.all([listAccountKeys(ctx.store, accountId), listPortalSessions(ctx, accountId)]);
  const signedInBy = await portalSessionsByOidcUid(ctx, portalSessions, entries);
  const browserOf = (portal: PortalSessionWithId) => [...signedInBy].filter(([, signer]) => signer.id === portal.id).map(([uid]) => uid);
  if (key.startsWith('PortalSession:')) {
    const portal = portalSessions.find((session) => portalSessionLabel(session.id) === key);
    return portal ? { model: 'PortalSession', portal, uids: browserOf(portal) } : null;
  }
  const entry = entries.find((candidate) => candidate.model === 'Session' && tokenLabel(candidate.model, candidate.key) === key);
  if (!entry?.sessionUid) return null;
  const portal = signedInBy.get(entry.sessionUid) ?? null;
  return { model: 'Session', portal, uids: [entry.sessionUid, ...(portal ? browserOf(portal) : [])] };
}

/**
 * "End session" on the console's tokens view, for a person who left themself signed in on a shared
 * computer: ends that one browser's sign-in as the person's own "Sign out" on the session in their
 * profile does (endSignIn): its Nyckel session, the OP sessions it signed in, and the grants, with
 * their refresh tokens, of the applications signed in through them. The account's other sessions,
 * its remembered devices and its password stay, as they do when the person does it.
 *
 * Guarded as "Sign out everywhere" is (account-actions.service.ts), whose smaller version this is:
 * support may, since it only ends access; an account with an operator role takes an admin
 * (assertMayActOn); a budget per account and per operator (action-limits.ts). 404 for an unknown
 * account, then 403, then 404 for a key that is none of the account's sessions, all before the
 * budget: a refusal costs nothing and changes and records nothing.
 *
 * Audited after the change, with what it ended, as the sign-out everywhere is and for its reasons:
 * the row names the account, the kind of row, its label from the view (a one-way hash, never the
 * session's id), whether a Nyckel session ended and how many applications. A failure part way is
 * logged as an error and answered 500 or 503; ending again answers 404 once the session is gone.
 */
export async function endAccountSession(
  ctx: Context,
  provider: Provider,
  operator: Operator,
  accountId: string,
  key: string,
): Promise<{ applications: number }> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await assertMayActOn(ctx, operator, account.id);
  const signIn = await findSignIn(ctx, account.id, key);
  if (!signIn) throw errors.notFound();
  await spendAccountAction(ctx, operator, 'end-session', account.id);
  const applications = await recordAfterChange(
    ctx,
    operator,
    {
      action: 'operator.account.session_ended',
      targetAccountId: account.id,
      details: (ended) => ({ kind: signIn.model, key, nyckel_session: signIn.portal !== null, applications: ended }),
      logged: (ended) => ({ kind: signIn.model, applications: ended ?? null }),
      failed: 'ending the session failed, perhaps part way; not audited',
      unrecorded: 'the session ended, but the audit row was not written',
    },
    () => endSignIn(ctx, provider, account.id, signIn.portal?.id ?? null, signIn.uids),
  );
  return { applications };
}
