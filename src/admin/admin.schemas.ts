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
/**
 * A sign-in session as the tokens view names it, by its `key` there (`<Model>:<12 hex>`, tokenLabel
 * in tokens.service.ts): an OP `Session` or a Nyckel `PortalSession`. Other entries (grants,
 * tokens) are not sessions to end: 422. Hex in lower case, as the view writes it.
 */
export const sessionKeySchema = z
  .string()
  .regex(/^(Session|PortalSession):[0-9a-fA-F]{12}$/, 'Not a Session or PortalSession key of the tokens view')
  .transform((key) => {
    const [model, hex] = key.split(':') as [string, string];
    return `${model}:${hex.toLowerCase()}`;
  });
export const tokensSessionParams = z.object({ account_id: idSchema, key: sessionKeySchema });
export const tenantParams = z.object({ tenantId: idSchema });

/** An operator's change of an account's address: checked as every address is (login.schemas.ts). */
export const emailChangeBody = z.object({ email: emailSchema });
