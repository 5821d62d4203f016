import { BLOCK_HINTS, fenceLabel } from '../../shared/protocols';
import { HIDDEN_LABEL } from '../../shared/protocols/json-fence';
import { AXON_ARITY } from '../../shared/protocols/axon';
import type { Site } from '../sites/define-site';
import { t } from '../ui/i18n';

/**
 * DOM → markdown for ONE message (DESIGN §1.1). Every protocol parser works on markdown, so the page's rendering is
 * undone here: code blocks are re-fenced with their language label and a fence longer than any backtick run inside,
 * paragraphs/headings/lists/quotes become their markdown text (auto_coder `#####--` plans may sit in paragraphs),
 * reasoning and our own UI are left out. The source map ties each emitted span back to the element it came from.
 */

export interface SourceSegment {
  start: number;
  end: number;
  el: Element;
  /** Set for code blocks. */
  code?: { language: string; partial?: string };
  /** Why this text may not be what the model wrote (text the page drew as something else); a block over it never runs. */
  unreadable?: string;
}

export interface SerializedMessage {
  markdown: string;
  segments: SourceSegment[];
}

const BLOCK_TAGS = new Set([
  'P', 'DIV', 'SECTION', 'ARTICLE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'TABLE', 'HR', 'PRE',
]);

export function serializeMessage(answer: Element, site: SiteReader): SerializedMessage {
  const out = new MarkdownWriter();
  writeBlockChildren(answer, site, out, '');
  return { markdown: out.finish(), segments: out.segments };
}

class MarkdownWriter {
  private parts: string[] = [];
  private length = 0;
  segments: SourceSegment[] = [];

  get position(): number {
    return this.length;
  }

  /** Appends one block (paragraph, heading, fence…) separated from the previous by a blank line. */
  block(text: string, el: Element, code?: SourceSegment['code'], unreadable?: string): void {
    if (text === '') return;
    if (this.length > 0) this.push('\n\n');
    const start = this.length;
    this.push(text);
    const segment: SourceSegment = code ? { start, end: this.length, el, code } : { start, end: this.length, el };
    if (unreadable) segment.unreadable = unreadable;
    this.segments.push(segment);
  }

  private push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  finish(): string {
    return this.parts.join('') + (this.length > 0 ? '\n' : '');
  }
}

type SiteReader = Pick<Site, 'skipSelector' | 'codeBlockSelector' | 'codeLanguage' | 'codeText' | 'labelHidden'>;

/**
 * An open model's reasoning that a page rendered as an element of its own: a renderer that lets HTML through makes
 * `<think>…</think>` (DeepSeek R1, Qwen, QwQ) a `think` element holding the reasoning, and a block drafted in it is no
 * call, on any site. (Shown as text, `<think>` is left to findBlocks.)
 */
function isReasoning(el: Element): boolean {
  return el.tagName === 'THINK' || el.tagName === 'THINKING';
}

/**
 * The tags of a `<function_calls>` call (shared/protocols/function-calls.ts) that a page drew as HTML elements: a
 * renderer that lets HTML through (marked's default, on pages without a site module) shows `<invoke name="fs.read">`
 * and `<parameter name="path">` as no text at all — their names are attributes — and the call was silently not there.
 * (`<function_calls>` itself is no HTML tag to markdown, the underscore, so it stays text; an HTML parser reading it
 * another way makes it an element too.) They are written back as tags, so the call is found and the person sees it,
 * but its text is marked unreadable: the page's HTML parser may have moved what a value held (a `<h1>` in a file's
 * content closes the paragraph around the call, leaving the parameter empty), and entities in it are decoded.
 */
const CALL_TAGS = new Set(['FUNCTION_CALLS', 'INVOKE', 'PARAMETER']);
// A call holds an <invoke>; a bare `function_calls` type selector is refused by some DOMs (the underscore).
const CALL_SELECTOR = 'invoke, parameter';

function isCallTag(el: Element): boolean {
  return CALL_TAGS.has(el.tagName.toUpperCase());
}

/** Why text written from these nodes is not readable as written, when the page drew a call's tags among them. */
function drawnCallReason(nodes: readonly Node[]): string | undefined {
  const drawn = nodes.some((node) => node.nodeType === 1 && (isCallTag(node as Element) || (node as Element).querySelector(CALL_SELECTOR) !== null));
  return drawn ? t('reason.callDrawnAsHtml') : undefined;
}

