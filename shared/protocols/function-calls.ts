import type { Block, FunctionCall, FunctionCallsPayload } from './types';
import { contentHolding, fenceLocator, lineStarts, nestedFenceLocator, onQuotedLine, type Fence, type LineStartAt } from './markdown';
import { MAX_BLOCKS_PER_KIND, defineProtocol, notReadBlock } from './define-protocol';
import { cut, describeValue, isPlainObject } from './describe-value';
import { notAsWritten } from './json';

/**
 * `<function_calls>` (issue 11 §7): the call format of the browser extensions that bridge web chats to MCP
 * servers through a local proxy, accepted as it stands so prompts written for them work unchanged. Two forms:
 *
 * XML — anywhere in the reply, usually in a ```` ```xml ```` block:
 *
 *   <function_calls>
 *   <invoke name="everything.echo" call_id="1">
 *   <parameter name="message">hello</parameter>
 *   </invoke>
 *   </function_calls>
 *
 *   The text from a `<function_calls>` to the next `</function_calls>` is one block; it is complete once that closer
 *   has arrived. A `<function_calls>` counts as an opener only when what follows it (after spaces) is `<invoke`, the
 *   closer, or — mid-stream — the start of either or nothing yet; one in inline code (a backtick right before it) or
 *   followed by prose is a mention. When several openers precede one closer, the last one opens the block (the
 *   earlier ones were mentions or a call that never closed). An opener inside a closed code block pairs only with a
 *   closer inside that block (the page ends the block there); without one, the block is incomplete up to the end
 *   of that code block — mid-stream the page shows an unfinished code block as closed — unless that code block ended
 *   inside a parameter and the closer came after it: a line of the value closed it, and the call is refused
 *   (cutInParameter). Each `<invoke name="…">` up to its `</invoke>` is one
 *   call; `call_id` is kept as written. Each `<parameter name="…">` up to the next `</parameter>` is one argument,
 *   its value the text between (a value written on lines of its own — a line break right after the opening tag
 *   and one right before the closing tag — loses those two line breaks; a value wrapped whole in `<![CDATA[…]]>` is unwrapped). Values stay strings here: the
 *   companion reads each against the tool's input schema (a string where the schema wants one, else JSON), as
 *   the format says ("string and scalar parameters as is, lists and objects as JSON").
 *
 * JSON lines — usually in a ```` ```jsonl ```` block, one object per line:
 *
 *   {"type": "function_call_start", "name": "everything.echo", "call_id": 1}
 *   {"type": "description", "text": "…"}
 *   {"type": "parameter", "key": "message", "value": "hello"}
 *   {"type": "function_call_end", "call_id": 1}
 *
 *   A fenced code block (any label) holding `"function_call_start"` is one block, complete when the fence has
 *   closed and its last call has ended; every non-blank line must be such an object. Outside code blocks, each call from its start line
 *   to its end line is a block, and lines broken off by prose (a line that is not a JSON object) are not a call. A line counts only once its line break has arrived (mid-stream, the last line may
 *   still grow), so an unfenced call is complete when its end line is followed by a line break.
 *
 * Either form may hold several calls; they run in order and each gets its own `<function_result>` (results/
 * function-result.ts). Tool names are not checked here: the companion resolves them — chatbridge's own tools, the
 * person's `<server>.<tool>`, or a bare tool name that only one of their servers has (the name those extensions'
 * prompts teach) — and answers NOT_FOUND with the real names otherwise.
 *
 * `unfenced`: outside a code block a page renders the XML as paragraph text (escaped, or as unknown tags) and may
 * change it on the way, so such a block is never auto-run; a Run click still works.
 */

