import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNyckel } from './nyckel-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Whether a new TCP connection to the port is refused (nothing listens any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown of a real Nyckel process', () => {
  it('on SIGTERM refuses new connections, finishes the request in flight with Connection: close and exits 0 once it is out', async () => {
    // Embedded database: this test is about the process, not about shared services.
    const { child, port, exited } = await startNyckel({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });

    // A request whose body is still arriving when the signal comes: in flight for as long as the
    // test holds back its last bytes.
    const body = JSON.stringify({ email: 'nobody@example.com' });
    const inFlight = connect(port, '127.0.0.1');
    await new Promise((resolve) => inFlight.once('connect', resolve));
    let answer = '';
    inFlight.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const answered = new Promise((resolve) => inFlight.on('end', resolve));
    inFlight.write(
      `POST /auth/reset/request HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nOrigin: http://127.0.0.1:${port}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalled = Date.now();
    child.kill('SIGTERM');
    // Draining: the listener is closed at once, so new connections are refused...
    let closed = false;
    for (let i = 0; i < 40 && !closed; i += 1) {
      closed = await refused(port);
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(closed).toBe(true);
    // ...while the request in flight is still served.
    expect(child.exitCode).toBeNull();
    inFlight.write(body.slice(5));
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('{"status":"sent"}');
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);

    const answeredAt = Date.now();
    const code = await exited;
    expect(code).toBe(0);
    // The connection ended with its answer: the process does not wait out its 8 s grace for it.
    expect(Date.now() - answeredAt).toBeLessThan(5000);
    expect(Date.now() - signalled).toBeLessThan(10_000);
  }, 90_000);
});
