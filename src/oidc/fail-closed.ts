import { errors } from 'oidc-provider';
import { isUnavailable } from '../http/error-handler.ts';

/**
 * RFC 6749's `temporarily_unavailable` with status 503. oidc-provider shows only errors marked
 * `expose`; anything else becomes a 500 `server_error`, which tells a relying party nothing and
 * looks like a bug. A store or database outage is neither: the client may retry.
 */
export function temporarilyUnavailable(cause: unknown): Error {
  const error = new errors.TemporarilyUnavailable('the authorization server is temporarily unavailable, try again later', { cause });
  Object.assign(error, { status: 503, statusCode: 503, expose: true });
  return error;
}

function mapped(error: unknown): unknown {
  return isUnavailable(error) ? temporarilyUnavailable(error) : error;
}

/**
 * An oidc-provider adapter (or findAccount) whose connection failures surface as
 * `temporarily_unavailable` (503). Nothing else changes: a missing record is still `undefined`,
 * so no check is skipped when the store is down; the request fails instead.
 */
export function failClosed<T extends object>(target: T): T {
  // One wrapper per method, made on first use: oidc-provider looks a method up on every call, and a
  // fresh closure each time was garbage on every token request. The map too is made on first use:
  // findAccount wraps a new account on every call, and some callers only read its accountId.
  let wrappers: Map<PropertyKey, { method: (...args: unknown[]) => unknown; wrapper: (...args: unknown[]) => unknown }> | undefined;
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const known = wrappers?.get(property);
      if (known?.method === value) return known.wrapper;
      const method = value as (...args: unknown[]) => unknown;
      const wrapper = (...args: unknown[]) => {
        try {
          const result = method.apply(object, args);
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(mapped(error))) : result;
        } catch (error) {
          throw mapped(error);
        }
      };
      (wrappers ??= new Map()).set(property, { method, wrapper });
      return wrapper;
    },
  });
}

/** findAccount, and the account it answers, failing closed like the adapters. */
export function failClosedFindAccount<A extends unknown[], R>(findAccount: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      const account = await findAccount(...args);
      return account && typeof account === 'object' ? failClosed(account) : account;
    } catch (error) {
      throw mapped(error);
    }
  };
}