const OPEN = '<function_calls>';
const CLOSE = '</function_calls>';
const JSONL_START = 'function_call_start';
const JSONL_START_QUOTED = `"${JSONL_START}"`;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** The code blocks of a message by where their fence run starts (after the opening line's indentation). */
type CodeAt = ReadonlyMap<number, Fence>;

function codeBlocksAt(fences: readonly Fence[]): CodeAt {
  return new Map(fences.map((fence) => [fence.start + fence.indent, fence]));
}

/** Whether `text` starts with `<invoke`, or — mid-stream, when `growing` — with the start of it or nothing yet. */
function startsWithInvoke(text: string, growing: boolean): boolean {
  return text.startsWith('<invoke') || (growing && '<invoke'.startsWith(text));
}

/**
 * Whether the `<function_calls>` at `at` opens a block (see above), reading only the text right around it and what
 * starts its line: one on a line quoted back (`> <function_calls><invoke …>…</function_calls>`, an earlier call or an
 * example) is a mention, as it is when the quote breaks it over lines. One followed by a code block whose text starts
 * with `<invoke` (`codeAt`) opens a block too: a model writing the wrapper as prose around an ```` ```xml ```` block of
 * its invokes wrote the call plainly, and the page shows the wrapper as paragraph text, so the block is unfenced (never
 * runs by itself, offered with Run) — it was silent.
 */
function opensBlock(markdown: string, at: number, lineStartAt: LineStartAt, codeAt: CodeAt): boolean {
  if (at > 0 && markdown[at - 1] === '`') return false;
  if (onQuotedLine(markdown, at, lineStartAt)) return false;
  let next = at + OPEN.length;
  while (next < markdown.length && isSpace(markdown.charCodeAt(next))) next++;
  const rest = markdown.slice(next, next + CLOSE.length);
  if (['<invoke', CLOSE].some((tag) => (rest.length >= tag.length ? rest.startsWith(tag) : tag.startsWith(rest)))) return true;
  const code = codeAt.get(next);
  return code !== undefined && startsWithInvoke(code.content.trimStart(), !code.closed);
}

/**
 * The closed code block that ends before the opener at `at` meets the closer at `close` (-1: none yet), if any: an
 * opener inside a closed code block pairs only with a closer inside that block — the page ends the block there.
 */
function cutOffBy(fences: readonly Fence[], at: number, close: number): Fence | undefined {
  const fence = contentHolding(fences, at);
  if (fence === undefined || !fence.closed || (close !== -1 && close + CLOSE.length <= fence.contentEnd)) return undefined;
  return fence;
}

/** The last opener after `after` that may pair with `close`; `after` itself when there is none. */
function lastOpenerBefore(markdown: string, fences: readonly Fence[], after: number, close: number, lineStartAt: LineStartAt, codeAt: CodeAt): number {
  for (let at = markdown.lastIndexOf(OPEN, close - OPEN.length); at > after; at = markdown.lastIndexOf(OPEN, at - 1)) {
    if (opensBlock(markdown, at, lineStartAt, codeAt) && cutOffBy(fences, at, close) === undefined) return at;
  }
  return after;
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&apos;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** `name="x" call_id='1'` → {name: 'x', call_id: '1'}; the five XML entities are decoded. */
function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = match[1] as string;
    if (!(name in attributes)) attributes[name] = (match[2] ?? match[3] ?? '').replace(/&(?:quot|apos|lt|gt|amp);/g, (e) => ENTITIES[e] as string);
  }
  return attributes;
}

/** A parameter's text as the value: layout line breaks dropped, a whole-value CDATA section unwrapped. */
function parameterValue(text: string): string {
  const ownLines = /^\r?\n/.test(text) && /\n$/.test(text);
  let value = ownLines ? text.replace(/^\r?\n/, '').replace(/\r?\n$/, '') : text;
  const cdata = /^\s*<!\[CDATA\[([\s\S]*)\]\]>\s*$/.exec(value);
  if (cdata) value = cdata[1] as string;
  return value;
}

/**
 * The tag `<name …>` starting at `at` (whose `<name` is known to be there): where its attributes are and where it
 * ends; undefined when the name goes on (`<invoked`); 'unclosed' when no `>` follows — then no later tag can close
 * either, and the caller stops (which keeps the reading linear).
 */
