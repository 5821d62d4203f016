import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How many connections that have shown no token may be open at once. Any local program (and any web page, whose
 * requests the guards refuse only once they have arrived) may open connections to 127.0.0.1: with nothing to bound
 * them, 3 000 idle ones were all kept, each a file descriptor, and on macOS's default of 256 descriptors a process
 * could take the companion's last one, so that the person's own browser could not connect. 64 leaves the companion
 * most of those 256 for its files, programs and MCP servers.
 */
export const MAX_UNTRUSTED_CONNECTIONS = 64;
/** a burst is told in the log once, and then at most once a minute with what it closed since */
const LOG_EVERY_MS = 60_000;

export interface ConnectionLimit {
  /** counts `server`'s connections from now on, closing the oldest untrusted one past the limit */
  watch(server: Server): void;
  /**
   * `socket` carried a token this companion knows (a request's `Authorization`, a `/ws` auth): the paired extension's
   * and the CLI's connections are never counted or closed by the limit, however many others are open.
   */
  trust(socket: Socket | undefined): void;
  /** how many connections without a token are open now */
  untrusted(): number;
}

export interface ConnectionLimitOptions {
  max?: number;
  /** the companion's log (its stderr) */
  log?: (line: string) => void;
  clock?: () => number;
}

/**
 * A cap on the connections not yet authenticated (DESIGN §5.2: no unauthenticated endpoint does anything, and none may
 * hold the companion's descriptors either). Past it the *oldest* such connection is closed, not the new one: refusing
 * new connections would let a program holding 64 idle ones lock the person's browser out for good, while closing the
 * oldest keeps a new connection open until 64 newer ones have come (over loopback, time enough to send its request),
 * and a connection whose request carries a valid token is trusted from then on. Status and pairing, which need no token, are answered as before to whoever asks.
 */
export function createConnectionLimit(options: ConnectionLimitOptions = {}): ConnectionLimit {
  const max = options.max ?? MAX_UNTRUSTED_CONNECTIONS;
  const log = options.log ?? ((line: string) => console.error(line));
  const clock = options.clock ?? Date.now;
  // insertion order is age: the first is the oldest
  const open = new Set<Socket>();
  let closedSinceLog = 0;
  let loggedAt: number | undefined;

  const tell = (): void => {
    const now = clock();
    if (loggedAt !== undefined && now - loggedAt < LOG_EVERY_MS) return;
    log(
      loggedAt === undefined
        ? `chatbridge: more than ${max} connections without a token were open at once, so the oldest are being closed: a program on this machine (or a web page) is opening connections to the companion; the paired extension and the CLI are not affected`
        : `chatbridge: ${closedSinceLog} more connections without a token closed since the last note (more than ${max} open at once)`,
    );
    loggedAt = now;
    closedSinceLog = 0;
  };

  return {
    watch(server) {
      server.on('connection', (socket: Socket) => {
        open.add(socket);
        socket.once('close', () => open.delete(socket));
        while (open.size > max) {
          const oldest = open.values().next().value as Socket;
          open.delete(oldest);
          oldest.destroy();
          closedSinceLog++;
          tell();
        }
      });
    },
    trust(socket) {
      if (socket) open.delete(socket);
    },
    untrusted: () => open.size,
  };
}

/** The socket a request came on: Hono's Node adapter gives the request as `env.incoming` (undefined under `app.request`). */
export function socketOf(env: unknown): Socket | undefined {
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
}
