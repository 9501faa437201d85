import type { Knex } from 'knex';
import * as initial from './001_initial.ts';

/** Every migration, in order. A static list: no file-system discovery, so PGlite and bundling work alike. */
export const migrations: Record<string, Knex.Migration> = {
  '001_initial': initial,
};
