import { findAccountById } from '../accounts/accounts.repository.ts';
import type { Context } from '../context.ts';
import { sendMail } from '../login/login-mail.ts';
import { failureOf, MailRefusedError } from '../mail/mail-failure.ts';
import type { SecurityChange } from '../mail/security-notice.template.ts';
import { chooseLanguage, type MailTemplate } from '../mail/templates.ts';
import { countDelayedNotice } from '../observability/metrics.ts';

export type { SecurityChange };

export interface SecurityNotice {
  change: SecurityChange;
  /**
   * The removed credential's type (credential_removed, operator_credential_removed); for
   * operator_email_changed, `oidc` when the change unlinked Google or Microsoft sign-in.
   */
  credentialType?: string | undefined;
  /** The upstream provider (upstream_linked): google or microsoft. */
  provider?: string | undefined;
}

/** Where the change came from; null when an operator made it (their browser is not the person's business). */
export interface NoticeOrigin {
  ip: string | null;
  userAgent: string | null;
}

type NoticeContext = Pick<Context, 'db' | 'mailer' | 'store' | 'config' | 'logger' | 'now'>;

/**
 * Seconds to wait after each failed try before the next: 1, 5 and 15 minutes, then 1, 2, 4, 8 and
 * 12 hours. After the ninth try (about 28 hours after the change) the notice is given up.
 */
export const noticeRetrySeconds = [60, 300, 900, 3600, 7200, 14_400, 28_800, 43_200] as const;

/**
 * A claimed notice belongs to the process sending it this long; then another may take it (the
 * sender crashed). Longer than a whole run can take: 20 notices at the mailer's worst (5 s to
 * connect, 10 s of silence) is 5 minutes. A new notice is claimed by the process that kept it.
 */
const claimSeconds = 600;

/**
 * A mail about the account to an address that is not (or no longer) the account's, kept and
 * retried as its security notices are: what an email change tells the address it moves away from.
 */
export type AddressedNotice = Extract<MailTemplate, { kind: 'email_change_requested' | 'email_changed' }>;

/** What a notice says, as kept between tries (the time is the change's, not the send's). */
interface StoredNotice extends SecurityNotice {
  at: string;
  userAgent: string | null;
  ip: string | null;
  /** Set by notifyAddress: the mail goes to `to`, as `mail`, instead of the notice to the account's address. */
  to?: string;
  mail?: AddressedNotice;
}

/**
 * Mails the account's holder that a way to sign in was added, replaced or removed (ASVS V2.2.3):
 * whoever planted a passkey or linked their own Google account with a stolen session is seen by
 * the one who reads the mailbox. Called once per change, after its transaction committed.
 *
 * - In the account's saved language: the request that made the change may be an attacker's, and
 *   its Accept-Language says nothing about the person who reads the mail.
 * - Not counted against the address's mail budget (login-mail.ts takeMailPoint): whoever spends
 *   that budget must not be able to silence the notice of their own change.
 * - Kept before it is sent, and sent after the call returns: the notice is written to
 *   `security_notice_retries` (one insert), claimed for `claimSeconds`, and the mail goes out in
 *   the background, so a slow mail server (up to 20 s: mailer.ts smtpTimeouts) never holds up the
 *   person's change, and a process that stops before the mail went out leaves the notice for
 *   retryFailedNotices once the claim lapses. Sent, the row is deleted; failed, it waits its
 *   first retry (noticeRetrySeconds). At least once: a crash between the mail and the delete
 *   sends it again.
 * - Never throws: the change is made and committed. Failures are logged, without the address.
 */
export async function notifySecurityChange(ctx: NoticeContext, accountId: string, notice: SecurityNotice, origin: NoticeOrigin | null): Promise<void> {
  await keepAndSend(ctx, accountId, { ...notice, at: ctx.now().toISOString(), userAgent: origin?.userAgent ?? null, ip: origin?.ip ?? null });
}

/**
 * As notifySecurityChange, for a mail to an address other than the account's (`to`), in the
 * account's language: the mails of an operator's email change to the address the account is
 * moving away from (the request, the change). That mailbox is often the one that is gone, so its
 * server refusing or failing is common; kept and retried all the same, as every notice is, for
 * when it is only down: it is where the holder hears that someone asked support to move the
 * account. Kept as the change `operator_email_changed`, the name its log lines carry.
 */
export async function notifyAddress(ctx: NoticeContext, accountId: string, to: string, mail: AddressedNotice): Promise<void> {
  await keepAndSend(ctx, accountId, { change: 'operator_email_changed', at: ctx.now().toISOString(), userAgent: null, ip: null, to, mail });
}

/** Keeps the notice, then makes its first try in the background (see notifySecurityChange). */
async function keepAndSend(ctx: NoticeContext, accountId: string, stored: StoredNotice): Promise<void> {
  let keptId: string | null = null;
  try {
    const now = ctx.now();
    const [row] = await ctx
      .db('security_notice_retries')
      .insert({ account_id: accountId, notice: stored, attempts: 0, next_attempt_at: new Date(now.getTime() + claimSeconds * 1000), created_at: now })
      .returning('id');
    keptId = String((row as { id: string | number }).id);
  } catch (error) {
    // Not kept (the database failed just after the change committed): still sent once, now.
    ctx.logger.error({ change: stored.change, ...failureOf(error) }, 'security notice could not be kept for another try');
  }
  const sending = firstTry(ctx, accountId, stored, keptId);
  inFlight.add(sending);
  void sending.finally(() => inFlight.delete(sending));
}