function readTag(text: string, at: number, name: string): { attributes: string; end: number; selfClosing: boolean } | 'unclosed' | undefined {
  const after = at + name.length;
  const next = text.charCodeAt(after);
  if (!(isSpace(next) || next === 0x3e || next === 0x2f)) return undefined;
  const close = text.indexOf('>', after);
  if (close === -1) return 'unclosed';
  const selfClosing = text[close - 1] === '/';
  return { attributes: text.slice(after, selfClosing ? close - 1 : close), end: close + 1, selfClosing };
}

/**
 * Each `<name …>…</name>` element of `text` in order: its attributes and the text inside (`''` for `<name/>`;
 * undefined when its closing tag never comes, after which nothing more is read). Linear in the text.
 */
function* elementsOf(text: string, name: string): Generator<{ attributes: Record<string, string>; inner: string | undefined }> {
  const open = `<${name}`;
  const close = `</${name}>`;
  let from = 0;
  for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, from)) {
    const tag = readTag(text, at, open);
    if (tag === 'unclosed') return;
    if (tag === undefined) {
      from = at + open.length;
      continue;
    }
    const attributes = readAttributes(tag.attributes);
    if (tag.selfClosing) {
      from = tag.end;
      yield { attributes, inner: '' };
      continue;
    }
    const end = text.indexOf(close, tag.end);
    if (end === -1) {
      yield { attributes, inner: undefined };
      return;
    }
    from = end + close.length;
    yield { attributes, inner: text.slice(tag.end, end) };
  }
}

type CallsReading = { ok: true; calls: FunctionCall[] } | { ok: false; message: string };

/**
 * The calls between `<function_calls>` and `</function_calls>`. An `<invoke>` that cannot be read as written is a call
 * with an `error` (FunctionCall.error), not the block's: the calls beside it are whole, and the model is told which of
 * its calls failed and why, under that call's id, while the others run.
 */
function readXmlCalls(body: string): CallsReading {
  const calls: FunctionCall[] = [];
  for (const { attributes, inner } of elementsOf(body, 'invoke')) {
    const number = calls.length + 1;
    if (number > MAX_BLOCKS_PER_KIND) {
      return { ok: false, message: `the <function_calls> block holds more than ${MAX_BLOCKS_PER_KIND} <invoke> calls; split them over several replies` };
    }
    const name = (attributes.name ?? '').trim();
    const call: FunctionCall = { name, arguments: {} };
    if (attributes.call_id !== undefined) call.callId = attributes.call_id;
    calls.push(call);
    if (name === '') {
      call.error = `<invoke> number ${number} has no name; write <invoke name="tool name">`;
    } else if (inner === undefined) {
      call.error = `<invoke name="${cut(name)}"> is not closed with </invoke> before </function_calls>`;
    } else {
      const args = readXmlParameters(inner, name);
      if (args.ok) call.arguments = args.arguments;
      else call.error = args.message;
    }
  }
  if (calls.length === 0) return { ok: false, message: 'the <function_calls> block holds no <invoke name="…"> call' };
  return { ok: true, calls };
}

function readXmlParameters(inner: string, tool: string): { ok: true; arguments: Record<string, unknown> } | { ok: false; message: string } {
  const args: Record<string, unknown> = {};
  for (const { attributes, inner: value } of elementsOf(inner, 'parameter')) {
    const name = attributes.name ?? '';
    if (name.trim() === '') return { ok: false, message: `a <parameter> of ${cut(tool)} has no name; write <parameter name="argument">value</parameter>` };
    if (Object.hasOwn(args, name)) return { ok: false, message: `the parameter ${JSON.stringify(cut(name))} of ${cut(tool)} is given twice` };
    if (value === undefined) return { ok: false, message: `<parameter name="${cut(name)}"> of ${cut(tool)} is not closed with </parameter>` };
    args[name] = parameterValue(value);
  }
  return { ok: true, arguments: args };
}

