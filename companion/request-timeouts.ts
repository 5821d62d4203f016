import type { ServerOptions } from 'node:http';

/**
 * How long a request may take to *arrive* (issue 9, finding 10: a body that never finished held its connection for
 * minutes — node's own default is 5 minutes, checked every 30 s). Only the arrival is timed: node's requestTimeout
 * ends when the last byte of the request is in, so a long-polled `POST /v1/run` answer (up to the approval wait),
 * an `/mcp` call waiting on an approval, and an upgraded `/ws` socket are not cut (tests/companion/server/
 * stalled-requests.test.ts holds all three past the timeout). The server itself is made in cli.ts.
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

/** The node http server options for these timeouts (defaults for what is not given). */
export function requestTimeoutOptions(timeouts: Partial<RequestTimeouts> = {}): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  const t = { ...DEFAULT_REQUEST_TIMEOUTS, ...timeouts };
  return { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: t.checkEveryMs };
}
