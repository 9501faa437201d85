import type { RequestListener } from 'node:http';
import cookieParser from 'cookie-parser';
import express from 'express';
import helmet from 'helmet';
import { createAdminRouter } from './admin/admin.router.ts';
import { createImpersonationRouter } from './admin/impersonation/impersonation.routes.ts';
import type { Context } from './context.ts';
import { errorHandler, notFoundHandler } from './http/error-handler.ts';
import { createHealthRouter } from './http/health.routes.ts';
import { accessLog } from './observability/access-log.ts';
import { measureRequests } from './observability/metrics.ts';
import { createMetricsRouter } from './observability/metrics.routes.ts';
import { createLoginRouter } from './login/login.routes.ts';
import { createResetRouter } from './login/reset.routes.ts';
import { createEmailChangeRouter } from './login/email-change.routes.ts';
import { sameOrigin } from './http/origin-check.ts';
import { createPortalRouter } from './http/portal.ts';
import { createHttpHandler, oauthMount } from './oidc/back-channel.ts';
import { frontChannelGuard } from './oidc/front-channel.ts';
import { createJwksRouter } from './oidc/jwks.routes.ts';
import { createInteractionRouter } from './oidc/interaction.routes.ts';
import { createProvider, type NyckelProvider } from './oidc/provider.ts';
import { createAccountRouter } from './profile/account.routes.ts';
import { createCredentialsRouter } from './profile/credentials.routes.ts';
import { createSessionsRouter } from './profile/sessions.routes.ts';
import { createPasskeysRouter } from './profile/passkeys.routes.ts';
import { createTwoFactorRouter } from './profile/two-factor.routes.ts';
import { createUserinfoRouter } from './profile/userinfo.routes.ts';
import { createAvailableTenantsRouter } from './tenants/available-tenants.routes.ts';
import { createUpstreamRouter } from './upstream/upstream.routes.ts';

export interface App {
  /** The HTTP request listener: the OAuth back channel straight to oidc-provider, the rest through Express. */
  app: RequestListener;
  provider: NyckelProvider;
}

/** Requests handled by our JSON routers; everything under /oauth2 but the cookie profile goes to oidc-provider. */
const ourApi = /^\/(auth|api)(\/|$)|^\/oauth2\/userinfo\/credentials(\/|$)/;

/** GET /oauth2/userinfo without a bearer token is the portal's profile call (cookie session). */
const isCookieUserinfo = (req: express.Request) =>
  req.path === '/oauth2/userinfo' && req.method === 'GET' && !req.headers.authorization && req.query.access_token === undefined;

/**
 * Our routers first, oidc-provider last under /oauth2. Body parsing is mounted only on our JSON
 * APIs: oidc-provider parses its own bodies.
 */
export async function createApp(ctx: Context): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('query parser', 'simple');

  app.use(measureRequests);
  app.use(accessLog(ctx.logger));

  const { provider, refreshSigningKeys } = await createProvider(ctx);

  // Every request to oidc-provider may start a re-read of the signing keys (key-refresh.ts).
  const callback = provider.callback();
  const oauth: RequestListener = (req, res) => {
    refreshSigningKeys();
    callback(req, res);
  };
  app.use(createHealthRouter(ctx), createMetricsRouter(ctx.config));

  const api = express.Router();
  api.use(
    helmet({ contentSecurityPolicy: false }),
    (_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      next();
    },
    express.json({ limit: '16kb', strict: true }),
    cookieParser(ctx.config.cookieSecrets as string[]),
    sameOrigin(ctx.config.publicUrl),
  );
  // Routers of each area declare full paths and are mounted here (sign-in, reset, profile, operator API).
  api.use(createInteractionRouter(ctx, provider), createAvailableTenantsRouter(ctx), createUserinfoRouter(ctx));
  api.use(createLoginRouter(ctx), createResetRouter(ctx, provider), createEmailChangeRouter(ctx, provider));
  api.use(createUpstreamRouter(ctx));
  api.use(createAdminRouter(ctx, provider), createImpersonationRouter(ctx));
  api.use(createTwoFactorRouter(ctx), createCredentialsRouter(ctx, provider));
  api.use(createAccountRouter(ctx, provider), createSessionsRouter(ctx, provider));
  api.use(createPasskeysRouter(ctx, provider));
  // Our paths under /oauth2 that no router took (a wrong method) are our 404, not oidc-provider's.
  const ours: express.RequestHandler = (req, res, next) => api(req, res, (err?: unknown) => (err || !req.path.startsWith('/oauth2/') ? next(err) : notFoundHandler(req, res, next)));
  app.use((req, res, next) => (ourApi.test(req.path) || isCookieUserinfo(req) ? ours(req, res, next) : next()));

  // The portal's CSP (form-action 'self') must not reach /oauth2: logout confirmation and
  // form_post responses submit forms to relying parties. oidc-provider sets its own headers there.
  app.use(createJwksRouter(ctx));
  app.use(createPortalRouter(helmet({ contentSecurityPolicy: { directives: { 'img-src': ["'self'", 'data:', 'https:'] } } })));

  // What oidc-provider would store of a request is capped, and authorizations and logouts have a
  // per-address budget, before they get there.
  app.use(oauthMount, frontChannelGuard(ctx));
  app.use(oauthMount, oauth as express.RequestHandler);

  app.use(notFoundHandler);
  app.use(errorHandler);
  // The back channel (token, introspection, revocation, PAR) is served before Express: src/oidc/back-channel.ts.
  return { app: createHttpHandler(ctx, oauth, app), provider };
}
