/**
 * What the tokens bench's parent (bench/tokens.bench.ts, the HTTP client) and its two server
 * processes (bench/tokens-nyckel-server.ts, bench/tokens-bare-server.ts) share: the relying
 * party, the PKCE pair, the IPC messages, and minting codes the way oidc-provider's authorization
 * endpoint leaves them, inside the server process, outside the timed window.
 */
import { createHash } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type Provider from 'oidc-provider';
import { freePort } from '../test/helpers/free-port.ts';

export const clientId = 'bench-rp';
export const clientSecret = 'bench-rp-secret-0123456789';
export const redirectUri = 'http://127.0.0.1:9/callback';
export const scope = 'openid offline_access';
/** A fixed PKCE verifier: the parent sends it, the servers bind codes to its challenge. */
export const verifier = 'bench-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
export const challenge = createHash('sha256').update(verifier).digest('base64url');

/** Parent → server. */
export type Request = { id: number; op: 'mint'; count: number } | { id: number; op: 'usage' } | { id: number; op: 'stop' };

/** What a server reports about itself: CPU of its own process, and Nyckel's I/O counters. */
export interface Usage {
  /** process.cpuUsage() user + system, microseconds. */
  cpuMicros: number;
  dbQueries: number;
  storeCalls: number;
  /** process.memoryUsage() of the server, bytes. */
  memory: NodeJS.MemoryUsage;
}

/** Server → parent. */
export type Reply =
  | { op: 'ready'; tokenUrl: string; description: string }
  | { id: number; op: 'codes'; codes: string[] }
  | { id: number; op: 'usage'; usage: Usage }
  | { op: 'failed'; error: string };

export { freePort };

/** An HTTP server with src/main.ts's timeouts, so both sides run the same Node HTTP stack. */
export async function listen(handler: RequestListener, port: number): Promise<Server> {
  const server = createServer(handler);
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** `count` codes as the interaction would leave them: a grant for the scope and a code bound to PKCE. */
export async function mintCodes(provider: Provider, accounts: string[], count: number, offset: number): Promise<string[]> {
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error(`client ${clientId} not found`);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const accountId = accounts[(offset + i) % accounts.length]!;
      const grant = new provider.Grant({ accountId, clientId });
      grant.addOIDCScope(scope);
      const grantId = await grant.save();
      // As oidc-provider's authorization endpoint builds it. (@types/oidc-provider marks `gty`
      // required here; the library sets none on codes.)
      const code = new provider.AuthorizationCode({
        client,
        accountId,
        grantId,
        redirectUri,
        scope,
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
        authTime: Math.floor(Date.now() / 1000),
        acr: 'urn:nyckel:loa:1',
        amr: ['pwd'],
      } as ConstructorParameters<Provider['AuthorizationCode']>[0]);
      return code.save();
    }),
  );
}

/**
 * The server side of the IPC protocol. `stop` closes the server and whatever `cleanup` owns
 * (bench database, store keys), then exits.
 */
export function serve(options: {
  tokenUrl: string;
  description: string;
  mint: (count: number) => Promise<string[]>;
  io: () => { dbQueries: number; storeCalls: number };
  cleanup: () => Promise<void>;
}): void {
  const send = (reply: Reply) => process.send!(reply);
  let stopping: Promise<void> | undefined;
  const cleanup = () => (stopping ??= options.cleanup());
  process.on('message', (message: Request) => {
    void (async () => {
      try {
        if (message.op === 'mint') send({ id: message.id, op: 'codes', codes: await options.mint(message.count) });
        else if (message.op === 'usage') {
          const cpu = process.cpuUsage();
          send({ id: message.id, op: 'usage', usage: { cpuMicros: cpu.user + cpu.system, ...options.io(), memory: process.memoryUsage() } });
        } else if (message.op === 'stop') {
          await cleanup();
          // The parent waits for the exit. --cpu-prof writes its profile on a normal exit.
          process.exit(0);
        }
      } catch (error) {
        send({ op: 'failed', error: (error as Error).stack ?? String(error) });
      }
    })();
  });
  // A parent that died leaves no server behind (nor its bench database and keys).
  process.on('disconnect', () => {
    void cleanup().finally(() => process.exit(1));
  });
  send({ op: 'ready', tokenUrl: options.tokenUrl, description: options.description });
}

/** A server process that fails before `serve` tells the parent why. */
export function reportStartupFailure(error: unknown): never {
  process.send?.({ op: 'failed', error: (error as Error).stack ?? String(error) } satisfies Reply);
  process.exit(1);
}
