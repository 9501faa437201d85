import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTimeouts } from '../../src/mail/mailer.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A mail server that takes the connection and then says nothing (hung, or a firewall that
 * answers for it). nodemailer would wait 30 s for its greeting, and 2 minutes for a connection,
 * while the person waits for their code: the send gives up after smtpTimeouts and the call
 * answers 503 in the error shape, well before a browser or proxy gives up on it. A mail server
 * that is not running at all is the same outage, and answered the same, not as a 500.
 */
let server: TestServer;
let silent: Server;
const held = new Set<Socket>();

beforeAll(async () => {
  silent = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${(silent.address() as { port: number }).port}` });
});

afterAll(async () => {
  await server?.close();
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

describe('a mail server that never answers', () => {
  it('"send me a code" answers 503 service_unavailable within the greeting timeout, not after 30 s', async () => {
    const email = `silent-${Date.now()}@example.com`;
    await createAccount(server.ctx.db, { email });
    const browser = new BrowserLike(server.base);
    const started = performance.now();
    const res = await browser.json<{ detail?: { type: string }[] }>('/auth/login/start', { email });
    const waited = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.detail?.[0]?.type).toBe('service_unavailable');
    expect(held.size).toBeGreaterThan(0); // it did reach the silent server
    expect(waited).toBeGreaterThanOrEqual(smtpTimeouts.greetingTimeout - 100);
    expect(waited).toBeLessThan(smtpTimeouts.greetingTimeout + 5_000);
  }, 30_000);
});

describe('a mail server that refuses the connection', () => {
  let down: TestServer;
  beforeAll(async () => {
    // A loopback port nothing listens on: the most common outage, the mail server is not running.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    down = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await down?.close();
  });

  it('"send me a code" answers 503 service_unavailable, not 500', async () => {
    const email = `refused-${Date.now()}@example.com`;
    await createAccount(down.ctx.db, { email });
    const browser = new BrowserLike(down.base);
    const start = await browser.json<{ detail?: { type: string }[] }>('/auth/login/start', { email });
    expect([start.status, start.body.detail?.[0]?.type]).toEqual([503, 'service_unavailable']);
  });
});
