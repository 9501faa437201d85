import { describe, expect, it } from 'vitest';
import { StatementBatcher } from './statement-batcher.ts';

/** A statement whose batches are held at "the database" until the test lets each one answer. */
function heldStatement(maxHoldMs = 60_000) {
  const batches: { inputs: number[]; answer: () => void; fail: (error: unknown) => void }[] = [];
  const batcher = new StatementBatcher<number, number>(
    (inputs) =>
      new Promise((resolve, reject) => {
        batches.push({ inputs, answer: () => resolve(inputs.map((n) => n * 10)), fail: reject });
      }),
    { maxHoldMs },
  );
  return { batcher, batches };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** An error as PostgreSQL answers it: it carries a severity. */
const refused = (message: string) => Object.assign(new Error(message), { severity: 'ERROR' });

describe('StatementBatcher (group commit)', () => {
  it('sends a call alone as a batch of one, and calls of one turn as one batch', async () => {
    const { batcher, batches } = heldStatement();
    const alone = batcher.call(1);
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1]]);
    batches[0]!.answer();
    expect(await alone).toBe(10);

    const together = [batcher.call(2), batcher.call(3)];
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3]]);
    batches[1]!.answer();
    expect(await Promise.all(together)).toEqual([20, 30]);
  });

  it('holds calls made while a batch is at the database and sends them together once it is back', async () => {
    const { batcher, batches } = heldStatement();
    const first = batcher.call(1);
    await turn();
    const later: Promise<number>[] = [];
    for (const n of [2, 3, 4]) {
      later.push(batcher.call(n));
      await turn();
    }
    // Three turns went by: nothing more was sent while the first batch was out.
    expect(batches.map((b) => b.inputs)).toEqual([[1]]);
    batches[0]!.answer();
    expect(await first).toBe(10);
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3, 4]]);
    batches[1]!.answer();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('stops holding calls behind a batch that hangs at the database', async () => {
    const { batcher, batches } = heldStatement(30);
    const stuck = batcher.call(1);
    await turn();
    const next = batcher.call(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2]]);
    batches[1]!.answer();
    expect(await next).toBe(20);
    // The stuck batch still answers its own callers when it returns.
    batches[0]!.answer();
    expect(await stuck).toBe(10);
  });

  it('reruns a refused batch one input at a time, so only the bad input fails', async () => {
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      if (inputs.includes(13)) throw refused('bad input');
      return inputs.map((n) => n * 10);
    });
    const answers = await Promise.allSettled([batcher.call(1), batcher.call(13), batcher.call(2)]);
    expect(answers).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: expect.objectContaining({ message: 'bad input' }) },
      { status: 'fulfilled', value: 20 },
    ]);
  });

  it('fails every call of a batch whose outcome is unknown, and keeps serving the calls after it', async () => {
    const { batcher, batches } = heldStatement();
    const lost = [batcher.call(1), batcher.call(2)];
    await turn();
    const next = batcher.call(3);
    batches[0]!.fail(new Error('connection terminated'));
    const settled = await Promise.allSettled(lost);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2], [3]]);
    batches[1]!.answer();
    expect(await next).toBe(30);
  });
});
