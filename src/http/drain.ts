import type { Server, ServerResponse } from 'node:http';

/**
 * Lets a server drain at shutdown: from drain() on, each answer under way and any request a
 * keep-alive connection still brings goes out with `Connection: close`, so each connection ends
 * with its last answer and the process exits as soon as that is out. Without it a connection
 * busy when the signal came (a proxy's pooled connection, say) stays open for further requests
 * until the grace period's end cuts it, with whatever is then in flight: a refresh grant already
 * stored, whose client then retries with the used token and has its grant revoked as a replay.
 */
export function drainable(server: Server): { drain(): void } {
  let draining = false;
  const underWay = new Set<ServerResponse>();
  // Before the app's listener, so the header is set before any answer can start.
  server.prependListener('request', (_req, res) => {
    if (draining) {
      res.setHeader('Connection', 'close');
      return;
    }
    underWay.add(res);
    res.once('close', () => underWay.delete(res));
  });
  return {
    drain() {
      draining = true;
      for (const res of underWay) {
        // An answer whose headers are out already closes its connection once it is idle.
        if (res.headersSent) res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
        else res.setHeader('Connection', 'close');
      }
      server.closeIdleConnections();
    },
  };
}
