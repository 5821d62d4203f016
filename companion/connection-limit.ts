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
/** how long a connection may have been open without showing a token before the cap may close it */
export const SILENT_GRACE_MS = 1_000;
/** a burst is told in the log once, and then at most once a minute with what it closed since */
const LOG_EVERY_MS = 60_000;

export interface ConnectionLimit {
  /** counts `server`'s connections from now on, closing the oldest untrusted one past the limit */
  watch(server: Server): void;
  /**
   * `socket` showed a valid token (`token`: its hash, hashToken) — it authenticated its `/ws` (which sends no request
   * once upgraded), or a request on it carried one (the token guard): the paired extension's and the CLI's
   * connections are never counted or closed by the limit, however many others are open, while that token works.
   */
  trust(socket: Socket | undefined, token: Buffer): void;
  /**
   * The token of hash `token` was revoked: the connections it made trusted are counted again, as the oldest, so they
   * are the first closed past the limit. A leaked token's holder kept them out of the count for good before, each a
   * descriptor, alive with a refused request now and then.
   */
  distrust(token: Buffer): void;
  /** how many connections are open that have shown no valid token */
  untrusted(): number;
}

export interface ConnectionLimitOptions {
  max?: number;
  graceMs?: number;
  /** the companion's log (its stderr) */
  log?: (line: string) => void;
  clock?: () => number;
}

/**
 * A cap on the connections not yet authenticated (DESIGN §5.2: no unauthenticated endpoint does anything, and none may
 * hold the companion's descriptors either). Counted are the connections that have shown no valid token (a request
 * that carried one, an authenticated `/ws`, makes its connection trusted); a request without one — a status or
 * pairing call, anything refused — does not: a program keeping thousands of connections alive with a status call
 * on each every few seconds is a flood like any other. Past the cap the
 * *oldest* such connection is closed, not the new one: refusing new connections would let a program holding 64 idle
 * ones lock the person's browser out for good. Only a connection open for `graceMs` is closed: a client opening many
 * connections at once (the CLI's or a plan's concurrent calls, 200 in the load tests) has all of them accepted before
 * any request on them is read, and none of those may be taken for the flood. Status and pairing, which need no token,
 * are answered as before to whoever asks.
 */
export function createConnectionLimit(options: ConnectionLimitOptions = {}): ConnectionLimit {
  const max = options.max ?? MAX_UNTRUSTED_CONNECTIONS;
  const graceMs = options.graceMs ?? SILENT_GRACE_MS;
  const log = options.log ?? ((line: string) => console.error(line));
  const clock = options.clock ?? Date.now;
  // the connections without a token and when each came; insertion order is age: the first is the oldest
  const silent = new Map<Socket, number>();
  // the connections a valid token made trusted, and that token's hash (hex)
  const trustedBy = new Map<Socket, string>();
  let closedSinceLog = 0;
  let loggedAt: number | undefined;
  let recheck: NodeJS.Timeout | undefined;
  let queued = false;

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

  /**
   * Closes the oldest silent connections past the cap, those silent for the grace, and looks again when the next one
   * will have been. Run after the event loop's poll phase (setImmediate), never from a connection's own event: a busy
   * companion reads a socket's request only in the next poll, so a connection that waited for the loop is not silent.
   */
  const closeOldest = (): void => {
    queued = false;
    while (silent.size > max) {
      const [oldest, since] = silent.entries().next().value as [Socket, number];
      const wait = since + graceMs - clock();
      if (wait > 0) {
        recheck ??= setTimeout(() => {
          recheck = undefined;
          enforce();
        }, wait).unref();
        return;
      }
      silent.delete(oldest);
      oldest.destroy();
      closedSinceLog++;
      tell();
    }
  };
  const enforce = (): void => {
    if (queued || silent.size <= max) return;
    queued = true;
    setImmediate(closeOldest).unref();
  };

  return {
    watch(server) {
      server.on('connection', (socket: Socket) => {
        silent.set(socket, clock());
        socket.once('close', () => silent.delete(socket));
        enforce();
      });
      // No 'request' listener: a request is no token. One that carried a valid token has made its connection trusted
      // as it came in (the token guard); any other — a status or pairing call, one refused for its token — leaves the
      // connection counted as it was, and does not make it new again either: a program that sent GET /v1/status on each
      // of its thousands of connections every few seconds kept them all, none counted.
    },
    trust(socket, token) {
      if (!socket) return;
      silent.delete(socket);
      // counted again once its token is revoked (distrust), so forgotten from both when it closes
      if (!trustedBy.has(socket)) {
        socket.once('close', () => {
          trustedBy.delete(socket);
          silent.delete(socket);
        });
      }
      trustedBy.set(socket, token.toString('hex'));
    },
    distrust(token) {
      const hex = token.toString('hex');
      const counted: Socket[] = [];
      for (const [socket, by] of trustedBy) if (by === hex) counted.push(socket);
      if (counted.length === 0) return;
      // first in the map is the oldest: these go before every silent one, and the grace is over for them
      const others = [...silent];
      silent.clear();
      const since = clock() - graceMs;
      for (const socket of counted) {
        trustedBy.delete(socket);
        if (!socket.destroyed) silent.set(socket, since);
      }
      for (const [socket, at] of others) silent.set(socket, at);
      enforce();
    },
    untrusted: () => silent.size,
  };
}

/** The socket a request came on: Hono's Node adapter gives the request as `env.incoming` (undefined under `app.request`). */
export function socketOf(env: unknown): Socket | undefined {
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
}
