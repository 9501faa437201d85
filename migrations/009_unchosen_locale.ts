import type { Knex } from 'knex';

/**
 * `accounts.locale` is the language the person chose in the profile, or null: never chosen. The
 * default 'en' it had read as a choice, and the profile switched a person whose browser speaks
 * Swedish to English for good on opening it. Existing 'en' values that no language change of the
 * person's own put there (no `account.setting.changed` event for `locale`) were that default and
 * become null; 'sv' could only have been chosen (by the person, or by whoever provisioned the
 * account) and stays.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table accounts alter column locale drop not null, alter column locale drop default');
  await knex.raw(`
    update accounts set locale = null
     where locale = 'en'
       and not exists (
         select 1 from audit_events e
          where e.target_account_id = accounts.id
            and e.action = 'account.setting.changed'
            and e.details->>'key' = 'locale')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update accounts set locale = 'en' where locale is null`);
  await knex.raw(`alter table accounts alter column locale set default 'en', alter column locale set not null`);
}
