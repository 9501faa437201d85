import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { AppError, type ErrorBody } from './app-error.ts';

/** Validation failures render with every issue, so a client sees all fields at once. */
export class ValidationError extends AppError {
  readonly issues: z.core.$ZodIssue[];

  constructor(issues: z.core.$ZodIssue[]) {
    super('validation_error', 422, 'Invalid request');
    this.issues = issues;
  }

  override toBody(): ErrorBody {
    return {
      detail: this.issues.map((issue) => ({
        type: 'validation_error',
        msg: issue.message,
        loc: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      })),
    };
  }
}

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(result.error.issues);
  return result.data;
}

interface Schemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

/**
 * Validates body, query and params at the edge. Parsed values replace the raw ones on
 * `res.locals` (`body`, `query`, `params`) so handlers only ever see checked data.
 */
export function validate(schemas: Schemas): RequestHandler {
  return (req, res, next) => {
    if (schemas.body) res.locals.body = parse(schemas.body, req.body ?? {});
    if (schemas.query) res.locals.query = parse(schemas.query, req.query);
    if (schemas.params) res.locals.params = parse(schemas.params, req.params);
    next();
  };
}
