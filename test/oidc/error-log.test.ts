import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ logger: pino({ level: 'info' }, sink) });
  await upsertClient(server.ctx.db, { client_id: 'rp-log', redirect_uris: ['http://127.0.0.1:9/callback'], client_secret: 'rp-log-secret-0123456789' });
});
afterAll(async () => {
  await server?.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const errorLines = () => lines.filter((line) => line.msg === 'oauth error answered');

describe('oidc-provider error answers in the log', () => {
  it('logs why a token request was refused (the detail oidc-provider never sends), with the client, never the code', async () => {
    const code = 'not-a-code-but-a-secret-looking-value-0123456789';
    const response = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: { authorization: basic('rp-log', 'rp-log-secret-0123456789'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/callback', code_verifier: 'v'.repeat(43) }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    const [line] = errorLines();
    expect(line).toMatchObject({ level: 30, oauthError: { route: 'token', client_id: 'rp-log', error: 'invalid_grant' } });
    expect((line!.oauthError as { detail?: string }).detail).toMatch(/authorization code not found/i);
    expect(JSON.stringify(lines)).not.toContain(code);
  });

  it('logs a refused client authentication without the presented secret', async () => {
    lines.length = 0;
    const secret = 'wrong-secret-value-9876543210';
    const response = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: { authorization: basic('rp-log', secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(response.status).toBe(401);
    expect(errorLines()[0]).toMatchObject({ oauthError: { route: 'token', error: 'invalid_client' } });
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});
