import { describe, expect, it } from 'vitest';
import { moveBlockKey } from '../../shared/protocols';
import {
  LoopGuard,
  MAX_AUTO_CALLS,
  MAX_SAME_IN_ROW,
  RunLedger,
  STABLE_MS,
  callSignature,
  canMove,
  combineResults,
  decideAutoRun,
  groupRuns,
  initialState,
  isFinishPlan,
  isReplyFinished,
  SETTLE_MS,
  type AutoRunInput,
  type KeyValueArea,
} from '../../extension/scanner/blocks';

const RUNNABLE: AutoRunInput = {
  siteEnabled: true,
  autoRun: true,
  role: 'assistant',
  origin: 'live',
  complete: true,
  unreadable: undefined,
  replyFinished: true,
  inLedger: false,
  loopGuard: { ok: true },
};

describe('auto-run rules (DESIGN §6.2)', () => {
  const table: Array<[string, Partial<AutoRunInput>, string | true]> = [
    ['a complete block in a finished live reply runs', {}, true],
    ['site disabled', { siteEnabled: false }, 'site-disabled'],
    ['auto-run off (the default) shows a Run button', { autoRun: false }, 'auto-run-off'],
    ['history at load or after a conversation switch never auto-runs', { origin: 'history' }, 'history'],
    ['user messages never run (a pasted seed prompt)', { role: 'user' }, 'user-message'],
    ['incomplete block (still writing)', { complete: false }, 'incomplete'],
    ['a block not fully in the page (virtualized viewer)', { unreadable: 'the viewer shows 20 of 80 lines' }, 'unreadable'],
    ['reply still streaming', { replyFinished: false }, 'reply-not-finished'],
    ['already in the ledger (reload, second tab, restart)', { inLedger: true }, 'already-ran'],
    ['loop guard tripped', { loopGuard: { ok: false, reason: 'paused' } }, 'loop-guard'],
    ['history wins over everything else', { origin: 'history', inLedger: true, replyFinished: false }, 'history'],
    ['a user message in history is still a user message', { role: 'user', origin: 'history' }, 'user-message'],
    ['a plan found outside a code block (the page may have changed its text) never auto-runs', { unfenced: true }, 'unfenced'],
    ['a block holding characters the page does not show (a direction override) never auto-runs', { hidden: true }, 'hidden'],
    ['a reply the person stopped never auto-runs', { ending: 'stopped' }, 'reply-stopped'],
    ['a reply that ended inside its last block never auto-runs', { ending: 'cut' }, 'reply-cut'],
    ['a stopped reply says so even with auto-run off', { ending: 'stopped', autoRun: false }, 'reply-stopped'],
    ['a reply that ended normally runs as before', { ending: 'normal' }, true],
  ];
  for (const [name, change, want] of table) {
    it(name, () => {
      const decision = decideAutoRun({ ...RUNNABLE, ...change });
      if (want === true) expect(decision).toEqual({ run: true });
      else expect(decision).toMatchObject({ run: false, reason: want });
    });
  }
});

describe('reply finished', () => {
  const at = (quiet: number) => ({ lastChangeAt: 10_000, now: 10_000 + quiet });
  it('waits for the site signal on the newest reply', () => {
    expect(isReplyFinished({ generating: true, isLatest: true, ...at(60_000) })).toBe(false);
    expect(isReplyFinished({ generating: false, isLatest: true, ...at(0) })).toBe(false);
    expect(isReplyFinished({ generating: false, isLatest: true, ...at(150) })).toBe(true);
  });
  it("is finished the moment the site's own signal turns off for a reply it was seen generating (no settle time)", () => {
    expect(isReplyFinished({ generating: false, isLatest: true, seenGenerating: true, ...at(0) })).toBe(true);
    expect(isReplyFinished({ generating: true, isLatest: true, seenGenerating: true, ...at(60_000) })).toBe(false);
    // never seen generating (too short to be, or live by growth): the settle time still holds
    expect(isReplyFinished({ generating: false, isLatest: true, seenGenerating: false, ...at(SETTLE_MS - 1) })).toBe(false);
    expect(isReplyFinished({ generating: false, isLatest: true, seenGenerating: false, ...at(SETTLE_MS) })).toBe(true);
    expect(isReplyFinished({ generating: undefined, isLatest: true, seenGenerating: true, ...at(STABLE_MS - 1) })).toBe(false);
  });
  it('without a site signal, needs the text stable for 1.5 s', () => {
    expect(isReplyFinished({ generating: undefined, isLatest: true, ...at(STABLE_MS - 1) })).toBe(false);
    expect(isReplyFinished({ generating: undefined, isLatest: true, ...at(STABLE_MS) })).toBe(true);
  });
  it('an older reply is not held back by a newer one streaming', () => {
    expect(isReplyFinished({ generating: true, isLatest: false, ...at(500) })).toBe(true);
  });
});

