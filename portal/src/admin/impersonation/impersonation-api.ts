import { request } from '../../api/client.ts';

export type ImpersonationKind = 'user' | 'admin';

/** Who to log in as, and where: what the reason modal asks about. */
export interface ImpersonationTarget {
  tenantId: string;
  tenantName: string;
  as: ImpersonationKind;
  /** Required for `user`; for `admin` the server picks the tenant's first active admin. */
  accountId?: string;
  /** Name or email of the person, for the modal's title (user only). */
  who?: string;
}

export interface HandOff {
  /** One-time, 60 s: the browser goes there at once. */
  url: string;
  expires_in: number;
  account_id: string;
}

/** The server refuses longer reasons (and blank ones). */
export const REASON_MAX = 500;

export type ReasonProblem = 'required' | 'too_long';

export function reasonProblem(reason: string): ReasonProblem | null {
  const trimmed = reason.trim();
  if (trimmed === '') return 'required';
  if (trimmed.length > REASON_MAX) return 'too_long';
  return null;
}

/** 403 for the support role; 409 `impersonation/*` when access is not active or the tenant has no admin or app. */
export function startImpersonation(target: ImpersonationTarget, reason: string): Promise<HandOff> {
  return request('POST', '/api/impersonations', {
    body: {
      tenant_id: target.tenantId,
      as: target.as,
      ...(target.accountId ? { account_id: target.accountId } : {}),
      reason: reason.trim(),
    },
  });
}

/** i18n keys of the server's refusals (the API's `impersonation/*` types and the hand-off's `impersonation_error`). */
export const IMPERSONATION_ERROR_KEYS: Record<string, string> = {
  'impersonation/access-inactive': 'impersonation.errors.access_inactive',
  'impersonation/no-tenant-admin': 'impersonation.errors.no_tenant_admin',
  'impersonation/not-tenant-admin': 'impersonation.errors.not_tenant_admin',
  'impersonation/no-tenant-app': 'impersonation.errors.no_tenant_app',
  'impersonation/operator': 'impersonation.errors.operator',
  expired: 'impersonation.errors.expired',
  forbidden: 'impersonation.errors.forbidden',
  'access-inactive': 'impersonation.errors.access_inactive',
};

export function impersonationErrorKey(type: string | null | undefined): string | null {
  return type ? (IMPERSONATION_ERROR_KEYS[type] ?? null) : null;
}
