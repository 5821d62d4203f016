import { Agent, request } from 'node:http';

/**
 * A minimal JSON-over-HTTP client on node:http with keep-alive sockets, so the benchmark measures the companion
 * and not the cost of a fetch implementation or of a new TCP connection per call.
 */
export interface HttpJsonClient {
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: unknown }>;
  get(path: string): Promise<{ status: number; json: unknown }>;
  close(): void;
}

export function createHttpJsonClient(port: number, token: string, sockets = 1): HttpJsonClient {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const send = (method: 'GET' | 'POST', path: string, body?: unknown, extra: Record<string, string> = {}) =>
    new Promise<{ status: number; json: unknown }>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
            ...extra,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown });
            } catch {
              reject(new Error(`${method} ${path} answered ${res.statusCode} with non-JSON: ${text.slice(0, 200)}`));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    post: (path, body, headers) => send('POST', path, body, headers),
    get: (path) => send('GET', path),
    close: () => agent.destroy(),
  };
}