describe('block states', () => {
  it('starts as writing, ready or unreadable', () => {
    expect(initialState({ complete: false }, undefined)).toBe('writing');
    expect(initialState({ complete: true }, undefined)).toBe('ready');
    expect(initialState({ complete: true }, 'gap')).toBe('unreadable');
  });
  it('allows only the moves the chip can show', () => {
    expect(canMove('ready', 'running')).toBe(true);
    expect(canMove('running', 'approval')).toBe(true);
    expect(canMove('approval', 'done')).toBe(true);
    expect(canMove('done', 'running')).toBe(true);
    expect(canMove('writing', 'running')).toBe(false);
    expect(canMove('unreadable', 'running')).toBe(false);
    expect(canMove('done', 'writing')).toBe(false);
  });
  it('knows auto_coder finish plans answer nothing', () => {
    expect(isFinishPlan({ kind: 'autocoder', payload: { type: 'finish' } })).toBe(true);
    expect(isFinishPlan({ kind: 'autocoder', payload: { type: 'operate' } })).toBe(false);
    expect(isFinishPlan({ kind: 'mcp-request', payload: { type: 'finish' } })).toBe(false);
  });
});

describe('loop guard', () => {
  it(`pauses after ${MAX_AUTO_CALLS} automatic calls without the person typing, and typing resets it`, () => {
    const guard = new LoopGuard();
    for (let i = 0; i < MAX_AUTO_CALLS; i++) {
      expect(guard.check('c1', `call-${i}`).ok).toBe(true);
      guard.record('c1', `call-${i}`);
    }
    const verdict = guard.check('c1', 'call-next');
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toMatch(/20 automatic calls/);
    expect(guard.check('c2', 'call-next').ok).toBe(true);
    guard.personTyped('c1');
    expect(guard.check('c1', 'call-next').ok).toBe(true);
  });

  it(`pauses when the same call comes ${MAX_SAME_IN_ROW} times in a row, not when calls alternate`, () => {
    const guard = new LoopGuard();
    for (let i = 0; i < MAX_SAME_IN_ROW; i++) {
      expect(guard.check('c', 'same').ok).toBe(true);
      guard.record('c', 'same');
    }
    expect(guard.check('c', 'same').ok).toBe(false);
    expect(guard.check('c', 'other').ok).toBe(true);

    const alternating = new LoopGuard();
    for (let i = 0; i < 10; i++) {
      const signature = i % 2 ? 'a' : 'b';
      expect(alternating.check('c', signature).ok).toBe(true);
      alternating.record('c', signature);
    }
  });

  it('treats calls that differ only in their request id as the same call', () => {
    const a = callSignature({ kind: 'mcp-request', raw: 'x', payload: { jsonrpc: '2.0', id: 'call-001', method: 'tools/call', params: { name: 'fs.read' } } });
    const b = callSignature({ kind: 'mcp-request', raw: 'y', payload: { params: { name: 'fs.read' }, method: 'tools/call', jsonrpc: '2.0', id: 'call-002' } });
    const c = callSignature({ kind: 'mcp-request', raw: 'y', payload: { jsonrpc: '2.0', id: 'call-003', method: 'tools/call', params: { name: 'fs.ls' } } });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('treats <function_calls> that differ only in their call_id as the same call', () => {
    const call = (callId: string, message: string) =>
      callSignature({ kind: 'function-calls', raw: callId, payload: { form: 'xml', calls: [{ name: 'everything.echo', callId, arguments: { message } }] } });
    expect(call('1', 'hi')).toBe(call('2', 'hi'));
    expect(call('1', 'hi')).not.toBe(call('2', 'bye'));
  });
});

describe('the same call in another format', () => {
  it('an mcp-request, a flycode-call and a <function_calls> of one call naming the same tool and arguments are the same call', () => {
    const mcp = callSignature({ kind: 'mcp-request', raw: 'a', payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.read', arguments: { path: 'a.txt' } } } });
    const flycode = callSignature({ kind: 'flycode-call', raw: 'b', payload: { id: 'call-002', tool: 'fs.read', args: { path: 'a.txt' } } });
    const xml = callSignature({ kind: 'function-calls', raw: 'c', payload: { form: 'xml', calls: [{ name: 'fs.read', callId: '3', arguments: { path: 'a.txt' } }] } });
    expect(flycode).toBe(mcp);
    expect(xml).toBe(mcp);
    expect(callSignature({ kind: 'flycode-call', raw: 'd', payload: { id: 'call-004', tool: 'fs.read', args: { path: 'b.txt' } } })).not.toBe(mcp);
    expect(callSignature({ kind: 'flycode-call', raw: 'e', payload: { id: 'call-005', tool: 'fs.ls', args: { path: 'a.txt' } } })).not.toBe(mcp);
    // two calls in one block are not one of them
    const two = { form: 'xml', calls: [{ name: 'fs.read', arguments: { path: 'a.txt' } }, { name: 'fs.ls', arguments: {} }] };
    expect(callSignature({ kind: 'function-calls', raw: 'f', payload: two })).not.toBe(mcp);
  });
});

describe('runs of one reply', () => {
  it('keeps block order and sends all Axon statements as ONE run joined by a blank line', () => {
    const units = groupRuns([
      { index: 0, kind: 'axon', raw: 'A1' },
      { index: 1, kind: 'mcp-request', raw: 'M' },
      { index: 2, kind: 'axon', raw: 'A2' },
      { index: 3, kind: 'flycode-call', raw: 'F' },
    ]);
    expect(units).toEqual([
      { kind: 'axon', text: 'A1\n\nA2', indexes: [0, 2] },
      { kind: 'mcp-request', text: 'M', indexes: [1] },
      { kind: 'flycode-call', text: 'F', indexes: [3] },
    ]);
  });
  it('puts all results of a reply in one message, in order, skipping empty ones', () => {
    expect(combineResults(['```mcp-response\na\n```\n', '', '  ', '```mcp-response\nb\n```'])).toBe('```mcp-response\na\n```\n\n```mcp-response\nb\n```');
  });
});

function memoryArea(): KeyValueArea & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: async (keys) => Object.fromEntries(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))])),
    set: async (items) => {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
    remove: async (keys) => {
      for (const k of keys) data.delete(k);
    },
  };
}

