import type { Context, MiddlewareHandler } from 'hono';
import { hashToken, type TokenStore } from './token-store';

/**
 * The guards in front of every route (DESIGN §5.2, §7). Any web page can make the browser send requests to
 * 127.0.0.1, so: the Host must name loopback with our port (DNS rebinding gives a foreign Host), a web Origin is
 * refused before anything runs and never gets CORS headers, and everything but the status and pairing routes
 * needs the bearer token.
 */

const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension|safari-web-extension):\/\/[A-Za-z0-9._-]+$/;

export function isExtensionOrigin(origin: string): boolean {
  return EXTENSION_ORIGIN.test(origin);
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

function refuse(status: 401 | 403, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** `getPort` because the real port is only known after listen (`--port 0`). */
export function hostGuard(getPort: () => number): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    if (!allowedHosts(getPort()).includes(host)) {
      return refuse(403, 'FORBIDDEN', `Host "${host}" is not this companion (expected 127.0.0.1:${getPort()}, localhost:${getPort()} or [::1]:${getPort()})`);
    }
    await next();
  };
}

/** Refuses web origins; answers CORS (and preflights) for extension origins only. */
export function originGuard(): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined) {
      await next();
      return;
    }
    if (!isExtensionOrigin(origin)) {
      return refuse(403, 'FORBIDDEN', `Origin "${origin}" is a web origin; only the chatbridge extension may call the companion`);
    }
    const cors = {
      'access-control-allow-origin': origin,
      'access-control-allow-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id',
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-expose-headers': 'mcp-session-id',
      'access-control-max-age': '600',
      vary: 'Origin',
    };
    if (c.req.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });
    await next();
    for (const [key, value] of Object.entries(cors)) c.res.headers.set(key, value);
  };
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Calls `listener` once the token of `authorization` is revoked (POST /v1/unpair); returns the unsubscribe. A request
 * let in with the token may wait a long time for its answer (a run waits for the person's approval, an /mcp call for
 * its program): an unpaired extension, or a token the person revoked because it leaked, is given nothing more.
 */
export function onRevokeOf(tokens: Pick<TokenStore, 'onRevoke'>, authorization: string | undefined, listener: () => void): () => void {
  const token = bearerToken(authorization);
  return token === undefined ? () => undefined : onRevokeOfHash(tokens, hashToken(token), listener);
}

/** onRevokeOf for a token already hashed (hashToken). */
function onRevokeOfHash(tokens: Pick<TokenStore, 'onRevoke'>, own: Buffer, listener: () => void): () => void {
  return tokens.onRevoke((hash) => {
    if (hash.equals(own)) listener();
  });
}

/**
 * Every route not listed in `open` needs `Authorization: Bearer <token>`, for as long as it is answered: a token
 * revoked while its request waits gets 401 then, not the answer (the run it started goes on; its result is not
 * this token's). The unpair that revokes it is answered as usual.
 */
export function tokenGuard(tokens: TokenStore, open: (method: string, path: string) => boolean, onValid?: (c: Context, token: Buffer) => void): MiddlewareHandler {
  return async (c, next) => {
    if (open(c.req.method, c.req.path)) {
      await next();
      return;
    }
    const header = c.req.header('authorization');
    if (header === undefined) return refuse(401, 'UNAUTHORIZED', 'missing Authorization: Bearer <token>; pair the extension first');
    const token = bearerToken(header);
    // hashed once per request: checked, then watched for its revocation for as long as the request waits
    const presented = token === undefined ? undefined : hashToken(token);
    if (!tokens.verify(token, presented) || presented === undefined) return refuse(401, 'UNAUTHORIZED', 'the bearer token is not valid for this companion');
    // its connection is the person's own from now on (connection-limit.ts): never counted among the flood's
    onValid?.(c, presented);
    if (c.req.method === 'POST' && c.req.path === '/v1/unpair') {
      await next();
      return;
    }
    let revoked!: () => void;
    const revocation = new Promise<'revoked'>((resolve) => (revoked = () => resolve('revoked')));
    const stopWatching = onRevokeOfHash(tokens, presented, revoked);
    try {
      const answered = next();
      if ((await Promise.race([answered, revocation])) === 'revoked') {
        answered.catch(() => undefined);
        return refuse(401, 'UNAUTHORIZED', 'the bearer token was revoked (unpaired) while this request waited; its answer is not given to it');
      }
    } finally {
      stopWatching();
    }
  };
}
