import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import type { RawRequest } from './raw-http.ts';

/** The subset of JSON Schema openapi.yaml uses. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** OpenAPI template, e.g. /api/tenants/{tenantId}. */
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: Schema | undefined;
  /** oidc-provider's endpoints take form bodies and RFC parameters that openapi.yaml does not list. */
  oauth: boolean;
}

/** RFC 6749 / OIDC parameters of oidc-provider's endpoints (not described in openapi.yaml). */
const oauthParams: Record<string, string[]> = {
  '/oauth2/authorize': ['client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'prompt', 'max_age', 'ui_locales', 'login_hint', 'response_mode', 'request', 'request_uri', 'claims', 'acr_values'],
  '/oauth2/token': ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'client_id', 'client_secret', 'scope', 'resource'],
  '/oauth2/revoke': ['token', 'token_type_hint', 'client_id', 'client_secret'],
  '/oauth2/introspect': ['token', 'token_type_hint', 'client_id', 'client_secret'],
  '/oauth2/logout': ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'ui_locales', 'logout_hint'],
  '/oauth2/userinfo': ['access_token'],
};

const root = resolve(import.meta.dirname, '../..');

/** Every operation of openapi.yaml, with $refs resolved. */
export function loadOperations(): Operation[] {
  const spec = parse(readFileSync(resolve(root, 'openapi.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
    components: Record<string, Record<string, unknown>>;
  };
  const deref = <T extends { $ref?: string }>(node: T): T => {
    if (!node.$ref) return node;
    const [, , group, name] = node.$ref.split('/');
    return deref(spec.components[group!]![name!] as T);
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (method === 'parameters') continue;
      const parameters = (operation.parameters ?? []).map(deref);
      const body = operation.requestBody?.content?.['application/json']?.schema;
      const oauth = path.startsWith('/oauth2/') && !path.startsWith('/oauth2/userinfo/');
      const extra = (oauthParams[path] ?? []).map((name): Parameter => ({ name, in: 'query', schema: { type: 'string' } }));
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: [...parameters.filter((p) => p.in === 'query'), ...extra],
        body: body ? resolveSchema(body, deref) : undefined,
        oauth,
      });
    }
  }
  return operations;
}

function resolveSchema(schema: Schema, deref: (s: Schema) => Schema): Schema {
  const s = deref(schema);
  return {
    ...s,
    ...(s.properties && { properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, resolveSchema(v, deref)])) }),
    ...(s.items && { items: resolveSchema(s.items, deref) }),
    ...(s.oneOf && { oneOf: s.oneOf.map((o) => resolveSchema(o, deref)) }),
    ...(s.allOf && { allOf: s.allOf.map((o) => resolveSchema(o, deref)) }),
  };
}

/** Ids, emails and session ids that exist in the app under test, so some requests get past lookups. */
export interface KnownValues {
  strings: string[];
  /** Cookie header values of signed-in browsers (user, operator). */
  sessionCookies: string[];
  origin: string;
}

const nastyStrings = [
  '', ' ', '\u0000', '\t\n', '../../../etc/passwd', '..%2f..%2f', "' or 1=1 --", '"; drop table accounts; --', '<script>alert(1)</script>',
  '${jndi:ldap://x}', '{{7*7}}', '\u202e\u0041', '\ud800', '\udfff\ud800', '𝕏𝕏𝕏', 'ﬀ', 'İ', '\ufeff', 'null', 'undefined', 'true',
  '__proto__', 'constructor', 'prototype', 'NaN', '-1', '0', '1e309', '-0', '0x10', '9'.repeat(40), 'a@b', '@', 'a@', '@b.c',
  'UPPER@EXAMPLE.COM', ' padded@example.com ', 'Ä@ö.se', 'a'.repeat(255) + '@example.com', '000000', '123456', '１２３４５６',
];

/** Strings of every shape: random, unicode, known-bad, known-good, and long (up to 4 KB). */
function hostileString(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 3, arbitrary: fc.constantFrom(...nastyStrings) },
    { weight: 3, arbitrary: fc.constantFrom(...known.strings) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.emailAddress() },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: 4096 }).map((n) => 'x'.repeat(n)) },
  );
}

/** A value of roughly the schema's type, so requests get past validation often enough to go deeper. */
function valueFor(schema: Schema | undefined, known: KnownValues, depth = 0): fc.Arbitrary<unknown> {
  if (!schema) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((s) => valueFor(s, known, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return fc.oneof(fc.uuid(), fc.constantFrom(...known.strings));
      if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom(...known.strings));
      if (schema.pattern === '^[0-9]{6}$') return fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0'));
      if (schema.pattern) return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)), hostileString(known));
      return hostileString(known);
    case 'integer':
    case 'number':
      return fc.integer({ min: (schema.minimum ?? -10) - 1, max: (schema.maximum ?? 1000) + 1 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(valueFor(schema.items, known, depth + 1), { maxLength: 3 });
    case 'object':
      if (!schema.properties || depth > 3) return fc.jsonValue({ maxDepth: 2 });
      return fc.record(
        Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, valueFor(v, known, depth + 1)])),
        { requiredKeys: schema.required ?? [] },
      );
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** Any JSON value of the wrong kind. */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.constant({ __proto__: { admin: true } }),
);

