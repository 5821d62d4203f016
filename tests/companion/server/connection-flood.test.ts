import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createConnectionLimit } from '../../../companion/connection-limit';
import { listen, makeWorld, removeWorld, type World } from './harness';

/**
 * A local program (or a web page) opening connections without a token: 3 000 idle ones were all kept, each a file
 * descriptor, so on macOS's default of 256 a process could take the companion's last one and lock the person's own
 * browser out. The connections that showed no token and sent no request are now capped (8 here, 64 by default), the
 * oldest closed past it once silent for a second, and those of the paired extension and the CLI are never counted: real
 * sockets on a real server.
 */
const CAP = 8;
const FLOOD = 40;
/** how long a test waits for what must happen (many times what it takes) */
const WITHIN_MS = 15_000;

let world: World;
let served: Awaited<ReturnType<typeof listen>>;
let port: number;
const logged: string[] = [];
const limit = createConnectionLimit({ max: CAP, log: (line) => logged.push(line) });

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

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${WITHIN_MS} ms: ${what}`)), WITHIN_MS))),
  ]).finally(() => clearTimeout(timer));
}

/** An authenticated GET on `agent`'s one kept-alive socket: its status and the local port it went out on. */
function authedGet(agent: Agent, path: string): Promise<{ status: number; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${world.token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, localPort: req.socket?.localPort ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A /ws connection that authenticates by its first message, as the extension's does; resolves once auth-ok is heard. */
function extensionSocket(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: world.token })));
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'auth-ok') resolve(ws);
    });
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`the extension's socket was closed (${code})`)));
  });
}

function pong(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'pong') resolve();
    });
    ws.send(JSON.stringify({ type: 'ping' }));
  });
}

describe('connection flood: connections without a token are capped, the paired ones never', () => {
  it('takes many connections opened at once by one client for no flood: each sends its request, none is closed', async () => {
    // The load tests' 200 concurrent calls, the CLI's or a plan's: a busy companion accepts every connection before it
    // reads a request on any of them, so for a moment all of them are open with no token shown. Here each request is
    // written only once all the connections are open.
    const sockets = Array.from({ length: FLOOD }, () => connect(port, '127.0.0.1'));
    try {
      await within(Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve)))), `${FLOOD} connections open`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const answers = sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let heard = '';
            socket.on('data', (chunk: Buffer) => (heard += chunk.toString()));
            socket.on('error', () => {});
            socket.on('close', () => resolve(heard.split('\r\n', 1)[0] ?? ''));
            socket.write(`GET /v1/approvals HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${world.token}\r\nConnection: close\r\n\r\n`);
          }),
      );
      const statusLines = await within(Promise.all(answers), `${FLOOD} answers`);
      expect(statusLines).toEqual(Array.from({ length: FLOOD }, () => 'HTTP/1.1 200 OK'));
      expect(logged).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('closes the oldest idle connections past the cap, says so once, and keeps answering the extension and the CLI', async () => {
    // the person's own connections, opened before the flood: a kept-alive HTTP socket and the extension's /ws
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await authedGet(agent, '/v1/approvals');
    expect(before.status).toBe(200);
    const ws = await within(extensionSocket(), 'the extension authenticated its /ws');

    const flood: Socket[] = [];
    let closedByServer = 0;
    const allClosed = new Promise<void>((resolve) => {
      for (let i = 0; i < FLOOD; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.on('close', () => {
          if (++closedByServer >= FLOOD - CAP) resolve();
        });
        flood.push(socket);
      }
    });
    // the person's socket in use meanwhile, as the extension's is: idle, node's keep-alive timeout (5 s) would close it
    // on a machine slow enough to take that long over the flood, which is not the cap's doing
    const used: Array<Promise<{ status: number; localPort: number }>> = [];
    const inUse = setInterval(() => used.push(authedGet(agent, '/v1/approvals')), 1_000);
    try {
      await within(allClosed, `the server closing ${FLOOD - CAP} of ${FLOOD} idle connections without a token (closed ${closedByServer})`);
      clearInterval(inUse);
      for (const answer of await Promise.all(used)) expect(answer).toEqual({ status: 200, localPort: before.localPort });
      expect(limit.untrusted()).toBeLessThanOrEqual(CAP);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(`more than ${CAP} connections without a token were open at once`);

      // nothing of the person's was closed: the same kept-alive socket answers, and the /ws still hears its pong
      const after = await authedGet(agent, '/v1/approvals');
      expect(after).toEqual({ status: 200, localPort: before.localPort });
      await within(pong(ws), 'a pong on the socket opened before the flood');
      // and new ones get in while the flood's connections are still held: a CLI request, an extension's /ws
      const cli = await fetch(`http://127.0.0.1:${port}/v1/approvals`, { headers: { authorization: `Bearer ${world.token}` } });
      expect(cli.status).toBe(200);
      const second = await within(extensionSocket(), 'a new /ws authenticated during the flood');
      second.close();
      const status = await fetch(`http://127.0.0.1:${port}/v1/status`);
      expect(status.status).toBe(200);
    } finally {
      clearInterval(inUse);
      for (const socket of flood) socket.destroy();
      ws.close();
      agent.destroy();
    }
  });
  it('counts a connection that sends requests without a valid token: one keeping itself alive with status calls, or refused for its token, is closed past the cap', async () => {
    // A request carrying no token left its connection uncounted for good: a program that sent GET /v1/status (or any
    // call with a wrong token) on each of its connections every few seconds kept them all, as many as it liked, past
    // the cap and node's keep-alive timeout alike. Only a valid token makes a connection the person's own.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await authedGet(agent, '/v1/approvals');
    expect(before.status).toBe(200);
    const flood: Socket[] = [];
    let closedByServer = 0;
    const allClosed = new Promise<void>((resolve) => {
      for (let i = 0; i < FLOOD; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.on('data', () => {});
        socket.on('close', () => {
          if (++closedByServer >= FLOOD - CAP) resolve();
        });
        flood.push(socket);
      }
    });
    const request = (i: number) =>
      i % 2 === 0
        ? `GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`
        : `GET /v1/approvals HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer not-the-token-0123456789\r\n\r\n`;
    const keepAlive = () => flood.forEach((socket, i) => socket.writable && socket.write(request(i)));
    keepAlive();
    const polling = setInterval(keepAlive, 300);
    const inUse = setInterval(() => void authedGet(agent, '/v1/approvals').catch(() => undefined), 1_000);
    try {
      await within(allClosed, `the server closing ${FLOOD - CAP} of ${FLOOD} connections that keep sending requests without a token (closed ${closedByServer})`);
      expect(limit.untrusted()).toBeLessThanOrEqual(CAP);
      // the person's kept-alive socket, whose requests carry the token, is the same one and still answered
      expect(await authedGet(agent, '/v1/approvals')).toEqual({ status: 200, localPort: before.localPort });
    } finally {
      clearInterval(polling);
      clearInterval(inUse);
      for (const socket of flood) socket.destroy();
      agent.destroy();
    }
  });
});
