import { generate, generateSecret, generateURI, verify } from 'otplib';
import type { Context } from '../../context.ts';

/**
 * RFC 6238 TOTP as every authenticator app does it: SHA-1, 6 digits, 30-second steps. Codes of
 * the step before and after the current one are accepted (clock drift of the phone), nothing
 * further. Every time on the injected clock (ctx.now()), so tests move time without sleeping.
 */
export const totpPeriodSeconds = 30;
export const totpDigits = 6;
/** Steps accepted on either side of the current one. */
export const totpToleranceSteps = 1;
export const totpIssuer = 'Nyckel';

/**
 * How long a step's mark is kept: a code of step T is accepted while the verifier's step is
 * T-1..T+1, i.e. for at most three steps after it was first accepted; one more step is margin.
 * The marks of the steps below T (see claimTimeStep) are needed for less.
 */
const usedCodeTtlSeconds = (2 * totpToleranceSteps + 2) * totpPeriodSeconds;

/**
 * The steps below an accepted step T marked used with it. A code of T is accepted while the
 * verifier's step is at least T - tolerance, so from then on the verifier accepts no step below
 * T - 2·tolerance; one step more covers a verifier whose clock is up to a step behind (several
 * instances sharing one store).
 */
const stepsMarkedBelow = 2 * totpToleranceSteps + 1;

/** A fresh secret: 20 random bytes (160 bits, RFC 4226's recommendation), Base32 without padding. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI authenticator apps scan: otpauth://totp/Nyckel:<email>?secret=…&issuer=Nyckel. */
export function totpUri(email: string, secret: string): string {
  return generateURI({ issuer: totpIssuer, label: email, secret, digits: totpDigits, period: totpPeriodSeconds });
}

const epochOf = (at: Date) => Math.floor(at.getTime() / 1000);

/** The code of `at` (tests, the benchmark and demo tooling generate codes with this). */
export function totpCodeAt(secret: string, at: Date): Promise<string> {
  return generate({ secret, epoch: epochOf(at), period: totpPeriodSeconds, digits: totpDigits });
}

/**
 * The time step a code belongs to when it is valid at `at` within the tolerance, else null.
 * otplib compares in constant time. A malformed secret (never stored by Nyckel) matches nothing.
 */
export async function matchTotp(secret: string, code: string, at: Date): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const epoch = epochOf(at);
  try {
    const result = await verify({
      secret,
      token: code,
      epoch,
      period: totpPeriodSeconds,
      digits: totpDigits,
      epochTolerance: totpToleranceSteps * totpPeriodSeconds,
    });
    // delta: steps between the code's step and the current one (-1, 0 or +1).
    return result.valid ? Math.floor(epoch / totpPeriodSeconds) + result.delta : null;
  } catch {
    return null;
  }
}

/**
 * RFC 6238 §5.2 and NIST SP 800-63B 5.1.4.2: once a code of step T was accepted for a credential,
 * only codes of later steps are. Accepting T claims `totp-used:<credential>:<T>` (written only if
 * absent) and, in the same atomic store operation (claimAndWrite), marks the steps below T that a
 * verifier could still accept. So after T, the code of T-1 (still inside the window) finds its
 * step marked and is refused; of simultaneous submissions of one step's code exactly one claims
 * it; and of simultaneous codes of T-1 and T, either T-1 runs first and T follows it (increasing),
 * or T runs first and T-1 is refused. Never an older step after a newer one. Keyed per credential:
 * two credentials never share a mark.
 */
export async function claimTimeStep(ctx: Pick<Context, 'store'>, credentialId: string, timeStep: number): Promise<boolean> {
  const key = (step: number) => `totp-used:${credentialId}:${step}`;
  const below = Array.from({ length: stepsMarkedBelow }, (_, i) => ({ key: key(timeStep - 1 - i), value: '1', ttlSeconds: usedCodeTtlSeconds, sets: [] }));
  return ctx.store.claimAndWrite({ key: key(timeStep), value: '1', ttlSeconds: usedCodeTtlSeconds }, below);
}
