import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A port free on 127.0.0.1 right now (for servers that must know their URL before they listen).
 * A module of its own, so the benchmarks' bare oidc-provider can use it without loading Nyckel.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
