import { describe, expect, it } from 'vitest';
import { findBlocks, type Block } from '../../../shared/protocols';
import { MAX_BLOCKS_PER_KIND } from '../../../shared/protocols/define-protocol';
import { LIBRARY_REPAIR_BUDGET, LIBRARY_REPAIR_LIMIT, prepareForRepair } from '../../../shared/protocols/json';

/**
 * Issue 10 §2: a reply with many blocks. Every block up to the bound is read; past it (or past the message's JSON
 * repair budget) the rest is reported as ONE complete block whose error says how many were not read and why, and
 * the companion, re-parsing that block's raw text alone, finds the same block with the same error.
 */

const mcpCall = (i: number) =>
  '```mcp-request\n' +
  JSON.stringify({ jsonrpc: '2.0', id: `call-${i}`, method: 'tools/call', params: { name: 'fs.read', arguments: { path: `/work/notes/${i}.md` } } }) +
  '\n```\n';
const flycodeCall = (i: number) =>
  '```flycode-call\n' + JSON.stringify({ id: `call-${i}`, tool: 'fs.read', args: { path: `/work/notes/${i}.md` } }) + '\n```\n';
const plan = (i: number) =>
  `#####--\n${JSON.stringify({ metadata: { step_id: `s_${i}`, reason: 'read' }, type: 'operate', file_operations: [{ action_type: 'read_file', path: `notes/${i}.md` }] })}\n--#####\n`;

function reply(count: number, block: (i: number) => string): string {
  return `I'll read them all at once:\n\n${Array.from({ length: count }, (_, i) => block(i)).join('\n')}\nTell me when you have the results.`;
}

function notReadOf(blocks: Block[]): Block[] {
  return blocks.filter((b) => b.notRead !== undefined);
}

/** The companion's view: the block's raw text alone gives the same block back. */
function expectReparsedTheSame(block: Block): void {
  const again = findBlocks(block.raw).filter((b) => b.kind === block.kind && b.start === 0 && b.end === block.raw.length);
  expect(again).toHaveLength(1);
  expect(again[0]?.error).toBe(block.error);
  expect(again[0]?.notRead).toBe(block.notRead);
  expect(again[0]?.complete).toBe(block.complete);
}

describe('hundreds of blocks in one reply', () => {
  it.each([
    ['mcp-request', mcpCall],
    ['flycode-call', flycodeCall],
  ] as const)('%s: 500 calls are all read, in order, none dropped', (kind, call) => {
    const blocks = findBlocks(reply(500, call));
    expect(blocks).toHaveLength(500);
    expect(notReadOf(blocks)).toEqual([]);
    expect(blocks.every((b) => b.kind === kind && b.complete && b.error === undefined)).toBe(true);
    expect(blocks.map((b) => (b.payload as { id: string }).id)).toEqual(Array.from({ length: 500 }, (_, i) => `call-${i}`));
  });

  it('auto_coder: 200 plans are all read; the first is the plan, the rest are ignored (one plan per reply)', () => {
    const blocks = findBlocks(reply(200, plan));
    expect(blocks).toHaveLength(200);
    expect(blocks[0]?.error).toBeUndefined();
    expect(blocks.slice(1).every((b) => b.error?.startsWith('ignored:'))).toBe(true);
  });
});

