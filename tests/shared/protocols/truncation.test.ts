import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { findBlocks, type Block } from '../../../shared/protocols';
import { loadBlockFixtures } from './block-fixtures';

/**
 * A reply read mid-stream (cut at any character) must never show a complete block that differs from the
 * final one: every complete block of a prefix equals — position, raw, payload, error, repaired — a complete
 * block of the whole reply. Short fixtures are cut at every character; long ones at every character near a
 * fence line, a `#####--`/`--#####` marker or a block boundary, plus evenly spaced cuts.
 */

const EVERY_CUT_UP_TO = 6_000;

/**
 * CommonMark itself is ambiguous mid-stream here: a line "```" closes the fence, "``` 好了" does not. A cut
 * right after the three backticks therefore shows a closed block that the rest of the line reopens. No
 * parser can know the line will go on; the fixture documents the final reading.
 */
const AMBIGUOUS_MID_STREAM = new Set([
  'mcp-request/closing-line-with-text-does-not-close',
  // The same for a tilde fence: a prose mention opened an act fence, and the real act fence's opening line
  // `~~~~~act`, cut after its tildes, reads as the line `~~~~~` that closes the mention (issue 10 §3).
  'axon/mention-line-swallows-act',
  'axon/mention-own-line-english',
]);

function cutPoints(markdown: string, blocks: Block[]): number[] {
  const n = markdown.length;
  if (n <= EVERY_CUT_UP_TO) return Array.from({ length: n + 1 }, (_, i) => i);
  const cuts = new Set<number>();
  const near = (at: number) => {
    for (let d = -3; d <= 3; d++) if (at + d >= 0 && at + d <= n) cuts.add(at + d);
  };
  for (const block of blocks) {
    near(block.start);
    near(block.end);
  }
  const markers = /^ {0,3}(`{3,}|~{3,})|#####--|--#####/gm;
  for (const match of markdown.matchAll(markers)) {
    near(match.index);
    near(markdown.indexOf('\n', match.index) === -1 ? n : markdown.indexOf('\n', match.index));
  }
  for (let i = 0; i <= 200; i++) cuts.add(Math.floor((n * i) / 200));
  return [...cuts].sort((a, b) => a - b);
}

function sameBlock(a: Block, b: Block): boolean {
  return (
    a.kind === b.kind &&
    a.start === b.start &&
    a.end === b.end &&
    a.raw === b.raw &&
    a.error === b.error &&
    (a.repaired ?? false) === (b.repaired ?? false) &&
    isDeepStrictEqual(a.payload, b.payload)
  );
}

describe('a truncated reply never yields a complete block that differs from the final one', () => {
  const fixtures = loadBlockFixtures().filter((f) => !AMBIGUOUS_MID_STREAM.has(f.name));
  it.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const final = findBlocks(fixture.markdown).filter((b) => b.complete);
    const wrong: string[] = [];
    for (const cut of cutPoints(fixture.markdown, final)) {
      const prefix = fixture.markdown.slice(0, cut);
      for (const block of findBlocks(prefix)) {
        // A plan written inside a quote is read only while the reply holds no block of its own (shared/protocols/
        // quoted.ts): a block of its own that comes after it makes the quote a mention. It never runs by itself.
        if (block.quoted === true && !final.some((f) => f.quoted === true)) continue;
        if (block.complete && !final.some((f) => sameBlock(f, block))) {
          wrong.push(`cut at ${cut}: ${block.kind} ${JSON.stringify(block.raw.slice(0, 120))} error=${block.error}`);
          if (wrong.length > 5) break;
        }
      }
      if (wrong.length > 5) break;
    }
    expect(wrong).toEqual([]);
  });
});

/** A cut right after a line's fence run (and spaces), where the full reply's line goes on: the one place CommonMark is ambiguous. */
function cutInsideFenceLine(markdown: string, cut: number): boolean {
  const lineStart = markdown.lastIndexOf('\n', cut - 1) + 1;
  const next = markdown[cut];
  return /^ {0,3}(`{3,}|~{3,})[ \t]*$/.test(markdown.slice(lineStart, cut)) && next !== undefined && next !== '\n' && next !== '\r';
}

describe('the fixtures left out above still hold at every other cut', () => {
  const fixtures = loadBlockFixtures().filter((f) => AMBIGUOUS_MID_STREAM.has(f.name));
  it.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const final = findBlocks(fixture.markdown).filter((b) => b.complete);
    const wrong: string[] = [];
    for (const cut of cutPoints(fixture.markdown, final)) {
      if (cutInsideFenceLine(fixture.markdown, cut)) continue;
      for (const block of findBlocks(fixture.markdown.slice(0, cut))) {
        if (block.complete && !final.some((f) => sameBlock(f, block))) {
          wrong.push(`cut at ${cut}: ${block.kind} ${JSON.stringify(block.raw.slice(0, 120))} error=${block.error}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
