import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import type { Block } from '../../shared/protocols/types';
import type { Escape, MessageRecord, TrackedBlock } from '../../extension/content/page-context';
import {
  CANDIDATE_GRACE_MS,
  CANDIDATE_MAX_MS,
  ESCAPE_CONFIRM_MS,
  escapedSince,
  settleEscapes,
  STOP_BEFORE_ROW_MS,
  blockCutAtEnd,
  candidateVerdict,
  chipView,
  claimBlocks,
  isUndecided,
  jsonStopsShort,
  keepsBlock,
  replyEnding,
  stoppedByPerson,
  stoppedElsewhere,
} from '../../extension/content/page-decide';
import { LoopGuard, type BlockState } from '../../extension/scanner/blocks';
import { t } from '../../extension/ui/i18n';
import { messageIn, useLocale } from './i18n-fake';

/** The page's decisions without a page: plain records and blocks in, verdicts out. */

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
    seenGenerating: true,
    firstSeenAt: 0,
    turnSeenAt: 0,
    answers: null,
    lastChangeAt: 0,
    timesGrown: 2,
    text: '',
    markdown: blocks.map((b) => b.block.raw).join('\n\n'),
    serialized: null,
    outlined: false,
    blocks: blocks.map((b, index) => ({ ...b, index })),
    handledMarkdown: null,
    stop: null,
    continuedAt: null,
    ending: 'normal',
    unplacedReasoning: null,
    choicePending: false,
    candidates: new Set(),
    idle: null,
    olderVersions: false,
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
  const base = { age: 100, generating: true as boolean | undefined, isLatest: true, timesGrown: 0, answeredSinceSend: false, followsSend: true };

  it('the newest message while the site generates is live', () => {
    expect(candidateVerdict(base)).toBe('live');
  });

  it('an older message is dropped once the grace period is over; before that it waits', () => {
    expect(candidateVerdict({ ...base, isLatest: false })).toBe('wait');
    expect(candidateVerdict({ ...base, isLatest: false, age: CANDIDATE_GRACE_MS + 1 })).toBe('drop');
  });

  it('without a site signal, growing text after a send makes it live; it is watched at most CANDIDATE_MAX_MS', () => {
    expect(candidateVerdict({ ...base, generating: undefined })).toBe('wait');
    expect(candidateVerdict({ ...base, generating: undefined, timesGrown: 1 })).toBe('live');
    // once a reply to the send ended, an old reply mounted again (a branch switch) fills in once: not being written;
    // a regenerated reply is seen growing on scan after scan
    expect(candidateVerdict({ ...base, generating: undefined, timesGrown: 1, answeredSinceSend: true })).toBe('wait');
    expect(candidateVerdict({ ...base, generating: undefined, timesGrown: 2, answeredSinceSend: true })).toBe('live');
    // a saved conversation the site renders in after the page started grows too, but follows no send
    expect(candidateVerdict({ ...base, generating: undefined, timesGrown: 2, followsSend: false })).toBe('wait');
    expect(candidateVerdict({ ...base, followsSend: false })).toBe('live');
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

  it('nothing runs while the site asks which of the candidate replies to keep, and no note is kept on the chip', () => {
    const record = reply([tracked(only(READ)), tracked(only(LIST))], { choicePending: true });
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run).toEqual([]);
    expect(outcome.refused.map((r) => [r.tracked.index, r.reason, r.note])).toEqual([
      [0, 'choice-pending', undefined],
      [1, 'choice-pending', undefined],
    ]);
  });

  it('a block in the ledger is refused with a note and offers Re-run', () => {
    const record = reply([tracked(only(READ))]);
    const key = record.blocks[0]!.key;
    const outcome = claimBlocks({ settings: ON, record, ran: new Set([key]), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run).toEqual([]);
    expect(outcome.refused).toEqual([{ tracked: record.blocks[0], note: 'already ran before', ranBefore: true, reason: 'already-ran' }]);
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

  it('in Chinese: why a block did not run by itself (it ran before, the loop guard paused auto-run)', () => {
    useLocale('zh_CN');
    const record = reply([tracked(only(READ))]);
    const again = claimBlocks({ settings: ON, record, ran: new Set([record.blocks[0]!.key]), guard: new LoopGuard(), conversation: 'c' });
    expect(again.refused[0]?.note).toBe('之前已经运行过');
    const same = new LoopGuard({ maxAutoCalls: 20, maxSameInRow: 3 });
    for (let i = 0; i < 3; i++) claimBlocks({ settings: ON, record: reply([tracked(only(READ))]), ran: new Set(), guard: same, conversation: 'c' });
    expect(claimBlocks({ settings: ON, record: reply([tracked(only(READ))]), ran: new Set(), guard: same, conversation: 'c' }).refused[0]?.note).toBe(
      '自动运行已暂停：同一个调用已连续出现 3 次',
    );
    const many = new LoopGuard({ maxAutoCalls: 2, maxSameInRow: 3 });
    for (const block of [READ, LIST]) claimBlocks({ settings: ON, record: reply([tracked(only(block))]), ran: new Set(), guard: many, conversation: 'c' });
    expect(many.check('c', 'x')).toEqual({ ok: false, reason: '自动运行已暂停：自你上次输入以来，此对话中已自动调用 2 次' });
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
    const view = (state: BlockState, ranBefore = false) =>
      chipView({ origin: 'live', ending: 'normal' }, { state, ranBefore, note: undefined, unreadable: undefined, block: { raw: '' } }, on, t).actions;
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
    const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined, block: { raw: '' } };
    const live = { origin: 'live' as const, ending: 'normal' as const };
    expect(chipView({ ...live, origin: 'history' }, ready, on, t).note).toBe(t('note.history'));
    expect(chipView(live, ready, off, t).note).toBe(t('note.autoRunOff'));
    expect(chipView(live, ready, on, t).note).toBeUndefined();
    expect(chipView({ ...live, choicePending: true }, ready, on, t).note).toBe(t('note.choicePending'));
    expect(chipView(live, { ...ready, note: 'already ran before' }, off, t).note).toBe('already ran before');
    expect(chipView(live, { ...ready, state: 'unreadable', unreadable: 'lines missing' }, on, t).note).toBe('lines missing');
  });
});

// ------------------------------------------------------------------------------------------------ issue 10

/** A reply as the page reads it back: sites show an unfinished fence as a closed code block. */
function shownClosed(modelText: string): string {
  const fences = (modelText.match(/^```/gm) ?? []).length;
  return fences % 2 === 1 ? `${modelText.replace(/\n?$/, '\n')}\`\`\`` : modelText;
}

const CUT_READ = 'Reading it.\n\n```mcp-request\n{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"fs.read","arguments":{';

describe('stoppedByPerson', () => {
  it('a click on the stop control always stops; Escape only when the reply ended right after it', () => {
    expect(stoppedByPerson(null, 5_000)).toBe(false);
    expect(stoppedByPerson({ at: 1_000, by: 'control' }, 60_000)).toBe(true);
    expect(stoppedByPerson({ at: 1_000, by: 'escape' }, 1_200)).toBe(true);
    expect(stoppedByPerson({ at: 1_000, by: 'escape' }, 1_000 + ESCAPE_CONFIRM_MS)).toBe(true);
    // Escape that closed a menu while the reply went on streaming for a long time is not a stop.
    expect(stoppedByPerson({ at: 1_000, by: 'escape' }, 1_000 + ESCAPE_CONFIRM_MS + 1)).toBe(false);
  });
});

describe("stoppedElsewhere: another tab's Stop told under the person's message (pressed before that tab drew the reply's row)", () => {
  const record = reply([], { answers: 'm:u-1', firstSeenAt: 10_000, turnSeenAt: 9_000 });
  it("stops the reply drawn after that message a moment after the Stop", () => {
    expect(stoppedElsewhere([{ key: 'm:u-1', at: 9_900 }], 'm:a-1', record)).toEqual({ key: 'm:u-1', at: 9_900 });
  });
  it('not a reply drawn after another message, nor one the site drew long after the Stop (a regenerate)', () => {
    expect(stoppedElsewhere([{ key: 'm:u-0', at: 9_900 }], 'm:a-1', record)).toBeUndefined();
    expect(stoppedElsewhere([{ key: 'm:u-1', at: 10_000 - STOP_BEFORE_ROW_MS - 1 }], 'm:a-1', record)).toBeUndefined();
    expect(stoppedElsewhere([{ key: 'm:u-1', at: 9_900 }], 'm:a-1', { ...record, continuedAt: 20_000 })).toBeUndefined();
  });
});

describe('escapedSince: an Escape counts for results only when it stopped its reply', () => {
  it('while the reply is written: counts until a change after ESCAPE_CONFIRM_MS tells the reply went on', () => {
    const record = reply([], { lastChangeAt: 1_000 });
    const escapes: Escape[] = [{ stop: { at: 1_000, by: 'escape' }, record, stopped: null }];
    expect(escapedSince(escapes, 500)).toBe(true);
    expect(escapedSince(escapes, 1_001)).toBe(false);
    record.lastChangeAt = 1_000 + ESCAPE_CONFIRM_MS + 1;
    expect(escapedSince(escapes, 500)).toBe(false);
  });
  it('once the reply is decided: one that stopped it is kept, one that did not is dropped', () => {
    const stopped = reply([], { lastChangeAt: 1_200 });
    const wentOn = reply([], { lastChangeAt: 9_000 });
    const escapes: Escape[] = [
      { stop: { at: 1_000, by: 'escape' }, record: stopped, stopped: null },
      { stop: { at: 2_000, by: 'escape' }, record: wentOn, stopped: null },
    ];
    settleEscapes(escapes, wentOn);
    settleEscapes(escapes, stopped);
    // a later change (the person had the model continue) does not undo a Stop that was
    stopped.lastChangeAt = 50_000;
    expect(escapes.map((e) => e.stopped)).toEqual([true]);
    expect(escapedSince(escapes, 500)).toBe(true);
  });
});

describe('blockCutAtEnd: the block a reply was still writing when it ended', () => {
  it('a fence the page closed for display whose JSON stops short is cut, though the parser calls it complete', () => {
    const markdown = shownClosed(CUT_READ);
    const blocks = findBlocks(markdown);
    expect(blocks[0]?.complete).toBe(true);
    expect(jsonStopsShort(blocks[0]!)).toBe(true);
    expect(blockCutAtEnd(markdown, blocks)).toBe(blocks[0]);
  });

  it('cut inside a string is cut too', () => {
    const markdown = shownClosed(`${CUT_READ}"path":"/home/me/no`);
    expect(blockCutAtEnd(markdown, findBlocks(markdown))).not.toBeNull();
  });

  it('a block whose fence never closed (a site that shows it open) is cut', () => {
    const markdown = CUT_READ;
    const blocks = findBlocks(markdown);
    expect(blocks[0]?.complete).toBe(false);
    expect(blockCutAtEnd(markdown, blocks)).toBe(blocks[0]);
  });

  it('a finished block is not cut, whether or not prose follows', () => {
    expect(blockCutAtEnd(READ, findBlocks(READ))).toBeNull();
    const withProse = `${READ}\n\nThat is all.`;
    expect(blockCutAtEnd(withProse, findBlocks(withProse))).toBeNull();
  });

  it("JSON the model wrote wrong is the model's error, not a cut: it still gets the protocol's error answer", () => {
    // Balanced but not JSON: the model closed it. Unbalanced but followed by prose: the model closed the fence too.
    const wrong = '```mcp-request\n{"jsonrpc": "2.0", "method": tools/call}\n```';
    expect(blockCutAtEnd(wrong, findBlocks(wrong))).toBeNull();
    const unbalancedThenProse = `${shownClosed(CUT_READ)}\n\nSorry, let me fix that.`;
    expect(findBlocks(unbalancedThenProse)[0]?.error).toBeDefined();
    expect(blockCutAtEnd(unbalancedThenProse, findBlocks(unbalancedThenProse))).toBeNull();
  });

  it('only the last block can be cut; an auto_coder plan is complete only once its closer is written', () => {
    const two = `${READ}\n\n${shownClosed(CUT_READ)}`;
    const blocks = findBlocks(two);
    expect(blockCutAtEnd(two, blocks)).toBe(blocks[1]);
    const plan = '#####--{"type":"operate","file_operations":[';
    expect(findBlocks(plan)[0]?.complete).toBe(false);
    const planBlocks = findBlocks(plan);
    expect(blockCutAtEnd(plan, planBlocks)).toBe(planBlocks[0]);
    expect(jsonStopsShort({ kind: 'autocoder', raw: '#####--{"a":[--#####', error: 'x' })).toBe(false);
  });
});

describe('replyEnding', () => {
  const end = (markdown: string, stop: { at: number; by: 'control' | 'escape' } | null = null) =>
    replyEnding({ stop, lastChangeAt: 2_000, markdown, blocks: findBlocks(markdown) });

  it('normal when nobody stopped it and its last block was finished', () => {
    expect(end(READ)).toEqual({ ending: 'normal', cut: null });
  });

  it('stopped when the person stopped it — after a complete block as much as inside one', () => {
    expect(end(`${READ}\n\nNow let me expl`, { at: 1_900, by: 'control' })).toEqual({ ending: 'stopped', cut: null });
    const cut = shownClosed(CUT_READ);
    const ended = end(cut, { at: 1_900, by: 'control' });
    expect(ended.ending).toBe('stopped');
    expect(ended.cut?.raw).toBe(findBlocks(cut)[0]?.raw);
  });

  it('cut when it ended inside its last block without anyone stopping it', () => {
    expect(end(shownClosed(CUT_READ)).ending).toBe('cut');
  });
});

describe('claimBlocks: stopped, cut and unfenced', () => {
  it('a stopped or cut reply runs nothing and forces no note (the chip derives it from the ending)', () => {
    for (const ending of ['stopped', 'cut'] as const) {
      const record = reply([tracked(only(READ)), tracked(only(LIST))], { ending });
      expect(claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' })).toEqual({ run: [], refused: [] });
    }
  });

  it('a block holding a direction override or a zero-width character never auto-runs; the reply\'s other blocks still do', () => {
    const shown = (path: string) => only('```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.write', arguments: { path, content: 'x' } } }) + '\n```');
    const record = reply([tracked(shown('/w/ok\u202Etxt.exe')), tracked(shown('/w/a\u200B.txt')), tracked(only(READ))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run.map((b) => b.block.raw)).toEqual([READ]);
    expect(outcome.refused).toEqual([]);
  });

  it('an unfenced plan never auto-runs; the reply\'s other blocks still do', () => {
    const plan = { ...only('#####--{"type":"operate","file_operations":[]}--#####'), unfenced: true };
    const record = reply([tracked(plan), tracked(only(READ))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run.map((b) => b.block.kind)).toEqual(['mcp-request']);
    expect(outcome.refused).toEqual([]);
  });
});

describe('chipView: stopped, cut and unfenced notes', () => {
  const on = (): boolean => true;
  const off = (): boolean => false;
  const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined, cut: false, block: { raw: '' } };

  it('every block of a stopped reply offers Run and says the reply was stopped — auto-run on or off', () => {
    for (const autoRun of [on, off]) {
      const view = chipView({ origin: 'live', ending: 'stopped' }, ready, autoRun, t);
      expect(view).toEqual({ actions: ['run'], note: t('note.stopped') });
    }
    expect(chipView({ origin: 'live', ending: 'cut' }, ready, on, t).note).toBe(t('note.endedEarly'));
  });

  it('the block the reply was writing says so, and still offers Run; one never completed cannot run', () => {
    expect(chipView({ origin: 'live', ending: 'stopped' }, { ...ready, cut: true }, on, t)).toEqual({ actions: ['run'], note: t('note.stoppedInBlock') });
    expect(chipView({ origin: 'live', ending: 'cut' }, { ...ready, cut: true }, on, t).note).toBe(t('note.endedInBlock'));
    const writing = { ...ready, state: 'writing' as const };
    expect(chipView({ origin: 'live', ending: 'stopped' }, writing, on, t)).toEqual({ actions: [], note: t('note.stoppedIncomplete') });
    expect(chipView({ origin: 'live', ending: 'cut' }, writing, on, t).note).toBe(t('note.endedIncomplete'));
    // While a reply streams (not decided) a block being written has no note.
    expect(chipView({ origin: 'live', ending: 'normal' }, writing, on, t).note).toBeUndefined();
  });

  it('a plan found outside a code block warns that the page may have changed it — live or history — and offers Run', () => {
    const unfenced = { ...ready, block: { unfenced: true, raw: '' } };
    expect(chipView({ origin: 'live', ending: 'normal' }, unfenced, on, t)).toEqual({ actions: ['run'], note: t('note.unfenced') });
    expect(chipView({ origin: 'history', ending: 'normal' }, unfenced, on, t).note).toBe(t('note.unfenced'));
    expect(t('note.unfenced')).toMatch(/indentation, escapes/);
    expect(messageIn('zh_CN', 'note.unfenced')).toMatch(/缩进、转义/);
  });

  it('a block holding characters the page does not show says so and offers Run; one with emoji or Persian text does not', () => {
    const hidden = { ...ready, block: { raw: '```mcp-request\n{"path":"a\u2066.txt"}\n```' } };
    expect(chipView({ origin: 'live', ending: 'normal' }, hidden, on, t)).toEqual({ actions: ['run'], note: t('note.hidden') });
    expect(t('note.hidden')).toMatch(/never runs by itself/);
    expect(messageIn('zh_CN', 'note.hidden')).toMatch(/不会自动运行/);
    const plain = { ...ready, block: { raw: '```mcp-request\n{"content":"👨\u200D👩\u200D👧 می\u200Cخواهم"}\n```' } };
    expect(chipView({ origin: 'live', ending: 'normal' }, plain, on, t).note).toBeUndefined();
  });
});

describe('a call in a code block whose page hid its label (Block.labelHidden)', () => {
  const hidden = only('```label-hidden-by-page\n{"jsonrpc":"2.0","id":"9","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}\n```');

  it('never auto-runs; the reply\'s other blocks still do', () => {
    expect(hidden.labelHidden).toBe(true);
    const record = reply([tracked(hidden), tracked(only(READ))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run.map((b) => b.block.raw)).toEqual([READ]);
    expect(outcome.refused).toEqual([]);
  });

  it('offers Run and says the page hid the block\'s label — live or history', () => {
    const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined, cut: false, block: hidden };
    expect(chipView({ origin: 'live', ending: 'normal' }, ready, () => true, t)).toEqual({ actions: ['run'], note: t('note.labelHidden') });
    expect(chipView({ origin: 'history', ending: 'normal' }, ready, () => true, t).note).toBe(t('note.labelHidden'));
    expect(t('note.labelHidden')).toMatch(/does not show the label/);
    expect(messageIn('zh_CN', 'note.labelHidden')).toMatch(/不显示代码块书写时的标签/);
  });
});

describe('an <invoke> written without its <function_calls> (Block.unwrapped)', () => {
  const bare = only('I will read it.\n\n```xml\n<invoke name="fs.read">\n<parameter name="path">notes/a.txt</parameter>\n</invoke>\n```\n');

  it('never auto-runs; the reply\'s other blocks still do', () => {
    expect(bare.unwrapped).toBe(true);
    const record = reply([tracked(bare), tracked(only(READ))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run.map((b) => b.block.raw)).toEqual([READ]);
  });

  it('offers Run and says why it waits — live or history, in both languages', () => {
    const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined, cut: false, block: bare };
    expect(chipView({ origin: 'live', ending: 'normal' }, ready, () => true, t)).toEqual({ actions: ['run'], note: t('note.unwrapped') });
    expect(chipView({ origin: 'history', ending: 'normal' }, ready, () => true, t).note).toBe(t('note.unwrapped'));
    expect(t('note.unwrapped')).toMatch(/without the <function_calls>/);
    expect(messageIn('zh_CN', 'note.unwrapped')).toMatch(/不会自动运行/);
  });
});

describe('an Axon plan written inside a block quote (Block.quoted)', () => {
  const plan = '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\na.txt\n~~~~~\n~~~~~text\nA\n~~~~~';
  const quoted = only(`Here it is:\n\n${plan.split('\n').map((line) => `> ${line}`).join('\n')}\n`);

  it('never auto-runs; the reply\'s other blocks still do', () => {
    expect(quoted.quoted).toBe(true);
    const record = reply([tracked(quoted), tracked(only(READ))]);
    const outcome = claimBlocks({ settings: ON, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    expect(outcome.run.map((b) => b.block.raw)).toEqual([READ]);
  });

  it('offers Run and says why it waits — live or history, in both languages', () => {
    const ready = { state: 'ready' as const, ranBefore: false, note: undefined, unreadable: undefined, cut: false, block: quoted };
    expect(chipView({ origin: 'live', ending: 'normal' }, ready, () => true, t)).toEqual({ actions: ['run'], note: t('note.quoted') });
    expect(chipView({ origin: 'history', ending: 'normal' }, ready, () => true, t).note).toBe(t('note.quoted'));
    expect(t('note.quoted')).toMatch(/inside a quote/);
    expect(messageIn('zh_CN', 'note.quoted')).toMatch(/不会自动运行/);
  });
});
