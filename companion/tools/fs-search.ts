import { ToolError } from '../../shared/errors';
import { fsSearch } from '../../shared/tools/fs-search';
import { lstatMaybe } from '../fsx/fs-calls';
import { searchFiles, type SearchBackend, type SearchHit } from '../fsx/search';
import { linesHoldingLiterals } from '../fsx/search/literal-lines';
import { assertWithinFileLimit } from '../policy/file-limit';
import type { LinkTable } from '../policy/link-names';
import { deniedBy } from '../policy/path-guard';
import { mapSecrets, needsWholeText, spanningLiterals } from '../policy/redact';
import type { Policy } from '../policy/schema';
import { capText, defineHandler, readGuarded, resolvePath, resolvePathNow } from './define-handler';

const MAX_LINE_CHARS = 500;
/** Hit files read at once to show their lines. */
const READS_IN_FLIGHT = 16;

/**
 * Which backend fs.search uses: `auto` (ripgrep, falling back to the JS walk). Tests and machines where the
 * bundled ripgrep cannot run set `js`; CHATBRIDGE_SEARCH_BACKEND=js does the same from the environment.
 */
let backendOverride: SearchBackend | undefined;
export function setSearchBackend(backend: SearchBackend | undefined): void {
  backendOverride = backend;
}