describe('run ledger', () => {
  it('remembers per conversation that a block ran, across instances (reload, new tab)', async () => {
    const area = memoryArea();
    await new RunLedger(area).add('conv-1', ['k1', 'k2']);
    const reloaded = new RunLedger(area);
    expect((await reloaded.ranKeys('conv-1')).has('k1')).toBe(true);
    expect((await reloaded.ranKeys('conv-1')).has('k3')).toBe(false);
    expect((await reloaded.ranKeys('conv-2')).has('k1')).toBe(false);
    expect([...(await reloaded.ranKeys('conv-1'))].sort()).toEqual(['k1', 'k2']);
    expect((await reloaded.ranKeys('conv-2')).size).toBe(0);
  });

  it('loses no key when adds overlap', async () => {
    const ledger = new RunLedger(memoryArea());
    await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.add('c', [`k${i}`])));
    for (let i = 0; i < 20; i++) expect((await ledger.ranKeys('c')).has(`k${i}`)).toBe(true);
  });

  it('prunes the oldest keys and the oldest conversations', async () => {
    const area = memoryArea();
    let clock = 0;
    const ledger = new RunLedger(area, { maxKeysPerConversation: 3, maxConversations: 2 }, () => ++clock);
    await ledger.add('a', ['1', '2', '3', '4']);
    expect((await ledger.ranKeys('a')).has('1')).toBe(false);
    expect((await ledger.ranKeys('a')).has('4')).toBe(true);
    await ledger.add('b', ['x']);
    await ledger.add('c', ['y']);
    expect((await ledger.ranKeys('a')).has('4')).toBe(false);
    expect((await ledger.ranKeys('c')).has('y')).toBe(true);
    expect([...area.data.keys()].filter((k) => k.startsWith('ledger:c:')).sort()).toEqual(['ledger:c:b', 'ledger:c:c']);
  });

  it('reads corrupt storage as empty instead of failing', async () => {
    const area = memoryArea();
    area.data.set('ledger:c:c', 'not a list');
    area.data.set('ledger:index', 42);
    const ledger = new RunLedger(area);
    expect((await ledger.ranKeys('c')).has('k')).toBe(false);
    await ledger.add('c', ['k']);
    expect((await ledger.ranKeys('c')).has('k')).toBe(true);
  });

  it("keeps a pending run's reply ending and start across instances; a run id stored alone reads as a normal ending; bad entries are skipped", async () => {
    const area = memoryArea();
    await new RunLedger(area).startedRun('c', ['k1'], 'run-1', 'stopped');
    await new RunLedger(area).startedRun('c', ['k2'], 'run-2');
    await new RunLedger(area).startedRun('c', ['k4'], 'run-4', 'normal', 1_234);
    const reloaded = new RunLedger(area);
    expect(await reloaded.pendingRuns('c')).toEqual({
      k1: { runId: 'run-1', ending: 'stopped' },
      k2: { runId: 'run-2', ending: 'normal' },
      k4: { runId: 'run-4', ending: 'normal', startedAt: 1_234 },
    });
    expect(area.data.get('ledger:r:c')).toEqual({ k1: { runId: 'run-1', ending: 'stopped' }, k2: 'run-2', k4: { runId: 'run-4', ending: 'normal', startedAt: 1_234 } });
    area.data.set('ledger:r:c', { k1: { runId: 'run-1', ending: 'sideways' }, k2: 'run-2', k3: 7 });
    expect(await reloaded.pendingRuns('c')).toEqual({ k2: { runId: 'run-2', ending: 'normal' } });
    await reloaded.delivered('c', ['k2']);
    expect(area.data.has('ledger:r:c')).toBe(false);
  });

  it("keeps the run of the newest 100 block keys after their results were delivered, and drops them with the conversation", async () => {
    const area = memoryArea();
    let clock = 0;
    const ledger = new RunLedger(area, { maxKeysPerConversation: 1000, maxConversations: 1 }, () => ++clock);
    await ledger.add('a', ['k0']);
    await ledger.startedRun('a', ['k0'], 'run-0');
    await ledger.delivered('a', ['k0']);
    expect(await new RunLedger(area).runOf('a', 'k0')).toBe('run-0');
    for (let i = 1; i <= 100; i++) await ledger.startedRun('a', [`k${i}`], `run-${i}`);
    expect(await ledger.runOf('a', 'k0')).toBeUndefined();
    expect(await ledger.runOf('a', 'k1')).toBe('run-1');
    expect(await ledger.runOf('a', 'k100')).toBe('run-100');
    await ledger.add('b', ['k']);
    expect(area.data.has('ledger:u:a')).toBe(false);
  });

  it('keeps the newest 100 Stops of a conversation with their times, across instances, and drops them with the conversation', async () => {
    const area = memoryArea();
    let clock = 0;
    const ledger = new RunLedger(area, { maxKeysPerConversation: 3, maxConversations: 1 }, () => ++clock);
    await ledger.add('a', ['k']);
    for (let i = 0; i < 101; i++) await ledger.markStopped('a', `m-${i}`, 1_000 + i);
    await ledger.markStopped('a', 'm-50', 1_050);
    const stops = await new RunLedger(area).stops('a');
    expect(stops).toHaveLength(100);
    expect(stops.some((stop) => stop.key === 'm-0')).toBe(false);
    expect(stops.at(-1)).toEqual({ key: 'm-50', at: 1_050 });
    expect(stops.filter((stop) => stop.key === 'm-50')).toHaveLength(1);
    expect(await ledger.stops('b')).toEqual([]);
    await ledger.add('b', ['k']);
    expect(area.data.has('ledger:s:a')).toBe(false);
  });

  it("keeps what a stopped reply keyed by position said with its Stop, told again with the same time as one Stop", async () => {
    const area = memoryArea();
    const ledger = new RunLedger(area);
    await ledger.markStopped('a', 'p:3', 1_000);
    await ledger.markStopped('a', 'p:3', 1_000, 'h-1');
    await ledger.markContinued('a', 'p:3', 2_000);
    expect(await new RunLedger(area).stops('a')).toEqual([{ key: 'p:3', at: 1_000, text: 'h-1', continuedAt: 2_000 }]);
  });

  it('keeps an Escape told as it was pressed until it is known: forgotten when the reply went on, a Stop when told again without it', async () => {
    const area = memoryArea();
    const ledger = new RunLedger(area);
    await ledger.markStopped('a', 'p:3', 1_000, undefined, true);
    await ledger.markStopped('a', 'p:5', 2_000, undefined, true);
    await ledger.markStopped('a', 'p:7', 3_000);
    expect(await new RunLedger(area).stops('a')).toEqual([
      { key: 'p:3', at: 1_000, escape: true },
      { key: 'p:5', at: 2_000, escape: true },
      { key: 'p:7', at: 3_000 },
    ]);
    await ledger.forgetEscape('a', 'p:3', 1_000);
    await ledger.forgetEscape('a', 'p:7', 3_000);
    await ledger.markStopped('a', 'p:5', 2_000, 'h-5');
    expect(await new RunLedger(area).stops('a')).toEqual([
      { key: 'p:7', at: 3_000 },
      { key: 'p:5', at: 2_000, text: 'h-5' },
    ]);
  });

  it("a new chat's records move to its id once it has one, their keys renamed; calls still naming the stand-in reach the id", async () => {
    const area = memoryArea();
    const ledger = new RunLedger(area);
    const rekey = (key: string): string => moveBlockKey(key, 's', 'new:/#n', 'c1');
    await ledger.add('c1', ['s|c1|p:1|0|h0']);
    await ledger.add('new:/#n', ['s|new:/#n|p:3|0|h1']);
    await ledger.startedRun('new:/#n', ['s|new:/#n|p:3|0|h1'], 'run-1', 'normal', 5);
    await ledger.named('new:/#n', 'c1', rekey);
    expect([...(await ledger.ranKeys('c1'))]).toEqual(['s|c1|p:1|0|h0', 's|c1|p:3|0|h1']);
    expect(await ledger.pendingRuns('c1')).toEqual({ 's|c1|p:3|0|h1': { runId: 'run-1', ending: 'normal', startedAt: 5 } });
    expect(await ledger.runOf('c1', 's|c1|p:3|0|h1')).toBe('run-1');
    // work that began under the stand-in settles under the id
    await ledger.delivered('new:/#n', ['s|c1|p:3|0|h1']);
    expect(await new RunLedger(area).pendingRuns('c1')).toEqual({});
    expect(area.data.has('ledger:c:new:/#n')).toBe(false);
    expect(area.data.has('ledger:u:new:/#n')).toBe(false);
  });

  it('forgets claimed keys that never ran, and only those', async () => {
    const ledger = new RunLedger(memoryArea());
    await ledger.add('a', ['k1', 'k2', 'k3']);
    await ledger.forget('a', ['k2', 'k9']);
    expect([...(await ledger.ranKeys('a'))]).toEqual(['k1', 'k3']);
  });

  it('a continued reply keeps its Stop, marked continued; a Stop pressed after the continuation is not', async () => {
    const area = memoryArea();
    const ledger = new RunLedger(area);
    await ledger.markStopped('a', 'm-1', 1_000);
    await ledger.markStopped('a', 'm-2', 1_500);
    await ledger.markContinued('a', 'm-1', 2_000);
    await ledger.markStopped('a', 'm-1', 3_000);
    await ledger.markContinued('a', 'm-1', 2_500);
    expect(await new RunLedger(area).stops('a')).toEqual([
      { key: 'm-1', at: 1_000, continuedAt: 2_000 },
      { key: 'm-2', at: 1_500 },
      { key: 'm-1', at: 3_000 },
    ]);
  });
});
