import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { createApp } from '../../src/app.ts';
import { createTestContext, type TestContext } from './context.ts';
import { startMailServer, type MailServer } from './mail-server.ts';
import type { NyckelProvider } from '../../src/oidc/provider.ts';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';

export interface TestApp {
  ctx: TestContext;
  /** The app's oidc-provider, for tests that mint tokens directly. */
  provider: NyckelProvider;
  mail: MailServer;
  server: Server;
  /** A new browser: a supertest agent with its own cookie jar, sending our Origin by default. */
  agent(): request.Agent;
  close(): Promise<void>;
}

/** The real app over HTTP on a fresh database and store namespace, mailing to a real SMTP server. */
export async function startTestApp(options: { env?: Record<string, string> } = {}): Promise<TestApp> {
  const mail = await startMailServer();
  const ctx = await createTestContext({ smtpUrl: mail.url, ...(options.env ? { env: options.env } : {}) });
  const { app, provider } = await createApp(ctx);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ctx,
    provider,
    mail,
    server,
    agent: () => request.agent(server).set('Origin', ctx.config.publicUrl),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      // As the server does at shutdown (src/main.ts): notices under way go out first.
      await settleSecurityNotices();
      await ctx.dispose();
      await mail.close();
    },
  };
}
