import type { Knex } from 'knex';

/** The data model of DESIGN.md. Kept PostgreSQL 15 compatible (PGlite is 18). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists citext');
  await knex.raw('create extension if not exists pg_trgm');

  await knex.schema.createTable('accounts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.specificType('email', 'citext').notNullable().unique();
    t.text('name').notNullable().defaultTo('');
    t.text('image');
    t.text('locale').notNullable().defaultTo('en');
    t.boolean('is_user').notNullable().defaultTo(false);
    t.boolean('is_stakeholder').notNullable().defaultTo(false);
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.boolean('password_reset_required').notNullable().defaultTo(false);
    t.timestamp('last_login_at', { useTz: true });
    t.timestamp('locked_until', { useTz: true });
    t.timestamps(true, true, false);
  });
  await knex.raw('create index accounts_name_trgm on accounts using gin (name gin_trgm_ops)');
  await knex.raw('create index accounts_email_trgm on accounts using gin ((email::text) gin_trgm_ops)');

  await knex.schema.createTable('credentials', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('type').notNullable().checkIn(['password', 'oidc', 'webauthn', 'totp'], 'credentials_type_check');
    /** Upstream host for oidc ({host}); unused otherwise. */
    t.text('provider');
    /** Upstream subject (oidc) or WebAuthn credential id (base64url). */
    t.text('subject');
    /** Password hash, or the encrypted TOTP seed. */
    t.text('secret');
    /** WebAuthn COSE public key. */
    t.binary('public_key');
    t.bigInteger('counter').notNullable().defaultTo(0);
    /** Type-specific extras: webauthn transports, display name, upstream issuer. */
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.index(['account_id']);
  });
  await knex.raw(
    'create unique index credentials_identity on credentials (type, provider, subject) where subject is not null',
  );

  await knex.schema.createTable('tenants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('slug').notNullable().unique();
    t.text('url');
    t.timestamp('inactive_at', { useTz: true });
    t.timestamps(true, true, false);
  });
  await knex.raw("alter table tenants add constraint tenants_slug_format check (slug ~ '^[a-z0-9]+$')");
  await knex.raw('create index tenants_name_trgm on tenants using gin (name gin_trgm_ops)');

  await knex.schema.createTable('tenant_access', (t) => {
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('role').notNullable().defaultTo('user');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('last_access_at', { useTz: true });
    t.primary(['account_id', 'tenant_id']);
    t.index(['tenant_id']);
  });

  await knex.schema.createTable('tenant_settings', (t) => {
    t.uuid('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.jsonb('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'key']);
  });

  await knex.schema.createTable('oidc_clients', (t) => {
    t.text('client_id').primary();
    /** oidc-provider client metadata (redirect_uris, grant_types, client_secret, ...). */
    t.jsonb('metadata').notNullable();
    t.timestamps(true, true, false);
  });

  await knex.schema.createTable('signing_keys', (t) => {
    t.text('kid').primary();
    t.text('alg').notNullable();
    /** Private JWK, encrypted with ENCRYPTION_KEY. */
    t.text('private_jwk').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    /** Set on rotation: the key still verifies but no longer signs. */
    t.timestamp('retired_at', { useTz: true });
  });

  await knex.schema.createTable('password_reset_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    /** SHA-256 of the token; the token itself is only ever in the emailed link. */
    t.text('token_hash').notNullable().unique();
    /** Where "Go to Login" leads after success (e.g. athena); returned by /auth/reset/confirm. */
    t.text('type');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['account_id']);
  });

  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('message').notNullable();
    t.boolean('admins_only').notNullable().defaultTo(false);
    /** Tenant ids the notification is for; empty means every tenant. */
    t.jsonb('tenants').notNullable().defaultTo('[]');
    t.boolean('popup').notNullable().defaultTo(false);
    t.boolean('new_functionality').notNullable().defaultTo(false);
    t.uuid('created_by').references('accounts.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('audit_events', (t) => {
    t.bigIncrements('id');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('action').notNullable();
    t.uuid('actor_id');
    t.uuid('target_account_id');
    t.uuid('tenant_id');
    t.text('ip');
    t.text('user_agent');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['target_account_id', 'at']);
    t.index(['actor_id', 'at']);
    t.index(['action', 'at']);
  });

  await knex.schema.createTable('operator_roles', (t) => {
    t.uuid('account_id').primary().references('accounts.id').onDelete('CASCADE');
    t.text('role').notNullable().checkIn(['support', 'admin'], 'operator_roles_role_check');
    t.uuid('granted_by');
    t.timestamp('granted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'operator_roles',
    'audit_events',
    'notifications',
    'password_reset_tokens',
    'signing_keys',
    'oidc_clients',
    'tenant_settings',
    'tenant_access',
    'tenants',
    'credentials',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
