import { describe, expect, it } from 'vitest';
import { createClientQueue, type QueueSocket } from '../../../companion/ws/client-queue';
import type { WsServerMessage } from '../../../shared/api';

/**
 * The per-client queue's rules on a socket whose backlog the test sets by hand (a real socket that never reads
 * is in tests/companion/server/slow-ws-client.test.ts): what is dropped, how gaps are told, when it gives up.
 */
function socket() {
  const sent: Array<{ type: string } & Record<string, unknown>> = [];
  const state = { backlog: 0, terminated: false };
  const s: QueueSocket = {
    get bufferedAmount() {
      return state.backlog;
    },
    send(text) {
      sent.push(JSON.parse(text) as { type: string });
      state.backlog += Buffer.byteLength(text);
    },
    terminate() {
      state.terminated = true;
    },
  };
  return { s, sent, state };
}

const output = (offset: number, chunk: string, programId = 'p1', stream: 'stdout' | 'stderr' = 'stdout'): WsServerMessage => ({
  type: 'program-output',
  programId,
  name: 'prog',
  stream,
  chunk,
  offset,
});

const exit = (id = 'p1'): WsServerMessage => ({
  type: 'program-exit',
  program: { id, name: 'prog', command: 'x', cwd: '/', origin: { runId: 'r', site: 's', conversationId: 'c' }, status: 'completed', startedAt: new Date(0).toISOString() },
  result: { status: 'completed', returncode: 0, runtime: 1, truncated: false },
});

describe('client queue', () => {
  it('sends output while the backlog is under the limit', () => {
    const { s, sent } = socket();
    const queue = createClientQueue(s, { outputBytes: 10_000, maxBytes: 100_000 });
    queue.send(output(0, 'abc'));
    queue.send(output(3, 'def'));
    expect(sent.map((m) => m.chunk)).toEqual(['abc', 'def']);
    expect(queue.stats().droppedBytes).toBe(0);
    queue.close();
  });

  it('drops output past the limit into one gap per stream, told once the backlog has drained to half, before the next chunk', () => {
    const { s, sent, state } = socket();
    const queue = createClientQueue(s, { outputBytes: 10_000, maxBytes: 100_000 });
    state.backlog = 9_990;
    queue.send(output(0, 'x'.repeat(100)));
    queue.send(output(100, 'y'.repeat(50)));
    queue.send(output(0, 'e'.repeat(7), 'p1', 'stderr'));
    // drained, but not to half: still dropped, into the same gap
    state.backlog = 6_000;
    queue.send(output(150, 'z'.repeat(10)));
    expect(sent).toEqual([]);
    state.backlog = 0;
    queue.send(output(160, 'ok'));
    expect(sent.map((m) => m.type)).toEqual(['output-dropped', 'program-output']);
    expect(sent[0]).toEqual({ type: 'output-dropped', programId: 'p1', name: 'prog', stream: 'stdout', offset: 0, dropped: 160 });
    expect(sent[1]).toMatchObject({ offset: 160, chunk: 'ok' });
    // the stderr gap is told at the program's exit at the latest, before the exit itself
    queue.send(exit());
    expect(sent.slice(2).map((m) => [m.type, m.stream])).toEqual([
      ['output-dropped', 'stderr'],
      ['program-exit', undefined],
    ]);
    expect(queue.stats().droppedBytes).toBe(167);
    queue.close();
  });

  it('a gap in the offsets (the program’s own) is kept: the told gap runs to the end of the last dropped chunk', () => {
    const { s, sent, state } = socket();
    const queue = createClientQueue(s, { outputBytes: 1_000, maxBytes: 100_000 });
    state.backlog = 1_000;
    queue.send(output(40, 'a'.repeat(10)));
    queue.send(output(90, 'b'.repeat(10)));
    state.backlog = 0;
    queue.send(exit());
    expect(sent[0]).toMatchObject({ type: 'output-dropped', offset: 40, dropped: 60 });
    queue.close();
  });

  it('progress reports are dropped past the limit; runs, approvals and exits are not', () => {
    const { s, sent, state } = socket();
    const queue = createClientQueue(s, { outputBytes: 1_000, maxBytes: 100_000 });
    state.backlog = 5_000;
    queue.send({ type: 'tool-progress', runId: 'r', tool: 't', progress: 1 });
    queue.send({ type: 'run', run: { runId: 'r', status: 'done', resultText: 'ok', auditId: 'a' } });
    queue.send({ type: 'pong' });
    expect(sent.map((m) => m.type)).toEqual(['run', 'pong']);
    queue.close();
  });

  it('a message that would take the backlog past the maximum disconnects the client instead, and nothing is sent after', () => {
    const { s, sent, state } = socket();
    const queue = createClientQueue(s, { outputBytes: 1_000, maxBytes: 10_000 });
    state.backlog = 9_990;
    queue.send({ type: 'run', run: { runId: 'r', status: 'done', resultText: 'x'.repeat(100), auditId: 'a' } });
    expect(state.terminated).toBe(true);
    state.backlog = 0;
    queue.send({ type: 'pong' });
    expect(sent).toEqual([]);
  });

  it('records the peak backlog right after each send', () => {
    const { s, state } = socket();
    const queue = createClientQueue(s, { outputBytes: 10_000, maxBytes: 100_000 });
    queue.send(output(0, 'a'.repeat(500)));
    const peak = queue.stats().peakBufferedBytes;
    expect(peak).toBeGreaterThan(500);
    state.backlog = 0;
    queue.send(output(500, 'b'));
    expect(queue.stats()).toMatchObject({ bufferedBytes: state.backlog, peakBufferedBytes: peak });
    queue.close();
  });
});
