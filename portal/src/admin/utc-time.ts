/** "2025-03-01 14:05 UTC" for an ISO time; null for a missing or unreadable one (shown as N/A). */
export function formatUtc(at: string | null | undefined): string | null {
  if (!at) return null;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return null;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
