/**
 * CommonMark fenced code blocks, found in one pass over the text.
 *
 * Scope: fences at the top level of the document (indentation 0–3 spaces). Fences inside block quotes or
 * nested list containers are not recognised — the extension re-fences every code block it serializes at the
 * top level (DESIGN §1), and model replies put tool blocks there (an Axon plan a model wrote wholly inside a quote is
 * read through its quote marks: quoted.ts). Line endings are `\n` and `\r\n`; offsets
 * always point into the original string.
 */

export type FenceChar = '`' | '~';

export interface Fence {
  /** Offset of the opening line (including its indentation). */
  start: number;
  /**
   * End of the closing fence: its first `size` fence characters (a longer closing run or trailing spaces are
   * left out, so a reply cut mid-stream right after the fence gives the same block); the end of the input
   * when unclosed.
   */
  end: number;
  /** End of the label in the opening line (of the fence run when there is no label). */
  labelEnd: number;
  char: FenceChar;
  /** Number of fence characters in the opening fence. */
  size: number;
  /** Spaces before the opening fence (0–3); CommonMark removes as many from each content line. */
  indent: number;
  /** The info string, trimmed. */
  info: string;
  /** The first word of the info string, lower-cased: the block's label (`mcp-request`, `act`, …). */
  label: string;
  /** Offset of the first content line (the end of the input when the opening line is the last line). */
  contentStart: number;
  /** Offset where the closing fence line starts; the end of the input when unclosed. */
  contentEnd: number;
  /**
   * Everything between the opening and the closing fence line, including the last line's line ending
   * (a file written from it keeps its final newline); the fence's indentation removed per CommonMark.
   */
  content: string;
  closed: boolean;
}

interface FenceMarker {
  char: FenceChar;
  size: number;
  indent: number;
  /** Offset just after the run of fence characters. */
  runEnd: number;
}

