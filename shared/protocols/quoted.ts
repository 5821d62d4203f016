import type { Block } from './types';
import { scanFences, type Fence } from './markdown';
import { axon } from './axon';

/** A line quoted once: up to 3 spaces, `>`, then one optional space (CommonMark's block quote marker). */
const QUOTE_MARKER = /^ {0,3}> ?/;

/** One run of consecutive quoted lines, its markers taken off, and where each of its lines was. */
interface QuoteRun {
  text: string;
  /** per line: its start in `text`, its start in the reply, and the length of its quote marker */
  lines: Array<{ at: number; from: number; marker: number }>;
}

/**
 * The reply's block quotes: each maximal run of lines starting with a quote marker, read through the marks. A line of
 * a code block (`fences`, the reply's own) is code, shown as written: a quote there is the text of that code.
 */
function quoteRuns(markdown: string, fences: readonly Fence[]): QuoteRun[] {
  const runs: QuoteRun[] = [];
  let run: QuoteRun | undefined;
  let lineStart = 0;
  let f = 0;
  while (lineStart <= markdown.length) {
    const newline = markdown.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? markdown.length : newline;
    while (f < fences.length && (fences[f] as Fence).end < lineStart) f++;
    const inCode = f < fences.length && (fences[f] as Fence).start <= lineStart;
    const marker = inCode ? null : QUOTE_MARKER.exec(markdown.slice(lineStart, Math.min(lineEnd, lineStart + 5)));
    if (marker === null) run = undefined;
    else {
      if (run === undefined) runs.push((run = { text: '', lines: [] }));
      if (run.lines.length > 0) run.text += '\n';
      run.lines.push({ at: run.text.length, from: lineStart, marker: marker[0].length });
      run.text += markdown.slice(lineStart + marker[0].length, lineEnd);
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return runs;
}

/**
 * Where a position of a run's text is in the reply. A line's start is the start of its quote marker for a block's
 * start, and the end of the marker for its end (a statement still being written reaches past its last line's mark).
 */
function inReply(run: QuoteRun, at: number, edge: 'start' | 'end'): number {
  let low = 0;
  let high = run.lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((run.lines[middle] as QuoteRun['lines'][number]).at <= at) low = middle;
    else high = middle - 1;
  }
  const line = run.lines[low] as QuoteRun['lines'][number];
  return at === line.at && edge === 'start' ? line.from : line.from + line.marker + (at - line.at);
}

/**
 * The Axon statements of a reply written wholly inside a block quote (`> ~~~~~act`, `> write_file`, `> ~~~~~`, …): some
 * models quote the whole plan, fences included, and the fence scan reads no fence on a quoted line, so such a plan was
 * neither run nor offered, and nobody was told. Read through the quote marks, its parameters are byte-exact without
 * them; each statement spans its quoted lines marks included (its raw text re-parsed alone gives it again), and is
 * marked quoted: a quote is as well how a model shows an earlier plan or an example, so it never runs by itself and
 * its chip offers Run. findBlocks asks for these only when the reply holds no block of its own: a plan outside the
 * quote is the reply's, and the quote a mention of it.
 */
export function quotedPlan(markdown: string, fences: readonly Fence[] = scanFences(markdown)): Block[] {
  if (!markdown.includes('>')) return [];
  const blocks: Block[] = [];
  for (const run of quoteRuns(markdown, fences)) {
    for (const found of axon.find(run.text, scanFences(run.text))) {
      const start = inReply(run, found.start, 'start');
      const end = inReply(run, found.end, 'end');
      blocks.push({ ...found, start, end, raw: markdown.slice(start, end), quoted: true });
    }
  }
  return blocks;
}