function clip(text: string): string {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]` : line;
}

/** A line a result shows: as found, as shown (redacted), and whether [start, end) of it reaches into a secret. */
interface ShownLine {
  found: string;
  shown: string;
  touches(start: number, end: number): boolean;
}

/** A file with hits, read once: the lines a result shows (hit lines and context), by 1-based number. */
type HitFile = Map<number, ShownLine>;

/**
 * Reads a file with hits through the guard (the walk saw this path a moment ago; it must still be that file) and
 * shows the lines a result needs through the file's secrets. Only those lines are decoded and looked at unless a
 * secret could span lines (needsWholeText): a hit at the end of a large log costs little more than ripgrep's
 * own read. Undefined when the file cannot be read now — its hits are then not shown.
 */
async function readHitFile(file: string, wanted: ReadonlySet<number>, policy: Policy): Promise<HitFile | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readGuarded(file, policy);
  } catch {
    return undefined;
  }
  const lines: HitFile = new Map();
  if (needsWholeText(bytes, policy)) {
    const text = bytes.toString('utf8');
    const spans = wantedLines(wanted, text.length, (from) => text.indexOf('\n', from));
    const map = mapSecrets(text, policy, [...spans.values()]);
    for (const [n, span] of spans) {
      lines.set(n, {
        found: text.slice(span.start, span.end),
        shown: map.window(span.start, span.end),
        touches: (from, to) => map.touches(span.start + from, span.start + to),
      });
    }
  } else {
    // line breaks are the same bytes in any decoding, so lines are found in the bytes and decoded one by one
    for (const [n, span] of wantedLines(wanted, bytes.length, (from) => bytes.indexOf(0x0a, from))) {
      const map = mapSecrets(bytes.subarray(span.start, span.end).toString('utf8'), policy);
      lines.set(n, { found: map.text, shown: map.shown(), touches: map.touches });
    }
  }
  return lines;
}

/** [start, end) of each wanted line (1-based, as the search numbers them), found up to the last one only. */
function wantedLines(wanted: ReadonlySet<number>, length: number, nextBreak: (from: number) => number): Map<number, { start: number; end: number }> {
  const spans = new Map<number, { start: number; end: number }>();
  const last = Math.max(...wanted);
  let start = 0;
  for (let n = 1; n <= last && (start < length || n === 1); n++) {
    const newline = nextBreak(start);
    const end = newline < 0 ? length : newline;
    if (wanted.has(n)) spans.set(n, { start, end });
    if (newline < 0) break;
    start = newline + 1;
  }
  return spans;
}

/**
 * The column of the hit as shown, or undefined when the hit must not be shown. A hit that exists only because
 * the query matched inside a secret would confirm a guess at the secret (`password=hunt` → a hit), so it goes:
 * a plain query keeps its first occurrence outside every secret; a regex may look around its match, so a regex
 * hit on a line that holds a secret goes whole (issue 9, finding 3).
 */
function shownColumn(hit: SearchHit, line: ShownLine, query: string, regex: boolean): number | undefined {
  if (!line.touches(0, line.found.length)) return hit.column;
  if (regex) return undefined;
  for (let at = line.found.indexOf(query); at >= 0; at = line.found.indexOf(query, at + 1)) {
    if (!line.touches(at, at + query.length)) return at + 1;
  }
  return undefined;
}

/** A hit line shown from the text the search already has, looked at alone (see shownHits for when that holds). */
function lineAlone(hit: SearchHit, policy: Policy): ShownLine {
  const line = hit.text.endsWith('\r') ? hit.text.slice(0, -1) : hit.text;
  const map = mapSecrets(line, policy);
  return { found: line, shown: map.shown(), touches: map.touches };
}

/**
 * Hits as shown: hit and context lines redacted line for line, hits inside secrets dropped. A hit file is read
 * again (once, through the guard) when the result shows context lines or when a secret could span lines into
 * what it shows — the person has patterns of their own, or the file holds a built-in spanning pattern's literal
 * (a private key block) on or above its last hit. Otherwise each hit line is looked at alone, in the text the
 * search already has: that finds the same secrets, and a search of a large tree does not read its hits twice.
 */
async function shownHits(
  hits: SearchHit[],
  policy: Policy,
  query: { text: string; regex: boolean; contextLines: number; backend: SearchBackend | undefined; signal: AbortSignal },
): Promise<{ hits: SearchHit[]; files: Map<string, HitFile> }> {
  const wanted = new Map<string, Set<number>>();
  for (const hit of hits) {
    const lines = wanted.get(hit.path) ?? new Set<number>();
    for (let n = Math.max(1, hit.line - query.contextLines); n <= hit.line + query.contextLines; n++) lines.add(n);
    wanted.set(hit.path, lines);
  }
  const literals = spanningLiterals(policy);
  let toRead = [...wanted.keys()];
  if (literals !== undefined && query.contextLines === 0) {
    const marked = await linesHoldingLiterals(toRead, literals, { ...(query.backend ? { backend: query.backend } : {}), signal: query.signal });
    toRead = toRead.filter((file) => {
      const last = Math.max(...wanted.get(file)!);
      return marked.get(file)?.some((line) => line <= last) ?? false;
    });
  }
  const files = new Map<string, HitFile | undefined>();
  // reads overlap (as in the JS search): each is a few thread-pool round trips that mostly wait
  const queue = [...toRead];
  const readNext = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) files.set(next, await readHitFile(next, wanted.get(next)!, policy));
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, queue.length) }, readNext));
  const shown: SearchHit[] = [];
  for (const hit of hits) {
    // a file read again but unreadable now shows nothing
    const line = files.has(hit.path) ? files.get(hit.path)?.get(hit.line) : lineAlone(hit, policy);
    const column = line && shownColumn(hit, line, query.text, query.regex);
    if (line && column !== undefined) shown.push({ ...hit, column, text: line.shown });
  }
  const read = new Map([...files].filter((entry): entry is [string, HitFile] => entry[1] !== undefined));
  return { hits: shown, files: read };
}

/** `path:line:col: text` per hit; with context, grep's `path-line- text` around it and `--` between groups. */
function formatHits(hits: SearchHit[], files: Map<string, HitFile>, contextLines: number): string {
  if (contextLines === 0) return hits.map((hit) => `${hit.path}:${hit.line}:${hit.column}: ${clip(hit.text)}`).join('\n');
  const byFile = new Map<string, SearchHit[]>();
  for (const hit of hits) byFile.set(hit.path, [...(byFile.get(hit.path) ?? []), hit]);
  const groups: string[] = [];
  for (const [file, fileHits] of byFile) {
    const read = files.get(file);
    const hitAt = new Map(fileHits.map((hit) => [hit.line, hit]));
    const ranges: Array<[number, number]> = [];
    for (const hit of fileHits) {
      const start = Math.max(1, hit.line - contextLines);
      let end = hit.line;
      while (end < hit.line + contextLines && read?.has(end + 1)) end++;
      const last = ranges[ranges.length - 1];
      if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
    }
    for (const [start, end] of ranges) {
      const out: string[] = [];
      for (let n = start; n <= end; n++) {
        const hit = hitAt.get(n);
        out.push(hit ? `${file}:${n}:${hit.column}: ${clip(hit.text)}` : `${file}-${n}- ${clip(read?.get(n)?.shown ?? '')}`);
      }
      groups.push(out.join('\n'));
    }
  }
  return groups.join('\n--\n');
}

/**
 * A search starts at a directory or at one regular file within limits.maxFileBytes, as fs.read reads. ripgrep applies
 * its --max-filesize only to the files its walk finds, not to one named on its command line: a sparse file that says
 * it is 100 GB was read whole (minutes of a core) for its hits to be dropped afterwards for its size. A FIFO, socket or
 * device is neither, and no backend reads it.
 */
async function assertSearchable(start: string, policy: Policy): Promise<void> {
  const stat = await lstatMaybe(start);
  if (stat === undefined) throw new ToolError('NOT_FOUND', `path ${JSON.stringify(start)} does not exist`, { path: start });
  if (stat.isDirectory()) return;
  if (!stat.isFile()) {
    throw new ToolError('INVALID_INPUT', `${JSON.stringify(start)} is not a regular file or a directory (a FIFO, socket or device), so it is not searched`, {
      path: start,
    });
  }
  assertWithinFileLimit(start, stat.size, policy);
}

export const fsSearchHandler = defineHandler({
  contract: fsSearch,
  async plan(args, ctx) {
    return { risk: 'read', paths: [await resolvePath(args.path, ctx, { mustExist: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    return { title: `Search ${path} for ${JSON.stringify(args.query)}`, heading: { kind: 'search', path, query: JSON.stringify(args.query) }, paths: [path] };
  },
  async run(args, ctx) {
    // ripgrep's cwd and the JS walk follow the path as it is now, so it is resolved now (not carried from plan)
    const start = await resolvePathNow(args.path, ctx, { mustExist: true });
    await assertSearchable(start, ctx.policy);
    if (args.regex) {
      try {
        new RegExp(args.query);
      } catch (error) {
        throw new ToolError('INVALID_INPUT', `query ${JSON.stringify(args.query)} is not a valid regular expression (JavaScript syntax, no inline flags like (?i)): ${(error as Error).message}`, {
          query: args.query,
        });
      }
    }
    const maxMatches = ctx.policy.limits.maxMatches;
    const limit = Math.min(args.limit ?? maxMatches, maxMatches);
    const contextLines = args.contextLines ?? 0;
    // Hits inside secrets are dropped after the search, so a search that stopped at `limit` raw hits may show
    // fewer: were that answered as it is, "… stopped at 1 hits" with nothing shown would tell a right guess at a
    // secret from a wrong one, and which hits made the window would shift with it. So the search runs again with a
    // larger window until it holds `limit` shown hits or all there are, and the answer is the first `limit` shown
    // hits, `limited` when there were that many: nothing in it depends on the hits that were dropped.
    // the links in the folders around each file (policy/project-links.ts), each folder looked at once in this call
    const linkMemo = new Map<string, readonly LinkTable[]>();
    let window = limit;
    let outcome: Awaited<ReturnType<typeof searchFiles>>;
    let shown: Awaited<ReturnType<typeof shownHits>>;
    for (;;) {
      outcome = await searchFiles(
        {
          start,
          query: args.query,
          regex: args.regex ?? false,
          ...(args.glob !== undefined ? { glob: args.glob } : {}),
          ...(args.extensions !== undefined ? { extensions: args.extensions } : {}),
          ...(args.minBytes !== undefined ? { minBytes: args.minBytes } : {}),
          // files over limits.maxFileBytes are never read, by either backend
          maxBytes: Math.min(args.maxBytes ?? Number.POSITIVE_INFINITY, ctx.policy.limits.maxFileBytes),
          ...(args.mtimeFrom !== undefined ? { mtimeFrom: new Date(args.mtimeFrom) } : {}),
          ...(args.mtimeTo !== undefined ? { mtimeTo: new Date(args.mtimeTo) } : {}),
          contextLines,
          limit: window,
          isDenied: (path) => deniedBy(path, ctx.policy, linkMemo) !== undefined,
          signal: ctx.signal,
        },
        { ...(backendOverride ? { backend: backendOverride } : {}), denyGlobs: ctx.policy.deny },
      );
      shown = await shownHits(outcome.hits, ctx.policy, {
        text: args.query,
        regex: args.regex ?? false,
        contextLines,
        backend: backendOverride ?? (process.env.CHATBRIDGE_SEARCH_BACKEND as SearchBackend | undefined),
        signal: ctx.signal,
      });
      if (!outcome.limited || shown.hits.length >= limit) break;
      ctx.signal.throwIfAborted();
      window *= 2;
    }
    const hits = shown.hits.slice(0, limit);
    const { files } = shown;
    const limited = shown.hits.length >= limit;
    if (hits.length === 0 && !limited) {
      return { text: `No matches for ${JSON.stringify(args.query)} under ${start}`, data: { hits: [], backend: outcome.backend } };
    }
    let text = formatHits(hits, files, contextLines) || `No matches for ${JSON.stringify(args.query)} under ${start}`;
    if (limited) {
      text += `\n… stopped at ${limit} hits (limit${limit === maxMatches ? `, limits.maxMatches = ${maxMatches}` : ''}); narrow the search with glob, extensions or a more specific query`;
    }
    const capped = capText(text, ctx.policy.limits.maxResultChars, 'narrow the search with glob, extensions, limit or contextLines');
    return {
      text: capped.text,
      truncated: capped.truncated || limited,
      data: { hits: hits.map(({ path, line, column }) => ({ path, line, column })), backend: outcome.backend, limited },
    };
  },
});