/** Percent-escapes a value for a URL; a lone surrogate (which encodeURIComponent refuses) goes raw. */
function urlEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return escape(value);
  }
}

/** Path segments and query values: encoded, raw bad bytes, or broken escapes. */
function urlValue(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 24, arbitrary: hostileString(known).map(urlEncode) },
    { weight: 4, arbitrary: fc.constantFrom('%C3%28', '%FF%FE', '%E0%80%80', '%ED%A0%80', '%', '%G0', '%2', '%2e%2e', '%2F', '%00', '%25', '+', ';', '..', '.') },
    // Raw bytes 0x80–0xFF: node:http sends these characters as single bytes, invalid UTF-8.
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 8 }) },
  );
}

function encodeQuery(pairs: [string, string][]): string {
  return pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
}

interface Body {
  contentType: string | undefined;
  bytes: Buffer | undefined;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');

/** Nests `leaf` `depth` levels deep in arrays or objects. */
function nested(depth: number, objects: boolean): string {
  return objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** Bodies: plausible, wrongly typed, deeply nested, 1 MB, malformed, duplicated keys, bad UTF-8, other content types. */
function bodyFor(operation: Operation, known: KnownValues): fc.Arbitrary<Body> {
  const plausible = operation.oauth
    ? fc.array(fc.tuple(fc.constantFrom(...(oauthParams[operation.path] ?? ['x'])), urlValue(known)), { maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'))
    : valueFor(operation.body ?? { type: 'object', properties: {} }, known).map((v) => JSON.stringify(v) ?? 'null');
  const jsonType = operation.oauth ? 'application/x-www-form-urlencoded' : 'application/json';
  const keys = Object.keys(operation.body?.properties ?? { email: {}, session_id: {} });
  const key = fc.constantFrom(...(keys.length ? keys : ['x']));
  return fc.oneof(
    { weight: 8, arbitrary: plausible.map((text) => ({ contentType: jsonType, bytes: Buffer.from(text) })) },
    // Wrong types for one or every field.
    { weight: 4, arbitrary: fc.tuple(valueFor(operation.body, known), key, wrongType).map(([v, k, w]) => ({ contentType: 'application/json', bytes: json({ ...(typeof v === 'object' && v ? v : {}), [k]: w }) })) },
    { weight: 1, arbitrary: fc.dictionary(key, wrongType).map((v) => ({ contentType: 'application/json', bytes: json(v) })) },
    // Top-level values that are not objects.
    { weight: 1, arbitrary: fc.constantFrom('[]', '"x"', '1', 'null', 'true', '[{"email":"a@b.c"}]', '""').map((t) => ({ contentType: 'application/json', bytes: Buffer.from(t) })) },
    // Deeply nested, within the 16 KB body limit and far beyond it.
    { weight: 2, arbitrary: fc.tuple(key, fc.integer({ min: 50, max: 2600 }), fc.boolean()).map(([k, d, o]) => ({ contentType: 'application/json', bytes: Buffer.from(`{"${k}":${nested(d, o)}}`) })) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 10_000, max: 200_000 }), fc.boolean()).map(([d, o]) => ({ contentType: jsonType, bytes: Buffer.from(nested(d, o)) })) },
    // 1 MB.
    { weight: 1, arbitrary: key.map((k) => ({ contentType: jsonType, bytes: Buffer.from(operation.oauth ? `${k}=${'a'.repeat(1 << 20)}` : `{"${k}":"${'a'.repeat(1 << 20)}"}`) })) },
    // Malformed: cut short, trailing junk, JavaScript rather than JSON.
    { weight: 2, arbitrary: fc.tuple(plausible, fc.nat(), fc.constantFrom('', '}', ',', 'x', '\u0000', '/*', "{'a':1}", 'NaN', '{"a":1,}', '\ufeff{}')).map(([text, cut, junk]) => ({ contentType: 'application/json', bytes: Buffer.from(text.slice(0, cut % (text.length + 1)) + junk) })) },
    // Duplicated keys.
    { weight: 2, arbitrary: fc.tuple(key, hostileString(known), wrongType).map(([k, a, b]) => ({ contentType: 'application/json', bytes: Buffer.from(`{"${k}":${JSON.stringify(a)},"${k}":${JSON.stringify(b)},"${k}":${JSON.stringify(a)}}`) })) },
    // Bad UTF-8 inside a string value.
    { weight: 2, arbitrary: fc.tuple(key, fc.constantFrom([0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80])).map(([k, bad]) => ({ contentType: 'application/json; charset=utf-8', bytes: Buffer.concat([Buffer.from(`{"${k}":"a`), Buffer.from(bad), Buffer.from('b"}')]) })) },
    // The right bytes under the wrong content type, charset or encoding.
    { weight: 2, arbitrary: fc.tuple(plausible, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=klingon', 'application/xml', '*/*', 'application/json, text/plain', '')).map(([text, type]) => ({ contentType: type || undefined, bytes: Buffer.from(text) })) },
    { weight: 1, arbitrary: fc.constant({ contentType: 'application/json', bytes: Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}') }) },
    { weight: 1, arbitrary: fc.constant({ contentType: undefined, bytes: undefined }) },
  );
}

function headersFor(known: KnownValues): fc.Arbitrary<Record<string, string | string[]>> {
  const cookie = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...known.sessionCookies) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'nyckel_session=s%3Agarbage.signature',
        'nyckel_session=%FF%FE',
        'nyckel_login=s%3A' + 'a'.repeat(4000),
        'nyckel_device=x; nyckel_device=y',
        `${known.sessionCookies[0]}; ${known.sessionCookies[1]}`,
        '=; ==; ;;',
        'nyckel_session=' + '%'.repeat(50),
      ),
    },
  );
  return fc
    .record({
      origin: fc.constantFrom(known.origin, known.origin, known.origin, undefined, 'null', 'https://evil.example', known.origin + '.evil.example'),
      cookie,
      forwarded: fc.oneof({ weight: 8, arbitrary: fc.ipV4() }, { weight: 1, arbitrary: fc.ipV6() }, { weight: 1, arbitrary: fc.constantFrom('unknown', ', ,', '1.2.3.4, garbage', '999.999.999.999', '\u00ff\u00fe') }),
      accept: fc.constantFrom('application/json', 'application/json', 'text/html', '*/*', undefined, 'image/png', 'application/json;q=abc'),
      language: fc.constantFrom(undefined, 'sv', 'en-GB,sv;q=0.5', '*', 'x'.repeat(300), 'sv;q=NaN'),
      authorization: fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => `Bearer ${urlEncode(s)}`) },
        { weight: 1, arbitrary: fc.constantFrom('Basic ' + Buffer.from('athena:wrong').toString('base64'), 'Basic %%%', 'Basic ' + Buffer.from(':').toString('base64'), 'Bearer', 'Bearer  ', 'Digest x', 'Basic ' + Buffer.from('\u00ff:\u00fe', 'latin1').toString('base64')) },
        { weight: 1, arbitrary: fc.constant(['Bearer a', 'Bearer b'] as string[]) },
      ),
    })
    .map(({ origin, cookie, forwarded, accept, language, authorization }) => {
      const headers: Record<string, string | string[]> = { 'x-forwarded-for': forwarded };
      if (origin) headers.origin = origin;
      if (cookie) headers.cookie = cookie;
      if (accept) headers.accept = accept;
      if (language) headers['accept-language'] = language;
      if (authorization) headers.authorization = authorization;
      return headers;
    });
}

