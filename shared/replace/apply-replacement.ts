/**
 * The one text replacement behind replace_file (auto_coder), Axon `replace`, the `filesystem` edit action and
 * every other edit (DESIGN §3.5). Pure: content in, content out.
 *
 * Matching, in order, stopping at the first strategy that finds anything:
 * 1. exact — the old text as a substring;
 * 2. crlf — the same, with any line break in the old text matching `\n` or `\r\n` in the file (a model almost
 *    always writes `\n`; files from Windows hold `\r\n`);
 * 3. trimmed — a window of whole file lines equal to the old text's lines after trimming each line on both
 *    sides (models re-indent or drop indentation when they quote code). Old text made only of blank lines is
 *    never matched this way.
 * The match must be unique: 0 → MISMATCH with the closest file lines, more than 1 → AMBIGUOUS with every line.
 *
 * Writing the new text:
 * - literally (no `$&` or `$1` expansion);
 * - with the file's line ending: the one most of its lines use; a file with no line break keeps the new text's;
 * - for a trimmed match only, re-indented: let `oldIndent` be the indentation of the first non-blank line of the
 *   old text and `fileIndent` that of the file line it matched. Every non-blank new line that starts with
 *   `oldIndent` gets that prefix swapped for `fileIndent`; other lines are written as given. So code quoted
 *   without its indentation goes back at the file's indentation, and relative indentation inside it is kept.
 * - a trimmed match covers whole lines; the last line's line break is part of the match only when the old text
 *   ends with a line break (as in an exact match).
 */
import { escapeRegExp } from '../regexp';

export type ReplaceStrategy = 'exact' | 'crlf' | 'trimmed';

export interface ReplaceFailure {
  ok: false;
  /**
   * LIMIT_EXCEEDED: not from here — the companion stops a matching that takes too long (tools/define-handler.ts);
   * POLICY_BLOCKED: the replacement would show text the file keeps hidden (ReplaceOptions.hiddenSpans)
   */
  code: 'MISMATCH' | 'AMBIGUOUS' | 'INVALID_INPUT' | 'LIMIT_EXCEEDED' | 'POLICY_BLOCKED';
  /** One line for the model: what did not match and what to do. */
  message: string;
  /** How many places matched (0 for MISMATCH and INVALID_INPUT). */
  matches: number;
  /** 1-based line of each match (AMBIGUOUS), the first MAX_LISTED_MATCHES of them. */
  lines?: number[];
  /** The file lines most like the old text's first non-blank line (MISMATCH), best first. */
  closest?: Array<{ line: number; text: string }>;
}

export type ReplaceResult = { ok: true; content: string; strategy: ReplaceStrategy; line: number } | ReplaceFailure;

export interface TextEdit {
  oldText: string;
  newText: string;
}

/**
 * How a failure may quote the file. `showLine` gives line [start, end) of `content` as the model may see it (the
 * companion redacts secrets there); closest lines are scored and quoted on that text, so what a MISMATCH says
 * never depends on what was hidden. Without it a line is shown as it is.
 *
 * `hiddenSpans` gives the parts of a text the model is not shown (redacted secrets), in order. A match that reaches
 * into one is not taken, so old text that guessed a secret, or its first characters, answers as a wrong guess does
 * instead of confirming it; and a replacement after which one of them would be shown — old text beside it rewrote
 * what makes it a secret (`db_password=` made `db_note=`) — is refused, POLICY_BLOCKED. Without it every match counts.
 */
export interface ReplaceOptions {
  showLine?: (content: string, start: number, end: number) => string;
  hiddenSpans?: (content: string) => ReadonlyArray<{ start: number; end: number }>;
  /**
   * What `showLine` puts in a hidden part's place (`[REDACTED]`). Old text that quotes it, as the model read the
   * file, never matches: the MISMATCH says so, instead of quoting the same line back as the closest one.
   */
  hiddenMarker?: string;
}

