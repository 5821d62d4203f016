import type { Block } from './types';
import { lineStarts, nestedFenceLocator, onQuotedLine, type Fence, type LineStartAt } from './markdown';
import { MAX_BLOCKS_PER_KIND, defineProtocol, notReadBlock, type NotReadReason } from './define-protocol';
import { LIBRARY_REPAIR_BUDGET, parseJsonLenient, type JsonParseResult, type RepairBudget } from './json';
import { cut, describeValue, isPlainObject } from './describe-value';
import { introducedAsExample } from './example-intro';

/**
 * auto_coder plans (seed 002, DESIGN §3.3): the text between `#####--` and the next `--#####`, wherever it is —
 * in prose or inside a code block of any label. The seed's executor reads them with
 * `re.search(r'#####--\s*(.*?)\s*--#####', text, re.DOTALL)`; this mirrors it for real plans: the first
 * `--#####` after an opener closes it (also when that closer sits inside one of the plan's JSON strings), and the
 * next candidate starts after that closer.
 *
 * Which `#####--` opens a candidate (issue 10 §3: a reply that explains the format before giving the plan must
 * not lose the plan to the explanation):
 * - strong: alone at the start of its line (spaces before it) and followed by what a plan starts with — `{`, `[`,
 *   a code fence, the closer (an empty plan) or, mid-stream, nothing yet. Read as the seed reads it.
 * - weak: after other text on its line (`好的：#####--{…}--#####`) and followed by `{`. It counts only if it reads
 *   as a plan or an executor message; otherwise it was a mention (`格式是 #####--{json}--#####`) and gives no block.
 * - anything else is a mention and opens nothing: inline code (`` `#####--` ``), prose after it
 *   (`#####-- 开头，--##### 结尾`), the seed's own `re.search(r'#####--\s*…`, and a whole plan on a quoted line or in
 *   inline code (one or two backticks) after other text on its line, with more text after it on its line or another
 *   opener after it (strengthAt).
 * A candidate that does not read — not JSON from a strong opener, not a plan from a weak one — does not hide a
 * plan that starts inside it: the last opener before the same closer is read too, and when it reads, it is the
 * candidate (the text before it was a false start or a mention, and is not reported). When neither reads, the
 * strong one's error is reported (the later one's, when only it is strong). Openers between those two are not
 * tried: each character is parsed at most twice, so the search stays linear.
 * An opener with no closer yet is an incomplete block running to the end of the text, from the first strong
 * opener on (a weak one is a plan only once it reads as one).
 *
 * Each candidate is reported as follows:
 * - the first candidate that parses as an object with `type` is the plan: payload = the plan; `error` when
 *   `type` is not operate / finish / check_program (the seed's own template literally says "operate/finish");
 * - a later plan: payload kept, `error` says it is ignored (seed 002 rule 9: one command per reply). Parsed
 *   alone (the companion re-parsing its raw text), it would be the first plan — the extension must not send
 *   blocks with an error;
 * - the executor's own messages are not plans and are skipped (no block): responses (an object with
 *   `file_actions` or `program_execs` and no `type`) and `program_runtime_feedback`. A model quoting them
 *   back must never make them runnable;
 * - anything else (not JSON, not an object, an object without `type`): a block with `error` and no payload.
 *
 * `unfenced`: the candidate is not inside one fenced code block. A page shows such a plan as paragraph text and
 * may have changed it on the way (leading spaces, backslash escapes), so the extension never auto-runs it.
 *
 * Reading stops after MAX_BLOCKS_PER_KIND blocks or when the message's JSON repair budget is spent; the
 * candidates from there on are counted, not parsed, and reported as one `notReadBlock` that starts at the line of
 * the first candidate (so a re-parse of its text alone sees every candidate the same way).
 */

export const PLAN_TYPES = ['operate', 'finish', 'check_program'] as const;

/** The file actions of seed 002, in the seed's order. */
export const AUTOCODER_FILE_ACTIONS = [
  'create_file',
  'replace_file',
  'delete_file',
  'read_file',
  'create_directory',
  'delete_directory',
  'list_tree',
] as const;

const OPEN = '#####--';
const CLOSE = '--#####';

type Strength = 'strong' | 'weak';

interface Opener {
  at: number;
  strength: Strength;
}