/** One hostile request for an operation of openapi.yaml. */
export function requestFor(operation: Operation, known: KnownValues): fc.Arbitrary<RawRequest> {
  const segment = urlValue(known);
  const pathArb = fc.tuple(...operation.pathParams.map(() => segment)).map((values) => {
    let index = 0;
    return operation.path.replace(/\{[^}]+\}/g, () => values[index++] || '%20');
  });
  const names = operation.queryParams.map((p) => p.name);
  const queryPair = fc.tuple(names.length ? fc.oneof(fc.constantFrom(...names), fc.constantFrom('x', 'a[b]', 'a[]', '__proto__', '%FF', '')) : fc.constant('x'), urlValue(known));
  // Duplicated parameters are common: the same name drawn twice, or one pair repeated.
  const query = fc.oneof(fc.array(queryPair, { maxLength: 6 }), queryPair.map((pair) => [pair, pair]));
  const withBody = operation.method !== 'GET' && operation.method !== 'DELETE';
  const body: fc.Arbitrary<Body> = withBody
    ? bodyFor(operation, known)
    : fc.oneof({ weight: 9, arbitrary: fc.constant({ contentType: undefined, bytes: undefined }) }, { weight: 1, arbitrary: bodyFor(operation, known) });
  const method = fc.oneof({ weight: 19, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD', 'DELETE', 'POST', 'GET') });
  return fc.record({ method, path: pathArb, query, body, headers: headersFor(known), twoTypes: fc.nat(19) }).map((r) => {
    const headers = { ...r.headers };
    if (r.body.contentType) headers['content-type'] = r.twoTypes === 0 ? [r.body.contentType, 'text/plain'] : r.body.contentType;
    return { method: r.method, path: r.path + encodeQuery(r.query), headers, ...(r.body.bytes && r.method !== 'HEAD' && { body: r.body.bytes }) };
  });
}
