interface WaitingCall<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects the calls of one statement and runs them as one call over all their inputs: group
 * commit. A call made while no batch of this statement is at the database goes out when the loop
 * reaches its check phase (setImmediate), with whatever else arrived in that turn; calls made
 * while a batch is at the database wait for it and go out together as the next batch. So alone a
 * call costs one round trip, and under load the round trips per sign-in fall as the load rises
 * instead of each turn paying its own (each round trip is a socket write and read here and a
 * wake-up of a database backend). A batch still at the database after `maxHoldMs` stops holding
 * the next one: a connection that hangs must not stall every sign-in behind it.
 *
 * A batch the database refused (it answered with an error, so the statement was rolled back and
 * none of it happened) is run again one input at a time: a caller fails only with its own input's
 * error, and no input can fail the sign-ins it happened to share a batch with. A batch whose
 * outcome is unknown (the connection dropped) fails every call in it, as each would have alone.
 */
export class StatementBatcher<I, O> {
  #waiting: WaitingCall<I, O>[] = [];
  /** A batch is at the database, or about to be sent: new calls join the next one. */
  #busy = false;
  readonly #run: (inputs: I[]) => Promise<O[]>;
  readonly #maxHoldMs: number;

  constructor(run: (inputs: I[]) => Promise<O[]>, options: { maxHoldMs?: number } = {}) {
    this.#run = run;
    this.#maxHoldMs = options.maxHoldMs ?? 1000;
  }

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const calls = this.#waiting;
    this.#waiting = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.#send(calls), new Promise((resolve) => (timer = setTimeout(resolve, this.#maxHoldMs)))]);
    } finally {
      clearTimeout(timer);
      // The calls that arrived meanwhile go out now, as one batch.
      if (this.#waiting.length > 0) void this.#flush();
      else this.#busy = false;
    }
  }

  async #send(calls: WaitingCall<I, O>[]): Promise<void> {
    try {
      const outputs = await this.#run(calls.map((c) => c.input));
      calls.forEach((c, index) => c.resolve(outputs[index] as O));
    } catch (error) {
      if (calls.length > 1 && refusedByDatabase(error)) {
        for (const c of calls) this.#run([c.input]).then(([output]) => c.resolve(output as O), c.reject);
      } else {
        for (const c of calls) c.reject(error);
      }
    }
  }
}

/** An error PostgreSQL (or PGlite) answered with: it carries a severity; a dropped connection does not. */
function refusedByDatabase(error: unknown): boolean {
  return typeof (error as { severity?: unknown } | null)?.severity === 'string';
}
