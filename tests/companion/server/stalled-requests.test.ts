import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { context, flycodeCall, listen, makeWorld, mcpCall, removeWorld, type World } from './harness';

/**
 * Issue 9, finding 10: a request whose headers or body never finish held its connection (and the handler waiting
 * on the body) for minutes. The companion's server now cuts a request that has not fully arrived within its
 * timeouts — and only that: a client that is slow but keeps sending finishes, and what legitimately stays open
 * after the request has arrived (a long-polled /v1/run answer, an /mcp call waiting for an approval, the /ws
 * socket) is not cut. Short timeouts here, with wide margins on both sides; the defaults are in request-timeouts.ts.
 */
const HEADERS_MS = 1_000;
const REQUEST_MS = 4_000;
/** how long a test waits for a cut that must come (the timeout plus node's checking interval, many times over) */
const CUT_WITHIN_MS = 20_000;

let world: World;
let served: Awaited<ReturnType<typeof listen>>;
let port: number;

beforeAll(async () => {
  world = makeWorld({ config: { sites: { mcp: { approvalWaitMs: REQUEST_MS + 2_000 } } } });
  served = await listen(world, { timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS, checkEveryMs: 100 } });
  port = served.port;
});

afterAll(async () => {
  await served.close();
  await world.close();
  removeWorld(world);
});

/** A raw TCP client: what it received, and whether (and when) the server closed the connection. */
function rawClient(): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const openedAt = Date.now();
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - openedAt)));
  return { socket, received: () => received, closed };
}

/** Resolves with the close, or rejects after `ms` naming what was expected. The socket is destroyed either way. */
async function closedWithin(client: ReturnType<typeof rawClient>, ms: number, what: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      client.closed,
      new Promise<number>((_, reject) => (timer = setTimeout(() => reject(new Error(`the server kept ${what} open for ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
    client.socket.destroy();
  }
}

function requestHead(path: string, contentLength: number): string {
  return [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${world.token}`,
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
    '',
    '',
  ].join('\r\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('requests that never finish arriving (issue 9, finding 10)', () => {
  it('stalled body: headers with a Content-Length and half the body, then nothing — the connection is closed at the request timeout', async () => {
    writeFileSync(join(world.root, 'stalled.txt'), 'never read\n');
    const body = JSON.stringify({ kind: 'mcp-request', text: mcpCall('stalled', 'fs.read', { path: join(world.root, 'stalled.txt') }), context: context('conv-stalled', 'm1') });
    const client = rawClient();
    client.socket.write(requestHead('/v1/run', Buffer.byteLength(body)) + body.slice(0, Math.floor(body.length / 2)));
    await closedWithin(client, CUT_WITHIN_MS, 'a request whose body stopped half way');
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(world.runs['fs.read'] ?? 0).toBe(0);
  }, 60_000);

  it('slowloris: headers sent one byte at a time are cut at the headers timeout', async () => {
    const client = rawClient();
    // about 150 s worth of header at this pace; the cut has to come from the timeout, not from a size limit
    const head = `GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${'a'.repeat(3_000)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!client.socket.destroyed && sent < head.length) client.socket.write(head[sent++] as string);
    }, 50);
    try {
      await closedWithin(client, CUT_WITHIN_MS, 'a request whose headers arrive one byte at a time');
    } finally {
      clearInterval(drip);
    }
    expect(sent).toBeLessThan(head.length);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  }, 60_000);

  it('a connection that never sends a byte is closed at the headers timeout', async () => {
    const client = rawClient();
    await closedWithin(client, CUT_WITHIN_MS, 'a connection that sent nothing');
  }, 60_000);
});

describe('what the timeouts must not cut', () => {
  it('a slow but progressing body (slower than the headers timeout, well within the request timeout) still succeeds', async () => {
    writeFileSync(join(world.root, 'slow.txt'), 'read after a slow upload\n');
    const body = JSON.stringify({ kind: 'mcp-request', text: mcpCall('slow', 'fs.read', { path: join(world.root, 'slow.txt') }), context: context('conv-slow', 'm1') });
    const client = rawClient();
    client.socket.write(requestHead('/v1/run', Buffer.byteLength(body)));
    const pieces = 15;
    const size = Math.ceil(body.length / pieces);
    // 15 pieces 100 ms apart: 1.5 s of body, past the 1 s headers timeout and far inside the 4 s request timeout
    for (let i = 0; i < pieces; i++) {
      await sleep(100);
      client.socket.write(body.slice(i * size, (i + 1) * size));
    }
    const deadline = Date.now() + CUT_WITHIN_MS;
    while (!/\r\n\r\n[\s\S]*read after a slow upload/.test(client.received()) && Date.now() < deadline) await sleep(20);
    client.socket.destroy();
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toContain('read after a slow upload');
  }, 60_000);

  it('a long-polled POST /v1/run answer that outlives the request timeout is delivered', async () => {
    const waitMs = REQUEST_MS + 2_000;
    const started = Date.now();
    const answer = await fetch(`http://127.0.0.1:${port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'flycode-call', text: flycodeCall('lp', 'shell.exec', { command: 'echo hi' }), context: context('conv-lp', 'm1'), waitMs }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { status: string }).status).toBe('pending');
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_MS);
  }, 60_000);

  it('an /mcp tools/call waiting for an approval past the request timeout is answered', async () => {
    const client = new Client({ name: 'stalled-requests-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${world.token}` } } }),
    );
    try {
      const started = Date.now();
      const result = await client.callTool({ name: 'shell.exec', arguments: { command: 'echo waits' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_MS);
      expect(String(result._meta?.pendingConfirmationId ?? '')).not.toBe('');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('/ws stays open and answers after the request timeout has long passed', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const messages: string[] = [];
    ws.on('message', (data) => messages.push(String(data)));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'auth', token: world.token }));
    await sleep(REQUEST_MS + 1_500);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.send(JSON.stringify({ type: 'ping', t: 7 }));
    const deadline = Date.now() + CUT_WITHIN_MS;
    while (!messages.some((m) => m.includes('"pong"')) && Date.now() < deadline) await sleep(20);
    ws.close();
    expect(messages.map((m) => JSON.parse(m) as { type: string }).map((m) => m.type)).toEqual(expect.arrayContaining(['auth-ok', 'pong']));
  }, 60_000);
});
