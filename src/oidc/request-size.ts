/**
 * How large a request oidc-provider may store. An authorization keeps its parameters in an
 * interaction (an hour), a logout its `state` in a provider session, a pushed authorization
 * request its whole body: without caps, anyone could send large values by the thousand and fill
 * Redis. Each parameter has a cap far above what relying parties send, the body of a POST a cap
 * of its own, and a POST must say its length (no chunked bodies that could grow unchecked).
 */
import type { IncomingMessage } from 'node:http';
import type { Refusal } from './endpoint-limits.ts';

/** Characters, per parameter; one not named here gets `otherParameterCap`. */
const parameterCaps: Readonly<Record<string, number>> = {
  state: 2048,
  nonce: 512,
  login_hint: 512,
  ui_locales: 128,
  acr_values: 512,
  claims: 4096,
  scope: 1024,
  prompt: 64,
  max_age: 16,
  client_id: 256,
  redirect_uri: 2048,
  post_logout_redirect_uri: 2048,
};
/** id_token_hint (an ID token with its tenants), request objects and the like. */
const otherParameterCap = 8192;
/** Bytes of a POST body (an authorization or PAR by POST, a token request). */
export const maxBodyBytes = 16 * 1024;

const refusal = (description: string, status: Refusal['status'] = 400): Refusal => ({ status, body: { error: 'invalid_request', error_description: description } });

/** The refusal of a request too large for oidc-provider to take, or undefined. Reads only the target and headers. */
export function oversized(req: IncomingMessage): Refusal | undefined {
  const query = req.url?.indexOf('?') ?? -1;
  if (query !== -1) {
    for (const [name, value] of new URLSearchParams(req.url!.slice(query + 1))) {
      if (value.length > (parameterCaps[name] ?? otherParameterCap)) return refusal(`${name.slice(0, 40)} is too long`);
    }
  }
  if (req.method !== 'POST') return undefined;
  const length = req.headers['content-length'];
  if (length === undefined) return req.headers['transfer-encoding'] ? refusal('a request body must say its length (Content-Length)', 411) : undefined;
  return Number(length) > maxBodyBytes ? refusal(`request body over ${maxBodyBytes} bytes`, 413) : undefined;
}
