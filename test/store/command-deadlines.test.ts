import { Command, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CommandDeadlines } from '../../src/store/command-deadlines.ts';

/**
 * A command issued while the client is not ready waits in ioredis's offline queue, where no answer
 * can be the oldest: it gets a deadline of its own. (No Redis needed: the client never connects.)
 */
describe('CommandDeadlines before the client is ready', () => {
  it('fails a command that waits past its deadline with "Command timed out"', async () => {
    const client = new Redis({ lazyConnect: true });
    const deadlines = new CommandDeadlines(client, 50);
    try {
      expect(client.status).toBe('wait');
      const command = new Command('get', ['k']);
      const started = performance.now();
      deadlines.watch(command);
      await expect(command.promise).rejects.toThrow('Command timed out');
      expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    } finally {
      deadlines.stop();
      client.disconnect();
    }
  });
});
