import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import type { Block } from '../../shared/protocols/types';
import type { MessageRecord, TrackedBlock } from '../../extension/content/page-context';
import {
  CANDIDATE_GRACE_MS,
  CANDIDATE_MAX_MS,
  candidateVerdict,
  chipView,
  claimBlocks,
  isUndecided,
  keepsBlock,
} from '../../extension/content/page-decide';
import { LoopGuard, type BlockState } from '../../extension/scanner/blocks';
import { translator } from '../../extension/ui/i18n';

/** The page's decisions without a page: plain records and blocks in, verdicts out. */

const t = translator('en');
const READ = '```mcp-request\n{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a"}}}\n```';
const LIST = '```mcp-request\n{"jsonrpc":"2.0","id":"2","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}\n```';

function only(markdown: string): Block {
  const [block] = findBlocks(markdown);
  if (!block) throw new Error(`no block in ${markdown}`);
  return block;
}

function tracked(block: Block, state: BlockState = 'ready', extra: Partial<TrackedBlock> = {}): TrackedBlock {
  return { block, index: 0, key: `k:${block.raw.length}:${block.start}`, state, chip: null, anchor: null, ranBefore: false, reruns: 0, ...extra };
}

function reply(blocks: TrackedBlock[], extra: Partial<MessageRecord> = {}): MessageRecord {
  return {
    el: {} as Element,
    role: 'assistant',
    position: 1,
    origin: 'live',
    candidate: true,
    firstSeenAt: 0,
    lastChangeAt: 0,
    grewAfterFirstSeen: true,
    text: '',
    markdown: blocks.map((b) => b.block.raw).join('\n\n'),
    blocks: blocks.map((b, index) => ({ ...b, index })),
    handledMarkdown: null,
    ...extra,
  };
}

const ON = { enabled: true, autoRun: true };

describe('keepsBlock: the block at a place stays the same block while it is written and until it runs', () => {
  const streaming = only('```mcp-request\n{"jsonrpc":"2.0"');
  const done = only(READ);

  it('keeps a block whose text grew (it was incomplete, or not run yet)', () => {
    expect(keepsBlock(tracked(streaming, 'writing'), done)).toBe(true);
    expect(keepsBlock(tracked(only(LIST), 'ready'), done)).toBe(true);
  });

  it('a block that ran and now has other text at its place is a new block', () => {
    expect(keepsBlock(tracked(only(LIST), 'done'), done)).toBe(false);
    expect(keepsBlock(tracked(done, 'done'), done)).toBe(true);
  });

  it('another kind, or nothing there before, is a new block', () => {
    expect(keepsBlock(undefined, done)).toBe(false);
    expect(keepsBlock(tracked(only('#####--{"type":"finish"}--#####')), done)).toBe(false);
  });
});

describe('candidateVerdict: a message that appeared at the end is live only when seen arriving', () => {
  const base = { age: 100, generating: true as boolean | undefined, isLatest: true, grewAfterFirstSeen: false };

  it('the newest message while the site generates is live', () => {
    expect(candidateVerdict(base)).toBe('live');
  });

  it('an older message is dropped once the grace period is over; before that it waits', () => {
    expect(candidateVerdict({ ...base, isLatest: false })).toBe('wait');
    expect(candidateVerdict({ ...base, isLatest: false, age: CANDIDATE_GRACE_MS + 1 })).toBe('drop');
  });

  it('without a site signal, growing text makes it live; it is watched at most CANDIDATE_MAX_MS', () => {
    expect(candidateVerdict({ ...base, generating: undefined })).toBe('wait');
    expect(candidateVerdict({ ...base, generating: undefined, grewAfterFirstSeen: true })).toBe('live');
    expect(candidateVerdict({ ...base, generating: undefined, isLatest: false, age: CANDIDATE_GRACE_MS + 1 })).toBe('wait');
    expect(candidateVerdict({ ...base, age: CANDIDATE_MAX_MS + 1 })).toBe('drop');
  });

  it('a row re-mounted while the site is idle (scrolling) is not live', () => {
    expect(candidateVerdict({ ...base, generating: false })).toBe('wait');
  });
});