describe(`past ${MAX_BLOCKS_PER_KIND} blocks of a kind: one block says how many were not read`, () => {
  it.each([
    ['mcp-request', mcpCall],
    ['flycode-call', flycodeCall],
  ] as const)('%s', (kind, call) => {
    const markdown = reply(MAX_BLOCKS_PER_KIND + 234, call);
    const blocks = findBlocks(markdown);
    expect(blocks).toHaveLength(MAX_BLOCKS_PER_KIND + 1);
    const [cut] = notReadOf(blocks);
    expect(cut).toMatchObject({ kind, complete: true, notRead: 234 });
    expect(cut?.payload).toBeUndefined();
    expect(cut?.error).toBe(
      `the last 234 ${kind} blocks of this reply were not read: chatbridge reads at most ${MAX_BLOCKS_PER_KIND} ${kind} blocks per reply. ` +
        'None of them ran; split the calls over several replies.',
    );
    // it spans every block of its kind, so a re-parse of its text reads the same blocks and stops at the same place
    const calls = blocks.filter((b) => b !== cut);
    expect(cut?.start).toBe(calls[0]?.start);
    expect(cut?.raw.trimEnd().endsWith('"/work/notes/1233.md"}}}\n```') || cut?.raw.endsWith('"/work/notes/1233.md"}}\n```')).toBe(true);
    expect(cut?.raw).toBe(markdown.slice(cut?.start, cut?.end));
    expectReparsedTheSame(cut as Block);
    // the blocks that were read are the first ones, untouched
    expect(calls.map((b) => (b.payload as { id: string }).id)).toEqual(Array.from({ length: MAX_BLOCKS_PER_KIND }, (_, i) => `call-${i}`));
  });

  it('auto_coder', () => {
    const markdown = reply(MAX_BLOCKS_PER_KIND + 5, plan);
    const blocks = findBlocks(markdown);
    const [cut] = notReadOf(blocks);
    expect(blocks).toHaveLength(MAX_BLOCKS_PER_KIND + 1);
    expect(cut).toMatchObject({ kind: 'autocoder', complete: true, notRead: 5 });
    expect(cut?.error).toContain('the last 5 auto_coder candidates (#####-- … --#####) of this reply were not read');
    expect(cut?.error).toContain('split the calls over several replies');
    expectReparsedTheSame(cut as Block);
  });

  it('one more than the bound: "the last … block was not read"', () => {
    const blocks = findBlocks(reply(MAX_BLOCKS_PER_KIND + 1, flycodeCall));
    const [cut] = notReadOf(blocks);
    expect(cut?.error).toMatch(/^the last flycode-call block of this reply was not read: .* It did not run; split the calls/);
    expect(cut?.raw).toContain('"call-0"');
    expectReparsedTheSame(cut as Block);
  });

  it('the bound is per kind: 1000 of one kind and a few of another are all read', () => {
    const markdown = reply(MAX_BLOCKS_PER_KIND, mcpCall) + '\n\n' + flycodeCall(1) + '\n' + plan(1);
    const blocks = findBlocks(markdown);
    expect(notReadOf(blocks)).toEqual([]);
    expect(blocks).toHaveLength(MAX_BLOCKS_PER_KIND + 2);
  });

  it('while the last call is still being written the block is incomplete (shown as writing, never run)', () => {
    const markdown = reply(MAX_BLOCKS_PER_KIND + 3, mcpCall);
    const streaming = markdown.slice(0, markdown.lastIndexOf('```'));
    const [cut] = notReadOf(findBlocks(streaming));
    expect(cut).toMatchObject({ complete: false, notRead: 3 });
    expect(cut?.end).toBe(streaming.length);
  });

  it('sorted by position it sits right after the first block of its kind: the blocks before it keep their places', () => {
    const markdown = 'First a plan:\n\n' + plan(0) + '\n' + reply(MAX_BLOCKS_PER_KIND + 2, mcpCall);
    const blocks = findBlocks(markdown);
    expect(blocks[0]?.kind).toBe('autocoder');
    expect(blocks[1]?.kind).toBe('mcp-request');
    expect(blocks[2]?.notRead).toBe(2);
  });
});

describe('past the JSON repair budget of a message: the same, with its reason', () => {
  // about 4 000 characters each once commas are put back: under the per-block repair limit, only the library reads it
  const needsLibrary = (i: number) => '```mcp-request\n[' + `{"a":b${i % 10}} `.repeat(400) + ']\n```\n';
  const perBlock = prepareForRepair('[' + '{"a":b0} '.repeat(400) + ']\n').text.length;

  it('the blocks that fit are read (repaired); the first that does not, and every one after it, are reported together', () => {
    expect(perBlock).toBeLessThanOrEqual(LIBRARY_REPAIR_LIMIT);
    const fit = Math.floor(LIBRARY_REPAIR_BUDGET / perBlock);
    const markdown = Array.from({ length: fit + 7 }, (_, i) => needsLibrary(i)).join('\n');
    const blocks = findBlocks(markdown);
    const [cut] = notReadOf(blocks);
    expect(blocks).toHaveLength(fit + 1);
    expect(blocks.filter((b) => b !== cut).every((b) => b.repaired === true)).toBe(true);
    expect(cut).toMatchObject({ kind: 'mcp-request', complete: true, notRead: 7 });
    expect(cut?.error).toContain('the last 7 mcp-request blocks of this reply were not read: the first of them needs its JSON repaired');
    expect(cut?.error).toContain(`${LIBRARY_REPAIR_BUDGET}-character budget`);
    expect(cut?.error).toContain('write strict JSON, or split the calls over several replies');
    expectReparsedTheSame(cut as Block);
  });

  it('strict JSON costs nothing from the budget: a thousand strict calls after the repaired ones are read', () => {
    const markdown = Array.from({ length: 20 }, (_, i) => needsLibrary(i)).join('\n') + reply(900, mcpCall);
    const blocks = findBlocks(markdown);
    expect(notReadOf(blocks)).toEqual([]);
    expect(blocks).toHaveLength(920);
  });

  it('a reply of a thousand blocks that all need the library parses in bounded time', () => {
    const markdown = Array.from({ length: MAX_BLOCKS_PER_KIND }, (_, i) => needsLibrary(i)).join('\n');
    const started = performance.now();
    const blocks = findBlocks(markdown);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(notReadOf(blocks)[0]?.notRead).toBeGreaterThan(900);
  });
});
