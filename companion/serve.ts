import { serve, type ServerType } from '@hono/node-server';
import type { WebSocketServer } from 'ws';

export interface ServeOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  /** 0 picks a free port */
  port: number;
  /** the ws server `/ws` upgrades go to (createWebSocketServer) */
  wss: WebSocketServer;
}

/**
 * The companion's one listening socket: HTTP, `/ws` and `/mcp` on 127.0.0.1. Resolves with the server once it
 * listens; a listen error (EADDRINUSE) rejects.
 */
export function serveCompanion(options: ServeOptions): Promise<ServerType> {
  return new Promise<ServerType>((resolvePromise, reject) => {
    const server = serve(
      { fetch: options.fetch, port: options.port, hostname: '127.0.0.1', websocket: { server: options.wss } },
      () => resolvePromise(server),
    );
    server.once('error', reject);
  });
}
