/**
 * Tenant slugs (spec section 5): lowercase letters and digits only, derived from the name by
 * stripping it to lowercase alphanumerics. Accents are folded first so "Åre Bygg" gives "arebygg"
 * rather than "rebygg"; anything else outside a–z and 0–9 (spaces, punctuation, emoji) is dropped.
 */
export const SLUG_PATTERN = /^[a-z0-9]+$/;

export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{Mark}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

export function isValidSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug);
}

export type NewTenantProblem = 'name_required' | 'slug_required' | 'slug_invalid';

/** What stops the create-tenant form from submitting; empty when it may. */
export function newTenantProblems(name: string, slug: string): NewTenantProblem[] {
  const problems: NewTenantProblem[] = [];
  if (name.trim() === '') problems.push('name_required');
  if (slug === '') problems.push('slug_required');
  else if (!isValidSlug(slug)) problems.push('slug_invalid');
  return problems;
}
