import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError } from '../../src/http/error-handler.ts';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createPersona, signCookie } from '../admin/harness.ts';
import { createTenant } from '../fixtures/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { portalCookieName } from '../../src/session/portal-cookie.ts';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { loadOperations, requestFor, type KnownValues, type Operation } from './openapi-requests.ts';
import { createRawClient, type RawRequest, type RawResponse } from './raw-http.ts';

/**
 * Hostile input against every route of openapi.yaml (and oidc-provider's endpoints): 10,000
 * requests, generated with fast-check from the spec, from anonymous, signed-in and operator
 * browsers. None may answer 5xx or take 2 s, and every error must be in its documented shape.
 * Reproduce a failure with FUZZ_SEED=<seed printed>; FUZZ_REPORT=<file> writes the status counts
 * and every bad answer, in full, to that file.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20_261_122);
const totalRequests = 10_000;
/** Requests of one property run, sent at once: concurrency without giving up shrinking. */
const batch = 8;
const slowMs = 2000;

let t: TestApp;
let base: string;
let known: KnownValues;
/**
 * Signing this browser out, fuzzed with the known session cookies, would end the sessions every
 * later request (and test) needs: it gets hostile input of its own, with sessions of its own (below).
 */
const endsItsSession = (operation: Operation) => operation.method === 'POST' && operation.path === '/api/accounts/sessions/sign-out';
const operations: Operation[] = loadOperations().filter((operation) => !endsItsSession(operation));
let personas: { id: string; email: string }[];

/** The portal session cookie of a new session of `persona`, with a second factor. */
async function sessionCookieFor(persona: { id: string; email: string }): Promise<string> {
  const session = await createPortalSession(t.ctx, {
    account_id: persona.id,
    email: persona.email,
    amr: ['pwd', 'otp', 'mfa'],
    auth_time: Math.floor(Date.now() / 1000),
    ip: null,
    user_agent: null,
  });
  return `${portalCookieName}=${encodeURIComponent(signCookie(session.id, t.ctx.config.cookieSecrets[0]!))}`;
}