/** First tries still sending (notifySecurityChange), for settleSecurityNotices. */
const inFlight = new Set<Promise<void>>();

/**
 * Resolves when the first tries under way have finished, or after `timeoutMs`: the server waits
 * for them at shutdown before it closes the mailer and the database (a notice cut off there is
 * still kept, and sent again by the next process once its claim lapses).
 */
export async function settleSecurityNotices(timeoutMs = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  await Promise.race([Promise.allSettled([...inFlight]), timeout]);
  clearTimeout(timer);
}

/** The mail of a notice just kept (`keptId`; null: not kept): sent, the row goes; failed, it waits its first retry. */
async function firstTry(ctx: NoticeContext, accountId: string, notice: StoredNotice, keptId: string | null): Promise<void> {
  const kept = () => ctx.db('security_notice_retries').where({ id: keptId });
  try {
    await sendNotice(ctx, accountId, notice);
  } catch (error) {
    ctx.logger.error({ change: notice.change, ...failureOf(error) }, 'security notice mail failed');
    if (keptId === null) return;
    try {
      // Refused for good (the address does not take mail): trying again for a day would not help.
      if (error instanceof MailRefusedError) {
        // The deleted rows, not a count: knex's PGlite client answers a delete with a raw result.
        if ((await kept().delete().returning('id')).length > 0) countDelayedNotice('given_up');
        return;
      }
      // Gone already when another process took it after the claim lapsed (and mailed it).
      const updated = await kept().update({ attempts: 1, next_attempt_at: new Date(ctx.now().getTime() + noticeRetrySeconds[0] * 1000) });
      if (updated > 0) countDelayedNotice('kept');
    } catch (keepError) {
      // The claim lapses all the same, and retryFailedNotices tries it then.
      ctx.logger.error({ change: notice.change, ...failureOf(keepError) }, 'security notice could not be kept for another try');
    }
    return;
  }
  try {
    if (keptId !== null) await kept().delete();
  } catch (error) {
    ctx.logger.warn({ change: notice.change, ...failureOf(error) }, 'security notice sent, but still kept: it may be mailed again');
  }
}

/** Mails the notice to the account's address (or the one it names) now; false when the account is gone. */
async function sendNotice(ctx: NoticeContext, accountId: string, notice: StoredNotice): Promise<boolean> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) return false;
  const language = chooseLanguage({ accountLocale: account.locale });
  const { to, mail, ...security } = notice;
  if (to && mail) await sendMail(ctx, to, language, mail);
  else await sendMail(ctx, account.email, language, { kind: 'security_notice', ...security, at: new Date(notice.at) });
  return true;
}

interface RetryRow {
  id: string;
  account_id: string;
  notice: StoredNotice;
  attempts: number;
}

/**
 * Another try for the notices that are due, at most `limit` of them: the server runs it every
 * minute (src/main.ts). Each is claimed first (skipping those another instance holds), so two
 * instances never send the same one at once; sent, it is deleted. A failed try waits the next of
 * noticeRetrySeconds, and after the last the notice is given up, logged as an error. Logs carry
 * the change and the failure, never the address.
 */
export async function retryFailedNotices(ctx: NoticeContext, { limit = 20 } = {}): Promise<{ sent: number; failed: number; givenUp: number }> {
  const now = ctx.now();
  const due = ctx.db('security_notice_retries').select('id').where('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(limit).forUpdate().skipLocked();
  const claimed: RetryRow[] = await ctx
    .db('security_notice_retries')
    .whereIn('id', due)
    .update({ next_attempt_at: new Date(now.getTime() + claimSeconds * 1000) }, ['id', 'account_id', 'notice', 'attempts']);
  const outcome = { sent: 0, failed: 0, givenUp: 0 };
  for (const row of claimed) {
    const retries = () => ctx.db('security_notice_retries').where({ id: row.id });
    try {
      await sendNotice(ctx, row.account_id, row.notice);
      await retries().delete();
      countDelayedNotice('sent_late');
      outcome.sent += 1;
    } catch (error) {
      const attempts = row.attempts + 1;
      // After the last try, or at once when the mail server refuses the address for good.
      const wait = error instanceof MailRefusedError ? undefined : noticeRetrySeconds[attempts - 1];
      if (wait === undefined) {
        await retries().delete();
        ctx.logger.error({ change: row.notice.change, attempts, ...failureOf(error) }, 'security notice given up');
        countDelayedNotice('given_up');
        outcome.givenUp += 1;
      } else {
        await retries().update({ attempts, next_attempt_at: new Date(ctx.now().getTime() + wait * 1000) });
        ctx.logger.warn({ change: row.notice.change, attempts, ...failureOf(error) }, 'security notice mail failed again');
        outcome.failed += 1;
      }
    }
  }
  return outcome;
}

/**
 * Runs retryFailedNotices every `intervalMs` until the answered function stops it (the server
 * does, at shutdown). A run that fails (the database gone) is logged; the next one tries again.
 * One run at a time: a slow run is not overtaken by the next.
 */
export function startNoticeRetries(ctx: NoticeContext, intervalMs = 60_000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    retryFailedNotices(ctx)
      .catch((error: unknown) => ctx.logger.warn({ ...failureOf(error) }, 'security notice retries could not run'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
