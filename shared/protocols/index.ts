import type { Block, BlockKind } from './types';
import type { Protocol } from './define-protocol';
import { scanFences, type Fence } from './markdown';
import { mcpRequest } from './mcp-request';
import { flycodeCall } from './flycode-call';
import { autocoder } from './autocoder';
import { axon } from './axon';
import { functionCalls } from './function-calls';
import { withoutExamples } from './example-intro';
import { quotedPlan } from './quoted';

export type {
  Block,
  BlockKind,
  McpRequestPayload,
  FlycodeCallPayload,
  AutocoderPlan,
  AxonPayload,
  FunctionCall,
  FunctionCallsPayload,
  InertReason,
} from './types';
export { BLOCK_KINDS } from './types';
export { blockKey, hashText, moveBlockKey, normalizeRaw } from './key';
export type { BlockKeyParts } from './key';
export { validateMcpRequest, MCP_METHODS } from './mcp-request';
export type { McpRequestCheck } from './mcp-request';
export { validateFlycodeCall } from './flycode-call';
export type { FlycodeCallCheck } from './flycode-call';
export { AUTOCODER_FILE_ACTIONS, PLAN_TYPES } from './autocoder';
export { AXON_ARITY } from './axon';
export type { AxonAct } from './axon';
export { fenceLabel, scanFences } from './markdown';
export { introducedAsExample, withoutExamples } from './example-intro';
export { quotedPlan } from './quoted';
export type { Fence } from './markdown';

/** The block protocols, one module each (DESIGN §3). Adding one is a new file and a line here. */
export const PROTOCOLS: readonly Protocol[] = [mcpRequest, flycodeCall, autocoder, axon, functionCalls];

/**
 * Every protocol's hints together: no block without a fence carrying one of `labels`, a fence carrying one of
 * `weakLabels` whose text holds one of `weakMarkers` (in any case), or one of `markers` in the text.
 */
export const BLOCK_HINTS: { labels: ReadonlySet<string>; markers: readonly string[]; weakLabels: ReadonlySet<string>; weakMarkers: readonly string[] } = {
  labels: new Set(PROTOCOLS.flatMap((p) => p.hints.labels)),
  markers: PROTOCOLS.flatMap((p) => p.hints.markers),
  weakLabels: new Set(PROTOCOLS.flatMap((p) => p.hints.weak?.labels ?? [])),
  weakMarkers: PROTOCOLS.flatMap((p) => p.hints.weak?.anyOf ?? []),
};

/**
 * Every tool block in one assistant message's markdown, in order of position (then of end), less those that are
 * another block's content (`withoutContent`); with `kind`, only the blocks of that kind (the same as filtering all of
 * them). Never throws: a protocol that fails on some input loses its blocks for that input, the others still report
 * theirs.
 */
export function findBlocks(markdown: string, kind?: BlockKind): Block[] {
  if (typeof markdown !== 'string') return [];
  markdown = withoutReasoning(markdown);
  const fences = scanFences(markdown);
  const blocks: Block[] = [];
  for (const protocol of PROTOCOLS) {
    try {
      blocks.push(...protocol.find(markdown, fences));
    } catch {
      // Defensive only: the property tests run every protocol's `find` directly and require it not to throw.
    }
  }
  // Every kind is read even when only one is asked for: whether a block is another block's content needs them all.
  const found = withoutExamples(withoutContent(withoutQuotedResults(blocks, markdown, fences)), markdown).sort(
    (a, b) => a.start - b.start || a.end - b.end,
  ).concat(orQuoted(blocks, markdown, fences));
  return kind === undefined ? found : found.filter((block) => block.kind === kind);
}

/** A reply that starts with its reasoning written as text: `<think>` (DeepSeek R1, Qwen, QwQ) or `<thinking>`. */
const REASONING_OPEN = /^\s*<(think|thinking)>/i;

/**
 * The closing tag alone on its line, for a reply whose reasoning has no opening tag: a chat template that writes
 * `<think>` into the prompt itself (DeepSeek R1 as commonly served) makes the reply start with the reasoning and end it
 * with `</think>` only.
 */
const REASONING_CLOSE_ALONE = /^[ \t]*<\/(?:think|thinking)>[ \t]*\r?$/im;

/** Any tag of reasoning, opening or closing. */
const REASONING_TAG = /<\/?(?:think|thinking)>/i;

/**
 * A reply's markdown with the reasoning it starts with blanked out, up to the first `</think>` (or `</thinking>`), or
 * to the end while there is none and the opening tag ends its line: a page with no reasoning box of its own (the generic adapter, a self-hosted chat)
 * shows an open model's reasoning as text before its answer, and a block drafted there is no call — it ran, and the
 * answer's own copy of it after it ran again. A closing tag in inline code (`` `</think>` ``, the reasoning speaking of
 * the tag) does not end it. A reply with no opening tag is reasoning up to a closing tag alone on its line, outside code
 * blocks, when no tag comes before it (REASONING_CLOSE_ALONE). Blanked with spaces, line breaks kept, so every offset
 * stays the same.
 */