beforeAll(async () => {
  // Each request comes from its own X-Forwarded-For address, so the per-IP limit does not turn
  // every later request into a 429 and the fuzzer keeps reaching the handlers.
  t = await startTestApp({ env: { TRUST_PROXY: '1' } });
  // As in src/main.ts: requests Node's parser refuses get an answer in the error shape.
  t.server.on('clientError', answerClientError);
  base = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
  const user = await createPersona(t.ctx, { totp: true });
  const operator = await createPersona(t.ctx, { role: 'admin', totp: true });
  const tenant = await createTenant(t.ctx.db, 'fuzzco');
  await upsertClient(t.ctx.db, { client_id: 'fuzz-client', redirect_uris: ['http://127.0.0.1:9/callback'], client_secret: 'fuzz-client-secret-0123456789' });
  const credentials = (await t.ctx.db('credentials').select('id')).map((row: { id: string }) => row.id);
  const login = await t.agent().post('/auth/login/start').send({ email: user.email });
  personas = [user, operator];
  known = {
    origin: t.ctx.config.publicUrl,
    sessionCookies: [await sessionCookieFor(user), await sessionCookieFor(operator)],
    strings: [
      user.id, user.email, operator.id, operator.email, tenant, 'fuzzco', ...credentials, login.body.session_id as string,
      'fuzz-client', 'http://127.0.0.1:9/callback', 'openid email profile', 'code', 'S256', 'authorization_code', 'refresh_token',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'info', 'sms_sign', 'system_sms', 'integrations', 'sms_credits', 'sv', 'en',
    ],
  };
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** Why a response breaks the rules, or null when it is fine. */
function problem(request: RawRequest, response: RawResponse): string | null {
  if (response.status >= 500) return `answered ${response.status}`;
  if (response.ms > slowMs) return `took ${Math.round(response.ms)} ms`;
  if (response.status < 400 || request.method === 'HEAD') return null;
  const path = request.path.split('?')[0]!;
  const text = response.body.toString('utf8');
  const type = String(response.headers['content-type'] ?? '');
  let body: unknown;
  try {
    body = type.includes('json') ? JSON.parse(text) : undefined;
  } catch {
    return `answered ${response.status} with malformed JSON`;
  }
  const detailShaped =
    typeof body === 'object' && body !== null && Array.isArray((body as { detail?: unknown }).detail) &&
    (body as { detail: unknown[] }).detail.length > 0 &&
    (body as { detail: { type?: unknown; msg?: unknown }[] }).detail.every((d) => typeof d.type === 'string' && typeof d.msg === 'string');
  // Requests Node's HTTP parser refuses (answered by src/http/error-handler.ts answerClientError) get our shape on any path.
  if (detailShaped && ['malformed_request', 'headers_too_large'].includes((body as { detail: { type: string }[] }).detail[0]!.type)) return null;
  const oauthShaped = typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
  // oidc-provider's endpoints answer RFC 6749 errors; browsers get its error page, which names the error code.
  const oauthEndpoint = path.startsWith('/oauth2/') && !path.startsWith('/oauth2/userinfo/credentials');
  if (oauthEndpoint && (oauthShaped || (type.includes('html') && /<code>[a-z_]+<\/code>/.test(text)))) return null;
  // GET /oauth2/userinfo without a bearer token is the portal's profile call: our shape.
  if ((!oauthEndpoint || path === '/oauth2/userinfo') && detailShaped) return null;
  return `answered ${response.status} ${type || '(no content type)'}: ${text.slice(0, 200)}`;
}

function describeRequest(request: RawRequest): string {
  const body = request.body ? ` body ${request.body.length} bytes: ${request.body.subarray(0, 160).toString('latin1')}` : '';
  if (process.env.FUZZ_REPORT) return `${request.method} ${request.path} ${JSON.stringify(request.headers)} body ${request.body?.toString('latin1').slice(0, 2000)}`;
  return `${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 400)}${body}`;
}

describe('hostile input generated from openapi.yaml', () => {
  it(`${totalRequests} requests to every route: no 5xx, none over 2 s, every error in the spec's shape (seed ${seed})`, async () => {
    const client = createRawClient(base, slowMs + 1000, batch);
    const anyRequest = fc.oneof(...operations.map((operation) => requestFor(operation, known)));
    let sent = 0;
    const statuses = new Map<number, number>();
    // Every broken answer is kept (not only the first) so one run shows all that needs fixing.
    const failures: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(anyRequest, { minLength: batch, maxLength: batch }), async (requests) => {
          const answers = await Promise.all(
            requests.map((request) =>
              client.send(request).then(
                (response) => ({ request, response, error: undefined }),
                (error: Error) => ({ request, response: undefined, error }),
              ),
            ),
          );
          sent += requests.length;
          for (const { request, response, error } of answers) {
            const wrong = response ? problem(request, response) : `no answer: ${error!.message}${(error as { reusedSocket?: boolean }).reusedSocket ? ` (on a reused socket, after ${(error as { before?: string }).before})` : ''}`;
            if (response) statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (wrong) failures.push(`#${sent} ${describeRequest(request)}\n  → ${wrong}`);
          }
        }),
        { seed, numRuns: totalRequests / batch },
      );
    } finally {
      client.close();
    }
    if (process.env.FUZZ_REPORT) (await import('node:fs')).writeFileSync(process.env.FUZZ_REPORT, `${JSON.stringify([...statuses].sort())}\n${failures.join('\n')}`);
    expect(failures, `fuzzer seed ${seed} (rerun with FUZZ_SEED=${seed}); ${failures.length} bad answers:\n${failures.slice(0, 15).join('\n')}`).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(totalRequests);
    // The generator must reach handlers, not only the guards: successes and validation errors both occur.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(100);
    expect(t.server.listening).toBe(true);
    // The signed-in requests stayed signed in to the end (nothing fuzzed ended their sessions).
    const check = createRawClient(base, slowMs + 1000, 1);
    try {
      for (const cookie of known.sessionCookies) {
        expect((await check.send({ method: 'GET', path: '/oauth2/userinfo', headers: { cookie, accept: 'application/json' } })).status).toBe(200);
      }
    } finally {
      check.close();
    }
  }, 240_000);

  it('signing this browser out takes hostile input as every route does, with sessions of its own', async () => {
    const signOut = loadOperations().find(endsItsSession)!;
    const own: KnownValues = { ...known, sessionCookies: await Promise.all(personas.map(sessionCookieFor)) };
    const client = createRawClient(base, slowMs + 1000, 1);
    try {
      for (const request of fc.sample(requestFor(signOut, own), { seed, numRuns: 300 })) {
        expect(problem(request, await client.send(request)), describeRequest(request)).toBeNull();
      }
    } finally {
      client.close();
    }
  });
});

