import { Writable } from 'node:stream';
import express from 'express';
import { pino, type Level } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { accessLog } from '../../src/observability/access-log.ts';

function appLogging(level: Level | 'silent') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = express();
  app.use(accessLog(pino({ level }, sink)));
  app.get('/healthz', (_req, res) => void res.send('ok'));
  app.get('/fails', (req, res) => {
    req.log.warn({ detail: 1 }, 'inside the handler');
    res.status(503).end();
  });
  app.use((req, res) => void res.status(req.path === '/missing' ? 404 : 200).json({ path: req.path }));
  return { app, lines };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('access log', () => {
  it('logs one line per request, with its status, time and level, and never a secret in the URL', async () => {
    const { app, lines } = appLogging('info');
    await request(app).get('/login/reset?token=secret-token&lang=sv');
    await request(app).get('/oauth2/authorize?client_id=rp&code_challenge=abc');
    await request(app).get('/auth/x?session_id=s3cr3t&code=123456&keep=1');
    await request(app).get('/login/set-password/reset-secret-1?lang=sv');
    await request(app).get('/LOGIN/Set-Password/reset-secret-2');
    await request(app).get('/auth/impersonate/handoff-secret-3');
    await request(app).get('/OAuth2/token?code=abc');
    await request(app).get('/missing');
    await request(app).get('/healthz');
    await settle();
    expect(lines.map((line) => (line.req as { url: string }).url)).toEqual([
      '/login/reset?token=[redacted]&lang=sv',
      '/oauth2/authorize',
      '/auth/x?session_id=[redacted]&code=[redacted]&keep=1',
      '/login/set-password/[redacted]',
      '/LOGIN/Set-Password/[redacted]',
      '/auth/impersonate/[redacted]',
      '/OAuth2/token',
      '/missing',
    ]);
    expect(lines.map((line) => line.level)).toEqual([30, 30, 30, 30, 30, 30, 30, 40]);
    expect(lines[7]).toMatchObject({ msg: 'request completed', res: { statusCode: 404 }, req: { method: 'GET' } });
    expect(typeof lines[0]!.responseTime).toBe('number');
    expect(JSON.stringify(lines)).not.toMatch(/secret|s3cr3t|123456|abc/);
  });

  it("never logs a person's address from the query: the login page's email, an application's login_hint", async () => {
    const { app, lines } = appLogging('info');
    await request(app).get('/login?client_id=rp&email=k.lind%40example.com&lang=sv');
    await request(app).post('/auth/login/start?client_id=rp&Email=k.lind@example.com').send({ email: 'k.lind@example.com' });
    await request(app).get('/auth/upstream/google?login_hint=k.lind@example.com&emailed=1');
    await settle();
    expect(lines.map((line) => (line.req as { url: string }).url)).toEqual([
      '/login?client_id=rp&email=[redacted]&lang=sv',
      '/auth/login/start?client_id=rp&Email=[redacted]',
      '/auth/upstream/google?login_hint=[redacted]&emailed=1',
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/k\.lind|example\.com/);
  });

  it("never logs what the console searched for: a person's name or address, a tenant's name", async () => {
    const { app, lines } = appLogging('info');
    await request(app).get('/api/accounts/search/k.lind%40example.com');
    await request(app).get('/API/Accounts/Search/Karin%20Lind/?token=x&page=2');
    await request(app).get('/api/tenants/search/Lindqvist%20Rekrytering');
    await request(app).get('/api/accounts/4f1c2a9e-0000-4000-8000-000000000000');
    await settle();
    expect(lines.map((line) => (line.req as { url: string }).url)).toEqual([
      '/api/accounts/search/[redacted]',
      '/API/Accounts/Search/[redacted]/?token=[redacted]&page=2',
      '/api/tenants/search/[redacted]',
      '/api/accounts/4f1c2a9e-0000-4000-8000-000000000000',
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/lind|example\.com/i);
  });

  it("gives handlers a logger bound to the request's id, and logs 5xx as errors", async () => {
    const { app, lines } = appLogging('info');
    await request(app).get('/fails');
    await settle();
    const [inside, done] = lines;
    expect(inside).toMatchObject({ msg: 'inside the handler', detail: 1, level: 40 });
    expect(done).toMatchObject({ msg: 'request completed', level: 50, res: { statusCode: 503 } });
    expect(inside!.reqId).toBe(done!.reqId);
  });

  it('writes nothing below its level', async () => {
    const { app, lines } = appLogging('warn');
    await request(app).get('/anything?token=x');
    await request(app).get('/missing');
    await settle();
    expect(lines.map((line) => (line.req as { url: string }).url)).toEqual(['/missing']);
  });
});