function withoutReasoning(markdown: string): string {
  const end = reasoningEnd(markdown);
  return end === 0 ? markdown : markdown.slice(0, end).replace(/[^\n]/g, ' ') + markdown.slice(end);
}

/** Where the reasoning a reply starts with ends (see withoutReasoning); 0 when it starts with none. */
function reasoningEnd(markdown: string): number {
  const open = REASONING_OPEN.exec(markdown);
  if (open === null) {
    const close = REASONING_CLOSE_ALONE.exec(markdown);
    if (close === null || REASONING_TAG.test(markdown.slice(0, close.index))) return 0;
    const inCode = scanFences(markdown).some((fence) => fence.contentStart <= close.index && close.index < fence.contentEnd);
    return inCode ? 0 : close.index + close[0].length;
  }
  const closer = new RegExp(`(?<!\`)</${open[1] as string}>`, 'gi');
  closer.lastIndex = open[0].length;
  if (closer.exec(markdown) !== null) return closer.lastIndex;
  // No closing tag yet: reasoning starts on the line after the tag; words after it on its line are a sentence about
  // the tag (`<think> tags hold the reasoning …`), and the reply is its answer.
  const lineEnd = markdown.indexOf('\n', open[0].length);
  return markdown.slice(open[0].length, lineEnd === -1 ? markdown.length : lineEnd).trim() === '' ? markdown.length : 0;
}

/** The labels of the result blocks chatbridge types into a chat (shared/results). */
const RESULT_LABELS: ReadonlySet<string> = new Set(['mcp-response', 'flycode-result', 'axon-result']);

/**
 * A flycode-result's head, as shared/results/flycode-result.ts writes it and seed 001 shows it: field lines from the
 * first (`[id]`, or `[tool]` / `[command]` when the quote starts there) to `[ok] true|false`. A model quoting the result
 * back often puts it in a block of its own labelled text, or none, rather than flycode-result; its [data] (a prompt
 * file's example call, a README's plan) is then no more the model's call than under the result's own label. The other
 * results hold nothing a block is read from but under their labels: an mcp-response's and an executor response's text
 * is a JSON string, whose line breaks are \n, and a <function_result> is told by its tags.
 */
const FLYCODE_RESULT_HEAD = /^\s*\[(?:id|tool|command)\][^\n]*\n(?:\[[A-Za-z]+\][^\n]*\n)*?\[ok\][ \t]*(?:true|false)[ \t]*\r?\n/;

/** Whether a code block holds a result chatbridge typed into the chat, under its own label or quoted as text. */
function holdsResult(fence: Fence): boolean {
  return RESULT_LABELS.has(fence.label) || FLYCODE_RESULT_HEAD.test(fence.content);
}

/** A `<function_result …>` element's opening tag alone on its line, as shared/results/function-result.ts writes it. */
const FUNCTION_RESULT_OPEN = /^[ \t]*<function_result(?:[ \t][^<>\n]*)?>[ \t]*\r?$/gm;
const FUNCTION_RESULT_CLOSE = '</function_result>';
const FUNCTION_RESULT_CLOSES = /<\/function_result>/g;