/** A zero-width space, word joiner or BOM: pasted in, or put there by a page; read as a space (json.ts drops them too). */
function isInvisible(code: number): boolean {
  return code === 0x200b || code === 0x2060 || code === 0xfeff;
}

function isLineSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || isInvisible(code);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || isInvisible(code);
}

/** A message's lines, where each ends, and where its last plain opener stands (each found once, on first use; see strengthAt). */
interface Lines {
  lineStartAt: LineStartAt;
  ends: Map<number, number>;
  lastPlain?: number;
  /** Whether a position lies in a code block shown inside a larger one (markdown.ts nestedFenceLocator). */
  shownInCode: (at: number) => boolean;
}

/** Whether the line holding `at` ends, after spaces, in a closer in inline code (`` …--#####` ``). */
function endsInInlineCloser(markdown: string, at: number, lines: Lines): boolean {
  const start = lines.lineStartAt(at);
  let end = lines.ends.get(start);
  if (end === undefined) {
    const newline = markdown.indexOf('\n', start);
    end = newline === -1 ? markdown.length : newline;
    lines.ends.set(start, end);
  }
  while (end > at && (isLineSpace(markdown.charCodeAt(end - 1)) || markdown.charCodeAt(end - 1) === 0x0d)) end--;
  return /--#####`{1,2}$/.test(markdown.slice(Math.max(at, end - CLOSE.length - 2), end));
}

/**
 * How the `#####--` at `at` opens a candidate (see above); undefined for a mention. Reads the spaces around it, and
 * the line before it for two more mentions: a line quoted back (`> #####--{…}--#####`: an earlier plan, the seed's
 * example), and inline code in one or two backticks after other text on its line (`` 格式是 `#####--{…}--#####` ``)
 * with more text after it on its line or another opener after it. Read as a plan, either was the reply's first, so the
 * reply's own plan after it was the second, which never runs. Three backticks are seed 002's own form,
 * ```` ```#####--{…}--#####``` ````, wherever on its line; a page shows it as inline code, which is read back in one
 * backtick, so inline code after text that ends its line, with no opener after it, is the reply's plan when it reads
 * as one (as in a list item, `` 1. `#####--{…}--#####` ``).
 */
function strengthAt(markdown: string, at: number, lines: Lines): Strength | undefined {
  const strength = openerStrength(markdown, at, lines.lineStartAt);
  if (strength !== 'inline') return strength;
  if (!endsInInlineCloser(markdown, at, lines)) return undefined;
  lines.lastPlain ??= lastPlainOpener(markdown, lines.lineStartAt);
  return lines.lastPlain > at ? undefined : 'weak';
}

/** Where the last opener that is neither a mention nor inline code after text stands; -1 when there is none. */
function lastPlainOpener(markdown: string, lineStartAt: LineStartAt): number {
  for (let at = markdown.lastIndexOf(OPEN); at !== -1; at = markdown.lastIndexOf(OPEN, at - 1)) {
    const strength = openerStrength(markdown, at, lineStartAt);
    if (strength !== undefined && strength !== 'inline') return at;
  }
  return -1;
}

/** strengthAt without looking past the opener's line: 'inline' for a weak opener in inline code after text. */
function openerStrength(markdown: string, at: number, lineStartAt: LineStartAt): Strength | 'inline' | undefined {
  let before = at - 1;
  while (before >= 0 && isLineSpace(markdown.charCodeAt(before))) before--;
  const ownLine = before < 0 || markdown.charCodeAt(before) === 0x0a;
  let next = at + OPEN.length;
  while (next < markdown.length && isSpace(markdown.charCodeAt(next))) next++;
  let strength: Strength | undefined;
  const c = markdown[next];
  if (next === markdown.length) strength = ownLine ? 'strong' : undefined;
  else if (c === '{') strength = ownLine ? 'strong' : 'weak';
  else if (ownLine && (c === '[' || c === '`' || c === '~' || markdown.startsWith(CLOSE, next))) strength = 'strong';
  if (strength === undefined || ownLine) return strength;
  if (onQuotedLine(markdown, at, lineStartAt)) return undefined;
  let lineStart = lineStartAt(at);
  while (lineStart < at && isLineSpace(markdown.charCodeAt(lineStart))) lineStart++;
  let ticks = before;
  while (ticks >= lineStart && markdown.charCodeAt(ticks) === 0x60) ticks--;
  const run = before - ticks;
  return run > 0 && run < 3 && ticks >= lineStart ? 'inline' : strength;
}

