/**
 * What the person may see of an audit event about their account (GET /api/accounts/activity).
 * Details are copied by an allow-list per action, never wholesale: audit rows hold IP addresses,
 * user agents and operators' emails, which are for operators' eyes. An action not listed here
 * is shown by name with no details.
 */
export interface AuditRow {
  id: string | number;
  at: Date | string;
  action: string;
  actor_id: string | null;
  target_account_id: string | null;
  /** The audit row's own column: the tenant the event was about (an impersonation's tenant). */
  tenant_id: string | null;
  details: unknown;
}

export interface ActivityEntry {
  id: string;
  action: string;
  /** ISO 8601. */
  at: string;
  /** Who did it: the person, the platform's support (an operator), or nobody signed in (a failed sign-in, a reset request). */
  by: 'you' | 'support' | 'system';
  details: ActivityDetails;
}

export interface ActivityDetails {
  method?: string;
  type?: string;
  provider?: string;
  key?: string;
  value?: string;
  count?: number;
  client?: string;
  tenant?: string;
  reason?: string;
  as?: string;
  /** The new address of an email change (the person's own, or the one support was asked to move it to). */
  email?: string;
}

/** `tenant` is the name of the row's tenant_id, when it has one and the tenant exists. */
type Picker = (details: Record<string, unknown>, tenant: string | undefined) => ActivityDetails;
type TenantNames = ReadonlyMap<string, string>;

const text = (value: unknown, max = 200): string | undefined =>
  typeof value === 'string' && value !== '' ? [...value].slice(0, max).join('') : undefined;
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Drops undefined fields so the answer only carries what is known. */
function defined(details: ActivityDetails): ActivityDetails {
  return Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined)) as ActivityDetails;
}

const credential: Picker = (d) => ({ type: text(d.type, 32), provider: text(d.provider, 100) });

const pickers: Record<string, Picker> = {
  'login.succeeded': (d) => ({ method: text(d.method, 32) }),
  'login.failed': (d) => ({ method: text(d.method, 32) }),
  'credential.removed': credential,
  'passkey.removed': credential,
  // The provider by name (google, microsoft); not the upstream subject, host or email.
  'upstream.linked': (d) => ({ provider: text(d.provider, 32) }),
  'operator.credential.deleted': credential,
  'account.setting.changed': (d) => ({ key: text(d.key, 32), value: d.key === 'locale' ? text(d.value, 8) : undefined }),
  'sessions.revoked_others': (d) => ({ count: count(d.sessions) }),
  'devices.revoked_all': (d) => ({ count: count(d.count), reason: text(d.reason, 32) }),
  'grant.revoked': (d) => ({ client: text(d.client_id, 64) }),
  // Written by operator impersonation: the tenant by name (from the row's tenant_id column, where
  // impersonation.service.ts records it), the reason and the role taken; never the operator's email.
  'operator.impersonation.started': (d, tenant) => ({
    tenant: tenant ?? text(d.tenant_name, 200),
    reason: text(d.reason, 500),
    as: text(d.as, 32),
  }),
  // The hand-off was used: the tenant's app got the sign-in (the application by its client id).
  'operator.impersonation.used': (d, tenant) => ({ tenant, client: text(d.client_id, 64) }),
  // The new address only: the holder of the account should see where support was asked to move
  // it (an attacker's address is the clue). Not the previous address or the requesting operator.
  'operator.account.email_change_requested': (d) => ({ email: text(d.email, 254) }),
  'account.email_changed': (d) => ({ email: text(d.email, 254) }),
  // The address the pending change would have moved the account to, and what ended it.
  'operator.account.email_change_withdrawn': (d) => ({ email: text(d.email, 254) }),
  // A withdrawal that found the change made and finished it (signed the account out everywhere).
  'operator.account.email_change_finished': (d) => ({ email: text(d.email, 254) }),
  'account.email_change_cancelled': (d) => ({ email: text(d.email, 254), reason: text(d.reason, 32) }),
  'account.email_change_refused': (d) => ({ email: text(d.email, 254), reason: text(d.reason, 32) }),
};

/** The tenant ids an entry's summary may name (looked up in one query by the service). */
export function tenantIdsOf(rows: readonly AuditRow[]): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    if (row.action.startsWith('operator.impersonation.') && row.tenant_id) ids.add(row.tenant_id);
  }
  return [...ids];
}

function asObject(details: unknown): Record<string, unknown> {
  if (typeof details === 'string') {
    try {
      return asObject(JSON.parse(details));
    } catch {
      return {};
    }
  }
  return typeof details === 'object' && details !== null && !Array.isArray(details) ? (details as Record<string, unknown>) : {};
}

export function summarizeActivity(row: AuditRow, accountId: string, tenantNames: TenantNames = new Map()): ActivityEntry {
  const by = row.action.startsWith('operator.') ? 'support' : row.actor_id === accountId ? 'you' : 'system';
  const pick = pickers[row.action];
  return {
    id: String(row.id),
    action: row.action,
    at: new Date(row.at).toISOString(),
    by,
    details: pick ? defined(pick(asObject(row.details), row.tenant_id ? tenantNames.get(row.tenant_id) : undefined)) : {},
  };
}
