import type { Knex } from 'knex';
import * as initial from './001_initial.ts';
import * as operatorConsole from './002_operator_console.ts';
import * as passkeys from './004_passkeys.ts';
import * as signingKeyActivation from './005_signing_key_activation.ts';
import * as securityNoticeRetries from './006_security_notice_retries.ts';
import * as hashedClientSecrets from './007_hashed_client_secrets.ts';
import * as oneOpenResetLink from './008_one_open_reset_link.ts';
import * as unchosenLocale from './009_unchosen_locale.ts';
import * as queryIndexes from './010_query_indexes.ts';
import * as ownActivityIndex from './011_own_activity_index.ts';

/** Every migration, in order. A static list: no file-system discovery, so PGlite and bundling work alike. */
export const migrations: Record<string, Knex.Migration> = {
  '001_initial': initial,
  '002_operator_console': operatorConsole,
  '004_passkeys': passkeys,
  '005_signing_key_activation': signingKeyActivation,
  '006_security_notice_retries': securityNoticeRetries,
  '007_hashed_client_secrets': hashedClientSecrets,
  '008_one_open_reset_link': oneOpenResetLink,
  '009_unchosen_locale': unchosenLocale,
  '010_query_indexes': queryIndexes,
  '011_own_activity_index': ownActivityIndex,
};