function xmlBlock(markdown: string, start: number, close: number): Block {
  const end = close + CLOSE.length;
  const block: Block = { kind: 'function-calls', complete: true, raw: markdown.slice(start, end), start, end };
  const reading = readXmlCalls(markdown.slice(start + OPEN.length, close));
  if (reading.ok) block.payload = { form: 'xml', calls: reading.calls } satisfies FunctionCallsPayload;
  else block.error = reading.message;
  return block;
}

/**
 * A call in a code block that a line of its own fence inside a parameter closed: a file's code block written in the
 * value (```` ```python ```` … ```` ``` ````) ends the ```` ```xml ```` block there, on the page as in the text, and the
 * rest of the call, its closer included, stands after the code block as text. Such a call was "writing" for good. Once
 * its closer has come, with no other call opened between, it is a complete block that does not run, saying why: what
 * the page shows of the value after the cut is not what was written. It starts at the code block's opening line, so
 * that its raw text, read alone (as the companion reads it), is cut the same way. undefined when the code block does not
 * end inside a `<parameter>` of the call.
 */
function cutInParameter(
  markdown: string,
  fence: Fence,
  at: number,
  close: number,
  opensBetween: (from: number, to: number) => boolean,
): Block | undefined {
  const written = markdown.slice(at, fence.contentEnd);
  const parameter = written.lastIndexOf('<parameter');
  if (parameter === -1 || parameter < written.lastIndexOf('</parameter>')) return undefined;
  const tag = readTag(written, parameter, '<parameter');
  if (tag === undefined || tag === 'unclosed' || tag.selfClosing) return undefined;
  if (opensBetween(fence.end, close)) return undefined;
  const name = readAttributes(tag.attributes).name ?? '';
  const invoke = written.lastIndexOf('<invoke', parameter);
  const invokeTag = invoke === -1 ? undefined : readTag(written, invoke, '<invoke');
  const tool = typeof invokeTag === 'object' ? (readAttributes(invokeTag.attributes).name ?? '') : '';
  const line = markdown.slice(fence.contentEnd, fence.end).trim();
  const opening = markdown.slice(fence.start, fence.labelEnd).trim();
  const longer = fence.char.repeat(fence.size + 1) + opening.slice(fence.indent + fence.size).trimStart();
  const end = close + CLOSE.length;
  return {
    kind: 'function-calls',
    complete: true,
    raw: markdown.slice(fence.start, end),
    start: fence.start,
    end,
    error:
      `the line ${line} inside <parameter name="${cut(name)}">${tool === '' ? '' : ` of ${cut(tool)}`} closed the code block ` +
      `(${opening}) holding the <function_calls> block, so the page shows the rest of the call as text and it is not read ` +
      `back as written; nothing ran: open the code block with a fence longer than any line inside it (${longer})`,
  };
}

