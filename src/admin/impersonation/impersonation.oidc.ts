import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { recordAudit } from '../../audit/audit.ts';
import type { Context } from '../../context.ts';
import { portalSessionId } from '../../session/portal-cookie.ts';
import { findOperatorRole } from '../operators.repository.ts';
import { findImpersonatedGrant, peekPending, saveImpersonatedGrant, takePending, type ImpersonatedGrant, type Impersonation } from './impersonation.store.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
type StoreContext = Pick<Context, 'store' | 'now' | 'config'>;
type GrantContext = Pick<Context, 'store' | 'now' | 'db'>;

/** The amr of an impersonated sign-in: the person named by `sub` did not authenticate; `act` says who did. */
export const impersonationAmr = 'imp';
/** Login-prompt reasons added to oidc-provider's policy. */
export const pendingReason = 'impersonation_pending';
export const impersonatedSessionReason = 'impersonated_session';

/** What a token model shows of its grant: codes and refresh tokens carry amr, access tokens `extra`. */
export interface ImpersonationMarks {
  grantId?: string | undefined;
  amr?: string[] | undefined;
  extra?: { act?: unknown } | undefined;
}

/** Whether a token says it was made by an impersonation (amr `imp`, or `act` in an access token's extra claims). */
export function isImpersonationToken(token: ImpersonationMarks): boolean {
  return token.amr?.includes(impersonationAmr) === true || token.extra?.act !== undefined;
}

/**
 * The impersonation behind a token, looked up only for tokens marked as made by one: every other
 * token costs no store call. Null also when the operator is no longer an admin: revoking the role
 * ends the impersonations it made (findAccount then refuses their tokens).
 */
export async function impersonationOfToken(ctx: GrantContext, token: ImpersonationMarks): Promise<ImpersonatedGrant | null> {
  if (!isImpersonationToken(token) || !token.grantId) return null;
  const grant = await findImpersonatedGrant(ctx, token.grantId);
  return grant && (await findOperatorRole(ctx.db, grant.act.sub)) === 'admin' ? grant : null;
}

export function isImpersonationSession(session: { amr?: string[] | undefined } | undefined): boolean {
  return session?.amr?.includes(impersonationAmr) ?? false;
}

/**
 * Two checks on oidc-provider's login prompt:
 * - a hand-off opened in this browser for this client forces an interaction, even when the browser
 *   has a provider session (the operator's own), so the tenant app gets the impersonated sign-in;
 * - a provider session made by an impersonation never answers a later request by itself (SSO):
 *   the next sign-in in the operator's browser goes through the interaction again and becomes the
 *   operator's own. The hand-off is one sign-in, not a lasting identity in that browser.
 * Neither applies once the interaction has answered the login (`result.login`).
 */
export function impersonationChecks(ctx: StoreContext): interactionPolicy.Check[] {
  return [
    new interactionPolicy.Check(pendingReason, 'an operator hand-off waits for this client', async (koa: KoaContextWithOIDC) => {
      if (koa.oidc.result?.login) return false;
      const id = portalSessionId(ctx.config, koa.req as unknown as Request);
      const pending = id ? await peekPending(ctx, id) : null;
      return pending !== null && koa.oidc.client !== undefined && pending.client_ids.includes(koa.oidc.client.clientId);
    }),
    new interactionPolicy.Check(
      impersonatedSessionReason,
      'a session made by an impersonation is not reused',
      (koa: KoaContextWithOIDC) => !koa.oidc.result?.login && isImpersonationSession(koa.oidc.session),
    ),
  ];
}

/**
 * The hand-off waiting in this browser for this client, taken (single use); null when there is
 * none, or when its operator is no longer an admin (the role was revoked after the link opened).
 */
export async function takePendingImpersonation(ctx: StoreContext & GrantContext, req: Request, clientId: string): Promise<Impersonation | null> {
  const id = portalSessionId(ctx.config, req);
  if (!id) return null;
  const pending = await peekPending(ctx, id);
  if (!pending?.client_ids.includes(clientId)) return null;
  const taken = await takePending(ctx, id);
  if (!taken?.client_ids.includes(clientId)) return null;
  return (await findOperatorRole(ctx.db, taken.operator_id)) === 'admin' ? taken : null;
}

/**
 * Finishes the interaction as the impersonated person, login and consent in one step. The
 * person's own sessions (portal and provider) are neither read nor written: the provider session
 * made here lives in the operator's browser, is transient (`remember: false`) and is marked by its
 * amr. The grant is recorded so every token of it carries `act` naming the operator. It never
 * includes offline_access: an impersonation is one sign-in, no refresh token outlives it.
 */
export async function finishImpersonation(
  ctx: StoreContext & GrantContext,
  provider: Provider,
  req: Request,
  res: Response,
  details: Details,
  impersonation: Impersonation,
  grantTtlSeconds: number,
): Promise<void> {
  const grant = new provider.Grant({ accountId: impersonation.account_id, clientId: String(details.params.client_id) });
  const requested = String(details.params.scope ?? '').split(' ').filter(Boolean);
  grant.addOIDCScope(requested.filter((scope) => scope !== 'offline_access').join(' '));
  if (requested.includes('offline_access')) grant.rejectOIDCScope('offline_access');
  const claims = requestedClaims(details.params.claims);
  if (claims.length > 0) grant.addOIDCClaims(claims);
  const grantId = await grant.save();
  await saveImpersonatedGrant(
    ctx,
    grantId,
    {
      act: { sub: impersonation.operator_id, email: impersonation.operator_email },
      account_id: impersonation.account_id,
      tenant_id: impersonation.tenant_id,
      as: impersonation.as,
    },
    grantTtlSeconds,
  );
  // `started` records the operator's intent; this, that the hand-off was used: the tenant app gets
  // the person's sign-in now (an abandoned hand-off leaves only `started`).
  await recordAudit(ctx.db, {
    action: 'operator.impersonation.used',
    actor_id: impersonation.operator_id,
    target_account_id: impersonation.account_id,
    tenant_id: impersonation.tenant_id,
    ip: req.ip ?? null,
    user_agent: req.get('user-agent')?.slice(0, 512) ?? null,
    details: { client_id: String(details.params.client_id), as: impersonation.as, operator_email: impersonation.operator_email },
    at: ctx.now(),
  });
  await provider.interactionFinished(
    req,
    res,
    {
      login: {
        accountId: impersonation.account_id,
        amr: [impersonationAmr],
        acr: 'urn:nyckel:loa:1',
        ts: Math.floor(ctx.now().getTime() / 1000),
        remember: false,
      },
      consent: { grantId },
    },
    { mergeWithLastSubmission: false },
  );
}

/** Claim names of the `claims` request parameter (OIDC Core 5.5), so consent covers them too. */
function requestedClaims(param: unknown): string[] {
  if (typeof param !== 'string') return [];
  try {
    const parsed = JSON.parse(param) as Record<string, unknown>;
    return ['id_token', 'userinfo'].flatMap((use) => {
      const entry = parsed[use];
      return entry && typeof entry === 'object' ? Object.keys(entry) : [];
    });
  } catch {
    return [];
  }
}
