import request from 'supertest';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRouter } from '../../src/observability/metrics.routes.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signInWithPassword } from '../login/journey.ts';

const token = 'metrics-token-0123456789abcdef';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { METRICS_TOKEN: token } });
  await createAccount(t.ctx.db, { email: 'metered@example.com', password: 'Metered-passw0rd!' });
});
afterAll(() => t?.close());

/** The value of one series in Prometheus text format, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function scrape(): Promise<string> {
  const res = await request(t.server).get('/metrics').set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return res.text;
}

describe('/metrics', () => {
  it('counts sign-ins by method and outcome, and requests by route pattern', async () => {
    const before = await scrape();
    const success = 'nyckel_sign_ins_total{method="password",outcome="success"}';
    const failure = 'nyckel_sign_ins_total{method="password",outcome="failure"}';

    expect((await signInWithPassword(t.agent(), 'metered@example.com', 'Metered-passw0rd!')).body.state).toBe('Done');
    expect((await signInWithPassword(t.agent(), 'metered@example.com', 'wrong-Passw0rd!')).status).toBe(401);

    const after = await scrape();
    expect(sample(after, success) - sample(before, success)).toBe(1);
    expect(sample(after, failure) - sample(before, failure)).toBe(1);
    expect(sample(after, 'nyckel_http_request_duration_seconds_count{method="POST",route="/auth/login/verify-password",status="200"}')).toBeGreaterThanOrEqual(1);
    // Labels are route patterns: no session ids, emails or tokens in series names.
    expect(after).not.toContain('metered@example.com');
    expect(after).not.toMatch(/route="\/auth\/interaction\/[^:]/);
  });

  it('refuses a scrape without the token, and with a wrong one', async () => {
    expect((await request(t.server).get('/metrics')).status).toBe(401);
    expect((await request(t.server).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789')).status).toBe(401);
  });

  it('is absent in production when no token is configured', async () => {
    const app = express().use(createMetricsRouter({ env: 'production', metricsToken: undefined }));
    expect((await request(app).get('/metrics')).status).toBe(404);
  });
});
