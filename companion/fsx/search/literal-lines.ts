/**
 * Where fixed strings occur in a few files already known to be text (the files a search hit): the line numbers,
 * per file that holds one. fs.search uses it to tell, without reading every hit file again in Node, which files
 * could hold a secret that spans lines (a private key block) above or on the lines it shows.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readRegularFile } from '../read-regular';
import { loadRgPath, RipgrepUnavailable } from './ripgrep-search';

export interface LiteralLinesOptions {
  /** `js` reads the files here; otherwise ripgrep, falling back to the reads when it cannot run */
  backend?: 'auto' | 'ripgrep' | 'js';
  signal?: AbortSignal;
}

/** Files per ripgrep run, so the command line stays far below the system's limit. */
const FILES_PER_RUN = 500;

export async function linesHoldingLiterals(
  files: readonly string[],
  literals: readonly string[],
  options: LiteralLinesOptions = {},
): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  if (files.length === 0 || literals.length === 0) return found;
  if (options.backend !== 'js') {
    try {
      for (let i = 0; i < files.length; i += FILES_PER_RUN) await withRipgrep(files.slice(i, i + FILES_PER_RUN), literals, found, options.signal);
      return found;
    } catch (error) {
      if (!(error instanceof RipgrepUnavailable) || options.backend === 'ripgrep') throw error;
      found.clear();
    }
  }
  for (const file of files) {
    const lines = await withReads(file, literals).catch(() => undefined);
    if (lines && lines.length > 0) found.set(file, lines);
  }
  return found;
}

interface RgLineMatch {
  type: 'match';
  data: { path: { text?: string; bytes?: string }; line_number: number };
}

async function withRipgrep(files: readonly string[], literals: readonly string[], found: Map<string, number[]>, signal?: AbortSignal): Promise<void> {
  const rgPath = await loadRgPath();
  const args = ['--json', '--no-config', '--no-messages', '--encoding', 'none', '--no-mmap', '--fixed-strings'];
  for (const literal of literals) args.push('--regexp', literal);
  const child = spawn(rgPath, [...args, '--', ...files], { stdio: ['ignore', 'pipe', 'ignore'] });
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (!line.startsWith('{"type":"match"')) continue;
      const { data } = JSON.parse(line) as RgLineMatch;
      const file = data.path.text ?? (data.path.bytes !== undefined ? Buffer.from(data.path.bytes, 'base64').toString('utf8') : undefined);
      if (file !== undefined) found.set(file, [...(found.get(file) ?? []), data.line_number]);
    }
    // 0: found some, 1: found none; anything else (a file gone since the search) is answered by the reads
    const code = await exited;
    if (code !== 0 && code !== 1) throw new RipgrepUnavailable(`ripgrep exited with ${code}`);
  } catch (error) {
    if (error instanceof RipgrepUnavailable) throw error;
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT' || errno === 'EACCES') throw new RipgrepUnavailable(`ripgrep is not runnable at ${rgPath}`);
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function withReads(file: string, literals: readonly string[]): Promise<number[]> {
  // a search hit, read again here: what is at its path now may be a FIFO, a device or a link put there since
  const bytes = await readRegularFile(file, Number.MAX_SAFE_INTEGER, false);
  if (bytes === undefined) return [];
  const at = new Set<number>();
  for (const literal of literals) {
    for (let index = bytes.indexOf(literal); index >= 0; index = bytes.indexOf(literal, index + 1)) at.add(index);
  }
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  for (const index of [...at].sort((a, b) => a - b)) {
    for (let newline = bytes.indexOf(0x0a, counted); newline >= 0 && newline < index; newline = bytes.indexOf(0x0a, newline + 1)) {
      line++;
      counted = newline + 1;
    }
    if (lines[lines.length - 1] !== line) lines.push(line);
  }
  return lines;
}