/** The greatest of the ascending `values` that is at most `most`, if any. */
function lastBefore(values: readonly number[], most: number): number | undefined {
  let low = 0;
  let high = values.length - 1;
  let found: number | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = values[middle] as number;
    if (value <= most) {
      found = value;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/**
 * The blocks that do not start inside a result chatbridge typed into the chat, quoted back by the model in its next
 * reply: a ```` ```flycode-result ````, ```` ```axon-result ```` or ```` ```mcp-response ```` block (a flycode-result
 * also under another label, FLYCODE_RESULT_HEAD), or a
 * `<function_result>` element from its opening tag alone on its line up to the last closing tag there is. A result
 * holds what the tool read or printed as it is — a prompt file's example call, a README's plan, a program's output —
 * and a model repeating the result it got ("the tool returned: …") ran that text as its own calls. Its text may hold
 * the closing tag itself (a file about this format): typed in, it is written `<\/function_result>`, which the page's
 * markdown shows as `</function_result>` when the model quotes it in prose, so the first closing tag need not be the
 * element's; the last one is (a call of the reply's own between two quoted results is then held as data too, never
 * the reverse). A result not closed (yet) reaches to the end, as an unclosed code block does: mid-stream, the call it
 * holds is complete before its closing tag has come; one in a closed code block ends with it. The tag in prose
 * (`comes back in <function_result> tags`) opens nothing. Each opening tag looks up its end once, by halving.
 */
export function withoutQuotedResults(blocks: Block[], markdown: string, fences: readonly Fence[]): Block[] {
  if (blocks.length === 0) return blocks;
  const spans: Array<{ start: number; end: number }> = fences.filter(holdsResult);
  if (markdown.includes('<function_result')) {
    const closes = Array.from(markdown.matchAll(FUNCTION_RESULT_CLOSES), (close) => close.index);
    let after = 0;
    let f = 0;
    for (const open of markdown.matchAll(FUNCTION_RESULT_OPEN)) {
      if (open.index < after) continue;
      while (f < fences.length && (fences[f] as Fence).contentEnd <= open.index) f++;
      const fence = fences[f];
      // in a closed code block (an example in a file a block writes), it ends with that block, as the page shows it
      const limit = fence !== undefined && fence.closed && fence.contentStart <= open.index ? fence.contentEnd : markdown.length;
      const close = lastBefore(closes, limit - FUNCTION_RESULT_CLOSE.length);
      after = close === undefined || close < open.index ? limit : close + FUNCTION_RESULT_CLOSE.length;
      spans.push({ start: open.index, end: after });
    }
  }
  if (spans.length === 0) return blocks;
  spans.sort((a, b) => a.start - b.start);
  const inside = new Set<Block>();
  let i = 0;
  let reach = -1;
  for (const block of [...blocks].sort((a, b) => a.start - b.start)) {
    // a fence may lie inside an element: the furthest end reached so far is the one a block must start past
    while (i < spans.length && (spans[i] as { start: number }).start <= block.start) reach = Math.max(reach, (spans[i++] as { end: number }).end);
    if (block.start < reach) inside.add(block);
  }
  return inside.size === 0 ? blocks : blocks.filter((block) => !inside.has(block));
}

/**
 * Whether what lies inside a block is its content: a complete block that was read (a payload), also when it is
 * refused for what it holds (a plan whose string the page cut into code blocks, a second plan), or any complete Axon
 * statement. A statement's parameters are the fences it read, also when it is refused for what they hold (a path in
 * quotes, a content cut by its own code block): such a statement has no payload, so that the companion refuses it
 * whole. Either way a plan or call shown in the file it would write is that file's text, and refusing the block must
 * not make it the reply's own.
 */
function holdsContent(block: Block): boolean {
  return block.complete && (block.payload !== undefined || block.kind === 'axon');
}

/**
 * The blocks that are not part of what another block holds. A block of one kind that lies inside a complete block of
 * another kind that holds content (holdsContent) is that block's content, not a call: an Axon `write_file` of a README
 * that shows an auto_coder plan or a `<function_calls>` example, a flycode-call writing a prompt file with a
 * `<function_calls>` example, an auto_coder `create_file` whose content holds a ```` ```mcp-request ```` example.
 * Running it too would run a file's text. Blocks of the same kind are left alone (an Axon statement ended by the next
 * `act` overlaps it; the block for blocks not read spans them). Linear after sorting.
 */
export function withoutContent(blocks: Block[]): Block[] {
  if (blocks.length < 2) return blocks;
  const order = [...blocks].sort((a, b) => a.start - b.start || b.end - a.end);
  // per kind, the holder seen so far (complete, a payload, no error) that reaches furthest
  const reach = new Map<BlockKind, Block>();
  const content = new Set<Block>();
  for (const block of order) {
    for (const [holderKind, holder] of reach) {
      if (holderKind === block.kind || holder.end < block.end) continue;
      if (holder.start === block.start && holder.end === block.end) continue;
      content.add(block);
      break;
    }
    if (holdsContent(block)) {
      const best = reach.get(block.kind);
      if (best === undefined || block.end > best.end) reach.set(block.kind, block);
    }
  }
  return content.size === 0 ? blocks : blocks.filter((block) => !content.has(block));
}

/**
 * The blocks of a message still being written, as far as telling them needs no parsing: kind, place and
 * completeness, never a payload or an error for the JSON kinds (Protocol.outline). A scanner re-reads a streaming
 * reply on every few tokens; the reply's blocks are read with `findBlocks` once it has finished. Reports a block
 * wherever `findBlocks` does. Never throws.
 */
export function outlineBlocks(markdown: string): Block[] {
  if (typeof markdown !== 'string') return [];
  markdown = withoutReasoning(markdown);
  const fences = scanFences(markdown);
  const blocks: Block[] = [];
  for (const protocol of PROTOCOLS) {
    try {
      blocks.push(...(protocol.outline ?? protocol.find)(markdown, fences));
    } catch {
      // Defensive only, as in findBlocks.
    }
  }
  // As in findBlocks; outlined JSON blocks have no payload, so they hold nothing here and findBlocks may drop more.
  return withoutExamples(withoutContent(withoutQuotedResults(blocks, markdown, fences)), markdown)
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .concat(orQuoted(blocks, markdown, fences));
}

/**
 * The Axon plan a reply wrote wholly inside a block quote (quoted.ts), when the protocols found no block at all in
 * it: any block of the reply's own, even one refused or still being written, makes the quote a mention.
 */
function orQuoted(found: readonly Block[], markdown: string, fences: readonly Fence[]): Block[] {
  return found.length === 0 ? withoutExamples(quotedPlan(markdown, fences), markdown) : [];
}