describe('isUndecided', () => {
  it('a live reply is decided once per markdown; history never is', () => {
    const record = reply([tracked(only(READ))]);
    expect(isUndecided(record)).toBe(true);
    record.handledMarkdown = record.markdown;
    expect(isUndecided(record)).toBe(false);
    record.markdown += '\n\nmore';
    expect(isUndecided(record)).toBe(true);
    expect(isUndecided({ ...record, origin: 'history' })).toBe(false);
    expect(isUndecided({ ...record, markdown: null })).toBe(false);
  });
});

describe('claimBlocks: DESIGN §6.2 over a finished reply', () => {
  it('runs the ready blocks of a live reply in order, and records each with the loop guard', () => {
    const guard = new LoopGuard({ maxAutoCalls: 20, maxSameInRow: 3 });
    const record = reply([tracked(only(READ)), tracked(only(LIST))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard, conversation: 'c' });
    expect(outcome.run.map((b) => b.index)).toEqual([0, 1]);
    expect(outcome.refused).toEqual([]);
    expect(guard.check('c', 'x')).toEqual({ ok: true });
  });

  it('nothing runs with auto-run off, from history or from a user message — and no note is forced on the chip', () => {
    const blocks = [tracked(only(READ))];
    for (const [settings, extra] of [
      [{ enabled: true, autoRun: false }, {}],
      [ON, { origin: 'history' as const }],
      [ON, { role: 'user' as const }],
      [{ enabled: false, autoRun: true }, {}],
    ] as const) {
      const outcome = claimBlocks({ settings, record: reply(blocks, extra), ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
      expect(outcome).toEqual({ run: [], refused: [] });
    }
  });

  it('a block in the ledger is refused with a note and offers Re-run', () => {
    const record = reply([tracked(only(READ))]);
    const key = record.blocks[0]!.key;
    const outcome = claimBlocks({ settings: ON, record, ran: new Set([key]), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run).toEqual([]);
    expect(outcome.refused).toEqual([{ tracked: record.blocks[0], note: 'already ran before', ranBefore: true }]);
  });

  it('the loop guard refuses the same call a fourth time in a row and says why', () => {
    const guard = new LoopGuard({ maxAutoCalls: 20, maxSameInRow: 3 });
    for (let i = 0; i < 3; i++) {
      expect(claimBlocks({ settings: ON, record: reply([tracked(only(READ))]), ran: new Set(), guard, conversation: 'c' }).run).toHaveLength(1);
    }
    const outcome = claimBlocks({ settings: ON, record: reply([tracked(only(READ))]), ran: new Set(), guard, conversation: 'c' });
    expect(outcome.run).toEqual([]);
    expect(outcome.refused[0]?.note).toMatch(/same call came 3 times/);
  });

  it('only ready blocks are considered (writing, running, done, unreadable are not)', () => {
    const states: BlockState[] = ['writing', 'running', 'done', 'unreadable', 'failed'];
    const record = reply(states.map((state) => tracked(only(READ), state)));
    expect(claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' })).toEqual({ run: [], refused: [] });
  });
});

describe('chipView: what a chip offers and why a ready block waits', () => {
  const on = (): boolean => true;
  const off = (): boolean => false;

  it('actions follow the state', () => {
    const view = (state: BlockState, ranBefore = false) => chipView({ origin: 'live' }, { state, ranBefore, note: undefined, unreadable: undefined }, on, t).actions;
    expect(view('ready')).toEqual(['run']);
    expect(view('ready', true)).toEqual(['rerun']);
    expect(view('queued')).toEqual(['stop']);
    expect(view('running')).toEqual(['stop']);
    expect(view('approval')).toEqual(['stop']);
    expect(view('done')).toEqual(['rerun']);
    expect(view('failed')).toEqual(['rerun']);
    expect(view('writing')).toEqual([]);
    expect(view('unreadable')).toEqual([]);
  });

  it('a ready block says it is history, or that auto-run is off; a block note wins; unreadable says why', () => {
    const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined };
    expect(chipView({ origin: 'history' }, ready, on, t).note).toBe(t('note.history'));
    expect(chipView({ origin: 'live' }, ready, off, t).note).toBe(t('note.autoRunOff'));
    expect(chipView({ origin: 'live' }, ready, on, t).note).toBeUndefined();
    expect(chipView({ origin: 'live' }, { ...ready, note: 'already ran before' }, off, t).note).toBe('already ran before');
    expect(chipView({ origin: 'live' }, { ...ready, state: 'unreadable', unreadable: 'lines missing' }, on, t).note).toBe('lines missing');
  });
});
