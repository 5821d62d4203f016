import type { Block, BlockKind, InertReason } from './types';
import type { Fence } from './markdown';
import { LIBRARY_REPAIR_BUDGET, parseJsonLenient, type JsonParseResult, type RepairBudget } from './json';
import { cut, isPlainObject } from './describe-value';
import { MAX_BLOCKS_PER_KIND, notReadBlock, type NotReadReason } from './define-protocol';

/** What a JSON call validator says about a parsed value. */
export type CallCheck = { ok: true } | { ok: false; message: string };

/**
 * Blocks for the two protocols that are one JSON object in a labelled fence (mcp-request, flycode-call).
 *
 * payload: the parsed JSON whenever it parsed (strictly or after repair), also when it is not a valid call,
 * so the companion can echo the id in its error reply. error: why a complete block cannot run.
 * warnings: the seeds ask for the block alone and one call per reply; breaking that does not stop the calls
 * (DESIGN §3: several blocks in one reply run in order), so it is reported, not refused.
 *
 * Reading stops after MAX_BLOCKS_PER_KIND blocks, or at the first block whose JSON would go over the message's
 * repair budget (json.ts); the fences from there on are counted, not parsed, and reported as one `notReadBlock`.
 */
export function findJsonFenceBlocks(
  markdown: string,
  fences: readonly Fence[],
  kind: BlockKind,
  check: (value: unknown) => CallCheck,
  seed: string,
  unlabelled?: UnlabelledCall,
): Block[] {
  const blocks: Block[] = [];
  const budget: RepairBudget = { left: LIBRARY_REPAIR_BUDGET };
  let first: Fence | undefined;
  let stopped: NotReadReason | undefined;
  let notRead = 0;
  let last: Fence | undefined;
  for (const fence of callFences(fences, kind)) {
    first ??= fence;
    if (stopped === undefined && blocks.length === MAX_BLOCKS_PER_KIND) stopped = 'count';
    if (stopped === undefined) {
      const block = readFence(markdown, fence, kind, check, budget);
      if (block !== undefined) {
        blocks.push(block);
        continue;
      }
      stopped = 'repair';
    }
    notRead++;
    last = fence;
  }
  if (first === undefined) blocks.push(...oneLineBlocks(markdown, fences, kind, check, budget));
  addReplyWarnings(markdown, blocks, kind, seed);
  if (first === undefined && unlabelled !== undefined) blocks.push(...unlabelledBlocks(markdown, fences, kind, check, unlabelled, budget));
  if (stopped !== undefined && first !== undefined && last !== undefined) {
    blocks.push(
      notReadBlock(markdown, {
        kind,
        start: first.start,
        end: last.end,
        complete: last.closed,
        notRead,
        reason: stopped,
        noun: { one: `${kind} block`, many: `${kind} blocks` },
      }),
    );
  }
  return blocks;
}

/** The fences of `kind` as blocks, their JSON unread: complete once the fence closed (Protocol.outline). */
export function outlineJsonFenceBlocks(markdown: string, fences: readonly Fence[], kind: BlockKind, unlabelled?: UnlabelledCall): Block[] {
  const blocks: Block[] = [];
  for (const fence of callFences(fences, kind)) {
    blocks.push({ kind, complete: fence.closed, raw: markdown.slice(fence.start, fence.end), start: fence.start, end: fence.end });
  }
  if (blocks.length === 0) {
    for (const line of oneLineCalls(markdown, fences, kind)) blocks.push({ kind, complete: true, raw: line.raw, start: line.start, end: line.end, unfenced: true });
  }
  if (blocks.length > 0 || unlabelled === undefined) return blocks;
  for (const fence of fences) {
    if (!mayHoldUnlabelled(fence, unlabelled)) continue;
    blocks.push({ kind, complete: fence.closed, raw: markdown.slice(fence.start, fence.end), start: fence.start, end: fence.end });
  }
  return blocks;
}

