import type { Db } from '../src/db/knex.ts';

/**
 * Bulk accounts for load tests and the search benchmark (`npm run seed -- --accounts 100000`).
 * Rows are made by PostgreSQL itself (generate_series), a batch per statement, so 100,000 accounts
 * take seconds even on PGlite. Idempotent: emails are numbered (bulk-0000001@…), existing ones are
 * skipped, so a second run tops up to the asked count.
 *
 * Each account gets a name from 50 × 50 first and last names, one of seven email domains, a last
 * sign-in for two in three, an upstream credential for every third (no passwords: these accounts
 * are for listing and search, not for signing in), and access to the tenant `bulkload` for every
 * other one.
 */

const firstNames = [
  'Anna', 'Erik', 'Maria', 'Lars', 'Karin', 'Johan', 'Eva', 'Anders', 'Sara', 'Per', 'Lena', 'Nils', 'Emma', 'Karl', 'Ida',
  'Olof', 'Elin', 'Jonas', 'Maja', 'Oskar', 'Linnea', 'Gustav', 'Hanna', 'Axel', 'Klara', 'Viktor', 'Frida', 'Emil', 'Tove',
  'Henrik', 'Sofia', 'Mikael', 'Julia', 'Fredrik', 'Alva', 'David', 'Ebba', 'Hugo', 'Wilma', 'Leo', 'Astrid', 'Noah', 'Saga',
  'Liam', 'Elsa', 'Isak', 'Stina', 'Amir', 'Fatima', 'Yusuf',
];
const lastNames = [
  'Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson',
  'Pettersson', 'Jonsson', 'Jansson', 'Hansson', 'Bengtsson', 'Lindberg', 'Jakobsson', 'Magnusson', 'Lindstrom', 'Olofsson',
  'Lindqvist', 'Lindgren', 'Berg', 'Axelsson', 'Bergstrom', 'Lundberg', 'Lind', 'Lundgren', 'Lundqvist', 'Mattsson',
  'Berglund', 'Fredriksson', 'Sandberg', 'Henriksson', 'Forsberg', 'Sjoberg', 'Wallin', 'Engstrom', 'Eklund', 'Danielsson',
  'Lundin', 'Hakansson', 'Bjork', 'Bergman', 'Gunnarsson', 'Holm', 'Wikstrom', 'Samuelsson', 'Isaksson', 'Fransson',
];
const domains = ['acme.test', 'nordictalent.test', 'example.com', 'mail.test', 'recruit.test', 'partner.test', 'people.test'];

export const bulkTenantSlug = 'bulkload';

export interface GenerateOptions {
  /** Rows per statement. */
  batchSize?: number;
  /** Called after each batch with the accounts handled so far. */
  onProgress?: (done: number, total: number) => void;
}

const sqlArray = (values: readonly string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;

/**
 * One batch, numbers from..to: accounts (existing emails skipped), then credentials and tenant access
 * for the new ones, in one statement. Answers how many accounts were new.
 */
const batchSql = `
  with numbered as (
    select i,
           'bulk-' || lpad(i::text, 7, '0') || '@' || (${sqlArray(domains)})[1 + i % ${domains.length}] as email,
           (${sqlArray(firstNames)})[1 + i % ${firstNames.length}] || ' ' ||
             (${sqlArray(lastNames)})[1 + (i / ${firstNames.length}) % ${lastNames.length}] as name
      from generate_series(?::int, ?::int) as i
  ), created as (
    insert into accounts (email, name, is_user, is_stakeholder, email_verified, locale, last_login_at)
    select email, name, i % 10 <> 0, i % 10 = 0 or i % 17 = 0, true,
           case when i % 4 = 0 then 'sv' else 'en' end,
           case when i % 3 = 0 then null else now() - (i % 500) * interval '1 day' end
      from numbered
    on conflict (email) do nothing
    returning id, email
  ), upstream as (
    insert into credentials (account_id, type, provider, subject)
    select id, 'oidc', 'accounts.google.com', 'bulk:' || email from created where hashtext(email) % 3 = 0
  ), access as (
    insert into tenant_access (account_id, tenant_id, active)
    select id, ?, hashtext(email) % 11 <> 0 from created where hashtext(email) % 2 = 0
  )
  select count(*)::int as inserted from created`;

/** Creates accounts bulk-0000001 … bulk-<count>; answers how many were new. */
export async function generateAccounts(db: Db, count: number, options: GenerateOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 10_000;
  const [tenant] = (await db('tenants')
    .insert({ name: 'Bulk Load (generated)', slug: bulkTenantSlug, url: null })
    .onConflict('slug')
    .merge({ slug: bulkTenantSlug })
    .returning('id')) as { id: string }[];
  let inserted = 0;
  for (let from = 1; from <= count; from += batchSize) {
    const to = Math.min(count, from + batchSize - 1);
    // Each batch in its own transaction with a large GIN pending list: the trigram indexes take the
    // new rows as a list (cheap), merged once by the vacuum below instead of on every insert.
    inserted += await db.transaction(async (trx) => {
      await trx.raw("set local gin_pending_list_limit = '64MB'");
      const result = await trx.raw(batchSql, [from, to, tenant!.id]);
      return (result.rows as { inserted: number }[])[0]!.inserted;
    });
    options.onProgress?.(to, count);
  }
  // Merges the pending lists into the trigram indexes (a search would otherwise scan them) and
  // refreshes the planner's statistics, so searches are fast at once.
  await db.raw('vacuum analyze accounts, credentials, tenant_access');
  return inserted;
}

/** A progress bar on stderr (one line redrawn on a terminal, a line per 10% otherwise). */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): (done: number, total: number) => void {
  let lastDecile = -1;
  return (done, total) => {
    const ratio = total === 0 ? 1 : done / total;
    if (stream.isTTY) {
      const width = 30;
      const filled = Math.round(ratio * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${done}/${total}`);
      if (done >= total) stream.write('\n');
      return;
    }
    const decile = Math.floor(ratio * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      stream.write(`${label} ${(ratio * 100).toFixed(0)}% ${done}/${total}\n`);
    }
  };
}
