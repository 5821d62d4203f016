import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { BLOCK_KINDS, PROTOCOLS, findBlocks, outlineBlocks, scanFences, type Block } from '../../../shared/protocols';
import { parseJsonLenient } from '../../../shared/protocols/json';
import { loadBlockFixtures } from './block-fixtures';

/**
 * Random and mutated inputs, seeded so a failure reproduces. Lines are drawn from the pieces the parsers
 * react to (fences of both kinds and several lengths, labels, markers, JSON fragments, CRLF, Chinese text).
 */

const SEED = 20261122;
const RUNS = 300;

const LINES = [
  '```mcp-request',
  '```flycode-call',
  '```',
  '````',
  '````markdown',
  '~~~~~act',
  '~~~~~',
  '~~~~~end',
  '~~~ path',
  '   ```json',
  '    ```',
  'write_file',
  'replace',
  'check_files_exist',
  '#####--',
  '--#####',
  '#####--{"type":"operate"}--#####',
  '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/tmp"}}}',
  '{"id":"call-001","tool":"fs.read","args":{"path":"C:\\\\a.txt"}}',
  '{"type": "operate", # 注释',
  '"file_content": "a',
  '}',
  '{',
  ']',
  '好的，我来处理。',
  '',
  'x',
];

const piece = fc.oneof(
  fc.constantFrom(...LINES),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('`', '~', '#', '-', '"', '\\', '{', '}', '\r', ' '),
);
const line = fc.array(piece, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
const document = fc
  .tuple(fc.array(line, { maxLength: 40 }), fc.boolean())
  .map(([lines, crlf]) => lines.join(crlf ? '\r\n' : '\n'));
const tokenDocument = fc
  .tuple(fc.array(fc.constantFrom(...LINES), { maxLength: 40 }), fc.boolean())
  .map(([lines, crlf]) => lines.map((l) => l + (crlf ? '\r\n' : '\n')).join(''));

function sameBlock(a: Block, b: Block): boolean {
  return (
    a.kind === b.kind &&
    a.start === b.start &&
    a.raw === b.raw &&
    a.error === b.error &&
    isDeepStrictEqual(a.payload, b.payload)
  );
}

describe('findBlocks on random input', () => {
  it('never throws; raw is the slice at [start, end); blocks come in text order', () => {
    fc.assert(
      fc.property(document, (markdown) => {
        const blocks = findBlocks(markdown);
        let previous = -1;
        for (const block of blocks) {
          expect(block.raw).toBe(markdown.slice(block.start, block.end));
          expect(block.start).toBeGreaterThanOrEqual(previous);
          previous = block.start;
          if (!block.complete) {
            expect(block.payload).toBeUndefined();
            expect(block.error).toBeUndefined();
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('no protocol throws (findBlocks would hide it)', () => {
    fc.assert(
      fc.property(document, (markdown) => {
        const fences = scanFences(markdown);
        for (const protocol of PROTOCOLS) expect(() => protocol.find(markdown, fences)).not.toThrow();
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('findBlocks(text, kind) is findBlocks(text) filtered to that kind (the companion asks for one kind)', () => {
    fc.assert(
      fc.property(document, (markdown) => {
        const all = findBlocks(markdown);
        for (const kind of BLOCK_KINDS) expect(findBlocks(markdown, kind)).toEqual(all.filter((b) => b.kind === kind));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('re-parsing a block raw text finds the same block', () => {
    fc.assert(
      fc.property(document, (markdown) => {
        for (const block of findBlocks(markdown)) {
          const again = findBlocks(block.raw).find((b) => b.kind === block.kind && b.start === 0 && b.end === block.raw.length);
          expect(again, JSON.stringify(block.raw)).toBeDefined();
          expect(again?.complete).toBe(block.complete);
          expect(isDeepStrictEqual(again?.payload, block.payload)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('a reply cut at a line end never shows a complete block that differs from the final one', () => {
    fc.assert(
      fc.property(tokenDocument, (markdown) => {
        const final = findBlocks(markdown).filter((b) => b.complete);
        let at = markdown.indexOf('\n');
        while (at !== -1) {
          for (const block of findBlocks(markdown.slice(0, at + 1))) {
            if (block.complete) expect(final.some((f) => sameBlock(f, block)), JSON.stringify(block.raw)).toBe(true);
          }
          at = markdown.indexOf('\n', at + 1);
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('mutated fixtures (characters deleted, inserted, swapped) never throw and keep raw = slice', () => {
    const fixtures = loadBlockFixtures().filter((f) => f.markdown.length < 4_000);
    const mutation = fc.record({
      index: fc.nat({ max: fixtures.length - 1 }),
      edits: fc.array(
        fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), remove: fc.nat({ max: 5 }), insert: piece }),
        { minLength: 1, maxLength: 6 },
      ),
    });
    fc.assert(
      fc.property(mutation, ({ index, edits }) => {
        let markdown = fixtures[index]?.markdown ?? '';
        for (const edit of edits) {
          const at = Math.floor(edit.at * markdown.length);
          markdown = markdown.slice(0, at) + edit.insert + markdown.slice(at + edit.remove);
        }
        for (const block of findBlocks(markdown)) expect(block.raw).toBe(markdown.slice(block.start, block.end));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('outlineBlocks (a reply still being written) on random input', () => {
  it('reports a block of the same kind and completeness wherever findBlocks does, and parses no JSON block', () => {
    for (const input of [document, tokenDocument]) {
      fc.assert(
        fc.property(input, (markdown) => {
          const outlines = outlineBlocks(markdown);
          for (const o of outlines) expect(o.raw).toBe(markdown.slice(o.start, o.end));
          for (const o of outlines.filter((b) => b.kind === 'mcp-request' || b.kind === 'flycode-call')) {
            expect(o.payload).toBeUndefined();
            expect(o.error).toBeUndefined();
          }
          for (const found of findBlocks(markdown)) {
            const same = outlines.find((o) => o.kind === found.kind && o.start === found.start);
            expect(same, `${found.kind} at ${found.start} in ${JSON.stringify(markdown)}`).toBeDefined();
            // the bound's stand-in block spans many fences: its completeness is the last one's
            if (found.notRead === undefined) expect(same?.complete).toBe(found.complete);
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
  });
});

describe('parseJsonLenient on random input', () => {
  it('never throws, and strict JSON is returned as is and not marked repaired', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = parseJsonLenient(JSON.stringify(value, null, 1));
        expect(result).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)), repaired: false });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = parseJsonLenient(text);
        if (result.ok && result.repaired) expect(typeof result.value).toBe('object');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