/** Reads a fence run at the start of the line `[lineStart, lineEnd)`: up to 3 spaces, then 3+ of one fence char. */
function readFenceMarker(text: string, lineStart: number, lineEnd: number): FenceMarker | undefined {
  let i = lineStart;
  while (i < lineEnd && i - lineStart < 4 && text.charCodeAt(i) === 0x20) i++;
  const indent = i - lineStart;
  if (indent > 3) return undefined;
  const c = text[i];
  if (c !== '`' && c !== '~') return undefined;
  let j = i;
  while (j < lineEnd && text[j] === c) j++;
  const size = j - i;
  if (size < 3) return undefined;
  return { char: c, size, indent, runEnd: j };
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** Removes up to `indent` leading spaces from every line, as CommonMark does for an indented opening fence. */
function outdent(content: string, indent: number): string {
  if (indent === 0 || content === '') return content;
  const lines = content.split('\n');
  return lines
    .map((line) => {
      let k = 0;
      while (k < indent && line.charCodeAt(k) === 0x20) k++;
      return line.slice(k);
    })
    .join('\n');
}

/** Characters a page draws as nothing: in a label (```` ```mcp-request\u200B ````) they are not what the reader sees. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;

/**
 * A fence's label: the first word of its info string, lower-cased, without the zero-width characters a page does not
 * show (the block still holds them, so it never runs by itself: shared/reveal-hidden.ts).
 */
export function fenceLabel(info: string): string {
  const match = /^\S*/.exec(info.replace(ZERO_WIDTH, '').trimStart());
  return (match?.[0] ?? '').toLowerCase();
}

/**
 * Every fenced code block of `markdown`, in order. Lines inside an open fence are content, so a fence shown
 * inside another fence (a ```` ```markdown ```` example) is never reported. Linear in the input's length.
 */
export function scanFences(markdown: string): Fence[] {
  const fences: Fence[] = [];
  const length = markdown.length;
  let open:
    | OpenFence
    | undefined;
  // A byte order mark before the first line is no part of it (markdown ignores it there): a fence may follow it.
  let lineStart = markdown.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (lineStart <= length) {
    const newline = markdown.indexOf('\n', lineStart);
    const breakAt = newline === -1 ? length : newline;
    // A `\r` before the `\n` (or at the very end, mid-stream) belongs to the line ending.
    const lineEnd = breakAt > lineStart && markdown.charCodeAt(breakAt - 1) === 0x0d ? breakAt - 1 : breakAt;
    const nextLine = newline === -1 ? length + 1 : newline + 1;
    const marker = readFenceMarker(markdown, lineStart, lineEnd);
    if (open === undefined) {
      if (marker !== undefined) {
        const info = markdown.slice(marker.runEnd, lineEnd).trim();
        // CommonMark: the info string of a backtick fence may not contain a backtick (it is inline code).
        if (!(marker.char === '`' && info.includes('`'))) {
          let labelEnd = marker.runEnd;
          while (labelEnd < lineEnd && /\s/.test(markdown[labelEnd] as string)) labelEnd++;
          while (labelEnd < lineEnd && !/\s/.test(markdown[labelEnd] as string)) labelEnd++;
          if (info === '') labelEnd = marker.runEnd;
          open = {
            start: lineStart,
            labelEnd,
            marker,
            info,
            contentStart: Math.min(nextLine, length),
          };
        }
      }
    } else if (
      marker !== undefined &&
      marker.char === open.marker.char &&
      marker.size >= open.marker.size &&
      isBlank(markdown, marker.runEnd, lineEnd)
    ) {
      fences.push(makeFence(markdown, open, lineStart, lineStart + marker.indent + open.marker.size, true));
      open = undefined;
    }
    if (newline === -1) break;
    lineStart = nextLine;
  }
  if (open !== undefined) fences.push(makeFence(markdown, open, length, length, false));
  return fences;
}

interface OpenFence {
  start: number;
  labelEnd: number;
  marker: FenceMarker;
  info: string;
  contentStart: number;
}

function makeFence(
  markdown: string,
  open: OpenFence,
  contentEnd: number,
  end: number,
  closed: boolean,
): Fence {
  const contentStart = Math.min(open.contentStart, contentEnd);
  return {
    start: open.start,
    end,
    labelEnd: open.labelEnd,
    char: open.marker.char,
    size: open.marker.size,
    indent: open.marker.indent,
    info: open.info,
    label: fenceLabel(open.info),
    contentStart,
    contentEnd,
    content: outdent(markdown.slice(contentStart, contentEnd), open.marker.indent),
    closed,
  };
}

/** Whether a span lies inside one fenced code block's content; asked with increasing `start`. */
export function fenceLocator(fences: readonly Fence[]): (start: number, end: number) => boolean {
  let i = 0;
  return (start, end) => {
    while (i < fences.length && (fences[i] as Fence).contentEnd <= start) i++;
    const fence = fences[i];
    return fence !== undefined && fence.contentStart <= start && end <= fence.contentEnd;
  };
}

/** The labels of a code block that shows a markdown document: what a reply looks like, not the reply. */
const DOCUMENT_LABELS: ReadonlySet<string> = new Set(['markdown', 'md']);

/**
 * Whether a position inside a fenced code block's content is shown there as an example of a reply, not a call of the
 * reply's own: it lies inside a code block that content shows in turn (a ```` ```xml ```` block inside a
 * ````` ````markdown ````` one), or anywhere in a code block labelled `markdown` or `md`, which shows a document as its
 * text — seed 002's one-line ```` ```#####--{…}--#####``` ```` there, or a call written straight into it, is how a
 * reply looks. Asked with any position; each code block's content is scanned once, on first use.
 */
export function nestedFenceLocator(markdown: string, fences: readonly Fence[]): (at: number) => boolean {
  const inner = new Map<Fence, Fence[]>();
  return (at) => {
    const outer = contentHolding(fences, at);
    if (outer === undefined) return false;
    if (DOCUMENT_LABELS.has(outer.label)) return true;
    let shown = inner.get(outer);
    if (shown === undefined) {
      shown = scanFences(markdown.slice(outer.contentStart, outer.contentEnd));
      inner.set(outer, shown);
    }
    return contentHolding(shown, at - outer.contentStart) !== undefined;
  };
}

/** The fence of `fences` (in order, not overlapping) whose content holds the position `at`, if any. */
export function contentHolding(fences: readonly Fence[], at: number): Fence | undefined {
  let low = 0;
  let high = fences.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const fence = fences[middle] as Fence;
    if (at < fence.contentStart) high = middle - 1;
    else if (at >= fence.contentEnd) low = middle + 1;
    else return fence;
  }
  return undefined;
}

/** Where the line holding a position starts; the lines are found once, on first use, so each look is a binary search. */
export type LineStartAt = (at: number) => number;

export function lineStarts(markdown: string): LineStartAt {
  let starts: number[] | undefined;
  return (at) => {
    if (starts === undefined) {
      starts = [0];
      for (let i = markdown.indexOf('\n'); i !== -1; i = markdown.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= at) low = middle;
      else high = middle - 1;
    }
    return starts[low] as number;
  };
}

/**
 * Whether the text at `at` is on a line quoted back (`> …`, a blockquote: an earlier message or an example, as the
 * serializer writes a page's quote). Only what precedes `at` on its line is read: a quote marker first.
 */
export function onQuotedLine(markdown: string, at: number, lineStartAt: LineStartAt): boolean {
  let start = lineStartAt(at);
  while (start < at && (markdown.charCodeAt(start) === 0x20 || markdown.charCodeAt(start) === 0x09)) start++;
  return start < at && markdown.charCodeAt(start) === 0x3e;
}
