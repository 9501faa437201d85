import type { TenantSummary } from '../api/types.ts';

/** localStorage key: { [tenantId]: ISO time of the last access from this browser }. */
export const ACCESSED_TENANTS_KEY = 'accessed_tenants';

export type AccessedTenants = Record<string, string>;

export function parseAccessedTenants(raw: string | null): AccessedTenants {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

function accessTime(accessed: AccessedTenants, id: string): number {
  const time = Date.parse(accessed[id] ?? '');
  return Number.isNaN(time) ? -Infinity : time;
}

/** Most recently accessed first, then by name (never-accessed tenants by name after those). */
export function sortTenants(tenants: readonly TenantSummary[], accessed: AccessedTenants): TenantSummary[] {
  return [...tenants].sort(
    (a, b) => accessTime(accessed, b.id) - accessTime(accessed, a.id) || a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug),
  );
}

/** Whole days between the last access and now, or null when never accessed from this browser. */
export function daysSinceAccess(accessed: AccessedTenants, id: string, now: Date): number | null {
  const time = accessTime(accessed, id);
  if (time === -Infinity) return null;
  return Math.max(0, Math.floor((now.getTime() - time) / 86_400_000));
}

export function recordAccess(accessed: AccessedTenants, id: string, now: Date): AccessedTenants {
  return { ...accessed, [id]: now.toISOString() };
}
