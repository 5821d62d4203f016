import type { Context, MiddlewareHandler } from 'hono';
import { upgradeWebSocket } from '@hono/node-server';
import { WebSocketServer, type WebSocket as RawWebSocket } from 'ws';
import { WS_CLOSE, wsClientMessageSchema, type WsServerMessage } from '../../shared/api';
import { hashToken, type TokenStore } from '../auth/token-store';
import { createClientQueue, type ClientQueue } from './client-queue';
import type { EventHub } from './event-hub';

export const WS_AUTH_TIMEOUT_MS = 5_000;
/** protocol-level pings (browsers answer them by themselves); a peer that misses one is dropped */
export const WS_HEARTBEAT_MS = 30_000;
/** clients only send auth, ping and pong: a small frame limit keeps an unauthenticated peer from sending 100 MB */
export const WS_MAX_PAYLOAD = 64 * 1024;

/** The ws server to hand to `serve({ websocket: { server } })`; upgrades go through the app's guards first. */
export function createWebSocketServer(): WebSocketServer {
  return new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
}
const BEARER_PROTOCOL = /^bearer\.(.+)$/;

/**
 * `/ws` (DESIGN §5.2): the socket is useless until authenticated — by the subprotocol `bearer.<token>` at the
 * handshake, or by a first message `{type:'auth', token}` within 5 s. Anything else closes it with a reason.
 * After that it receives every event and answers `ping` with `pong` (the extension's service worker pings every
 * 20 s to stay alive). Everything it is sent goes through a bounded queue (client-queue.ts): a client that stops
 * reading misses program output, is told so, and is disconnected when it falls far behind.
 */
export function wsRoute(deps: {
  tokens: TokenStore;
  hub: EventHub;
  version: string;
  authTimeoutMs?: number;
  heartbeatMs?: number;
  /** client-queue.ts limits */
  queue?: { outputBytes?: number; maxBytes?: number };
  /** the socket authenticated (by its subprotocol or its first message) with the token of hash `token`: its connection is the person's own */
  onAuthenticated?: (c: Context, token: Buffer) => void;
}): MiddlewareHandler {
  return upgradeWebSocket((c) => {
    const offered = (c.req.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
    const viaProtocol = offered
      .map((p) => BEARER_PROTOCOL.exec(p)?.[1])
      .find((token): token is string => token !== undefined && deps.tokens.verify(token));
    let authed = false;
    let unsubscribe: (() => void) | undefined;
    let unwatchRevoke: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let authenticate = (_token: string) => {};
    let queue: ClientQueue | undefined;
    const stop = () => {
      clearTimeout(timer);
      clearInterval(heartbeat);
      unsubscribe?.();
      unwatchRevoke?.();
      queue?.close();
    };
    return {
      onOpen(_event, ws) {
        const raw = ws.raw as RawWebSocket | undefined;
        const client = createClientQueue(
          {
            get bufferedAmount() {
              return raw?.bufferedAmount ?? 0;
            },
            send: (text) => {
              if (ws.readyState === 1) ws.send(text);
            },
            terminate: () => {
              // forgotten now, not when the close event comes round
              stop();
              if (raw) raw.terminate();
              else ws.close();
            },
          },
          deps.queue,
        );
        queue = client;
        const send = (message: WsServerMessage) => client.send(message);
        authenticate = (token: string) => {
          authed = true;
          clearTimeout(timer);
          // an unpaired extension's socket hears nothing more: the token it opened with is refused from now on
          const own = hashToken(token);
          deps.onAuthenticated?.(c, own);
          unwatchRevoke = deps.tokens.onRevoke((hash) => {
            if (!hash.equals(own)) return;
            authed = false;
            stop();
            ws.close(WS_CLOSE.unauthorized, 'token revoked');
          });
          send({ type: 'auth-ok', version: deps.version });
          unsubscribe = deps.hub.subscribe(send, client.stats);
        };
        if (raw) {
          // a sleeping laptop or a killed browser never sends a close; without this its subscription lives on
          let alive = true;
          raw.on('pong', () => (alive = true));
          heartbeat = setInterval(() => {
            if (!alive) {
              raw.terminate();
              return;
            }
            alive = false;
            raw.ping();
          }, deps.heartbeatMs ?? WS_HEARTBEAT_MS);
          heartbeat.unref?.();
        }
        if (viaProtocol !== undefined) authenticate(viaProtocol);
        else {
          timer = setTimeout(() => ws.close(WS_CLOSE.authTimeout, 'no auth message within 5 s'), deps.authTimeoutMs ?? WS_AUTH_TIMEOUT_MS);
        }
      },
      onMessage(event, ws) {
        let message;
        try {
          const parsed = wsClientMessageSchema.safeParse(JSON.parse(String(event.data)));
          message = parsed.success ? parsed.data : undefined;
        } catch {
          message = undefined;
        }
        if (!authed) {
          if (message?.type === 'auth' && deps.tokens.verify(message.token)) {
            authenticate(message.token);
          } else {
            ws.close(WS_CLOSE.unauthorized, message?.type === 'auth' ? 'invalid token' : 'the first message must be {type:"auth", token}');
          }
          return;
        }
        // replies go through the queue too: a client that sends pings and never reads the pongs is still bounded
        if (!message) {
          queue?.send({ type: 'error', message: 'unknown message; expected ping or pong' });
          return;
        }
        if (message.type === 'ping') queue?.send({ type: 'pong', ...(message.t !== undefined ? { t: message.t } : {}) });
      },
      onClose: stop,
      onError: stop,
    };
  });
}
