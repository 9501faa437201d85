import { createHmac, createSecretKey } from 'node:crypto';
import type { Context } from '../context.ts';
import { ipBudgetKey } from '../http/ip-key.ts';
import { BatchedWindowLimiter, type LimitAnswer } from '../http/batched-limit.ts';

/** A request refused before it reaches oidc-provider: status, headers and the RFC 6749 body. */
export interface Refusal {
  status: 400 | 411 | 413 | 429 | 500 | 503;
  retryAfterSeconds?: number;
  body: { error: string; error_description: string };
}

/** The store behind the budgets cannot be reached: fail closed, in the OAuth shape these endpoints use. */
export const storeDownRefusal: Refusal = {
  status: 503,
  retryAfterSeconds: 5,
  body: { error: 'temporarily_unavailable', error_description: 'the authorization server is temporarily unavailable, try again later' },
};

/**
 * Budgets for the endpoints that authenticate the client (token, introspection, revocation, PAR),
 * per client and per IP. An RP's backend serves all its users from few addresses, so the IP budget
 * is twice the client's.
 *
 * The client's budget is counted before oidc-provider authenticates the client, so it is kept per
 * client_id *and* presented secret (an HMAC of it, never the secret itself, names the counter):
 * only someone holding the secret spends the relying party's budget. Anyone else sending its
 * client_id with a wrong secret spends a budget of their own guess, and their address's: the IP
 * budget is what bounds guessing a secret.
 *
 * The client is read from HTTP Basic credentials only. A request without them (a public client,
 * or client_secret_post) is held to its address's budget. Its form body is left to oidc-provider:
 * read here, the stream would be gone and oidc-provider would fall back to a pre-parsed body,
 * without its own size and length checks, on every public client's token request; and a public
 * client named in a body proves nothing, so anyone could spend its budget for all its users.
 *
 * These budgets stop an RP or an address from flooding the endpoints; the requests carry codes
 * and tokens nobody can guess, so they need not be exact to the request across instances and are
 * counted without a store round trip (src/http/batched-limit.ts).
 *
 * Answers the refusal, if any: at once when every budget could be decided in this process,
 * otherwise as a promise (a budget that is syncing with an unreachable store rejects with the
 * store's error).
 */
export function createOAuthEndpointLimits(ctx: Pick<Context, 'store' | 'config'>) {
  const perClient = ctx.config.oauthRateLimitPerMinute;
  const prefix = 'oauth-limit:';
  const byClient = new BatchedWindowLimiter(ctx.store, { points: perClient, duration: 60, prefix: `${prefix}client:` });
  const byIp = new BatchedWindowLimiter(ctx.store, { points: perClient * 2, duration: 60, prefix: `${prefix}ip:` });
  // The counter's name must be the same on every instance, so the key comes from configuration.
  // A KeyObject, not a Buffer: Node checks a Buffer key's type the slow way on every createHmac
  // (~9 µs against ~1 µs, per token request).
  const namingKey = createSecretKey(createHmac('sha256', ctx.config.cookieSecrets[0]!).update('nyckel oauth client budget').digest());
  return (ip: string, authorization: string | undefined): Refusal | undefined | Promise<Refusal | undefined> => {
    const credentials = basicCredentials(authorization);
    const clientKey = credentials && `${credentials.clientId}:${createHmac('sha256', namingKey).update(credentials.secret).digest('base64url').slice(0, 22)}`;
    const answers = [byIp.hit(ipBudgetKey(ip)), clientKey === undefined ? undefined : byClient.hit(clientKey)];
    if (!answers.some((answer) => answer instanceof Promise)) return refusalOf(answers as (LimitAnswer | undefined)[]);
    return Promise.all(answers).then(refusalOf);
  };
}

function refusalOf(answers: (LimitAnswer | undefined)[]): Refusal | undefined {
  const refused = answers.find((answer): answer is Extract<LimitAnswer, { allowed: false }> => answer?.allowed === false);
  if (!refused) return undefined;
  return { status: 429, retryAfterSeconds: refused.retryAfterSeconds, body: { error: 'slow_down', error_description: 'too many requests, try again later' } };
}

/**
 * The client_id and secret of an HTTP Basic header (RFC 6749 2.3.1: both form-urlencoded), read
 * as oidc-provider reads them (lib/shared/client_auth.js): the scheme in any case, `+` a space,
 * both decoded. Read any other way, one secret could be sent in several spellings, each spending
 * a budget of its own.
 */
function basicCredentials(header: string | undefined): { clientId: string; secret: string } | undefined {
  const parts = header?.split(' ');
  if (parts?.length !== 2 || parts[0]!.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(parts[1]!, 'base64').toString('utf8');
  const index = decoded.indexOf(':');
  if (index <= 0) return undefined;
  const formDecoded = (text: string) => decodeURIComponent(text.replace(/\+/g, '%20'));
  try {
    return { clientId: formDecoded(decoded.slice(0, index)).slice(0, 128), secret: formDecoded(decoded.slice(index + 1)) };
  } catch {
    return undefined;
  }
}