const VOID_TAGS = new Set(['AREA', 'BR', 'COL', 'EMBED', 'HR', 'IMG', 'INPUT', 'LINK', 'META', 'SOURCE', 'TRACK', 'WBR']);

/**
 * An element a page made of the call's tags, written back as the tags: a parameter's value as its text, and any
 * element in it (HTML a file's content holds) as its tags too. Attribute values are written with the entities the
 * call reader decodes.
 */
function asWritten(el: Element): string {
  const tag = el.tagName.toLowerCase();
  const attributes = Array.from(el.attributes, (a) => ` ${a.name}="${a.value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('');
  if (VOID_TAGS.has(el.tagName.toUpperCase())) return `<${tag}${attributes}>`;
  let inner = '';
  for (const child of Array.from(el.childNodes)) {
    if (child.nodeType === 3) inner += child.nodeValue ?? '';
    else if (child.nodeType === 1) inner += asWritten(child as Element);
  }
  return `<${tag}${attributes}>${inner}</${tag}>`;
}

function writeBlockChildren(parent: Element, site: SiteReader, out: MarkdownWriter, listPrefix: string): void {
  let inline: Node[] = [];
  const flushInline = (): void => {
    const text = inlineText(inline, site).trim();
    const unreadable = drawnCallReason(inline);
    inline = [];
    if (text) out.block(listPrefix + text, parent, undefined, unreadable);
  };
  for (const child of Array.from(parent.childNodes)) {
    if (child.nodeType === 3) {
      inline.push(child);
      continue;
    }
    if (child.nodeType !== 1) continue;
    const el = child as Element;
    if ((el.matches(site.skipSelector) && !el.matches(site.codeBlockSelector)) || isReasoning(el)) continue;
    if (el.matches(site.codeBlockSelector)) {
      flushInline();
      writeCodeBlock(el, site, out);
      continue;
    }
    if (isCallTag(el) || (!BLOCK_TAGS.has(el.tagName) && !containsBlock(el, site))) {
      inline.push(el);
      continue;
    }
    flushInline();
    writeBlockElement(el, site, out, listPrefix);
  }
  flushInline();
}

function containsBlock(el: Element, site: SiteReader): boolean {
  return el.querySelector(`${site.codeBlockSelector}, p, div, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, table`) !== null;
}

function writeBlockElement(el: Element, site: SiteReader, out: MarkdownWriter, listPrefix: string): void {
  const tag = el.tagName;
  if (/^H[1-6]$/.test(tag)) {
    const text = inlineText(Array.from(el.childNodes), site).trim();
    if (text) out.block(planMarkerHeading(tag, text) ?? `${'#'.repeat(Number(tag[1]))} ${text}`, el, undefined, drawnCallReason([el]));
    return;
  }
  if (tag === 'HR') {
    out.block('---', el);
    return;
  }
  if (tag === 'UL' || tag === 'OL') {
    let number = Number(el.getAttribute('start') ?? '1') || 1;
    for (const item of Array.from(el.children)) {
      if (item.tagName !== 'LI') continue;
      const marker = tag === 'OL' ? `${number++}. ` : '- ';
      writeListItem(item, site, out, marker);
    }
    return;
  }
  if (tag === 'BLOCKQUOTE') {
    // Quoted blocks (a seed's examples quoted back) stay quoted, so the parsers see them as the original did.
    const inner = new MarkdownWriter();
    writeBlockChildren(el, site, inner, '');
    const text = inner.finish().replace(/\n$/, '');
    out.block(text.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n'), el);
    return;
  }
  if (tag === 'TABLE') {
    const rows = Array.from(el.querySelectorAll('tr'), (row) =>
      '| ' + Array.from(row.children, (cell) => inlineText(Array.from(cell.childNodes), site).trim()).join(' | ') + ' |',
    );
    out.block(rows.join('\n'), el, undefined, drawnCallReason([el]));
    return;
  }
  writeBlockChildren(el, site, out, listPrefix);
}

/** The dashes of an auto_coder plan's marker (`#####--`, `--#####`), and the look-alikes its parser names in an error. */
const PLAN_DASHES = /^[-－—–]{1,2}/;
const PLAN_CLOSING_DASHES = /[-－—–]{1,2}$/;

/**
 * An auto_coder plan marker a page drew as a heading, written back as the marker. A renderer that takes `#####` for a
 * heading without the space CommonMark asks for (marked's pedantic mode, showdown's default) makes `#####--{…}--#####`
 * an h5 holding `--{…}--` (the closing `#####` dropped as the heading's closing sequence), and a plan's opener alone on
 * its line an h5 holding `--`: written as a heading, the plan was not there. null for any other heading.
 */
function planMarkerHeading(tag: string, text: string): string | null {
  if (tag !== 'H5') return null;
  const opener = PLAN_DASHES.exec(text);
  if (!opener) return null;
  const closed = opener[0].length < text.length && PLAN_CLOSING_DASHES.test(text.slice(opener[0].length));
  return `#####${text}${closed ? '#####' : ''}`;
}

/**
 * A list item's own text gets the marker; code blocks inside it are written at column 0, because the block parsers
 * read top-level fences and an indented fence would change what they see.
 */
function writeListItem(item: Element, site: SiteReader, out: MarkdownWriter, marker: string): void {
  const before = out.position;
  writeBlockChildren(item, site, out, marker);
  if (out.position === before) out.block(marker.trimEnd(), item);
}

function writeCodeBlock(el: Element, site: SiteReader, out: MarkdownWriter): void {
  const language = site.codeLanguage(el).trim();
  const { text, partial } = site.codeText(el);
  // A block whose page hid the label the model wrote is fenced as such (Site.labelHidden): the label is unknown.
  const label = language === '' && site.labelHidden?.(el) === true ? HIDDEN_LABEL : language;
  // Site readers return the fence content without its final line break (what the viewer shows); a content that
  // ends in an empty line keeps it, so Axon write_file content survives byte for byte.
  const fence = fenceFor(text, label);
  const fenced = text === '' ? `${fence}${label}\n${fence}` : `${fence}${label}\n${text}\n${fence}`;
  out.block(fenced, el, partial ? { language, partial } : { language });
}

/** A backtick fence longer than any backtick run in the body; tildes when the label itself holds a backtick. */
export function fenceFor(body: string, label = ''): string {
  const char = label.includes('`') ? '~' : '`';
  let longest = 0;
  const runs = body.match(char === '`' ? /`+/g : /~+/g) ?? [];
  for (const run of runs) longest = Math.max(longest, run.length);
  return char.repeat(Math.max(3, longest + 1));
}

function inlineText(nodes: Node[], site: SiteReader): string {
  let out = '';
  for (const node of nodes) {
    if (node.nodeType === 3) {
      out += node.nodeValue ?? '';
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    if (el.matches(site.skipSelector) || isReasoning(el)) continue;
    if (isCallTag(el)) {
      out += asWritten(el);
      continue;
    }
    if (el.classList.contains('katex') || el.classList.contains('katex-error')) {
      out += mathSource(el);
      continue;
    }
    const tag = el.tagName;
    if (tag === 'BR') out += '\n';
    else if (tag === 'CODE') out += inlineCode(el.textContent ?? '');
    else if (tag === 'STRONG' || tag === 'B') out += wrapInline(emphasisMarker(out, el, 2), inlineText(Array.from(el.childNodes), site));
    else if (tag === 'EM' || tag === 'I') out += wrapInline(emphasisMarker(out, el, 1), inlineText(Array.from(el.childNodes), site));
    else if (tag === 'DEL' || tag === 'S') out += wrapInline('~~', inlineText(Array.from(el.childNodes), site));
    else if (tag === 'IMG') out += el.getAttribute('alt') ?? '';
    else out += inlineText(Array.from(el.childNodes), site);
  }
  return out;
}

/**
 * The page no longer says whether `**x**` or `__x__` was written. Inside a word only `*` makes emphasis; elsewhere
 * the underscore is the better guess, because the text that matters here is code-like (auto_coder plans in
 * paragraphs, where `__init__` renders as bold `init`), while prose emphasis never affects a block.
 */
function emphasisMarker(before: string, el: Element, count: 1 | 2): string {
  const after = el.nextSibling?.textContent ?? '';
  const intraword = /[\p{L}\p{N}]$/u.test(before) && /^[\p{L}\p{N}]/u.test(after);
  return (intraword ? '*' : '_').repeat(count);
}

/**
 * The TeX a page drew as math, in the dollars it was most likely written in. Sites that render `$…$` as KaTeX (DeepSeek,
 * Kimi, Qwen, Doubao) make a plan in paragraph text whose command names two variables (`PATH=$HOME/bin:$PATH`) a
 * formula: its text is drawn three times (MathML, the TeX source, the visible glyphs, spaces dropped), so the plan read
 * `PATH=HOME/bin:HOME/bin:HOME/bin:PATH`. The TeX source is KaTeX's annotation; an expression KaTeX could not parse
 * (`$A && B$`: `&` is TeX's column separator) is shown as written in a `.katex-error`, without its dollars. Display
 * math (`.katex-display`) was written in `$$`. Without an annotation (KaTeX's HTML-only output) only the glyphs remain.
 */
function mathSource(el: Element): string {
  const dollars = el.parentElement?.classList.contains('katex-display') ? '$$' : '$';
  if (el.classList.contains('katex-error')) return `${dollars}${el.textContent ?? ''}${dollars}`;
  const annotation = el.querySelector('annotation[encoding="application/x-tex"]');
  const tex = annotation ? annotation.textContent : el.querySelector('.katex-html')?.textContent;
  return `${dollars}${tex ?? el.textContent ?? ''}${dollars}`;
}

function wrapInline(marker: string, text: string): string {
  return text.trim() === '' ? text : `${marker}${text}${marker}`;
}

function inlineCode(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/**
 * Whether serializing this answer can find any tool block, decided without walking it (`text` is its textContent).
 * A block needs a fence with a protocol's label or a protocol's marker in the text (Protocol.hints). Markers count
 * anywhere, code included. Fences come from the page's code blocks, whose labels are read here, or from backticks
 * and tildes the page left in its text outside code blocks; a code block's own backticks never open one, because
 * its body is re-fenced longer than any run inside. Most replies of a long conversation hold none of these, and
 * skipping their serialization is most of the first scan. A wrong "no" could only miss a block, never run one;
 * the serializer tests check it never says "no" where serializing finds a block.
 */
export function mayHoldBlocks(answer: Element, text: string, site: SiteReader): boolean {
  if (BLOCK_HINTS.markers.some((marker) => text.includes(marker))) return true;
  if (answer.querySelector(CALL_SELECTOR)) return true;
  // a plan's marker drawn as a heading (planMarkerHeading) has no marker left in the text
  if (Array.from(answer.querySelectorAll('h5'), (h) => (h.textContent ?? '').trim()).some((heading) => PLAN_DASHES.test(heading))) return true;
  let fenceChars = countFenceChars(text);
  for (const el of Array.from(answer.querySelectorAll(site.codeBlockSelector))) {
    const outer = el.parentElement?.closest(site.codeBlockSelector);
    if (outer && answer.contains(outer)) continue;
    // read as the fence written from it will be (a zero-width character in the page's label is no part of it)
    const label = fenceLabel(site.codeLanguage(el));
    if (BLOCK_HINTS.labels.has(label)) return true;
    if (BLOCK_HINTS.weakLabels.has(label)) {
      const code = (el.textContent ?? '').toLowerCase();
      if (BLOCK_HINTS.weakMarkers.some((marker) => code.includes(marker))) return true;
      // an Axon act fence whose page hid its `act` label holds only the act's name (shared/protocols/axon.ts hiddenAct)
      if (label === '' && ACTS.some((act) => code.includes(act)) && site.labelHidden?.(el) === true && Object.hasOwn(AXON_ARITY, site.codeText(el).text.trim())) return true;
    }
    if (fenceChars > 0) fenceChars -= countFenceChars(el.textContent ?? '');
  }
  return fenceChars > 0;
}

const ACTS = Object.keys(AXON_ARITY);

function countFenceChars(text: string): number {
  let count = 0;
  for (const char of ['`', '~']) for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) count++;
  return count;
}

/**
 * The code segments a block's span covers, the element a chip for it goes after, and why its text cannot be read as
 * written (a code block shown in part, text the page drew as something else), if it cannot.
 */
export function locateBlock(
  serialized: SerializedMessage,
  start: number,
  end: number,
): { anchor: Element | null; codeSegments: SourceSegment[]; unreadable: string | undefined } {
  const covered = serialized.segments.filter((s) => s.start < end && s.end > start);
  const unreadable = covered.find((s) => s.code?.partial || s.unreadable);
  return { anchor: covered[covered.length - 1]?.el ?? null, codeSegments: covered.filter((s) => s.code), unreadable: unreadable?.code?.partial ?? unreadable?.unreadable };
}