/**
 * The label the extension writes on a code block whose page hides the label it was written with (Site.labelHidden:
 * Gemini shows "Code snippet" for an unknown fence tag, HuggingChat no language at all): what the model wrote there is
 * unknown, `mcp-request` as likely as none. Chat text never needs it; a model that writes it gets what a hidden label
 * gets, a call offered with Run that never runs by itself.
 */
export const HIDDEN_LABEL = 'label-hidden-by-page';

/** How an error names a code block by its label (`''`: none; HIDDEN_LABEL: the page did not show it). */
export function codeBlockWith(label: string): string {
  if (label === '') return 'a code block with no label';
  if (label === HIDDEN_LABEL) return 'a code block whose label the chat page does not show';
  return `a \`\`\`${label} block`;
}

/** A code block's label when it was written with none: none, the one a site's page shows for it (`plaintext`), or hidden. */
export const NO_LABELS = ['', 'text', 'plaintext', 'plain', 'txt', HIDDEN_LABEL] as const;
const NO_LABEL: ReadonlySet<string> = new Set(NO_LABELS);

/**
 * The fences that hold a call of `kind`: labelled with it, or with no label (NO_LABELS) and the kind alone on the first line of
 * their content (```` ``` ```` on one line, `mcp-request` on the next, then the JSON: how some models write the
 * label, and how a page that drops an unknown label's line from its header may show it). That line is the label,
 * not the JSON's, once its line break has arrived and the JSON, an object (or a list), follows it — the name alone in a
 * code block, or a list of the block kinds, is no call; the fence's content is what follows that line.
 */