/** The XML blocks of a message, in order (see above). */
function findXml(markdown: string, fences: readonly Fence[]): Block[] {
  const blocks: Block[] = [];
  // the next closer after the current opener; openers only move forward, so each stretch is searched once
  let close = -2;
  const lineStartAt = lineStarts(markdown);
  const codeAt = codeBlocksAt(fences);
  // one in a code block that a code block shows (````markdown around ```xml) is an example of a reply, not a call;
  // the openers before a closer are still read as they are alone (lastOpenerBefore), as the companion reads the block
  const shownInCode = nestedFenceLocator(markdown, fences);
  /** The first opener in [from, to) that opens a block; -1 when there is none. */
  const nextOpener = (from: number, to: number): number => {
    for (let at = markdown.indexOf(OPEN, from); at !== -1 && at < to; at = markdown.indexOf(OPEN, at + OPEN.length)) {
      if (opensBlock(markdown, at, lineStartAt, codeAt) && !shownInCode(at)) return at;
    }
    return -1;
  };
  for (let at = markdown.indexOf(OPEN); at !== -1; ) {
    if (!opensBlock(markdown, at, lineStartAt, codeAt) || shownInCode(at)) {
      at = markdown.indexOf(OPEN, at + OPEN.length);
      continue;
    }
    if (close !== -1 && close < at + OPEN.length) close = markdown.indexOf(CLOSE, at + OPEN.length);
    const fence = cutOffBy(fences, at, close);
    if (fence !== undefined) {
      const cut = close === -1 ? undefined : cutInParameter(markdown, fence, at, close, (from, to) => nextOpener(from, to) !== -1);
      if (cut !== undefined) {
        blocks.push(cut);
        at = markdown.indexOf(OPEN, close + CLOSE.length);
        continue;
      }
      // never closed inside its code block: a call still being written (the page shows an unfinished code block
      // as closed) or one that will not be; it ends with the code block and never runs
      blocks.push({ kind: 'function-calls', complete: false, raw: markdown.slice(at, fence.end), start: at, end: fence.end });
      at = markdown.indexOf(OPEN, fence.end);
      continue;
    }
    if (close === -1) {
      blocks.push({ kind: 'function-calls', complete: false, raw: markdown.slice(at), start: at, end: markdown.length });
      break;
    }
    blocks.push(xmlBlock(markdown, lastOpenerBefore(markdown, fences, at, close, lineStartAt, codeAt), close));
    at = markdown.indexOf(OPEN, close + CLOSE.length);
  }
  return blocks;
}

// ------------------------------------------------------------------------------------------------ bare invokes

const INVOKE = '<invoke';
const INVOKE_CLOSE = '</invoke>';

/**
 * Each closed `<invoke name="…">…</invoke>` outside every `<function_calls>` block (`wrapped`: the XML blocks, in order),
 * as a block of one call: a model that drops the wrapper (in a ```` ```xml ```` block or in prose) wrote the call
 * plainly, and gave no block — nothing ran and nobody was told. The format's form is not what was written, so such a
 * block is `unwrapped`: offered with Run, never run by itself. One in inline code (a backtick right before it), on a
 * quoted line, in a code block a code block shows, or with no name is a mention, as is one followed by another
 * `<invoke` before the closer (in prose naming the tag); one not yet closed is not read (a `<function_calls>`
 * mid-stream opens before its invokes, so its block already covers them).
 */
function findBareInvokes(markdown: string, fences: readonly Fence[], wrapped: readonly Block[]): Block[] {
  if (!markdown.includes(INVOKE_CLOSE)) return [];
  const blocks: Block[] = [];
  const lineStartAt = lineStarts(markdown);
  const shownInCode = nestedFenceLocator(markdown, fences);
  let i = 0;
  let gt = -2;
  let close = -2;
  for (let at = markdown.indexOf(INVOKE); at !== -1; ) {
    while (i < wrapped.length && (wrapped[i] as Block).end <= at) i++;
    const around = wrapped[i];
    if (around !== undefined && around.start <= at) {
      at = markdown.indexOf(INVOKE, around.end);
      continue;
    }
    const after = at + INVOKE.length;
    const next = markdown.charCodeAt(after);
    if (!(isSpace(next) || next === 0x3e || next === 0x2f)) {
      at = markdown.indexOf(INVOKE, after);
      continue;
    }
    // the tag's end and the first closer after it, each kept while the tags move up to it (one search per stretch)
    if (gt !== -1 && gt < after) gt = markdown.indexOf('>', after);
    if (gt === -1) break;
    if (close !== -1 && close <= gt) close = markdown.indexOf(INVOKE_CLOSE, gt + 1);
    if (close === -1) break;
    // another invoke before the closer (inside this tag or after it): this one was a mention or never closed; the
    // last one is the call
    const later = markdown.indexOf(INVOKE, after);
    if (later !== -1 && later < close) {
      at = later;
      continue;
    }
    if (markdown[gt - 1] === '/') {
      at = later;
      continue;
    }
    const end = close + INVOKE_CLOSE.length;
    // a closer past the next wrapped block's start is not this invoke's: that block holds it
    if (around !== undefined && end > around.start) {
      at = markdown.indexOf(INVOKE, around.end);
      continue;
    }
    const named = (readAttributes(markdown.slice(after, gt)).name ?? '').trim() !== '';
    if (named && markdown[at - 1] !== '`' && !onQuotedLine(markdown, at, lineStartAt) && !shownInCode(at)) {
      const raw = markdown.slice(at, end);
      const reading = readXmlCalls(raw);
      const block: Block = { kind: 'function-calls', complete: true, raw, start: at, end, unwrapped: true };
      if (reading.ok) block.payload = { form: 'xml', calls: reading.calls } satisfies FunctionCallsPayload;
      else block.error = reading.message;
      blocks.push(block);
      at = markdown.indexOf(INVOKE, end);
      continue;
    }
    // a mention: an invoke after it may still be a call, up to the same closer
    at = markdown.indexOf(INVOKE, at + INVOKE.length);
  }
  return blocks;
}

