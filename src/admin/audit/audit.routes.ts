import { Router } from 'express';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { idSchema } from '../admin.schemas.ts';
import { requireOperator } from '../operator-guard.ts';
import { findAuditEvents } from './audit-log.repository.ts';

/** `?actor=` (empty) means no filter, as a form with blank fields sends it. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const auditQuery = z.strictObject({
  actor: optional(idSchema),
  target: optional(idSchema),
  action: optional(z.string().regex(/^[a-z0-9_./-]{1,64}$/, 'Invalid action')),
  since: optional(z.iso.datetime({ offset: true }).transform((value) => new Date(value))),
  limit: optional(z.coerce.number().int().min(1).max(500)).transform((value) => value ?? 100),
});

/** The audit log, for admins: who did what to whom, newest first. */
export function createAuditRouter(ctx: Context): Router {
  const router = Router();
  router.get('/api/audit', requireOperator(ctx, 'admin'), validate({ query: auditQuery }), async (_req, res) => {
    res.json(await findAuditEvents(ctx.db, res.locals.query));
  });
  return router;
}
