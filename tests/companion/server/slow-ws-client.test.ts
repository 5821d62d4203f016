import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { type WebSocketServer } from 'ws';
import { createWebSocketServer } from '../../../companion/ws/ws-route';
import { parseCompanionMessage } from '../../../extension/companion/api-types';
import type { WsServerMessage } from '../../../shared/api';
import { listen, makeWorld, removeWorld, type World } from './harness';

/**
 * Issue 9, finding 8: a `/ws` client that authenticated and then never read, while a program flooded output,
 * grew the companion from ~124 MB to ~350 MB — every event was queued for it without limit. The queue per client
 * is now bounded: past a limit, program output for that client is dropped and it is told so (one coalesced
 * `output-dropped` event per gap, with the gap's offset and size); a client that falls far behind on events that
 * cannot be dropped is disconnected. The program's own result keeps its capped output either way.
 *
 * The client here pauses its socket, so the kernel buffers fill and the rest piles up in the companion. The
 * queue is read from the server's own ws objects (`bufferedAmount`: bytes handed to the socket and not yet sent),
 * sampled while the flood runs, and from the per-client peak the companion records at every send.
 */
const MiB = 1024 * 1024;
/** output is dropped for a client once 1 MiB is queued for it; one frame (a 64 KiB pipe read, JSON-escaped) may sit on top */
const OUTPUT_QUEUE_BOUND = MiB + 256 * 1024;
/** events that cannot be dropped are queued up to 8 MiB; past that the client is disconnected */
const EVENT_QUEUE_BOUND = 8 * MiB + 256 * 1024;
/** far more than the loopback kernel buffers of both ends hold (a few MiB), so most of it has to wait in the companion */
const FLOOD_BYTES = 64 * MiB;

let world: World;
let served: Awaited<ReturnType<typeof listen>>;
let wss: WebSocketServer;
let port: number;
const clients: WebSocket[] = [];

beforeAll(async () => {
  // protocol pings would drop the paused client on their own within 0.4 s (harness default): that is not what is tested
  world = makeWorld({ wsHeartbeatMs: 10 * 60_000 });
  wss = createWebSocketServer();
  served = await listen(world, { wss });
  port = served.port;
});

afterEach(() => {
  for (const client of clients.splice(0)) client.terminate();
});

afterAll(async () => {
  for (const client of wss.clients) client.terminate();
  await served.close();
  await world.close();
  removeWorld(world);
});

/** An authenticated client, its messages, and the companion's side of the same connection. */
async function authenticatedClient(): Promise<{ client: WebSocket; messages: WsServerMessage[]; serverSide: WebSocket; closed: Promise<void> }> {
  const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', (ws: WebSocket) => resolve(ws)));
  const client = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  clients.push(client);
  const messages: WsServerMessage[] = [];
  client.on('message', (data) => messages.push(JSON.parse(String(data)) as WsServerMessage));
  client.on('error', () => {});
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  await new Promise((resolve) => client.once('open', resolve));
  client.send(JSON.stringify({ type: 'auth', token: world.token }));
  await waitFor('auth-ok', () => messages.some((m) => m.type === 'auth-ok'));
  return { client, messages, serverSide: await serverSide, closed };
}

/** Stops reading: the client's socket is paused, so nothing more is taken off the wire. */
function stopReading(client: WebSocket): void {
  (client as unknown as { _socket: Socket })._socket.pause();
}

