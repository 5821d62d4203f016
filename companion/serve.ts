import { serve, type ServerType } from '@hono/node-server';
import type { WebSocketServer } from 'ws';

/**
 * How long a request may take to *arrive* (issue 9, finding 10: a body that never finished held its connection for
 * minutes — node's own default is 5 minutes, checked every 30 s). Only the arrival is timed: node's requestTimeout
 * ends when the last byte of the request is in, so a long-polled `POST /v1/run` answer (up to the approval wait),
 * an `/mcp` call waiting on an approval, and an upgraded `/ws` socket are not cut (tests/companion/server/
 * stalled-requests.test.ts holds all three past the timeout).
 */
export interface RequestTimeouts {
  /**
   * Connect (or end of the previous keep-alive request) to the last header byte. The extension and the CLI send
   * their headers in one packet over loopback; 30 s is far beyond a busy machine and still cuts a slowloris.
   */
  headersMs: number;
  /**
   * The whole request, headers and body. Bodies are capped (the largest file plus 1 MiB, ~11 MiB by default);
   * over loopback that takes milliseconds, so 60 s leaves a slow but live sender a wide margin. Must be ≥ headersMs.
   */
  requestMs: number;
  /** how often node looks for requests past a timeout: the cut comes at most this late */
  checkEveryMs: number;
}

export const DEFAULT_REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 30_000, requestMs: 60_000, checkEveryMs: 5_000 };

export interface ServeOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  /** 0 picks a free port */
  port: number;
  /** the ws server `/ws` upgrades go to (createWebSocketServer) */
  wss: WebSocketServer;
  timeouts?: Partial<RequestTimeouts>;
}

/**
 * The companion's one listening socket: HTTP, `/ws` and `/mcp` on 127.0.0.1. Resolves with the server once it
 * listens; a listen error (EADDRINUSE) rejects.
 */
export function serveCompanion(options: ServeOptions): Promise<ServerType> {
  const timeouts = { ...DEFAULT_REQUEST_TIMEOUTS, ...options.timeouts };
  return new Promise<ServerType>((resolvePromise, reject) => {
    const server = serve(
      {
        fetch: options.fetch,
        port: options.port,
        hostname: '127.0.0.1',
        websocket: { server: options.wss },
        serverOptions: {
          headersTimeout: timeouts.headersMs,
          requestTimeout: timeouts.requestMs,
          connectionsCheckingInterval: timeouts.checkEveryMs,
        },
      },
      () => resolvePromise(server),
    );
    server.once('error', reject);
  });
}
