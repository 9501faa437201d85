import { Agent, request } from 'node:http';

/** One request exactly as the fuzzer wants it on the wire (latin1 characters in `path` go out as raw bytes). */
export interface RawRequest {
  method: string;
  /** Path and query, already encoded; characters U+0080–U+00FF are sent as single (invalid UTF-8) bytes. */
  path: string;
  /** An array value sends the header several times. */
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

/**
 * Keep-alive sockets, at most `sockets` of them; with as many requests in flight as sockets, none
 * sits idle long enough to race the server's keep-alive timeout.
 * node:http rather than fetch: fetch normalises URLs and headers, so it cannot send bad UTF-8 or
 * duplicated headers. Rejects when no complete answer arrives within `timeoutMs`.
 */
export function createRawClient(base: string, timeoutMs: number, sockets: number) {
  const { hostname, port } = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const previous = new WeakMap<object, string>();
  return {
    send(raw: RawRequest): Promise<RawResponse> {
      const started = performance.now();
      return new Promise<RawResponse>((resolve, reject) => {
        // node:http sends a GET/DELETE/OPTIONS body without Content-Length: the server would read it as the next request.
        const headers = raw.body ? { ...raw.headers, 'content-length': String(raw.body.length) } : raw.headers;
        const req = request({ agent, hostname, port, method: raw.method, path: raw.path, headers, timeout: timeoutMs }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
          res.on('error', reject);
        });
        const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        req.on('close', () => clearTimeout(timer));
        req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        let before = '';
        req.on('socket', (socket) => {
          before = previous.get(socket) ?? '';
          previous.set(socket, `${raw.method} ${raw.path.slice(0, 200)} ${JSON.stringify(raw.headers).slice(0, 300)} body ${raw.body?.length ?? 0}`);
        });
        req.on('error', (error: Error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket, before })));
        req.end(raw.body);
      });
    },
    close: () => agent.destroy(),
  };
}