/**
 * The first opener at or after `from` (only strong ones when `strongOnly`). One in a code block shown inside a larger
 * one (a ```` ```json ```` plan in a ````` ````markdown ````` block: how a reply looks) is an example and opens nothing;
 * read as a plan it was the reply's first, and the reply's own plan after it was ignored as a second.
 */
function nextOpener(markdown: string, from: number, strongOnly: boolean, lines: Lines): Opener | undefined {
  for (let at = markdown.indexOf(OPEN, from); at !== -1; at = markdown.indexOf(OPEN, at + OPEN.length)) {
    if (lines.shownInCode(at)) continue;
    const strength = strengthAt(markdown, at, lines);
    if (strength === 'strong' || (strength === 'weak' && !strongOnly)) return { at, strength };
  }
  return undefined;
}

/** The last opener after `after` that ends before `close`. */
function lastOpenerBefore(markdown: string, after: number, close: number, lines: Lines): Opener | undefined {
  for (let at = markdown.lastIndexOf(OPEN, close - OPEN.length); at > after; at = markdown.lastIndexOf(OPEN, at - 1)) {
    const strength = strengthAt(markdown, at, lines);
    if (strength !== undefined) return { at, strength };
  }
  return undefined;
}

function lineStartOf(markdown: string, at: number): number {
  return markdown.lastIndexOf('\n', at - 1) + 1;
}

function isExecutorMessage(value: Record<string, unknown>): boolean {
  if (value.type === 'program_runtime_feedback') return true;
  return value.type === undefined && ('file_actions' in value || 'program_execs' in value);
}

interface Reading {
  opener: Opener;
  text: string;
  parsed: JsonParseResult;
}

/** Whether a candidate counts: any JSON from a strong opener; a plan or an executor message from a weak one. */
function reads(reading: Reading): boolean {
  const { parsed, opener } = reading;
  if (!parsed.ok) return false;
  if (opener.strength === 'strong') return true;
  return isPlainObject(parsed.value) && (parsed.value.type !== undefined || isExecutorMessage(parsed.value));
}

/**
 * Whether a candidate lies in one fenced code block: in its content, or starting on its opening line. Seed 002 asks
 * for the form ```` ```#####--xxx--##### ````; written over several lines, `#####--` is the info string of a fence
 * whose content is the JSON and the closer — the page shows it as a code block, text intact, like any fenced plan.
 * Asked with increasing `start`.
 */
function codeBlockLocator(fences: readonly Fence[]): (start: number, end: number) => boolean {
  let i = 0;
  return (start, end) => {
    while (i < fences.length && (fences[i] as Fence).contentEnd <= start) i++;
    const fence = fences[i];
    return fence !== undefined && fence.start <= start && end <= fence.contentEnd;
  };
}

/**
 * The one closed fence that is all a candidate holds between `from` (after `#####--`) and `to` (its `--#####`), spaces
 * aside: the markers written as paragraphs around a ```` ```json ```` block of the plan. The page shows that JSON as a
 * code block, text intact, and it is read from the fence's content as strict JSON first, as a fenced plan is.
 */
function soleFence(markdown: string, fences: readonly Fence[], from: number, to: number): Fence | undefined {
  let low = 0;
  let high = fences.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((fences[middle] as Fence).start < from) low = middle + 1;
    else high = middle;
  }
  const fence = fences[low];
  if (fence === undefined || !fence.closed || fence.end > to) return undefined;
  const around = markdown.slice(from, fence.start) + markdown.slice(fence.end, to);
  return around.trim() === '' ? fence : undefined;
}