// ------------------------------------------------------------------------------------------------ JSON lines

interface Line {
  start: number;
  /** end of the text, before the line break */
  end: number;
  /** after the line break; -1 when the line has none yet (the end of the text) */
  next: number;
}

function* linesOf(text: string, from: number, to: number): Generator<Line> {
  let start = from;
  while (start < to) {
    const newline = text.indexOf('\n', start);
    if (newline === -1 || newline >= to) {
      yield { start, end: to, next: -1 };
      return;
    }
    yield { start, end: newline > start && text.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline, next: newline + 1 };
    start = newline + 1;
  }
}

type JsonLine = { type: string; value: Record<string, unknown>; inexact?: string } | undefined;

/**
 * A line as one JSON object with a string `type`; undefined for anything else. `inexact`: why its value is not the one
 * it writes (a Windows path read as control characters, 1e400 read as Infinity, a key written twice), as json.ts
 * refuses it in the other protocols.
 */
function readJsonLine(text: string): JsonLine {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (!isPlainObject(value) || typeof value.type !== 'string') return undefined;
    const inexact = notAsWritten(trimmed, value);
    return inexact === undefined ? { type: value.type, value } : { type: value.type, value, inexact };
  } catch {
    return undefined;
  }
}

/**
 * Builds calls from JSON lines, one at a time. A line inside a call that cannot be read as written (not a JSON object, a
 * parameter with no key or given twice, a type it does not know) is that call's `error` (FunctionCall.error), as an
 * `<invoke>` that cannot be read is in the XML form: the calls beside it are whole, and the model is told under that
 * call's id. `problem` names the first line that breaks the block itself: one outside any call, a call started before
 * the last one ended, too many calls.
 */
class JsonlCalls {
  readonly calls: FunctionCall[] = [];
  private open: FunctionCall | undefined;
  problem: string | undefined;

  get inCall(): boolean {
    return this.open !== undefined;
  }

