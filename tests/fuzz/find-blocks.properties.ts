import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { BLOCK_KINDS, findBlocks, PROTOCOLS, quotedPlan, scanFences, withoutContent, withoutExamples, withoutQuotedResults, type Block } from '../../shared/protocols';
import { applyMutation, blockText, fencedText, markerText, mutation } from './arbitraries';
import { loadCorpus } from './corpus';
import type { FuzzProperty } from './fuzz-settings';

/*
 * findBlocks on text nobody wrote on purpose: it never throws, every block is a faithful slice of the input,
 * and the companion's re-parse of a block's raw text (findBlocks(block.raw)) finds the same block.
 */

function show(text: string): string {
  return JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);
}

/**
 * findBlocks swallows a protocol that throws (one broken protocol must not hide the others' blocks), so each
 * protocol runs here on its own: none may throw, and together they give exactly the blocks findBlocks reports
 * (less those inside another kind's block, which are its content: `withoutContent`, and those inside a result quoted
 * back: `withoutQuotedResults`, and those shown as an example before a block of their kind: `withoutExamples`; with none
 * at all, the Axon plan written inside a block quote: `quotedPlan`).
 */
function checkProtocolsDirectly(markdown: string, found: number): void {
  const fences = scanFences(markdown);
  const all: Block[] = [];
  for (const protocol of PROTOCOLS) {
    try {
      all.push(...protocol.find(markdown, fences));
    } catch (error) {
      throw new Error(`the ${protocol.kind} protocol throws on ${show(markdown)}: ${String(error)}`, { cause: error });
    }
  }
  const own = withoutExamples(withoutContent(withoutQuotedResults(all, markdown, fences)), markdown).length;
  // a plan written wholly inside a block quote counts only when the protocols found no block at all
  const total = all.length === 0 ? withoutExamples(quotedPlan(markdown), markdown).length : own;
  if (total !== found) throw new Error(`the protocols find ${total} blocks, findBlocks reports ${found}, in ${show(markdown)}`);
}

/** Throws with the first broken rule; returns the blocks so callers can check more. */
export function checkBlocksOf(markdown: string): Block[] {
  const blocks = findBlocks(markdown);
  if (!Array.isArray(blocks)) throw new Error('findBlocks did not return an array');
  checkProtocolsDirectly(markdown, blocks.length);
  let previous: Block | undefined;
  for (const block of blocks) {
    const where = `${block.kind} block at ${block.start}–${block.end} of ${show(markdown)}`;
    if (!(BLOCK_KINDS as readonly string[]).includes(block.kind)) throw new Error(`unknown kind in ${where}`);
    if (!(Number.isInteger(block.start) && Number.isInteger(block.end) && 0 <= block.start && block.start <= block.end && block.end <= markdown.length)) {
      throw new Error(`offsets out of the input: ${where}`);
    }
    if (block.raw !== markdown.slice(block.start, block.end)) throw new Error(`raw is not the slice start..end: ${where}`);
    if (typeof block.complete !== 'boolean') throw new Error(`complete is not a boolean: ${where}`);
    if (!block.complete && block.payload !== undefined) throw new Error(`an incomplete block carries a payload: ${where}`);
    if (block.error !== undefined && (typeof block.error !== 'string' || block.error === '')) {
      throw new Error(`error is not a non-empty string: ${where}`);
    }
    if (previous !== undefined && (previous.start > block.start || (previous.start === block.start && previous.end > block.end))) {
      throw new Error(`blocks out of order: ${where} after ${previous.start}–${previous.end}`);
    }
    previous = block;
  }
  return blocks;
}

/** The companion's view: the block's raw text alone gives the same block back. */
export function checkReparse(markdown: string, blocks: readonly Block[]): void {
  for (const block of blocks) {
    const again = findBlocks(block.raw).filter((b) => b.kind === block.kind && b.start === 0 && b.end === block.raw.length);
    const where = `${block.kind} block ${show(block.raw)} (from ${show(markdown)})`;
    if (again.length !== 1) throw new Error(`re-parsing the raw text finds ${again.length} such blocks: ${where}`);
    const found = again[0] as Block;
    if (found.complete !== block.complete) throw new Error(`re-parse: complete ${found.complete}, was ${block.complete}: ${where}`);
    if (!isDeepStrictEqual(found.payload, block.payload)) {
      throw new Error(`re-parse: payload ${JSON.stringify(found.payload)} differs from ${JSON.stringify(block.payload)}: ${where}`);
    }
    if ((found.repaired ?? false) !== (block.repaired ?? false)) throw new Error(`re-parse: repaired differs: ${where}`);
    // A later auto_coder plan is "ignored" only because an earlier one came first; alone, it is the first.
    if (!(block.error ?? '').startsWith('ignored:') && found.error !== block.error) {
      throw new Error(`re-parse: error ${JSON.stringify(found.error)}, was ${JSON.stringify(block.error)}: ${where}`);
    }
  }
}

function checkText(markdown: string): void {
  checkReparse(markdown, checkBlocksOf(markdown));
}

let corpus: readonly string[] | undefined;
function corpusTexts(): readonly string[] {
  corpus ??= loadCorpus().map((entry) => entry.text);
  return corpus;
}

/** A corpus reply with a few random edits, sometimes with a slice of another reply spliced in. */
function mutatedCorpusText(): fc.Arbitrary<string> {
  const texts = corpusTexts();
  return fc
    .tuple(
      fc.integer({ min: 0, max: texts.length - 1 }),
      fc.array(mutation, { minLength: 1, maxLength: 5 }),
      fc.option(fc.tuple(fc.integer({ min: 0, max: texts.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true })), { nil: undefined }),
    )
    .map(([index, mutations, splice]) => {
      let text = texts[index] as string;
      if (splice !== undefined) {
        const other = texts[splice[0]] as string;
        const at = Math.floor(splice[1] * text.length);
        text = text.slice(0, at) + other + text.slice(at);
      }
      return mutations.reduce(applyMutation, text);
    });
}

export const findBlocksProperties: FuzzProperty[] = [
  {
    name: 'findBlocks on marker-heavy random text: never throws, raw is the slice, re-parse finds the same block',
    runs: 3000,
    property: () => fc.property(markerText(), (text) => checkText(text)),
  },
  {
    name: 'findBlocks on random fence lines (nesting, indentation, CRLF, labels): same rules',
    runs: 2000,
    property: () => fc.property(fencedText(), (text) => checkText(text)),
  },
  {
    name: 'findBlocks on generated replies with blocks of every kind (cut, damaged JSON, CRLF): same rules',
    runs: 3000,
    property: () => fc.property(blockText(), (text) => checkText(text)),
  },
  {
    name: 'findBlocks on mutated fixtures and seed replies (insert, delete, duplicate, swap): same rules',
    runs: 1500,
    property: () => fc.property(mutatedCorpusText(), (text) => checkText(text)),
  },
];
