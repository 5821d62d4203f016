import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectionLimit } from '../../../companion/connection-limit';
import { listen, makeWorld, removeWorld, type World } from './harness';

/**
 * Attack: a token that leaked, revoked by the person (Forget token, POST /v1/unpair). Its holder had opened kept-alive
 * connections with it while it worked, and the connection cap (connection-limit.ts) trusts a connection that once
 * carried a valid token for good: those connections stayed out of the count after the revocation, each a file
 * descriptor the cap could never close, kept alive by a refused request now and then. A revoked token's connections
 * are counted again, as the oldest: past the cap they are the first closed. Real sockets on a real server.
 */
const CAP = 2;
const WITHIN_MS = 15_000;

let world: World;
let served: Awaited<ReturnType<typeof listen>>;
let port: number;
const limit = createConnectionLimit({ max: CAP, graceMs: 0, log: () => {} });

beforeAll(async () => {
  world = makeWorld({ connections: limit });
  served = await listen(world, { connections: limit });
  port = served.port;
});

afterAll(async () => {
  await served.close();
  await world.close();
  removeWorld(world);
});

/** A request on `agent`'s one kept-alive socket: its status, body and that socket. */
function onSocket(agent: Agent, method: string, path: string, token: string): Promise<{ status: number; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket as Socket }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('attack: connections opened with a token that is then revoked', () => {
  it('are counted by the connection cap again once it is revoked, and are the first it closes', async () => {
    const token = world.companion.tokens.issue('extension');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await onSocket(agent, 'GET', '/v1/approvals', token);
    expect(first.status).toBe(200);
    expect(limit.untrusted()).toBe(0);
    const closed = new Promise<void>((resolve) => first.socket.once('close', () => resolve()));

    // the unpair is answered on the socket it came on; from then on that socket is a stranger's
    const unpair = await onSocket(agent, 'POST', '/v1/unpair', token);
    expect(unpair.socket).toBe(first.socket);
    expect(JSON.parse(unpair.body)).toEqual({ revoked: true });
    expect(limit.untrusted()).toBe(1);
    const refused = await onSocket(agent, 'GET', '/v1/approvals', token);
    expect(refused.status).toBe(401);
    expect(refused.socket).toBe(first.socket);

    // a flood past the cap closes the revoked token's connection first
    const flood = Array.from({ length: CAP }, () => connect(port, '127.0.0.1').on('error', () => {}));
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the revoked token\'s connection was never closed')), WITHIN_MS)))]).finally(() =>
        clearTimeout(timer),
      );
      expect(flood.every((socket) => !socket.destroyed)).toBe(true);
    } finally {
      for (const socket of flood) socket.destroy();
      agent.destroy();
    }
  });
});
