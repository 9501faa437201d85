import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const spec = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
};

/** Every `router.<method>('<path>'` in src/: routers declare full paths (see app.ts). */
function declaredRoutes(): { method: string; path: string; file: string }[] {
  const found: { method: string; path: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.routes.ts')) {
        const source = readFileSync(path, 'utf8');
        for (const match of source.matchAll(/router\.(get|post|put|patch|delete)\(\s*(\[[^\]]*\]|'[^']+')/g)) {
          const paths = match[2]!.startsWith('[') ? [...match[2]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!) : [match[2]!.slice(1, -1)];
          for (const p of paths) found.push({ method: match[1]!, path: p, file: relative(root, path) });
        }
      }
    }
  };
  walk(join(root, 'src'));
  return found;
}

/** Express `:param` → OpenAPI `{param}`. */
const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('openapi.yaml', () => {
  it('is OpenAPI 3.1 and every operation documents its responses', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    for (const [path, operations] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'parameters') continue;
        expect(Object.keys(operation.responses ?? {}), `${method.toUpperCase()} ${path}`).not.toHaveLength(0);
      }
    }
  });

  it('describes every route the server declares', () => {
    const routes = declaredRoutes();
    expect(routes.length).toBeGreaterThan(5);
    const missing = routes.filter((r) => !spec.paths[toOpenApi(r.path)]?.[r.method]).map((r) => `${r.method.toUpperCase()} ${r.path} (${r.file})`);
    expect(missing).toEqual([]);
  });

  it('describes no route the server lacks (oidc-provider endpoints aside)', () => {
    const declared = new Set(declaredRoutes().map((r) => `${r.method} ${toOpenApi(r.path)}`));
    const provider = new Set(['/oauth2/.well-known/openid-configuration', '/oauth2/authorize', '/oauth2/token', '/oauth2/jwks', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/par', '/oauth2/logout']);
    const stale: string[] = [];
    for (const [path, operations] of Object.entries(spec.paths)) {
      for (const method of Object.keys(operations)) {
        if (method === 'parameters' || provider.has(path)) continue;
        if (!declared.has(`${method} ${path}`)) stale.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
