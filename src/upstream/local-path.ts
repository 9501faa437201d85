const base = 'http://nyckel.invalid';

/**
 * A path on Nyckel itself to send the browser to (`from` of /auth/link/oauth/{provider}, the login's
 * `return_to`), normalised, or null: anything else (`//evil.example`, `https://evil.example`,
 * `/\evil`, whitespace, control characters) is never followed, so no route becomes an open
 * redirect. Browsers treat `\` like `/`, hence any backslash is refused outright rather than
 * normalised. The check that matters is on the normalised result: dot segments collapse, so
 * `/..//evil.example` and `/%2e%2e//evil.example` become `//evil.example`, protocol-relative.
 */
export function localPath(target: unknown): string | null {
  if (typeof target !== 'string' || target.length > 512) return null;
  if (!target.startsWith('/') || /[\\\s\u0000-\u001f\u007f]/.test(target)) return null;
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return null;
  }
  const path = `${url.pathname}${url.search}`;
  return url.origin === base && !path.startsWith('//') ? path : null;
}

/** The path with one query parameter set (a local path from localPath). */
export function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, base);
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}
