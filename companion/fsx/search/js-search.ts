import { promises as fs } from 'node:fs';
import { ToolError } from '../../../shared/errors';
import { runWithin } from '../../watchdog';
import { walkTree } from '../walk';
import { READ_NO_FOLLOW } from '../fd';
import { createFileFilter, createLineMatcher, splitLines, type FileFilter } from './file-filter';
import type { SearchHit, SearchOutcome, SearchQuery } from './types';

/** A NUL this early settles that a file is binary before anything else is looked at. */
const SNIFF_BYTES = 8192;
/**
 * Files read at once. Each read is a few thread-pool round trips (open, stat, read, close) that mostly wait;
 * overlapping them is most of the speed on a tree of many small files. Hits are still taken in walk order.
 */
const READS_IN_FLIGHT = 16;

/**
 * A model's regex runs here with V8's backtracking engine, on the companion's own thread: one catastrophic pattern
 * (`(?=.)(.|.)*x`, nested repetition) on an ordinary line of a few dozen characters would block every run, approval
 * and request of the companion for hours. So a regex search of one file runs under a watchdog (vm's timeout
 * interrupts a running regex) — at most REGEX_FILE_MS at a time, REGEX_TOTAL_MS in all — and past either the
 * search ends with LIMIT_EXCEEDED. Plain queries (indexOf) need none of it.
 */
export const REGEX_FILE_MS = 250;
export const REGEX_TOTAL_MS = 5_000;

function tooSlow(query: SearchQuery, ms: number): ToolError {
  return new ToolError(
    'LIMIT_EXCEEDED',
    `the regular expression ${JSON.stringify(query.query)} took more than ${ms} ms to match (it backtracks: nested repetition such as (a+)+ or (.|.)*); simplify it or search for a plain string`,
    { query: query.query },
  );
}

/**
 * The fallback when ripgrep cannot run: the same walk order (depth-first, names sorted), the same skips —
 * decided while walking, so `.git`, `node_modules` and denied directories are never entered — and the same
 * binary rule (a NUL byte anywhere).
 */
export async function searchWithJs(query: SearchQuery): Promise<SearchOutcome> {
  const startStat = await fs.stat(query.start);
  const startIsFile = startStat.isFile();
  const filter = createFileFilter(query, startIsFile);
  const matchLine = createLineMatcher(query);
  const needle = rawNeedle(query);

  const reader = new FileReader(filter);

  async function searchFile(file: string): Promise<SearchHit[]> {
    const read = await reader.read(file).catch(() => undefined);
    if (!read) return [];
    try {
      return query.regex ? hitsInBounded(file, read.bytes) : hitsIn(file, read.bytes);
    } catch (error) {
      // kept, not thrown: reads run 16 at a time, and a rejection nobody awaits yet would end the process
      failure ??= error;
      return [];
    } finally {
      reader.release(read);
    }
  }

  let failure: unknown;
  const settled = (fileHits: SearchHit[]): SearchHit[] => {
    if (failure !== undefined) throw failure;
    return fileHits;
  };

  let regexMs = 0;
  /** hitsIn under the watchdog (see REGEX_FILE_MS). */
  function hitsInBounded(file: string, bytes: Buffer): SearchHit[] {
    const budget = Math.min(REGEX_FILE_MS, REGEX_TOTAL_MS - regexMs);
    if (budget <= 0) throw tooSlow(query, REGEX_TOTAL_MS);
    const started = performance.now();
    const result = runWithin(budget, () => hitsIn(file, bytes));
    regexMs += performance.now() - started;
    if (result === undefined) throw tooSlow(query, budget < REGEX_FILE_MS ? REGEX_TOTAL_MS : REGEX_FILE_MS);
    return result;
  }

  /** The hits of one file, at most `limit` (no file needs more than that); the texts are copies. */
  function hitsIn(file: string, bytes: Buffer): SearchHit[] {
    const found: SearchHit[] = [];
    if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return found;
    // Most files do not hold a fixed-string query at all: look for its bytes before anything is decoded.
    if (needle && bytes.indexOf(needle) < 0) return found;
    if (bytes.includes(0)) return found;
    const lines = needle ? linesHolding(bytes, needle) : numbered(splitLines(bytes.toString('utf8')));
    for (const { number, text } of lines) {
      const column = matchLine(text);
      if (column === undefined) continue;
      found.push({ path: file, line: number, column, text });
      if (found.length >= query.limit) break;
    }
    return found;
  }

  const hits: SearchHit[] = [];
  /** Adds one file's hits in order; true once `limit` is reached. */
  const take = (fileHits: SearchHit[]): boolean => {
    for (const hit of fileHits) {
      hits.push(hit);
      if (hits.length >= query.limit) return true;
    }
    return false;
  };

  if (startIsFile) {
    const limited = take(settled(await searchFile(query.start)));
    return { hits, limited, backend: 'js' };
  }
  const walk = walkTree(query.start, {
    include: (entry) => !entry.dirent.isSymbolicLink() && !filter.skipsPath(entry.path),
    ...(query.signal ? { signal: query.signal } : {}),
  });
  const inFlight: Array<Promise<SearchHit[]>> = [];
  for await (const entry of walk) {
    if (!entry.dirent.isFile()) continue;
    inFlight.push(searchFile(entry.path));
    if (inFlight.length >= READS_IN_FLIGHT && take(settled(await inFlight.shift()!))) return { hits, limited: true, backend: 'js' };
  }
  for (const pending of inFlight) if (take(settled(await pending))) return { hits, limited: true, backend: 'js' };
  return { hits, limited: false, backend: 'js' };
}

