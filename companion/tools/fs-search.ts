import { ToolError } from '../../shared/errors';
import { fsSearch } from '../../shared/tools/fs-search';
import { searchFiles, type SearchBackend, type SearchHit } from '../fsx/search';
import { splitLines } from '../fsx/search/file-filter';
import { deniedBy } from '../policy/path-guard';
import { mapSecrets, type SecretMap } from '../policy/redact';
import type { Policy } from '../policy/schema';
import { capText, defineHandler, readGuarded, resolvePath, resolvePathNow } from './define-handler';

const MAX_LINE_CHARS = 500;

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

/** A file with hits, read once: its lines as found and as shown (redacted line for line). */
interface HitFile {
  map: SecretMap;
  /** offset of each line's first character */
  starts: number[];
  lines: string[];
  shownLines: string[];
}

async function readHitFile(file: string, policy: Policy): Promise<HitFile | undefined> {
  let text: string;
  try {
    // through the guard like any read: the walk saw this path a moment ago, and it must still be that file
    text = (await readGuarded(file, policy)).toString('utf8');
  } catch {
    return undefined;
  }
  const lines = splitLines(text);
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const map = mapSecrets(text, policy);
  return { map, starts, lines, shownLines: map.secrets.length === 0 ? lines : splitLines(map.shown()) };
}

/**
 * The column of the hit as shown, or undefined when the hit must not be shown. A hit that exists only because
 * the query matched inside a secret would confirm a guess at the secret (`password=hunt` → a hit), so it goes:
 * a plain query keeps its first occurrence outside every secret; a regex may look around its match, so a regex
 * hit on a line that holds a secret goes whole (issue 9, finding 3).
 */
function shownColumn(hit: SearchHit, file: HitFile, query: string, regex: boolean): number | undefined {
  const start = file.starts[hit.line - 1];
  const line = file.lines[hit.line - 1];
  if (start === undefined || line === undefined) return undefined;
  if (!file.map.touches(start, start + line.length)) return hit.column;
  if (regex) return undefined;
  for (let at = line.indexOf(query); at >= 0; at = line.indexOf(query, at + 1)) {
    if (!file.map.touches(start + at, start + at + query.length)) return at + 1;
  }
  return undefined;
}

/**
 * Hits as shown: each hit file is read once (through the guard) so its secrets are found in the whole file;
 * hit and context lines are shown redacted line for line, and hits inside secrets are dropped.
 */
async function shownHits(hits: SearchHit[], policy: Policy, query: string, regex: boolean): Promise<{ hits: SearchHit[]; files: Map<string, HitFile> }> {
  const files = new Map<string, HitFile>();
  const shown: SearchHit[] = [];
  for (const hit of hits) {
    if (!files.has(hit.path)) {
      const file = await readHitFile(hit.path, policy);
      if (file) files.set(hit.path, file);
    }
    const file = files.get(hit.path);
    if (!file) continue;
    const column = shownColumn(hit, file, query, regex);
    if (column !== undefined) shown.push({ ...hit, column, text: file.shownLines[hit.line - 1] ?? '' });
  }
  return { hits: shown, files };
}

/** `path:line:col: text` per hit; with context, grep's `path-line- text` around it and `--` between groups. */
function formatHits(hits: SearchHit[], files: Map<string, HitFile>, contextLines: number): string {
  if (contextLines === 0) return hits.map((hit) => `${hit.path}:${hit.line}:${hit.column}: ${clip(hit.text)}`).join('\n');
  const byFile = new Map<string, SearchHit[]>();
  for (const hit of hits) byFile.set(hit.path, [...(byFile.get(hit.path) ?? []), hit]);
  const groups: string[] = [];
  for (const [file, fileHits] of byFile) {
    const lines = files.get(file)?.shownLines ?? [];
    const hitAt = new Map(fileHits.map((hit) => [hit.line, hit]));
    const ranges: Array<[number, number]> = [];
    for (const hit of fileHits) {
      const start = Math.max(1, hit.line - contextLines);
      const end = Math.min(lines.length, hit.line + contextLines);
      const last = ranges[ranges.length - 1];
      if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
    }
    for (const [start, end] of ranges) {
      const out: string[] = [];
      for (let n = start; n <= end; n++) {
        const hit = hitAt.get(n);
        out.push(hit ? `${file}:${n}:${hit.column}: ${clip(hit.text)}` : `${file}-${n}- ${clip(lines[n - 1] ?? '')}`);
      }
      groups.push(out.join('\n'));
    }
  }
  return groups.join('\n--\n');
}

export const fsSearchHandler = defineHandler({
  contract: fsSearch,
  async plan(args, ctx) {
    return { risk: 'read', paths: [await resolvePath(args.path, ctx, { mustExist: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    return { title: `Search ${path} for ${JSON.stringify(args.query)}`, paths: [path] };
  },
  async run(args, ctx) {
    // ripgrep's cwd and the JS walk follow the path as it is now, so it is resolved now (not carried from plan)
    const start = await resolvePathNow(args.path, ctx, { mustExist: true });
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
    const outcome = await searchFiles(
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
        limit,
        isDenied: (path) => deniedBy(path, ctx.policy) !== undefined,
        signal: ctx.signal,
      },
      { ...(backendOverride ? { backend: backendOverride } : {}), denyGlobs: ctx.policy.deny },
    );
    const { hits, files } = await shownHits(outcome.hits, ctx.policy, args.query, args.regex ?? false);
    if (hits.length === 0 && !outcome.limited) {
      return { text: `No matches for ${JSON.stringify(args.query)} under ${start}`, data: { hits: [], backend: outcome.backend } };
    }
    let text = formatHits(hits, files, contextLines) || `No matches for ${JSON.stringify(args.query)} under ${start}`;
    if (outcome.limited) {
      text += `\n… stopped at ${limit} hits (limit${limit === maxMatches ? `, limits.maxMatches = ${maxMatches}` : ''}); narrow the search with glob, extensions or a more specific query`;
    }
    const capped = capText(text, ctx.policy.limits.maxResultChars, 'narrow the search with glob, extensions, limit or contextLines');
    return {
      text: capped.text,
      truncated: capped.truncated || outcome.limited,
      data: { hits: hits.map(({ path, line, column }) => ({ path, line, column })), backend: outcome.backend, limited: outcome.limited },
    };
  },
});
