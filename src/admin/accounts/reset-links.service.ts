import type { Context } from '../../context.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';

export interface ResetLinkListing {
  email: string;
  link: string;
  expires_at: Date;
}

/** Active links are few (one per account, one hour each); the bound only guards against surprises. */
export const resetLinksLimit = 1000;

/**
 * Unused, unexpired reset links with the account's email, sorted by email (spec: "sorted by email
 * ascending"). Links are rebuilt from PUBLIC URL config, never from the request. Links created
 * before migration 002 have no sealed token and are not listed. Every view is audited with the
 * ids of the accounts whose links were shown (never the links): a link lets whoever holds it set
 * the account's password, so the log must say whose accounts an operator could have taken over.
 *
 * Operator accounts' links are never listed: an operator could otherwise reset a colleague's
 * password and read the link, and one operator's console is not a way into another's account.
 * Their reset mail still reaches them.
 */
export async function listActiveResetLinks(ctx: Context, operator: Operator): Promise<ResetLinkListing[]> {
  const now = ctx.now();
  const rows = (await ctx
    .db('password_reset_tokens as r')
    .join('accounts as a', 'a.id', 'r.account_id')
    .whereNull('r.used_at')
    .where('r.expires_at', '>', now)
    .whereNotNull('r.token_sealed')
    .whereNotExists((q) => q.select('o.account_id').from('operator_roles as o').whereRaw('o.account_id = r.account_id'))
    .orderBy([{ column: 'a.email' }, { column: 'r.created_at', order: 'desc' }])
    .limit(resetLinksLimit)
    .select('a.id', 'a.email', 'r.token_sealed', 'r.expires_at')) as { id: string; email: string; token_sealed: string; expires_at: Date }[];

  const links: ResetLinkListing[] = [];
  const accountIds: string[] = [];
  for (const row of rows) {
    let token: string;
    try {
      token = ctx.secretBox.open(row.token_sealed);
    } catch {
      // Sealed under an older ENCRYPTION_KEY: the emailed link still works, it just cannot be shown.
      continue;
    }
    links.push({ email: row.email, link: `${ctx.config.publicUrl}/login/set-password/${token}`, expires_at: row.expires_at });
    accountIds.push(row.id);
  }
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.password_resets.viewed', details: { count: links.length, account_ids: accountIds } },
    now,
  );
  return links;
}
