import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.ts';
import { derivedKey } from '../../crypto/derived-key.ts';

/** A code is valid 10 minutes and allows 5 wrong tries per login session. */
export const emailCodeTtlSeconds = 600;
export const maxWrongCodes = 5;

type CodeContext = Pick<Context, 'store' | 'config' | 'now'>;

interface StoredCode {
  /** HMAC-SHA256 of `<login session id>:<code>`: a leaked store dump reveals no code. */
  mac: string;
  /** ms on ctx.now()'s clock; checked as well as the store TTL so tests can move time. */
  expires_at: number;
}

const codeKey = (sessionId: string) => `login:${sessionId}:otp`;
const failuresKey = (sessionId: string) => `login:${sessionId}:otp-failures`;

export const emailCodeKeys = (sessionId: string): string[] => [codeKey(sessionId), failuresKey(sessionId)];

/**
 * Binding the MAC to the login session makes a code useless in any other session. Its key is its
 * own, so codes share no key with cookies or seeds.
 */
function codeMac(ctx: CodeContext, sessionId: string, code: string): string {
  return createHmac('sha256', derivedKey(ctx.config.encryptionKey, 'nyckel email code v1')).update(`${sessionId}:${code}`).digest('base64url');
}

export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export async function wrongCodeCount(ctx: CodeContext, sessionId: string): Promise<number> {
  return Number((await ctx.store.get(failuresKey(sessionId))) ?? 0);
}

/**
 * Stores a fresh code for the login session, replacing (and so invalidating) any earlier one; the
 * wrong-try count is kept. For an unknown email (`deliverable: false`) a MAC of random bytes is
 * stored instead: no 6-digit code can match it, yet expiry, retries and resends behave exactly as
 * for a real account, so the answers do not reveal that the account does not exist.
 *
 * `send` mails the code (null: the unknown address's notice) before it is stored: a send that
 * fails (the mail server put it off, or cannot be reached) throws and leaves the earlier code,
 * which the person may have in their inbox, as it was.
 */
export async function issueEmailCode(
  ctx: CodeContext,
  sessionId: string,
  deliverable: boolean,
  send: (code: string | null) => Promise<void> = async () => {},
): Promise<string | null> {
  const code = deliverable ? generateCode() : null;
  const mac = codeMac(ctx, sessionId, code ?? randomBytes(32).toString('base64url'));
  await send(code);
  const stored: StoredCode = { mac, expires_at: ctx.now().getTime() + emailCodeTtlSeconds * 1000 };
  await ctx.store.set(codeKey(sessionId), JSON.stringify(stored), emailCodeTtlSeconds);
  return code;
}

export type RedeemOutcome = 'ok' | 'invalid' | 'expired' | 'retries_exceeded';

/**
 * Checks a submitted code. Each try takes its place in the session's count (an atomic increment)
 * before the code is compared, so parallel submissions cannot compare more than five codes: the
 * fifth wrong try kills the code and every later try in this login session answers
 * retries_exceeded, even with the right code. A right code is redeemed with getDel, so of
 * concurrent submissions of the same code exactly one succeeds (its try stays counted: the
 * session has moved past the code step).
 */
export async function redeemEmailCode(
  ctx: CodeContext,
  sessionId: string,
  code: string,
  failuresTtlSeconds: number,
): Promise<RedeemOutcome> {
  if ((await wrongCodeCount(ctx, sessionId)) >= maxWrongCodes) return 'retries_exceeded';
  const raw = await ctx.store.get(codeKey(sessionId));
  const stored = raw ? (JSON.parse(raw) as StoredCode) : null;
  if (!stored || stored.expires_at <= ctx.now().getTime()) return 'expired';

  const tries = await ctx.store.incr(failuresKey(sessionId), failuresTtlSeconds);
  if (tries > maxWrongCodes) return 'retries_exceeded';
  if (!sameMac(codeMac(ctx, sessionId, code), stored.mac)) {
    if (tries >= maxWrongCodes) {
      await ctx.store.del(codeKey(sessionId));
      return 'retries_exceeded';
    }
    return 'invalid';
  }

  const taken = await ctx.store.getDel(codeKey(sessionId));
  // Someone else redeemed it first, or a resend replaced it in between: this try did not win.
  if (!taken || (JSON.parse(taken) as StoredCode).mac !== stored.mac) return 'expired';
  return 'ok';
}

function sameMac(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
