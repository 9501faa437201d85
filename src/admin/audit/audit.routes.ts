import { Router } from 'express';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { idSchema } from '../admin.schemas.ts';
import { requireOperator } from '../operator-guard.ts';
import { listAuditEvents } from './audit-log.service.ts';

/** `?actor=` (empty) means no filter, as a form with blank fields sends it. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const auditQuery = z.strictObject({
  actor: optional(idSchema),
  target: optional(idSchema),
  action: optional(z.string().regex(/^[a-z0-9_./-]{1,64}$/, 'Invalid action')),
  since: optional(z.iso.datetime({ offset: true }).transform((value) => new Date(value))),
  /** The last id of the previous page; audit_events.id is a bigint (at most 2^63 - 1). */
  before: optional(z.string().refine((id) => /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) < 2n ** 63n, 'Invalid event id')),
  limit: optional(z.coerce.number().int().min(1).max(500)).transform((value) => value ?? 100),
});

/** The audit log, for admins: who did what to whom, newest first, paged with `before`. */
export function createAuditRouter(ctx: Context): Router {
  const router = Router();
  router.get('/api/audit', requireOperator(ctx, 'admin'), validate({ query: auditQuery }), async (_req, res) => {
    res.json(await listAuditEvents(ctx.db, res.locals.query));
  });
  return router;
}
