import { createServer, type Server } from 'node:http';
import { createApp, type App } from '../../src/app.ts';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { createTestContext, type TestContext, type TestContextOptions } from './context.ts';
import { freePort } from './free-port.ts';

export interface TestServer {
  ctx: TestContext;
  app: App;
  /** http://127.0.0.1:<port> */
  base: string;
  issuer: string;
  close(): Promise<void>;
}

export { freePort };

/**
 * The real app on a real port, with ISSUER pointing at it: for journeys where a client library
 * (openid-client) talks to Nyckel over HTTP.
 */
export async function startTestServer(options: TestContextOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ ...options, env: { ISSUER: `${base}/oauth2`, ...options.env } });
  const app = await createApp(ctx);
  const server: Server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    ctx,
    app,
    base,
    issuer: `${base}/oauth2`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      // As the server does at shutdown (src/main.ts): notices under way go out first.
      await settleSecurityNotices();
      await ctx.dispose();
    },
  };
}
