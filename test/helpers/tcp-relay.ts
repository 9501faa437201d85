import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface Relay {
  port: number;
  /** Cuts every connection and stops listening: the service is gone (connections refused). */
  stop(): Promise<void>;
  /**
   * Arms a cut in the middle of a conversation: the first chunk a client sends that contains
   * `marker` (e.g. a SQL statement's text) is dropped, and the relay stops as with stop(). What
   * the client sent before it has reached the server; a transaction it was part of never commits.
   * Resolves once the cut happened.
   */
  cutOn(marker: string): Promise<void>;
  /**
   * Stalls every connection, open and new, without closing any: nothing is relayed either way
   * (TCP holds it back), as on a network path that stopped delivering. thaw() relays it all, in order.
   */
  freeze(): void;
  thaw(): void;
}

/**
 * A TCP relay to Redis or PostgreSQL that a test can cut and restore (start a new relay on the
 * same port), standing in for an outage or a restart of the service.
 */
export async function startRelay(target: URL, port = 0): Promise<Relay> {
  const sockets = new Set<Socket>();
  let armed: { marker: string; done: () => void } | undefined;
  let frozen = false;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }));
  const defaultPort = target.protocol.startsWith('postgres') ? 5432 : 6379;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || defaultPort), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(armed.marker)) {
        const { done } = armed;
        armed = undefined;
        void stop().then(done);
        return;
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => !frozen && client.resume());
    client.on('end', () => upstream.end());
    upstream.pipe(client);
    // After pipe(), which sets the upstream flowing.
    if (frozen) for (const socket of [client, upstream]) socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop,
    cutOn: (marker) => new Promise<void>((done) => (armed = { marker, done })),
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
  };
}