/** The walk saw a regular file; one swapped for a symlink, a FIFO or a device since is opened as harmlessly as can be (fd.ts). */
const OPEN_FLAGS = READ_NO_FOLLOW;
/** Files up to this size are read into a buffer kept for the next file, so a walk makes little garbage. */
const REUSED_BUFFER_BYTES = 1 << 20;

/**
 * Reads accepted files into buffers it keeps and reuses (one per read in flight): what a file's bytes become
 * — hit lines — is copied out as strings, so the bytes are only needed until the next file.
 */
class FileReader {
  private readonly spare: Buffer[] = [];

  constructor(private readonly filter: FileFilter) {}

  /**
   * The file's bytes when the filter accepts it, judged on the opened descriptor's stat (a regular file, size,
   * mtime) so no separate lstat is needed; undefined when it does not. A file that grows while it is read is
   * read as far as the size it had when checked. Give the read back with `release` when done with its bytes.
   */
  async read(file: string): Promise<{ bytes: Buffer; kept?: Buffer } | undefined> {
    const handle = await fs.open(file, OPEN_FLAGS);
    try {
      const stat = await handle.stat();
      if (!this.filter.acceptsFile(file, stat)) return undefined;
      const kept = stat.size <= REUSED_BUFFER_BYTES ? (this.spare.pop() ?? Buffer.allocUnsafe(REUSED_BUFFER_BYTES)) : undefined;
      const buffer = kept ?? Buffer.allocUnsafe(stat.size);
      let filled = 0;
      try {
        while (filled < stat.size) {
          const { bytesRead } = await handle.read(buffer, filled, stat.size - filled, filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
      } catch (error) {
        this.release({ kept });
        throw error;
      }
      return { bytes: buffer.subarray(0, filled), ...(kept ? { kept } : {}) };
    } finally {
      await handle.close();
    }
  }

  release(read: { kept?: Buffer | undefined }): void {
    if (read.kept) this.spare.push(read.kept);
  }
}

function* numbered(lines: string[]): Generator<{ number: number; text: string }> {
  for (let i = 0; i < lines.length; i++) yield { number: i + 1, text: lines[i]! };
}

/**
 * The UTF-8 bytes of a fixed-string query, to find it in a file undecoded. Not for an empty query (it is in
 * every line) nor one holding U+FFFD (decoding puts that character where the raw bytes hold invalid UTF-8).
 */
function rawNeedle(query: SearchQuery): Buffer | undefined {
  if (query.regex || query.query === '' || query.query.includes('\uFFFD')) return undefined;
  return Buffer.from(query.query, 'utf8');
}

const NEWLINE = 0x0a;

/**
 * The lines (split on \n, 1-based) whose raw bytes hold `needle`, decoded one by one; only those are given to
 * the line matcher, which decides as it does for every line in the regex path.
 */
function* linesHolding(bytes: Buffer, needle: Buffer): Generator<{ number: number; text: string }> {
  let number = 1;
  let lineStart = 0;
  let found = bytes.indexOf(needle, 0);
  while (found >= 0) {
    for (let newline = bytes.indexOf(NEWLINE, lineStart); newline >= 0 && newline < found; newline = bytes.indexOf(NEWLINE, lineStart)) {
      number++;
      lineStart = newline + 1;
    }
    const newline = bytes.indexOf(NEWLINE, found);
    const lineEnd = newline < 0 ? bytes.length : newline;
    yield { number, text: bytes.toString('utf8', lineStart, lineEnd) };
    if (newline < 0) return;
    number++;
    lineStart = newline + 1;
    found = bytes.indexOf(needle, lineStart);
  }
}
