/**
 * `from` of /auth/link/oauth/{provider}: where the browser returns after linking. Only a path on
 * Nyckel itself is followed; anything else (`//evil.example`, `https://evil.example`, `/\evil`,
 * control characters) falls back, so the route can never be used as an open redirect. Browsers
 * treat `\` like `/`, hence any backslash is refused outright rather than normalised.
 */
export function localPath(from: unknown, fallback = '/profile'): string {
  if (typeof from !== 'string' || from.length > 512) return fallback;
  if (!from.startsWith('/') || from.startsWith('//') || from.includes('\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(from)) return fallback;
  const base = 'http://nyckel.invalid';
  let url: URL;
  try {
    url = new URL(from, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base) return fallback;
  return `${url.pathname}${url.search}`;
}

/** The path with one query parameter set (a local path from localPath). */
export function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://nyckel.invalid');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}
