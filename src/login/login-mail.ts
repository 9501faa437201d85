import type { Context } from '../context.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { renderMail, type MailLanguage, type MailTemplate } from '../mail/templates.ts';

type MailContext = Pick<Context, 'mailer' | 'store' | 'config'>;

/**
 * Takes a point of the per-address budget of mails a visitor can cause (codes, notices, reset
 * links), so nobody can use Nyckel to flood an inbox. `to` is the address, or the budget key of a
 * known browser of it (lockout.ts budgetKey), which has 5 mails of its own. Taken before the work that replaces an
 * earlier code or link, so a refused resend leaves the earlier one usable. Security notices the
 * holder must get (password changed) are not limited.
 */
export async function takeMailPoint(ctx: MailContext, to: string): Promise<void> {
  await rateLimitsFor(ctx).consume('mail', to);
}

export async function sendMail(ctx: MailContext, to: string, language: MailLanguage, template: MailTemplate): Promise<void> {
  await ctx.mailer.send(renderMail(to, language, template));
}