/**
 * The markers typed with look-alike characters, as a Chinese input method writes them: full-width ＃, a dash typed as
 * —— (two em dashes), full-width －, an en dash (`＃＃＃＃＃——{…}——＃＃＃＃＃`); or miscounted or spaced out, as a
 * model writes them from memory a few turns on: `####--{…}--####`, `##### --{…}-- #####`. The seed's executor finds
 * no plan there, its regex wanting `#####--` and `--#####` as they are, and neither does this parser; the person saw
 * no block and no reason. The first such plan, starting its line (or a fence's opening line) before the text's first
 * candidate (a `#####--` in a mention does not count), is reported as a block whose error says so and never runs: the
 * companion answers it as the executor's error, telling the model what to write. Later ones and those after a real
 * opener are not looked at (the real plan is the reply's plan), nor is any in a reply that has a plan: told that
 * nothing ran, the model would take its plan's result for a failure. Six or more `#` before `--` hold the real opener,
 * and are read as it.
 */
const LOOK_ALIKE_OPEN = /^[ \t]*(?:(?:`{3,}|~{3,})[ \t]*)?([#＃]{3,}[ \t]?[-－—–]{1,2})/gm;

/**
 * The closer of a look-alike opener with `hashes` # (half- or full-width): dashes, then as many # as the opener has (at
 * most five). A fixed count keeps the block the same while its closer streams in (`--###` is not yet `--####`'s end).
 */
function lookAlikeCloser(hashes: number): RegExp {
  return new RegExp(`[-－—–]{1,2}[ \\t]?[#＃]{${Math.min(hashes, 5)}}`, 'g');
}

/**
 * Why markers that are not the seed's were not read: look-alike characters, or ASCII ones of another shape. The closer
 * is named when it has five #, as read; with fewer it may go on past the count read (lookAlikeCloser), and the rule
 * says what to write anyway.
 */
function lookAlikeError(marker: string, closer: string, hashes: number): string {
  const shown = closer === CLOSE || hashes !== 5 ? JSON.stringify(marker) : `${JSON.stringify(marker)} … ${JSON.stringify(closer)}`;
  const how = /^[#\- \t]*$/.test(marker + closer) ? `not the seed's (${shown})` : `written with look-alike characters (${shown})`;
  return `the plan's markers are ${how}: a plan is read only between the ASCII #####-- and --##### (five half-width # and two -, nothing between), so nothing in it ran; write those markers`;
}

/** The first look-alike plan that starts before `before`, where the text's first candidate starts (see LOOK_ALIKE_OPEN). */
function lookAlikePlan(markdown: string, before: number): Block | undefined {
  LOOK_ALIKE_OPEN.lastIndex = 0;
  for (let open = LOOK_ALIKE_OPEN.exec(markdown); open !== null && open.index < before; open = LOOK_ALIKE_OPEN.exec(markdown)) {
    const marker = open[1] as string;
    if (marker.endsWith(OPEN)) continue;
    let next = open.index + open[0].length;
    while (next < markdown.length && isSpace(markdown.charCodeAt(next))) next++;
    if (markdown[next] !== '{') continue;
    const hashes = /^[#＃]+/.exec(marker)![0].length;
    const closer = lookAlikeCloser(hashes);
    closer.lastIndex = next;
    const close = closer.exec(markdown);
    if (close === null) return undefined;
    const start = open.index + open[0].length - marker.length;
    const end = close.index + close[0].length;
    return { kind: 'autocoder', complete: true, raw: markdown.slice(start, end), start, end, error: lookAlikeError(marker, close[0], hashes) };
  }
  return undefined;
}

/**
 * The first code block's opening or closing line between `from` and `to` that stands inside a double-quoted string of
 * the text there (a string written with raw line breaks, one of whose lines is ``` or ~~~): that string up to that
 * line's end, and the line; undefined when none does. A fence line outside the strings (a code block around the plan
 * closed before `--#####`) is the plan's layout, not its text. Reads the text once; fences are in order.
 */
function fenceLineInString(markdown: string, fences: readonly Fence[], from: number, to: number): { string: string; line: string } | undefined {
  let low = 0;
  let high = fences.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((fences[middle] as Fence).contentEnd <= from) low = middle + 1;
    else high = middle;
  }
  let i = from;
  let inString = false;
  let quote = -1;
  for (let f = low; f < fences.length && (fences[f] as Fence).start < to; f++) {
    const fence = fences[f] as Fence;
    for (const line of [fence.start, fence.closed ? fence.contentEnd : -1]) {
      if (line <= from || line >= to) continue;
      for (; i < line; i++) {
        const c = markdown.charCodeAt(i);
        if (c === 0x5c && inString) i++;
        else if (c === 0x22) {
          inString = !inString;
          quote = i;
        }
      }
      if (inString) {
        const lineEnd = markdown.indexOf('\n', line);
        const end = lineEnd === -1 ? to : Math.min(lineEnd, to);
        return { string: markdown.slice(quote + 1, end).trimEnd(), line: markdown.slice(line, end).trim() };
      }
    }
  }
  return undefined;
}

const OVER_BUDGET = Symbol('over budget');

/**
 * Said of a candidate that ends inside a string: a `--#####` in a file's text (a README on the format, a regex like the
 * seed's) ends the block there, for the seed's executor as here, and "ends inside a string" alone does not tell the
 * model what to change: it split its output, as the seed says to do on a JSON error, and the marker cut it again. Worded
 * for the block alone, as the companion reads it: the rest of the plan is not part of it. The marker itself is not
 * named: in the executor response it is written `--\u0023####` (shared/results/autocoder.ts).
 */
const CLOSER_IN_STRING =
  '; if the plan goes on after the closing marker that ends this block, that marker stood inside one of its strings and ' +
  'ended the block there (the executor reads up to the first closing marker): write it in the string as --\\u0023#### ' +
  '(\\u0023 is "#" in JSON, so it reads back as the marker)';

export const autocoder = defineProtocol({
  kind: 'autocoder',
  hints: { labels: [], markers: ['###--', '### --', '＃＃＃', '#####—', '#####－', '#####–'] },
  find(markdown, fences) {
    const blocks: Block[] = [];
    const budget: RepairBudget = { left: LIBRARY_REPAIR_BUDGET };
    const inFence = codeBlockLocator(fences);
    const lines: Lines = { lineStartAt: lineStarts(markdown), ends: new Map(), shownInCode: nestedFenceLocator(markdown, fences) };
    let planSeen = false;
    const examples: Block[] = [];
    const push = (block: Block) => {
      const close = block.end - CLOSE.length;
      const wrapped = block.complete && soleFence(markdown, fences, block.start + OPEN.length, close) !== undefined;
      if (!inFence(block.start, block.end) && !wrapped) block.unfenced = true;
      blocks.push(block);
    };

    const read = (opener: Opener, close: number): Reading => {
      const fence = soleFence(markdown, fences, opener.at + OPEN.length, close);
      const text = (fence === undefined ? markdown.slice(opener.at + OPEN.length, close) : fence.content).trim();
      return { opener, text, parsed: parseJsonLenient(text, budget) };
    };

    /** The block of a candidate as read; null for an executor message (not a plan, no block). */
    const blockOf = (reading: Reading, close: number): Block | null => {
      const start = reading.opener.at;
      const end = close + CLOSE.length;
      const block: Block = { kind: 'autocoder', complete: true, raw: markdown.slice(start, end), start, end };
      const { parsed, text } = reading;
      if (!parsed.ok) {
        block.error =
          text === ''
            ? 'the #####-- --##### block is empty; it must hold one JSON plan object'
            : `the #####-- --##### block is not JSON: ${JSON.stringify(cut(text))} (${parsed.reason})${parsed.endsInString ? CLOSER_IN_STRING : ''}`;
        return block;
      }
      const value = parsed.value;
      if (isPlainObject(value) && isExecutorMessage(value)) return null;
      if (parsed.repaired) block.repaired = true;
      if (!isPlainObject(value)) {
        block.error = `the #####-- --##### block must hold a JSON plan object, got ${describeValue(value)}`;
      } else if (value.type === undefined) {
        block.error = `the plan has no "type"; it must be one of ${PLAN_TYPES.join(' / ')}`;
      } else {
        block.payload = value;
        // A string written with raw line breaks whose line is ``` or ~~~ is a fence to markdown: the page draws the
        // plan as code blocks and text, and reads it back with fences and blank lines of its own in that string (a
        // README written through it got them). Written with \n, the string stays one line and the plan one piece.
        const fenced = fenceLineInString(markdown, fences, start + OPEN.length, close);
        if (planSeen) {
          block.error =
            'ignored: only the first plan in a reply runs (seed 002: one #####--…--##### command per reply)';
          block.inert = 'later-plan';
        } else if (fenced !== undefined) {
          // the payload stays, so what its strings hold (a prompt file's example call) is still their text (holdsContent)
          block.error =
            `the plan's string ${JSON.stringify(cut(fenced.string, 40))} holds a line ${JSON.stringify(cut(fenced.line, 40))} written with raw line breaks: ` +
            `markdown takes that line for a code block's fence, so the page shows the plan cut into code blocks and text ` +
            `and the string is not read back as written; write the string's line breaks as \\n`;
        } else if (!(PLAN_TYPES as readonly unknown[]).includes(value.type)) {
          block.error = `plan type ${describeValue(value.type)} is not one of ${PLAN_TYPES.join(' / ')}`;
        }
        // a plan shown as an example (example-intro.ts) is the reply's plan only when no block comes after it
        if (!planSeen && introducedAsExample(markdown, start)) examples.push(block);
        else planSeen = true;
      }
      return block;
    };

    /** The candidate between `first` and `close`, after the rules above; null when it gives no block. */
    const readCandidate = (first: Opener, close: number): Block | null | typeof OVER_BUDGET => {
      const outer = read(first, close);
      if (!outer.parsed.ok && outer.parsed.overBudget) return OVER_BUDGET;
      if (reads(outer)) return blockOf(outer, close);
      const innerOpener = lastOpenerBefore(markdown, first.at, close, lines);
      // the closer is that of a plan shown as an example (nextOpener): the candidate is that example, and no block
      if (innerOpener !== undefined && lines.shownInCode(innerOpener.at)) return null;
      if (innerOpener !== undefined) {
        const inner = read(innerOpener, close);
        if (!inner.parsed.ok && inner.parsed.overBudget) return OVER_BUDGET;
        if (reads(inner)) return blockOf(inner, close);
        if (first.strength === 'weak' && innerOpener.strength === 'strong') return blockOf(inner, close);
      }
      return first.strength === 'strong' ? blockOf(outer, close) : null;
    };

    let firstLine = 0;
    let stopped: NotReadReason | undefined;
    let notRead = 0;
    let notReadEnd = 0;
    let notReadComplete = true;
    let from = 0;
    for (;;) {
      const first = nextOpener(markdown, from, false, lines);
      if (first === undefined) break;
      if (from === 0) firstLine = lineStartOf(markdown, first.at);
      const close = markdown.indexOf(CLOSE, first.at + OPEN.length);
      if (stopped === undefined && blocks.length === MAX_BLOCKS_PER_KIND) stopped = 'count';
      if (close === -1) {
        const writing = first.strength === 'strong' ? first : nextOpener(markdown, first.at + OPEN.length, true, lines);
        if (writing === undefined) break;
        if (stopped === undefined) {
          push({ kind: 'autocoder', complete: false, raw: markdown.slice(writing.at), start: writing.at, end: markdown.length });
        } else {
          notRead++;
          notReadEnd = markdown.length;
          notReadComplete = false;
        }
        break;
      }
      from = close + CLOSE.length;
      if (stopped === undefined) {
        const block = readCandidate(first, close);
        if (block !== OVER_BUDGET) {
          if (block !== null) push(block);
          continue;
        }
        stopped = 'repair';
      }
      notRead++;
      notReadEnd = from;
    }
    // An example with a block after it is not the reply's plan, which that block is (or was meant to be).
    const last = blocks[blocks.length - 1];
    const shown = examples.filter((example) => last !== undefined && last.start >= example.end);
    if (shown.length > 0) blocks.splice(0, blocks.length, ...blocks.filter((block) => !shown.includes(block)));
    // Beside the reply's plan, a look-alike one before it is an earlier slip quoted back or corrected: no block.
    const lookAlike = planSeen || examples.length > shown.length ? undefined : lookAlikePlan(markdown, blocks[0]?.start ?? (notRead > 0 ? firstLine : markdown.length));
    if (lookAlike !== undefined) push(lookAlike);
    if (stopped !== undefined && notRead > 0) {
      blocks.push(
        notReadBlock(markdown, {
          kind: 'autocoder',
          start: firstLine,
          end: notReadEnd,
          complete: notReadComplete,
          notRead,
          reason: stopped,
          noun: { one: 'auto_coder candidate (#####-- … --#####)', many: 'auto_coder candidates (#####-- … --#####)' },
        }),
      );
    }
    return blocks;
  },
});
