import { findAccountById } from '../accounts/accounts.repository.ts';
import type { Context } from '../context.ts';
import { sendMail } from '../login/login-mail.ts';
import type { SecurityChange } from '../mail/security-notice.template.ts';
import { chooseLanguage } from '../mail/templates.ts';

export type { SecurityChange };

export interface SecurityNotice {
  change: SecurityChange;
  /** The removed credential's type (credential_removed, operator_credential_removed). */
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
 * Mails the account's holder that a way to sign in was added, replaced or removed (ASVS V2.2.3):
 * whoever planted a passkey or linked their own Google account with a stolen session is seen by
 * the one who reads the mailbox. Called once per change, after its transaction committed.
 *
 * - In the account's saved language: the request that made the change may be an attacker's, and
 *   its Accept-Language says nothing about the person who reads the mail.
 * - Not counted against the address's mail budget (login-mail.ts takeMailPoint): whoever spends
 *   that budget must not be able to silence the notice of their own change.
 * - Never throws: the change is made and committed, so a mail server that is down (or an account
 *   read that fails) is logged, and the change still answers as it would have.
 */
export async function notifySecurityChange(ctx: NoticeContext, accountId: string, notice: SecurityNotice, origin: NoticeOrigin | null): Promise<void> {
  try {
    const account = await findAccountById(ctx.db, accountId);
    if (!account) return;
    const language = chooseLanguage({ accountLocale: account.locale });
    await sendMail(ctx, account.email, language, {
      kind: 'security_notice',
      ...notice,
      at: ctx.now(),
      userAgent: origin?.userAgent ?? null,
      ip: origin?.ip ?? null,
    });
  } catch (error) {
    ctx.logger.error({ change: notice.change, ...failureOf(error) }, 'security notice mail failed');
  }
}

/**
 * What went wrong, without the message: an SMTP refusal quotes the recipient ("550 <k.lind@…>:
 * Recipient address rejected"), and the log must not hold the address (mailer.ts maskAddress).
 */
function failureOf(error: unknown): { error: string; code?: unknown; command?: unknown; response_code?: unknown } {
  if (!(error instanceof Error)) return { error: typeof error };
  const { code, command, responseCode } = error as Error & { code?: unknown; command?: unknown; responseCode?: unknown };
  return { error: error.name, code, command, response_code: responseCode };
}
