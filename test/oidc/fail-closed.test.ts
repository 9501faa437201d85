import { describe, expect, it } from 'vitest';
import { errors } from 'oidc-provider';
import { failClosed, failClosedFindAccount } from '../../src/oidc/fail-closed.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';

class Target {
  calls = 0;
  readonly label = 'target';
  async find(id: string) {
    this.calls += 1;
    if (id === 'down') throw new StoreUnavailableError('Redis is unavailable');
    if (id === 'bug') throw new TypeError('a bug, not an outage');
    return { id, label: this.label };
  }
  check(id: string) {
    if (id === 'down') throw new StoreUnavailableError('Redis is unavailable');
    return id.length;
  }
}

describe('failClosed', () => {
  it('calls the method on the target itself and answers what it answers', async () => {
    const target = new Target();
    const wrapped = failClosed(target);
    await expect(wrapped.find('a')).resolves.toEqual({ id: 'a', label: 'target' });
    expect(wrapped.check('abc')).toBe(3);
    expect(wrapped.label).toBe('target');
    expect(target.calls).toBe(1);
  });

  it('turns an outage into temporarily_unavailable (503), thrown or rejected, and lets other errors through unchanged', async () => {
    const wrapped = failClosed(new Target());
    const rejected = await wrapped.find('down').catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(errors.TemporarilyUnavailable);
    expect(rejected).toMatchObject({ status: 503, statusCode: 503, expose: true, error: 'temporarily_unavailable' });
    expect(() => wrapped.check('down')).toThrow(errors.TemporarilyUnavailable);
    await expect(wrapped.find('bug')).rejects.toThrow(TypeError);
  });

  it('hands out one wrapper per method, not a new function on every lookup', () => {
    const wrapped = failClosed(new Target());
    expect(wrapped.find).toBe(wrapped.find);
    expect(wrapped.check).not.toBe(wrapped.find);
  });

  it('wraps a method replaced on the target anew, so the replacement is what runs', async () => {
    const target = new Target();
    const wrapped = failClosed(target);
    const before = wrapped.find;
    target.find = async (id: string) => ({ id, label: 'replaced' });
    expect(wrapped.find).not.toBe(before);
    await expect(wrapped.find('b')).resolves.toEqual({ id: 'b', label: 'replaced' });
  });

  it('fails findAccount and the account it answers closed alike', async () => {
    const down = failClosedFindAccount(async () => {
      throw new StoreUnavailableError('database is unavailable');
    });
    await expect(down()).rejects.toBeInstanceOf(errors.TemporarilyUnavailable);
    const find = failClosedFindAccount(async () => ({
      accountId: 'a',
      async claims() {
        throw new StoreUnavailableError('database is unavailable');
      },
    }));
    const account = await find();
    await expect(account.claims()).rejects.toBeInstanceOf(errors.TemporarilyUnavailable);
  });
});
