/**
 * The /oauth2 budgets are fixed one-minute windows aligned on the clock (src/http/batched-limit.ts):
 * a test's run of requests that crossed a window's end would count afresh in the next. Waits, when
 * less than 15 s of the current window are left, for the next one (use in beforeEach, with a
 * timeout of 20 s).
 */
export async function withMinuteWindowLeft(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - into + 200));
}