function resumeReading(client: WebSocket): void {
  (client as unknown as { _socket: Socket })._socket.resume();
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const origin = { runId: 'run-flood', site: 'test', conversationId: 'conv-flood' };

describe('a slow /ws client (issue 9, finding 8)', () => {
  it('a client that authenticates and never reads while a program floods output: its queue stays bounded, it is told output was dropped, the result keeps the capped output', async () => {
    const { client, messages, serverSide } = await authenticatedClient();
    stopReading(client);
    const handle = world.processes.start({
      name: 'flood',
      // lines of 16 bytes: the result's cuts fall at line breaks (output-buffer.ts)
      shell: `yes aaaaaaaaaaaaaaa | head -c ${FLOOD_BYTES}`,
      cwd: world.root,
      env,
      timeoutMs: 120_000,
      maxOutputBytes: MiB,
      origin,
    });
    let sampledPeak = 0;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, serverSide.bufferedAmount)), 2);
    const result = await handle.done.finally(() => clearInterval(sampler));
    sampledPeak = Math.max(sampledPeak, serverSide.bufferedAmount);

    // the companion's queue for this client never grew with the flood
    expect(sampledPeak).toBeLessThanOrEqual(OUTPUT_QUEUE_BOUND);
    const stats = world.companion.hub.clientStats?.() ?? [];
    expect(stats).toHaveLength(1);
    expect(stats[0]!.peakBufferedBytes).toBeLessThanOrEqual(OUTPUT_QUEUE_BOUND);
    expect(stats[0]!.droppedBytes).toBeGreaterThan(0);

    // the program's own result is whole in the way it always was: capped to head and tail, the rest counted
    expect(result.status).toBe('completed');
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(MiB + 100);
    const omitted = Number(/\[… (\d+) bytes omitted …\]/.exec(result.stdout)?.[1]);
    // the line each cut goes through is omitted with the rest
    expect(omitted).toBe(FLOOD_BYTES - Buffer.byteLength(result.stdout.replace(/\n\[… \d+ bytes omitted …\]\n/, '')));
    expect(omitted).toBeGreaterThanOrEqual(FLOOD_BYTES - MiB);
    expect(omitted).toBeLessThanOrEqual(FLOOD_BYTES - MiB + 32);

    // once it reads again: every byte of the stream is either a chunk it got or inside a gap it was told about,
    // in order, and the gaps come before the program's exit
    resumeReading(client);
    await waitFor('program-exit', () => messages.some((m) => m.type === 'program-exit' && m.program.id === handle.info.id));
    const exitAt = messages.findIndex((m) => m.type === 'program-exit' && m.program.id === handle.info.id);
    let next = 0;
    let gaps = 0;
    for (const message of messages.slice(0, exitAt)) {
      if (message.type === 'program-output' && message.programId === handle.info.id && message.stream === 'stdout') {
        expect(message.offset).toBe(next);
        next += Buffer.byteLength(message.chunk);
      } else if ((message.type as string) === 'output-dropped') {
        const gap = message as unknown as { programId: string; stream: string; offset: number; dropped: number };
        expect(gap).toMatchObject({ programId: handle.info.id, stream: 'stdout' });
        expect(gap.offset).toBe(next);
        expect(gap.dropped).toBeGreaterThan(0);
        next += gap.dropped;
        gaps += 1;
      }
    }
    expect(gaps).toBeGreaterThan(0);
    expect(next).toBe(FLOOD_BYTES);
    expect(client.readyState).toBe(WebSocket.OPEN);
  }, 120_000);

  // The bound is on what is queued at one moment, so a client that reads is never dropped for the amount, only for
  // a burst it had no turn to take: a producer faster than the companion (one `tr` on the other core) refills the
  // pipe while libuv reads it, up to 32 × 64 KiB in one turn of the loop — 2 MiB handed to the socket before this
  // client, in the same thread, reads once. So the program here writes 64 KiB at a time, as a build or a test run
  // does, and the companion and the client each get their turns in between.
  it('a client that keeps reading gets every byte of a long output: nothing is dropped for it', async () => {
    const { messages } = await authenticatedClient();
    const chunks = 256;
    const bytes = chunks * 64 * 1024;
    const shell = `i=0; while [ $i -lt ${chunks} ]; do head -c 65536 /dev/zero | tr '\\0' b; i=$((i+1)); done`;
    const handle = world.processes.start({ name: 'flood-read', shell, cwd: world.root, env, timeoutMs: 120_000, maxOutputBytes: MiB, origin });
    await handle.done;
    await waitFor('program-exit', () => messages.some((m) => m.type === 'program-exit' && m.program.id === handle.info.id));
    let next = 0;
    for (const message of messages) {
      if (message.type !== 'program-output' || message.programId !== handle.info.id) continue;
      expect(message.offset).toBe(next);
      next += Buffer.byteLength(message.chunk);
    }
    expect(next).toBe(bytes);
    expect(messages.filter((m) => (m.type as string) === 'output-dropped')).toEqual([]);
  }, 120_000);

  it('a client that never reads while events that cannot be dropped pile up is disconnected before its queue passes the bound', async () => {
    const { client, serverSide, closed } = await authenticatedClient();
    stopReading(client);
    const run = { runId: 'run-far-behind', status: 'done' as const, resultText: 'r'.repeat(16 * 1024), auditId: 'audit-far-behind' };
    let published = 0;
    let peak = 0;
    // 64 MiB of run events at most; the companion has to give up on the client long before
    while (serverSide.readyState === WebSocket.OPEN && published < FLOOD_BYTES) {
      for (let i = 0; i < 16; i++) {
        world.companion.hub.publish({ type: 'run', run });
        published += run.resultText.length;
        peak = Math.max(peak, serverSide.bufferedAmount);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(serverSide.readyState).not.toBe(WebSocket.OPEN);
    expect(published).toBeLessThan(FLOOD_BYTES);
    expect(peak).toBeLessThanOrEqual(EVENT_QUEUE_BOUND);
    // and the companion forgot it at once: no subscription is left behind
    expect(world.companion.hub.clientStats?.() ?? []).toEqual([]);
    resumeReading(client);
    await closed;
  }, 120_000);
});

describe('the extension reads the new event', () => {
  it('output-dropped parses as a companion message; an event type it does not know is ignored, not thrown on', () => {
    const dropped = { type: 'output-dropped', programId: 'prog-1', name: 'flood', stream: 'stdout', offset: 10, dropped: 5 };
    expect(parseCompanionMessage(JSON.stringify(dropped))).toEqual(dropped);
    expect(parseCompanionMessage(JSON.stringify({ type: 'from-a-newer-companion', anything: 1 }))).toBeNull();
  });
});