export type ReplacementsResult =
  | { ok: true; content: string; applied: Array<{ strategy: ReplaceStrategy; line: number }> }
  | (ReplaceFailure & { /** 0-based index of the edit that failed; nothing was applied. */ editIndex: number });

const MAX_CLOSEST = 3;
/** Bounds what an AMBIGUOUS result carries when a tiny old text matches everywhere. */
export const MAX_LISTED_MATCHES = 100;
const MAX_LINES_IN_MESSAGE = 10;
const MAX_QUOTED = 120;

interface Match {
  start: number;
  end: number;
}

interface FileLine {
  start: number;
  /** end of the text, before the line break */
  end: number;
  /** end including the line break */
  next: number;
}

function splitLines(content: string): FileLine[] {
  const lines: FileLine[] = [];
  let start = 0;
  for (;;) {
    const newline = content.indexOf('\n', start);
    if (newline === -1) {
      lines.push({ start, end: content.length, next: content.length });
      return lines;
    }
    const end = newline > start && content[newline - 1] === '\r' ? newline - 1 : newline;
    lines.push({ start, end, next: newline + 1 });
    start = newline + 1;
  }
}

/** 1-based line of an offset. */
function lineAt(lines: readonly FileLine[], offset: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((lines[middle]?.start ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** The line break most of the file uses; null when it has none. */
export function dominantEol(content: string): '\n' | '\r\n' | null {
  let crlf = 0;
  let lf = 0;
  for (let index = content.indexOf('\n'); index !== -1; index = content.indexOf('\n', index + 1)) {
    if (index > 0 && content[index - 1] === '\r') crlf++;
    else lf++;
  }
  if (crlf === 0 && lf === 0) return null;
  return crlf > lf ? '\r\n' : '\n';
}

function withEol(text: string, eol: '\n' | '\r\n' | null): string {
  if (eol === null) return text;
  const normalized = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? normalized : normalized.replace(/\n/g, '\r\n');
}

function findExact(content: string, oldText: string): Match[] {
  const matches: Match[] = [];
  for (let index = content.indexOf(oldText); index !== -1; index = content.indexOf(oldText, index + 1)) {
    matches.push({ start: index, end: index + oldText.length });
  }
  return matches;
}

function findAnyEol(content: string, oldText: string): Match[] {
  const pattern = new RegExp(oldText.split(/\r\n|\n/).map(escapeRegExp).join('\\r?\\n'), 'g');
  const matches: Match[] = [];
  for (let found = pattern.exec(content); found !== null; found = pattern.exec(content)) {
    matches.push({ start: found.index, end: found.index + found[0].length });
    pattern.lastIndex = found.index + 1;
  }
  return matches;
}

function leadingWhitespace(text: string): string {
  return /^[ \t]*/.exec(text)?.[0] ?? '';
}

interface TrimmedMatch extends Match {
  /** index of the first file line of the window */
  first: number;
}

function oldTextLines(oldText: string): { lines: string[]; endsWithBreak: boolean } {
  const normalized = oldText.replace(/\r\n/g, '\n');
  const endsWithBreak = normalized.endsWith('\n');
  return { lines: (endsWithBreak ? normalized.slice(0, -1) : normalized).split('\n'), endsWithBreak };
}

function findTrimmed(content: string, fileLines: readonly FileLine[], oldText: string): TrimmedMatch[] {
  const { lines, endsWithBreak } = oldTextLines(oldText);
  const wanted = lines.map((line) => line.trim());
  if (wanted.every((line) => line === '')) return [];
  const fileTrimmed = fileLines.map((line) => content.slice(line.start, line.end).trim());
  const matches: TrimmedMatch[] = [];
  for (let first = 0; first + wanted.length <= fileLines.length; first++) {
    let same = true;
    for (let offset = 0; offset < wanted.length && same; offset++) same = fileTrimmed[first + offset] === wanted[offset];
    if (!same) continue;
    const last = fileLines[first + wanted.length - 1] as FileLine;
    matches.push({ first, start: (fileLines[first] as FileLine).start, end: endsWithBreak ? last.next : last.end });
  }
  return matches;
}

function reindent(newText: string, oldText: string, content: string, fileLines: readonly FileLine[], first: number): string {
  const { lines } = oldTextLines(oldText);
  const anchor = lines.findIndex((line) => line.trim() !== '');
  const anchorLine = fileLines[first + anchor] as FileLine;
  const oldIndent = leadingWhitespace(lines[anchor] ?? '');
  const fileIndent = leadingWhitespace(content.slice(anchorLine.start, anchorLine.end));
  if (oldIndent === fileIndent) return newText;
  return newText
    .split('\n')
    .map((line) => (line.trim() !== '' && line.startsWith(oldIndent) ? fileIndent + line.slice(oldIndent.length) : line))
    .join('\n');
}

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index + 1 < text.length; index++) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

/** Dice coefficient over character pairs: cheap, and good enough to point at the line the model meant. */
function similarity(wanted: Map<string, number>, wantedSize: number, text: string): number {
  if (text.length < 2 || wantedSize === 0) return 0;
  let shared = 0;
  const seen = new Map<string, number>();
  for (let index = 0; index + 1 < text.length; index++) {
    const pair = text.slice(index, index + 2);
    const used = seen.get(pair) ?? 0;
    if (used < (wanted.get(pair) ?? 0)) shared++;
    seen.set(pair, used + 1);
  }
  return (2 * shared) / (wantedSize + text.length - 1);
}

function closestLines(content: string, fileLines: readonly FileLine[], oldText: string, options: ReplaceOptions): Array<{ line: number; text: string }> {
  const target = oldTextLines(oldText).lines.find((line) => line.trim() !== '')?.trim() ?? '';
  const wanted = bigrams(target);
  const wantedSize = Math.max(0, target.length - 1);
  const show = options.showLine ?? ((text: string, start: number, end: number) => text.slice(start, end));
  const scored: Array<{ line: number; score: number; text: string }> = [];
  fileLines.forEach((fileLine, index) => {
    const text = show(content, fileLine.start, fileLine.end);
    const score = similarity(wanted, wantedSize, text.trim());
    if (score > 0) scored.push({ line: index + 1, score, text });
  });
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  return scored.slice(0, MAX_CLOSEST).map(({ line, text }) => ({
    line,
    text: text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED - 1)}…` : text,
  }));
}

function listLines(lines: readonly number[], total: number): string {
  const shown = lines.slice(0, MAX_LINES_IN_MESSAGE).join(', ');
  return total > MAX_LINES_IN_MESSAGE ? `${shown}, …` : shown;
}

const STRATEGY_WORDS: Record<ReplaceStrategy, string> = {
  exact: 'exactly',
  crlf: 'with line endings normalized',
  trimmed: 'with each line trimmed',
};

/**
 * The first hidden span of the old text that the new text shows: each sits where the replacement moved it (no span
 * reaches into the match), and must lie inside a hidden span of the new text.
 */
function firstShown(
  before: ReadonlyArray<{ start: number; end: number }>,
  match: Match,
  shift: number,
  after: ReadonlyArray<{ start: number; end: number }>,
): { start: number; end: number } | undefined {
  return before.find((span) => {
    const moved = span.start >= match.end ? { start: span.start + shift, end: span.end + shift } : span;
    return !after.some((hidden) => hidden.start <= moved.start && hidden.end >= moved.end);
  });
}

export function applyReplacement(content: string, oldText: string, newText: string, options: ReplaceOptions = {}): ReplaceResult {
  if (typeof content !== 'string' || typeof oldText !== 'string' || typeof newText !== 'string') {
    return { ok: false, code: 'INVALID_INPUT', message: 'content, old text and new text must all be strings', matches: 0 };
  }
  if (oldText === '') {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: 'old text is empty; give the exact text to replace, with enough surrounding lines to be unique',
      matches: 0,
    };
  }
  const fileLines = splitLines(content);
  const eol = dominantEol(content);
  const attempts: Array<[ReplaceStrategy, () => Match[]]> = [
    ['exact', () => findExact(content, oldText)],
    ['crlf', () => (/[\r\n]/.test(oldText) ? findAnyEol(content, oldText) : [])],
    ['trimmed', () => findTrimmed(content, fileLines, oldText)],
  ];
  const hidden = options.hiddenSpans?.(content) ?? [];
  for (const [strategy, find] of attempts) {
    const found = find();
    const matches = hidden.length === 0 ? found : found.filter((match) => !hidden.some((span) => span.start < match.end && span.end > match.start));
    if (matches.length === 0) continue;
    const lines = matches.slice(0, MAX_LISTED_MATCHES).map((match) => lineAt(fileLines, match.start));
    if (matches.length > 1) {
      return {
        ok: false,
        code: 'AMBIGUOUS',
        message:
          `old text matches ${matches.length} places ${STRATEGY_WORDS[strategy]} (lines ${listLines(lines, matches.length)}); ` +
          'include more surrounding lines so it matches exactly one',
        matches: matches.length,
        lines,
      };
    }
    const match = matches[0] as Match;
    const written =
      strategy === 'trimmed'
        ? reindent(newText.replace(/\r\n/g, '\n'), oldText, content, fileLines, (match as TrimmedMatch).first)
        : newText;
    const replacement = withEol(written, eol);
    const replaced = content.slice(0, match.start) + replacement + content.slice(match.end);
    const shown = hidden.length === 0 ? undefined : firstShown(hidden, match, replacement.length - (match.end - match.start), options.hiddenSpans!(replaced));
    if (shown !== undefined) {
      const line = lineAt(fileLines, shown.start);
      return {
        ok: false,
        code: 'POLICY_BLOCKED',
        message:
          `the change would show what line ${line} keeps hidden as [REDACTED]: the old text rewrites what makes it a secret ` +
          '(its key or the text around it), so it is not made; change that line around the hidden part in a way that keeps it hidden, or leave it to the person',
        matches: 1,
        lines: [line],
      };
    }
    return { ok: true, content: replaced, strategy, line: lines[0] as number };
  }
  const closest = closestLines(content, fileLines, oldText, options);
  const hint =
    closest.length === 0
      ? 'no line looks like it'
      : `closest: ${closest.map((entry) => `line ${entry.line} ${JSON.stringify(entry.text)}`).join(', ')}`;
  const marker = options.hiddenMarker;
  const quotesHidden =
    marker !== undefined && marker !== '' && oldText.includes(marker)
      ? `; the old text holds ${marker}, which stands for text hidden from you (a secret), not for what the file holds there, so old text with it never matches: quote only the text beside it, or leave that line to the person`
      : '';
  return {
    ok: false,
    code: 'MISMATCH',
    message: `old text not found (tried exact, line-ending-normalized and trimmed-line matching); ${hint}${quotesHidden}`,
    matches: 0,
    closest,
  };
}

/** Applies edits in order, each to the result of the previous one; all or nothing. */
export function applyReplacements(content: string, edits: readonly TextEdit[], options: ReplaceOptions = {}): ReplacementsResult {
  let current = content;
  const applied: Array<{ strategy: ReplaceStrategy; line: number }> = [];
  for (const [index, edit] of edits.entries()) {
    const result = applyReplacement(current, edit?.oldText, edit?.newText, options);
    if (!result.ok) {
      return { ...result, message: `edit ${index + 1} of ${edits.length}: ${result.message}`, editIndex: index };
    }
    current = result.content;
    applied.push({ strategy: result.strategy, line: result.line });
  }
  return { ok: true, content: current, applied };
}