function* callFences(fences: readonly Fence[], kind: BlockKind): Generator<Fence> {
  for (const fence of fences) {
    if (fence.label === kind) yield fence;
    else if (NO_LABEL.has(fence.label)) {
      const lineEnd = fence.content.indexOf('\n');
      if (lineEnd === -1 || fence.content.slice(0, lineEnd).trim().toLowerCase() !== kind) continue;
      const content = fence.content.slice(lineEnd + 1);
      const json = content.trimStart();
      if (json === '' ? fence.closed : !/^[{[]/.test(json)) continue;
      yield { ...fence, label: kind, content };
    }
  }
}

/**
 * A call of a kind written in a code block without the kind's label (a JSON-RPC request in a ```` ```json ```` block):
 * as likely an example of the format as a call, so never run, but shown with the reason (`inert`), and only in a
 * reply that has no block labelled with the kind — beside one, it is the explanation's example.
 */
export interface UnlabelledCall {
  /** The labels of the code blocks looked at (`''`: none). */
  labels: ReadonlySet<string>;
  /** Text the block must all hold to be read at all (cheap: most ```json blocks are something else). */
  markers: readonly string[];
  isCall(value: unknown): boolean;
  /** The block's error, in the protocol's words, for a code block labelled `label` (`''`: none). */
  error(label: string): string;
  /** Why it never runs, for the person (Block.inert). */
  inert: InertReason;
  /**
   * A call that, alone in a code block whose page hid its label (HIDDEN_LABEL), is offered with Run (Block.labelHidden):
   * the model may well have written the kind's label, and a click is the person's approval. Others stay inert.
   */
  offeredWhenHidden(value: unknown): boolean;
}

function mayHoldUnlabelled(fence: Fence, unlabelled: UnlabelledCall): boolean {
  return unlabelled.labels.has(fence.label) && unlabelled.markers.every((marker) => fence.content.includes(marker));
}

function unlabelledBlocks(
  markdown: string,
  fences: readonly Fence[],
  kind: BlockKind,
  check: (value: unknown) => CallCheck,
  unlabelled: UnlabelledCall,
  budget: RepairBudget,
): Block[] {
  const blocks: Block[] = [];
  for (const fence of fences) {
    if (!fence.closed || !mayHoldUnlabelled(fence, unlabelled)) continue;
    const parsed = parseJsonLenient(fence.content, budget);
    if (!parsed.ok || !unlabelled.isCall(parsed.value)) continue;
    if (fence.label === HIDDEN_LABEL && unlabelled.offeredWhenHidden(parsed.value)) {
      const block: Block = { kind, complete: true, raw: markdown.slice(fence.start, fence.end), start: fence.start, end: fence.end, payload: parsed.value };
      if (parsed.repaired) block.repaired = true;
      const verdict = check(parsed.value);
      if (!verdict.ok) block.error = verdict.message;
      block.labelHidden = true;
      blocks.push(block);
      continue;
    }
    blocks.push({
      kind,
      complete: true,
      raw: markdown.slice(fence.start, fence.end),
      start: fence.start,
      end: fence.end,
      payload: parsed.value,
      error: unlabelled.error(fence.label),
      inert: unlabelled.inert,
    });
  }
  return blocks;
}

/**
 * A call written on one line as ```` ```mcp-request {…}``` ````, alone on its line (after a list marker, if any): to the
 * page that is no code block but inline code (a fence's info string holds no backtick), which it shows as
 * `mcp-request {…}` in a paragraph, so the reply had no block and the person saw nothing happen. Read in a reply with no
 * code block of the kind, from the inline code as the page gives it back or as written; `unfenced`, as a call the page
 * shows in its text: offered with Run, never run by itself.
 */
function oneLineCalls(markdown: string, fences: readonly Fence[], kind: BlockKind): Array<{ raw: string; json: string; start: number; end: number }> {
  if (!markdown.includes(kind)) return [];
  const line = new RegExp(String.raw`^[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?((\`+)[ \t]*${kind}[ \t]*(\{[^\n]*?\})[ \t]*\2)[ \t]*\r?$`, 'gm');
  const calls: Array<{ raw: string; json: string; start: number; end: number }> = [];
  for (const match of markdown.matchAll(line)) {
    const raw = match[1] as string;
    const start = match.index + match[0].indexOf(raw);
    if (fences.some((fence) => fence.start <= start && start < fence.end)) continue;
    calls.push({ raw, json: match[3] as string, start, end: start + raw.length });
  }
  return calls;
}

function oneLineBlocks(markdown: string, fences: readonly Fence[], kind: BlockKind, check: (value: unknown) => CallCheck, budget: RepairBudget): Block[] {
  const blocks: Block[] = [];
  for (const call of oneLineCalls(markdown, fences, kind)) {
    const parsed = parseJsonLenient(call.json, budget);
    if (!parsed.ok || !isPlainObject(parsed.value)) continue;
    const block: Block = { kind, complete: true, raw: call.raw, start: call.start, end: call.end, payload: parsed.value, unfenced: true };
    if (parsed.repaired) block.repaired = true;
    const verdict = check(parsed.value);
    if (!verdict.ok) block.error = verdict.message;
    blocks.push(block);
  }
  return blocks;
}

/** One fence as a block; undefined when its JSON would go over the repair budget. */
function readFence(
  markdown: string,
  fence: Fence,
  kind: BlockKind,
  check: (value: unknown) => CallCheck,
  budget: RepairBudget,
): Block | undefined {
  const block: Block = {
    kind,
    complete: fence.closed,
    raw: markdown.slice(fence.start, fence.end),
    start: fence.start,
    end: fence.end,
  };
  if (!fence.closed) return block;
  const parsed = parseBeforeFenceLine(fence.content, budget) ?? parseJsonLenient(fence.content, budget);
  if (!parsed.ok) {
    if (parsed.overBudget) return undefined;
    const written = fence.content.trim();
    block.error =
      written === ''
        ? // JSON written on the opening line (```mcp-request {…}) is the fence's info string: the page shows only the
          // label's first word, and the block reads back empty, so "empty" alone tells the writer nothing it can fix
          `${kind} block is empty; it must hold one JSON object, on the lines after the \`\`\`${kind} line ` +
          `(JSON written on that line is part of the block's label, which the page does not show)`
        : `${kind} block is not JSON: ${JSON.stringify(cut(written))} (${parsed.reason})${closedInsideString(fence, parsed)}`;
    return block;
  }
  block.payload = parsed.value;
  if (parsed.repaired) block.repaired = true;
  const verdict = check(parsed.value);
  if (!verdict.ok) block.error = verdict.message;
  return block;
}

/**
 * A closed fence whose JSON ends inside a string: a line of ``` (or ~~~) inside one of its strings — a file's own code
 * block written with raw line breaks — is a closing fence to markdown, and the page shows the rest as text. Said so,
 * since "ends inside a string" alone does not tell the writer what to change. Read from the block alone, as the
 * companion reads it.
 */
function closedInsideString(fence: Fence, parsed: JsonParseResult): string {
  if (parsed.ok || !parsed.endsInString || !fence.closed) return '';
  const line = fence.char.repeat(fence.size);
  // Such a string opened a code block of its own before (```python): with no run of the fence's characters in the
  // JSON, the string was left open by the writer (a quote that does not match), and the hint would send them astray.
  if (!fence.content.includes(line)) return '';
  const longer = fence.char.repeat(fence.size + 1);
  const todo = `write the string's line breaks as \\n, or open the block with ${longer}`;
  return `; if the JSON goes on after the line ${line}, that line inside one of its strings closed the code block: ${todo}`;
}

/** A last line that opens like a fence and goes on with words: ```` ``` Done. ````. */
const FENCE_WITH_WORDS = /\n {0,3}(?:`{3,}|~{3,})[ \t]*[^`~\s][^\n]*\s*$/;

/**
 * A closing fence with words after it on its line (```` ``` Done. ````) is no closing fence to markdown: the page
 * shows that line as the code block's last line. The model closed its block there, so the JSON is what comes before
 * it — when that alone is one JSON object; otherwise undefined (read as written).
 */
function parseBeforeFenceLine(content: string, budget: RepairBudget): JsonParseResult | undefined {
  const line = FENCE_WITH_WORDS.exec(content);
  if (line === null) return undefined;
  const parsed = parseJsonLenient(content.slice(0, line.index), budget);
  return parsed.ok && isPlainObject(parsed.value) ? parsed : undefined;
}

/**
 * The first of `keys` under which `call` holds a value, when the call has none where its protocol puts the arguments:
 * the arguments written under another name (`"arguments"` in a flycode-call, `"args"` in an mcp-request), as an object
 * or in any other shape (function calling's JSON in a string, a list), which would otherwise be left out and the tool
 * called with none.
 */
export function argumentsUnder(call: Record<string, unknown>, keys: readonly string[]): string | undefined {
  return keys.find((key) => call[key] !== undefined);
}

/**
 * Where a call with no tool name in its format's key wrote one instead: the key among `keys` holding a string (`"name"`
 * in a flycode-call, as MCP writes it; `params.tool` in an mcp-request, as flycode-call does), so the answer can say
 * where the name goes rather than that a tool called "nothing" is not available.
 */
export function toolNameUnder(call: Record<string, unknown>, keys: readonly string[]): string | undefined {
  return keys.find((key) => typeof call[key] === 'string');
}

function addReplyWarnings(markdown: string, blocks: Block[], kind: BlockKind, seed: string): void {
  if (blocks.length === 0) return;
  const warnings: string[] = [];
  let cursor = 0;
  let hasText = false;
  for (const block of blocks) {
    if (/\S/.test(markdown.slice(cursor, block.start))) hasText = true;
    cursor = block.end;
  }
  if (/\S/.test(markdown.slice(cursor))) hasText = true;
  if (hasText) {
    warnings.push(`the reply has text outside its ${kind} block; ${seed} asks for the block alone`);
  }
  if (blocks.length > 1) {
    warnings.push(
      `the reply has ${blocks.length} ${kind} blocks; ${seed} allows one call per reply — they run in order`,
    );
  }
  if (warnings.length === 0) return;
  for (const block of blocks) block.warnings = [...warnings];
}
