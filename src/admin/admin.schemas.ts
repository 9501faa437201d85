import { z } from 'zod';
import { emailSchema } from '../login/login.schemas.ts';

/**
 * Ids are UUIDs; any hex layout PostgreSQL accepts, so imported ids with odd version bits still
 * work. In lower case, as PostgreSQL writes them: an id kept as given (a notification's tenants,
 * a JSON array) must match the same tenant however the caller spelled it.
 */
export const idSchema = z.guid('Invalid id').transform((id) => id.toLowerCase());

/** The console's searches: "Admin searches need a non-empty term" (spec section 5). */
export const searchTermSchema = z.string().trim().min(1, 'Search term is required').max(100);

export const searchParams = z.object({ query: searchTermSchema });
export const accountParams = z.object({ accountId: idSchema });
export const accountCredentialParams = z.object({ accountId: idSchema, credentialId: idSchema });
export const tokensParams = z.object({ account_id: idSchema });
export const tenantParams = z.object({ tenantId: idSchema });

/** An operator's change of an account's address: checked as every address is (login.schemas.ts). */
export const emailChangeBody = z.object({ email: emailSchema });
