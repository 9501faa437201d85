import type { Context } from '../../context.ts';
import { recordAudit } from '../../audit/audit.ts';
import { AppError, errors } from '../../http/app-error.ts';
import type { PortalSessionWithId } from '../../session/portal-session.ts';
import { provesSecondFactor, type Operator } from '../operator-guard.ts';
import { findOperatorRole } from '../operators.repository.ts';
import {
  accessIsActive,
  accountExists,
  findMember,
  findTenant,
  firstActiveAdmin,
  type ImpersonationTenant,
  type TenantMember,
} from './impersonation.repository.ts';
import { createHandOff, handOffSeconds, peekHandOff, setPending, takeHandOff, type Impersonation, type ImpersonationKind } from './impersonation.store.ts';
import { findTenantApp } from './tenant-app.ts';

export const impersonationErrors = {
  accessInactive: () => new AppError('impersonation/access-inactive', 409, 'The account has no active access to this tenant'),
  noTenantAdmin: () => new AppError('impersonation/no-tenant-admin', 409, 'The tenant has no active admin'),
  notTenantAdmin: () => new AppError('impersonation/not-tenant-admin', 409, 'The account is not an admin of this tenant'),
  noTenantApp: () => new AppError('impersonation/no-tenant-app', 409, 'No application is registered for this tenant'),
  operatorTarget: () => new AppError('impersonation/operator', 409, 'Operator accounts cannot be logged in as'),
};

export interface ImpersonationRequest {
  tenant_id: string;
  as: ImpersonationKind;
  /** Required for `user`; for `admin`, the tenant's first active admin when absent. */
  account_id?: string | undefined;
  reason: string;
}

export interface HandOffAnswer {
  /** Open in the browser that asked for it within `expires_in` seconds; works once. */
  url: string;
  expires_in: number;
  account_id: string;
}

/**
 * "Log in as user / as tenant admin". Only where the account's tenant access is active (spec
 * section 6). Audited before the hand-off exists, with the operator's reason, so no impersonation
 * can happen unrecorded. Nothing of the person's own sessions is touched.
 */
export async function startImpersonation(ctx: Context, operator: Operator, input: ImpersonationRequest): Promise<HandOffAnswer> {
  const tenant = await findTenant(ctx.db, input.tenant_id);
  if (!tenant) throw errors.notFound();
  const target = await resolveTarget(ctx, tenant, input);
  const app = await findTenantApp(ctx.db, tenant, ctx.config.issuer, target.email);
  if (!app) throw impersonationErrors.noTenantApp();

  await recordAudit(ctx.db, {
    action: 'operator.impersonation.started',
    actor_id: operator.account_id,
    target_account_id: target.account_id,
    tenant_id: tenant.id,
    ip: operator.ip,
    user_agent: operator.user_agent,
    details: { role: operator.role, operator_email: operator.email, reason: input.reason, as: input.as },
    at: ctx.now(),
  });

  const token = await createHandOff(ctx, {
    operator_id: operator.account_id,
    operator_email: operator.email,
    portal_session_id: operator.session_id,
    account_id: target.account_id,
    tenant_id: tenant.id,
    as: input.as,
    ...app,
  });
  return { url: `${ctx.config.publicUrl}/auth/impersonate/${token}`, expires_in: handOffSeconds, account_id: target.account_id };
}

async function resolveTarget(ctx: Context, tenant: ImpersonationTenant, input: ImpersonationRequest): Promise<TenantMember> {
  const now = ctx.now();
  if (input.as === 'admin' && input.account_id === undefined) {
    const admin = await firstActiveAdmin(ctx.db, tenant.id);
    if (!admin) throw impersonationErrors.noTenantAdmin();
    if (!accessIsActive(tenant, admin, now)) throw impersonationErrors.accessInactive();
    return admin;
  }
  const accountId = input.account_id!;
  const member = await findMember(ctx.db, tenant.id, accountId);
  if (!member && !(await accountExists(ctx.db, accountId))) throw errors.notFound();
  if (!accessIsActive(tenant, member, now)) throw impersonationErrors.accessInactive();
  if (input.as === 'admin' && member!.role !== 'admin') throw impersonationErrors.notTenantAdmin();
  // An operator's sign-in carries the console's trust; logging in as one would lend it to another.
  if ((await findOperatorRole(ctx.db, accountId)) !== null) throw impersonationErrors.operatorTarget();
  return member!;
}

export type OpenResult = { ok: true; location: string } | { ok: false; reason: 'expired' | 'forbidden' | 'access-inactive' };


/**
 * The hand-off link opened in a browser. It works once, within 60 s, and only in the portal
 * session that asked for it (not merely one of the same operator's), still an admin with a second
 * factor: a link that leaked (a log, a shared screen, another machine signed in as the operator)
 * is useless anywhere else. Access is checked again, as it may have ended since.
 *
 * Who opens it is checked before it is used up, so a browser that is refused (a chat's link
 * preview, anyone the link reached) leaves it to the one that asked: no other session can ever
 * pass the check, and spending it would let whoever reached the link cancel the hand-off. Only
 * then is it taken (getDel: of two openings exactly one gets it), and the record taken is checked
 * against the same session.
 */
export async function openHandOff(ctx: Context, token: string, session: PortalSessionWithId | null): Promise<OpenResult> {
  const seen = await peekHandOff(ctx, token);
  if (!seen) return { ok: false, reason: 'expired' };
  if (!session || !(await mayOpen(ctx, seen, session))) return { ok: false, reason: 'forbidden' };
  const impersonation = await takeHandOff(ctx, token);
  if (!impersonation) return { ok: false, reason: 'expired' };
  if (!isRequestingSession(impersonation, session)) return { ok: false, reason: 'forbidden' };
  if (!(await stillActive(ctx, impersonation))) return { ok: false, reason: 'access-inactive' };
  await setPending(ctx, session.id, impersonation);
  return { ok: true, location: impersonation.entry_url };
}

/**
 * Plain equality of the session ids is enough: both are random 256-bit values that no opener of
 * the link chooses, so no one can steer the comparison's timing to guess the stored one bit by bit.
 */
function isRequestingSession(impersonation: Impersonation, session: PortalSessionWithId): boolean {
  return session.account_id === impersonation.operator_id && session.id === impersonation.portal_session_id;
}

/** The browser is the one that asked, signed in with a second factor, and its operator is still an admin. */
async function mayOpen(ctx: Context, impersonation: Impersonation, session: PortalSessionWithId): Promise<boolean> {
  if (!isRequestingSession(impersonation, session) || !provesSecondFactor(session.amr)) return false;
  return (await findOperatorRole(ctx.db, session.account_id)) === 'admin';
}

async function stillActive(ctx: Context, impersonation: Impersonation): Promise<boolean> {
  const tenant = await findTenant(ctx.db, impersonation.tenant_id);
  if (!tenant) return false;
  return accessIsActive(tenant, await findMember(ctx.db, tenant.id, impersonation.account_id), ctx.now());
}
