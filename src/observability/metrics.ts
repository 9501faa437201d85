import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of this process. One registry per process: several apps in one process
 * (tests) add to the same series, which is what a process-level metric means.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'nyckel_' });

const httpDuration = new Histogram({
  name: 'nyckel_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const signIns = new Counter({
  name: 'nyckel_sign_ins_total',
  help: 'Sign-in attempts by first-factor method and outcome',
  labelNames: ['method', 'outcome'] as const,
  registers: [registry],
});

const lockouts = new Counter({ name: 'nyckel_lockouts_total', help: 'Accounts locked after too many failures', registers: [registry] });

const emails = new Counter({
  name: 'nyckel_emails_total',
  help: 'Emails handed to the transport, by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const securityNotices = new Counter({
  name: 'nyckel_security_notices_delayed_total',
  help: 'Security notices whose mail failed when the change was made: kept for another try, sent late, or given up',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const dependencyErrors = new Counter({
  name: 'nyckel_dependency_errors_total',
  help: 'Requests that failed because PostgreSQL, the store or the mail server could not be reached',
  labelNames: ['dependency'] as const,
  registers: [registry],
});

/** oidc-provider's endpoints, named; anything else under /oauth2 is one label, not one per URL. */
const oauthRoutes = /^\/oauth2\/(authorize|token|userinfo|jwks|revoke|introspect|logout|par|\.well-known\/openid-configuration)(\/|$)/;

/** A bounded label: the router's pattern, never the raw URL (ids and tokens would explode it). */
function routeLabel(req: Request): string {
  const pattern = req.route?.path as unknown;
  if (typeof pattern === 'string') return pattern;
  if (Array.isArray(pattern)) return 'portal';
  const oauth = oauthRoutes.exec(req.originalUrl.split('?')[0] ?? '');
  if (oauth) return `/oauth2/${oauth[1]}`;
  return req.originalUrl.startsWith('/oauth2/') ? '/oauth2/other' : 'unmatched';
}

export const measureRequests: RequestHandler = (req, res, next) => {
  const end = httpDuration.startTimer();
  res.on('finish', () => end({ method: req.method, route: routeLabel(req), status: String(res.statusCode) }));
  next();
};

/** The same measurement for a request whose route is known up front (the back channel, served before Express). */
export function measureRequest(method: string, route: string, res: ServerResponse): void {
  const end = httpDuration.startTimer();
  res.on('finish', () => end({ method, route, status: String(res.statusCode) }));
}

/** Sign-in outcomes and lockouts, read off the audit events the login already writes. */
export function countAuditAction(action: string, details: Record<string, unknown> | undefined): void {
  const method = typeof details?.method === 'string' ? details.method : 'unknown';
  if (action === 'login.succeeded') signIns.inc({ method, outcome: 'success' });
  else if (action === 'login.failed') signIns.inc({ method, outcome: 'failure' });
  else if (action === 'login.locked') lockouts.inc();
}

export function countEmail(outcome: 'sent' | 'failed'): void {
  emails.inc({ outcome });
}

export function countDelayedNotice(outcome: 'kept' | 'sent_late' | 'given_up'): void {
  securityNotices.inc({ outcome });
}

export function countDependencyError(dependency: 'store' | 'database' | 'mail'): void {
  dependencyErrors.inc({ dependency });
}
