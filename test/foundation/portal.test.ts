import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { portalDist } from '../../src/http/portal.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

const root = resolve(import.meta.dirname, '../..');
const indexHtml = join(portalDist, 'index.html');

/**
 * The documented build, run only when no build exists, or one from before the build wrote
 * compressed copies of the assets (CI builds before testing).
 */
function ensurePortalBuilt(): void {
  const script = existsSync(indexHtml) ? /src="\/assets\/([^"]+\.js)"/.exec(readFileSync(indexHtml, 'utf8'))?.[1] : undefined;
  if (script && existsSync(join(portalDist, 'assets', `${script}.br`))) return;
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8', timeout: 150_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status}):\n${build.stdout}\n${build.stderr}`);
}

describe('the built portal, served by the app', () => {
  let ctx: TestContext;
  let app: App;

  beforeAll(async () => {
    ensurePortalBuilt();
    ctx = await createTestContext();
    app = await createApp(ctx);
  }, 180_000);
  afterAll(() => ctx?.dispose());

  it.each(['/login', '/login/select-tenant', '/profile', '/admin/accounts'])('serves %s as the never-cached portal page', async (path) => {
    const res = await request(app.app).get(path);
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe(readFileSync(indexHtml, 'utf8'));
  });

  it("serves /index.html itself with the portal's security headers, never cached", async () => {
    const page = await request(app.app).get('/login');
    const res = await request(app.app).get('/index.html');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it.each(['//index.html', '/%69ndex.html', '/index%2Ehtml', '/./index.html'])('never serves the page without its headers, spelled %s', async (path) => {
    const res = await request(app.app).get(path);
    if (res.status === 200) {
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
      expect(res.headers['cache-control']).toBe('no-store');
    } else {
      expect(res.status).toBe(404);
    }
  });

  it('sends no Referer from the set-password page, whose URL holds a reset token', async () => {
    const res = await request(app.app).get('/login/set-password/abc');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves the hashed assets the page references as immutable', async () => {
    const assets = [...readFileSync(indexHtml, 'utf8').matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const res = await request(app.app).get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers['cache-control']).toMatch(/immutable/);
    }
  });

  describe("the assets' compressed copies", () => {
    let base: string;
    let server: Server;
    beforeAll(async () => {
      server = createServer(app.app).listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    /** The raw answer, undecoded (supertest would unzip it). */
    function fetchRaw(path: string, acceptEncoding?: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
      return new Promise((done, fail) => {
        const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
        get(`${base}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).on('error', fail);
      });
    }

    const script = () => readFileSync(indexHtml, 'utf8').match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
    const styles = () => readFileSync(indexHtml, 'utf8').match(/href="(\/assets\/[^"]+\.css)"/)![1]!;
    const plain = (asset: string) => readFileSync(join(portalDist, asset));

    it.each([
      ['br, gzip, deflate', 'br', brotliDecompressSync],
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip, deflate', 'gzip', gunzipSync],
      ['br;q=0, gzip', 'gzip', gunzipSync],
    ] as const)('answers Accept-Encoding %j with the %s copy of the script and the styles', async (acceptEncoding, encoding, decode) => {
      for (const asset of [script(), styles()]) {
        const res = await fetchRaw(asset, acceptEncoding);
        expect(res.headers['content-encoding'], asset).toBe(encoding);
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.headers['content-type']).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
        expect(res.headers['cache-control']).toMatch(/immutable/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.body.byteLength).toBeLessThan(plain(asset).byteLength / 2);
        expect(decode(res.body).equals(plain(asset))).toBe(true);
      }
    });

    it.each([undefined, 'identity', 'deflate', 'br;q=0, gzip;q=0'])('answers Accept-Encoding %j with the file itself', async (acceptEncoding) => {
      const res = await fetchRaw(script(), acceptEncoding);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(res.body.equals(plain(script()))).toBe(true);
    });
  });

  it('answers an asset path that does not decode with the JSON 404, as any unknown path', async () => {
    const res = await request(app.app).get('/assets/%E0%A4%A.js').set('Accept-Encoding', 'br, gzip');
    expect(res.status).toBe(404);
    expect(res.type).toBe('application/json');
    expect(res.body.detail?.[0]?.type).toBe('not_found');
  });

  it('answers a missing asset with 404, not the page', async () => {
    const res = await request(app.app).get('/assets/missing-0000.js');
    expect(res.status).toBe(404);
  });
});
