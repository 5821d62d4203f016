import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createFileFilter } from './file-filter';
import { SKIPPED_DIRS, type SearchHit, type SearchOutcome, type SearchQuery } from './types';

/** ripgrep could not run this query (missing binary, a regex its engine does not know): use the JS search. */
export class RipgrepUnavailable extends Error {}

interface RgPath {
  text?: string;
  bytes?: string;
}

interface RgMatch {
  type: 'match';
  data: {
    path: RgPath;
    lines: RgPath;
    line_number: number;
    submatches: Array<{ start: number }>;
  };
}

/** Closes each file's messages; `binary_offset` is where ripgrep met a NUL byte (null: none in the file). */
interface RgEnd {
  type: 'end';
  data: { path: RgPath; binary_offset: number | null };
}

function decode(field: { text?: string; bytes?: string }): string | undefined {
  if (field.text !== undefined) return field.text;
  return field.bytes !== undefined ? Buffer.from(field.bytes, 'base64').toString('utf8') : undefined;
}

/**
 * One `match` message as a hit. The column counts characters of the decoded line, ripgrep's `start` counts
 * bytes: the prefix is decoded from the line's own bytes (ripgrep sends base64 `bytes` for invalid UTF-8),
 * never from re-encoded text, where each replacement character would count three bytes.
 */
function hitOf(message: RgMatch, cwd: string): SearchHit | undefined {
  const reported = decode(message.data.path);
  const lines = message.data.lines;
  const raw = lines.text !== undefined ? Buffer.from(lines.text, 'utf8') : lines.bytes !== undefined ? Buffer.from(lines.bytes, 'base64') : undefined;
  if (reported === undefined || raw === undefined) return undefined;
  const line = raw.at(-1) === 0x0a ? raw.subarray(0, -1) : raw;
  const startByte = message.data.submatches[0]?.start ?? 0;
  const column = line.toString('utf8', 0, startByte).length + 1;
  return { path: path.resolve(cwd, reported), line: message.data.line_number, column, text: line.toString('utf8') };
}

/** Globs with a slash are matched by ripgrep relative to its working directory, so it runs in the start. */
function rgArgs(query: SearchQuery, denyGlobs: readonly string[], target: string): string[] {
  const args = ['--json', '--no-config', '--hidden', '--no-ignore', '--sort', 'path', '--no-messages'];
  // The binary rule is the JS walk's: a NUL byte anywhere in the raw file. Without transcoding (a UTF-16 file
  // holds NULs) and without memory maps (reading every buffer), ripgrep meets every NUL and names its offset in
  // the file's `end` message, so no file has to be read a second time here.
  args.push('--encoding', 'none', '--no-mmap');
  for (const dir of SKIPPED_DIRS) args.push('--glob', `!${dir}`);
  // Only globs that mean the same relative to any start prune here; the file filter re-checks every hit.
  for (const glob of denyGlobs) if (glob.startsWith('**/')) args.push('--glob', `!${glob}`);
  if (query.glob) args.push('--glob', query.glob);
  for (const ext of query.extensions ?? []) args.push('--iglob', `*.${ext.replace(/^\./, '')}`);
  if (query.maxBytes !== undefined && Number.isFinite(query.maxBytes)) args.push('--max-filesize', String(query.maxBytes));
  if (!query.regex) args.push('--fixed-strings');
  args.push('--regexp', query.query, '--', target);
  return args;
}

/** Loaded on first use: the package throws at import on a platform without its binary package. */
export async function loadRgPath(): Promise<string> {
  try {
    return (await import('@vscode/ripgrep')).rgPath;
  } catch (error) {
    throw new RipgrepUnavailable(`ripgrep is not installed for this platform: ${(error as Error).message}`);
  }
}

/**
 * ripgrep walks, matches and tells binary files (its own pruning, one pass over each file); each file it reports
 * is checked by the same filter the JS search uses (deny globs, skipped directories, glob, extensions, size,
 * mtime), so both backends answer the same. Output is read as a stream and ripgrep is stopped once `limit` hits
 * are in.
 */
export async function searchWithRipgrep(query: SearchQuery, denyGlobs: readonly string[] = []): Promise<SearchOutcome> {
  const rgPath = await loadRgPath();
  const startIsFile = (await fs.stat(query.start)).isFile();
  const filter = createFileFilter(query, startIsFile);
  // ripgrep's walk reports regular files only and applies --max-filesize itself, but not to a file named on its
  // command line, and it knows no minimum size or mtime: a stat is taken only where it can change the answer.
  const needsStat = startIsFile || query.minBytes !== undefined || query.mtimeFrom !== undefined || query.mtimeTo !== undefined;
  const acceptFile = async (file: string): Promise<boolean> => {
    if (!filter.acceptsPath(file)) return false;
    if (!needsStat) return true;
    const stat = await fs.lstat(file).catch(() => undefined);
    return stat !== undefined && filter.acceptsStat(stat);
  };

  const cwd = startIsFile ? path.dirname(query.start) : query.start;
  const target = startIsFile ? path.basename(query.start) : '.';
  const child = spawn(rgPath, rgArgs(query, denyGlobs, target), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const onAbort = () => child.kill('SIGKILL');
  query.signal?.addEventListener('abort', onAbort, { once: true });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });

  const hits: SearchHit[] = [];
  let limited = false;
  try {
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    // A file's hits are held until its `end` message says whether ripgrep met a NUL byte in it.
    let pending: SearchHit[] = [];
    for await (const line of lines) {
      if (line.startsWith('{"type":"match"')) {
        const hit = hitOf(JSON.parse(line) as RgMatch, cwd);
        if (hit) pending.push(hit);
        continue;
      }
      if (!line.startsWith('{"type":"end"') || pending.length === 0) continue;
      const end = (JSON.parse(line) as RgEnd).data;
      const fileHits = pending;
      pending = [];
      if (end.binary_offset !== null || !(await acceptFile(fileHits[0]!.path))) continue;
      for (const hit of fileHits) {
        hits.push(hit);
        if (hits.length >= query.limit) break;
      }
      if (hits.length >= query.limit) {
        limited = true;
        child.kill('SIGKILL');
        break;
      }
    }
    const code = await exited;
    if (!limited && code === 2 && hits.length === 0 && /regex|parse|syntax/i.test(stderr)) {
      throw new RipgrepUnavailable(`ripgrep refused the query: ${stderr.trim()}`);
    }
  } catch (error) {
    if (error instanceof RipgrepUnavailable) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EACCES') {
      throw new RipgrepUnavailable(`ripgrep is not runnable at ${rgPath}`);
    }
    throw error;
  } finally {
    query.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  return { hits, limited, backend: 'ripgrep' };
}