  /** Takes one complete line; returns whether it ended a call. */
  take(text: string, number: number): boolean {
    if (this.problem !== undefined || text.trim() === '') return false;
    const line = readJsonLine(text);
    const lineProblem =
      line === undefined ? `line ${number} is not a JSON object with a "type": ${JSON.stringify(cut(text.trim()))}` : line.inexact === undefined ? undefined : `line ${number}: ${line.inexact}`;
    if (lineProblem !== undefined || line === undefined) {
      // inside a call it is that call's; its function_call_end still ends it
      if (this.open) this.open.error ??= lineProblem;
      else this.problem = lineProblem;
      return false;
    }
    const { type, value } = line;
    if (type === JSONL_START) {
      if (this.open) {
        this.problem = `line ${number} starts a call before the call to ${cut(this.open.name) || '(no name)'} ended with {"type": "function_call_end"}`;
        return false;
      }
      if (this.calls.length === MAX_BLOCKS_PER_KIND) {
        this.problem = `the block holds more than ${MAX_BLOCKS_PER_KIND} calls; split them over several replies`;
        return false;
      }
      const name = typeof value.name === 'string' ? value.name.trim() : '';
      this.open = { name, arguments: {} };
      if (typeof value.call_id === 'string' || typeof value.call_id === 'number') this.open.callId = String(value.call_id);
      if (name === '') this.open.error = `line ${number}: function_call_start needs "name", the tool's name; got ${describeValue(value.name)}`;
      return false;
    }
    if (!this.open) {
      this.problem = `line ${number} (${cut(type)}) comes before any {"type": "function_call_start"}`;
      return false;
    }
    if (type === 'parameter') {
      if (typeof value.key !== 'string' || value.key === '') {
        this.open.error ??= `line ${number}: a parameter needs "key", the argument's name; got ${describeValue(value.key)}`;
      } else if (Object.hasOwn(this.open.arguments, value.key)) {
        this.open.error ??= `line ${number}: the parameter ${JSON.stringify(cut(value.key))} of ${cut(this.open.name) || '(no name)'} is given twice`;
      } else {
        this.open.arguments[value.key] = value.value;
      }
      return false;
    }
    if (type === 'function_call_end') {
      this.calls.push(this.open);
      this.open = undefined;
      return true;
    }
    if (type !== 'description') {
      this.open.error ??= `line ${number}: type ${describeValue(type)} is not one of function_call_start, description, parameter, function_call_end`;
    }
    return false;
  }

  /**
   * What the block is, now that no more lines come. A call that has not ended leaves the block incomplete, as
   * those extensions read it: mid-stream the page shows an unfinished code block as closed.
   */
  finish(block: Block): Block {
    if (this.problem === undefined && this.open) {
      block.complete = false;
      return block;
    }
    if (this.problem === undefined && this.calls.length === 0) this.problem = 'the block holds no call ({"type": "function_call_start", "name": …} … {"type": "function_call_end"})';
    if (this.problem !== undefined) block.error = this.problem;
    else block.payload = { form: 'jsonl', calls: this.calls } satisfies FunctionCallsPayload;
    return block;
  }
}

/**
 * A code block holding JSON-line calls is one block; complete when the fence has closed. One whose first call starts in
 * a code block of its own (a ```` ```jsonl ```` block inside a ````` ````markdown ````` one) shows an example of a reply.
 */
function fencedJsonlBlock(markdown: string, fence: Fence, shownInCode: (at: number) => boolean): Block | undefined {
  if (!fence.content.includes(JSONL_START_QUOTED)) return undefined;
  const first = markdown.indexOf(JSONL_START_QUOTED, fence.contentStart);
  if (first !== -1 && first < fence.contentEnd && shownInCode(first)) return undefined;
  const block: Block = { kind: 'function-calls', complete: fence.closed, raw: markdown.slice(fence.start, fence.end), start: fence.start, end: fence.end };
  if (!fence.closed) return block;
  const calls = new JsonlCalls();
  let number = 0;
  for (const line of linesOf(fence.content, 0, fence.content.length)) calls.take(fence.content.slice(line.start, line.end), ++number);
  return calls.finish(block);
}

