import type { Block, BlockKind } from './types';
import type { Fence } from './markdown';
import { LIBRARY_REPAIR_BUDGET } from './json';

/**
 * One block protocol. `find` gets the message's markdown and its fences (scanned once for all protocols) and
 * returns that protocol's blocks; it must not throw and must run in time linear in the text.
 */
export interface Protocol {
  kind: BlockKind;
  find(markdown: string, fences: readonly Fence[]): Block[];
  /**
   * What a message needs before `find` can report anything: a fence carrying one of `labels` (lower case, the
   * first word of its info string) or one of `markers` in its text. Scanners use it to skip messages cheaply;
   * `find` returning a block for a text that has neither is a bug the property tests look for.
   */
  hints: {
    labels: readonly string[];
    markers: readonly string[];
    /**
     * Labels that name no kind (none, ```` ```json ````: Protocol.find reads a call there by what it holds): such a
     * fence counts only when its text holds one of `anyOf` (in any case), so a reply's ordinary JSON and unlabelled
     * code is not read as a maybe-call on every streamed token and at every first scan.
     */
    weak?: { labels: readonly string[]; anyOf: readonly string[] };
  };
  /**
   * The blocks' kind, place and completeness without reading what they hold (no JSON parsed): what a scanner shows
   * while a reply is still being written, re-read on every streamed token. It must report a block wherever `find`
   * reports one (the properties tests check it). Protocols whose `find` reads no more than that (Axon: act names
   * and fences) or must read a candidate to tell a block from a mention (auto_coder's weak openers,
   * `<function_calls>`) have none: `outlineBlocks` uses their `find`.
   */
  outline?(markdown: string, fences: readonly Fence[]): Block[];
}

export function defineProtocol(protocol: Protocol): Protocol {
  return protocol;
}

/**
 * The most blocks of one kind read in one message (issue 10 §2). Parsing is linear without it (json.ts bounds
 * what the repair library gets, per block and per message); this bounds what one reply can put on the page and
 * in the run queue: a chip per block, a run per block, one result message for all of them, and the extension's
 * run ledger, which keeps 1000 keys per conversation. Seeds 000–002 ask for one call per reply; batch-minded
 * models write hundreds, which stay well inside it.
 *
 * Blocks past the bound are never dropped in silence: they are reported together as ONE complete block of
 * their kind whose `error` says how many were not read and why (`notReadBlock`), so its chip shows it and the
 * model gets it as that protocol's error answer.
 */
export const MAX_BLOCKS_PER_KIND = 1000;

/** Why the blocks after some point of a message were not read. */
export type NotReadReason = 'count' | 'repair';

/**
 * The block that stands for the blocks of `kind` a message holds past the point where reading stopped. It spans
 * from the start of the first block of its kind (`start`; for auto_coder, the line of the first candidate) to the
 * end of the last one not read (`end`), so the companion, re-parsing that text alone, reads the same blocks, stops
 * at the same point and answers with this very error. It is complete once the last of them is. While a reply is
 * still streaming its count grows: it is the one block whose complete form can change, and it never runs
 * anything — its answer is an error.
 *
 * Sorted by position it comes right after the first block of its kind; its chip sits after the last one.
 */
export function notReadBlock(
  markdown: string,
  options: { kind: BlockKind; start: number; end: number; complete: boolean; notRead: number; reason: NotReadReason; noun: { one: string; many: string } },
): Block {
  const { kind, start, end, complete, notRead, reason, noun } = options;
  const one = notRead === 1;
  const what = one ? `the last ${noun.one} of this reply was not read` : `the last ${notRead} ${noun.many} of this reply were not read`;
  const why =
    reason === 'count'
      ? `chatbridge reads at most ${MAX_BLOCKS_PER_KIND} ${noun.many} per reply`
      : `${one ? 'it needs' : 'the first of them needs'} its JSON repaired (single quotes, unquoted keys, …) and this reply already used its ${LIBRARY_REPAIR_BUDGET}-character budget for JSON repair`;
  const todo = reason === 'count' ? 'split the calls over several replies' : 'write strict JSON, or split the calls over several replies';
  return {
    kind,
    complete,
    raw: markdown.slice(start, end),
    start,
    end,
    error: `${what}: ${why}. ${one ? 'It did not run' : 'None of them ran'}; ${todo}.`,
    notRead,
  };
}