describe('hostile input found by the fuzzer, and oversized OAuth parameters', () => {
  const huge = 'a'.repeat(64 * 1024);

  async function send(request: RawRequest): Promise<RawResponse> {
    const client = createRawClient(base, 10_000, 1);
    try {
      return await client.send(request);
    } finally {
      client.close();
    }
  }

  it.each(['state', 'nonce', 'scope'])('a 64 KB %s on GET /oauth2/authorize is a clean 431 in the error shape', async (name) => {
    const query = new URLSearchParams({ client_id: 'fuzz-client', response_type: 'code', redirect_uri: 'http://127.0.0.1:9/callback', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', [name]: huge });
    const response = await send({ method: 'GET', path: `/oauth2/authorize?${query}`, headers: {} });
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body.toString())).toEqual({ detail: [{ type: 'headers_too_large', msg: expect.any(String) }] });
  });

  it.each(['/oauth2/authorize', '/oauth2/par', '/oauth2/token'])('a 64 KB state in a POST form to %s is a 4xx OAuth error', async (path) => {
    const form = new URLSearchParams({ client_id: 'fuzz-client', response_type: 'code', redirect_uri: 'http://127.0.0.1:9/callback', scope: 'openid', state: huge, nonce: huge, grant_type: 'authorization_code', code: 'x' });
    const response = await send({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${Buffer.from('fuzz-client:fuzz-client-secret-0123456789').toString('base64')}` },
      body: Buffer.from(form.toString()),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(JSON.parse(response.body.toString())).toMatchObject({ error: expect.any(String) });
  });

  it('NUL characters, which PostgreSQL cannot store, are a 4xx wherever they reach a query', async () => {
    const operatorCookie = known.sessionCookies[1]!;
    const headers = { cookie: operatorCookie, origin: known.origin, 'content-type': 'application/json', accept: 'application/json' };
    const tenant = known.strings[4]!;
    const cases: RawRequest[] = [
      { method: 'GET', path: '/api/tenants/search/%00', headers },
      { method: 'GET', path: '/api/accounts/search/a%00b', headers },
      { method: 'POST', path: `/api/tenants/${tenant}/settings`, headers, body: Buffer.from('{"key":"abc","value":"a\\u0000b"}') },
      { method: 'POST', path: '/api/tenants', headers, body: Buffer.from('{"name":"a\\u0000b","slug":"nulname"}') },
      { method: 'POST', path: '/auth/login/start', headers, body: Buffer.from('{"email":"a\\u0000@example.com"}') },
    ];
    for (const request of cases) {
      const response = await send(request);
      expect([request.path, response.status]).toEqual([request.path, expect.toSatisfy((s: number) => s >= 400 && s < 500)]);
      expect(JSON.parse(response.body.toString()).detail[0].type).toEqual(expect.any(String));
    }
    const oauth = await send({ method: 'GET', path: '/oauth2/logout?client_id=%00', headers: { accept: 'application/json' } });
    expect([oauth.status, JSON.parse(oauth.body.toString()).error]).toEqual([400, 'invalid_client']);
  });

  it('a setting value nested deeper than 32 levels is a 422, not a stack overflow', async () => {
    const tenant = known.strings[4]!;
    const headers = { cookie: known.sessionCookies[1]!, origin: known.origin, 'content-type': 'application/json' };
    const deep = await send({ method: 'POST', path: `/api/tenants/${tenant}/settings`, headers, body: Buffer.from(`{"key":"deep","value":${'['.repeat(3000)}${']'.repeat(3000)}}`) });
    expect([deep.status, JSON.parse(deep.body.toString()).detail[0].loc]).toEqual([422, ['value']]);
    const fine = await send({ method: 'POST', path: `/api/tenants/${tenant}/settings`, headers, body: Buffer.from(`{"key":"deep","value":${'['.repeat(30)}1${']'.repeat(30)}}`) });
    expect(fine.status).toBe(200);
  });

  it('unknown methods on /oauth2 answer in the OAuth shape, and on our /oauth2 paths in ours', async () => {
    const provider = await send({ method: 'PATCH', path: '/oauth2/token', headers: { accept: 'application/json' } });
    expect([provider.status, JSON.parse(provider.body.toString()).error]).toEqual([404, 'invalid_request']);
    const ours = await send({ method: 'PUT', path: '/oauth2/userinfo/credentials/x', headers: { accept: 'application/json', origin: known.origin } });
    expect([ours.status, JSON.parse(ours.body.toString()).detail[0].type]).toEqual([404, 'not_found']);
  });
});