/** Calls in paragraph text: each from its start line to its end line and that line's break. */
function unfencedJsonlBlocks(markdown: string, from: number, to: number, blocks: Block[]): void {
  let calls: JsonlCalls | undefined;
  let start = 0;
  let number = 0;
  for (const line of linesOf(markdown, from, to)) {
    const text = markdown.slice(line.start, line.end);
    if (calls === undefined) {
      if (!text.includes(JSONL_START_QUOTED)) continue;
      if (line.next === -1 || readJsonLine(text)?.type !== JSONL_START) {
        if (line.next === -1 && text.trimStart().startsWith('{')) blocks.push(openBlock(markdown, line.start, to));
        continue;
      }
      calls = new JsonlCalls();
      start = line.start;
      number = 0;
    }
    if (line.next === -1) {
      blocks.push(openBlock(markdown, start, to));
      return;
    }
    if (text.trim() !== '' && readJsonLine(text) === undefined) {
      // prose broke the lines off: they were not a call (a code block gets the error instead, see above)
      calls = undefined;
      continue;
    }
    const ended = calls.take(text, ++number);
    if (ended || calls.problem !== undefined) {
      blocks.push(calls.finish({ kind: 'function-calls', complete: true, raw: markdown.slice(start, line.next), start, end: line.next, unfenced: true }));
      calls = undefined;
    }
  }
  if (calls !== undefined) blocks.push(openBlock(markdown, start, to));
}

function openBlock(markdown: string, start: number, end: number): Block {
  return { kind: 'function-calls', complete: false, raw: markdown.slice(start, end), start, end, unfenced: true };
}

function findJsonl(markdown: string, fences: readonly Fence[]): Block[] {
  if (!markdown.includes(JSONL_START_QUOTED)) return [];
  const blocks: Block[] = [];
  const shownInCode = nestedFenceLocator(markdown, fences);
  let cursor = 0;
  for (const fence of fences) {
    unfencedJsonlBlocks(markdown, cursor, fence.start, blocks);
    const block = fencedJsonlBlock(markdown, fence, shownInCode);
    if (block) blocks.push(block);
    cursor = Math.max(cursor, fence.end);
  }
  unfencedJsonlBlocks(markdown, cursor, markdown.length, blocks);
  return blocks;
}

// ------------------------------------------------------------------------------------------------ protocol

/** The blocks of `blocks` that share no text with any of `others` (both in order of position). */
function withoutOverlaps(blocks: Block[], others: readonly Block[]): Block[] {
  let i = 0;
  return blocks.filter((block) => {
    while (i < others.length && (others[i] as Block).end <= block.start) i++;
    const other = others[i];
    return other === undefined || block.end <= other.start;
  });
}

export const functionCalls = defineProtocol({
  kind: 'function-calls',
  hints: { labels: [], markers: [OPEN, JSONL_START_QUOTED, INVOKE_CLOSE] },
  find(markdown, fences) {
    const inFence = fenceLocator(fences);
    const xml = findXml(markdown, fences).map((block) => {
      // an incomplete block may run past its code block's end (cut off there): where it starts says where it is; one
      // cut by a line in a parameter (cutInParameter) starts at its code block's opening line and runs nothing
      if (!markdown.startsWith(OPEN, block.start)) return block;
      if (!inFence(block.start, block.complete ? block.end : block.start)) block.unfenced = true;
      return block;
    });
    // JSON lines inside a complete XML block are a parameter's value, not calls (an XML block still being written
    // does not hide them: it may never close)
    const jsonl = withoutOverlaps(findJsonl(markdown, fences), xml.filter((block) => block.complete));
    const bare = withoutOverlaps(findBareInvokes(markdown, fences, xml), jsonl);
    const blocks = [...xml, ...jsonl, ...bare].sort((a, b) => a.start - b.start || a.end - b.end);
    if (blocks.length <= MAX_BLOCKS_PER_KIND) return blocks;
    const rest = blocks.slice(MAX_BLOCKS_PER_KIND);
    const last = rest[rest.length - 1] as Block;
    return [
      ...blocks.slice(0, MAX_BLOCKS_PER_KIND),
      notReadBlock(markdown, {
        kind: 'function-calls',
        start: (blocks[0] as Block).start,
        end: last.end,
        complete: last.complete,
        notRead: rest.length,
        reason: 'count',
        noun: { one: '<function_calls> block', many: '<function_calls> blocks' },
      }),
    ];
  },
});
