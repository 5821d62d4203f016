import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { openForRead } from '../policy/path-guard';
import type { Policy } from '../policy/schema';
import { isMissingError } from './plan-errors';

type ReaderPolicy = Pick<Policy, 'roots' | 'deny' | 'limits'>;

export type EntryKind = 'file' | 'directory' | 'other' | 'absent';

export async function entryKind(absolute: string): Promise<EntryKind> {
  try {
    const stat = await fs.lstat(absolute);
    if (stat.isDirectory()) return 'directory';
    return stat.isFile() ? 'file' : 'other';
  } catch (error) {
    if (isMissingError(error)) return 'absent';
    throw error;
  }
}

/** Decodes UTF-8 and throws on any byte that is not; a byte order mark stays in the text, as the file holds it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The file's bytes as text, or a ToolError when they are not UTF-8 (a file saved as GBK on a Chinese Windows machine,
 * Latin-1, binary data): read leniently, each such byte became U+FFFD, so read_file showed a text the file does not hold
 * and a replace wrote that text back, the characters the model never touched (a Chinese comment) lost for good, and
 * answered success. `rewriteWith` names the act that writes a whole file in the plan's format.
 */
function decodeText(bytes: Uint8Array, shown: string, rewriteWith: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ToolError(
      'INVALID_INPUT',
      `${shown} is not UTF-8 text (${bytes.length} bytes: another encoding, such as GBK, or binary data); a plan reads and edits files as UTF-8 only, ` +
        `so it was not read or changed; to change it, write it whole in UTF-8 with ${rewriteWith}`,
      { path: shown },
    );
  }
}

/**
 * Reads a text file a plan names, through the guard's symlink-safe open, within the file size limit.
 * `null` when nothing is there; ToolError when it is not a regular file, is too large or is not UTF-8 (decodeText;
 * `rewriteWith` is the act the error names). `lenient` reads bytes that are not UTF-8 as U+FFFD instead: for a file
 * a plan only overwrites or deletes, whose text feeds the card's diff alone.
 */
export async function readTextFile(
  absolute: string,
  shown: string,
  policy: ReaderPolicy,
  rewriteWith: string,
  lenient = false,
): Promise<string | null> {
  const kind = await entryKind(absolute);
  if (kind === 'absent') return null;
  if (kind === 'directory') throw new ToolError('INVALID_INPUT', `${shown} is a directory, not a file`, { path: shown });
  if (kind === 'other') throw new ToolError('INVALID_INPUT', `${shown} is not a regular file`, { path: shown });
  const handle = await openForRead(absolute, policy);
  try {
    const { size } = await handle.stat();
    if (size > policy.limits.maxFileBytes) {
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `${shown} is ${size} bytes, over the limit of ${policy.limits.maxFileBytes} bytes (limits.maxFileBytes)`,
        { path: shown },
      );
    }
    const bytes = await handle.readFile();
    return lenient ? bytes.toString('utf8') : decodeText(bytes, shown, rewriteWith);
  } finally {
    await handle.close();
  }
}

/**
 * The files as a plan would leave them: changes made earlier in the plan are seen by later steps, everything else
 * is read from disk. Used to build the preview (auto_coder) and to check a whole plan before writing (Axon).
 */
export interface PlannedFiles {
  /** `lenient`: for a file the caller only overwrites, bytes that are not UTF-8 read as U+FFFD (readTextFile). */
  read(absolute: string, shown: string, lenient?: boolean): Promise<string | null>;
  /** a file or directory is there once the earlier steps have run */
  exists(absolute: string): Promise<boolean>;
  write(absolute: string, shown: string, content: string): Promise<void>;
  remove(absolute: string, shown: string): Promise<void>;
  removeTree(absolute: string): void;
  /** every path whose final planned content differs from what was read, in first-touched order */
  changes(): Array<{ absolute: string; before: string | null; after: string | null }>;
}

/** `rewriteWith`: the act that writes a whole file in the plan's format (readTextFile). */
export function createPlannedFiles(policy: ReaderPolicy, rewriteWith: string): PlannedFiles {
  const planned = new Map<string, string | null>();
  const original = new Map<string, string | null>();
  const removedTrees: string[] = [];

  function underRemovedTree(absolute: string): boolean {
    return removedTrees.some((dir) => absolute.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep));
  }

  /** `lenient` for a file the plan overwrites or deletes: its text before is only shown (readTextFile). */
  async function readOriginal(absolute: string, shown: string, lenient = false): Promise<string | null> {
    if (!original.has(absolute)) original.set(absolute, await readTextFile(absolute, shown, policy, rewriteWith, lenient));
    return original.get(absolute) ?? null;
  }

  return {
    async read(absolute, shown, lenient = false) {
      if (planned.has(absolute)) return planned.get(absolute) ?? null;
      if (underRemovedTree(absolute)) return null;
      return readOriginal(absolute, shown, lenient);
    },
    async exists(absolute) {
      if (planned.has(absolute)) return planned.get(absolute) !== null;
      if (underRemovedTree(absolute)) return false;
      // a directory that will hold a planned file exists by then too
      const prefix = absolute.endsWith(path.sep) ? absolute : absolute + path.sep;
      for (const [key, value] of planned) if (value !== null && key.startsWith(prefix)) return true;
      return (await entryKind(absolute)) !== 'absent';
    },
    async write(absolute, shown, content) {
      await readOriginal(absolute, shown, true);
      planned.set(absolute, content);
    },
    async remove(absolute, shown) {
      await readOriginal(absolute, shown, true);
      planned.set(absolute, null);
    },
    removeTree(absolute) {
      removedTrees.push(absolute);
      for (const key of planned.keys()) if (key === absolute || underRemovedTree(key)) planned.set(key, null);
    },
    changes() {
      const out: Array<{ absolute: string; before: string | null; after: string | null }> = [];
      for (const [absolute, after] of planned) {
        const before = original.get(absolute) ?? null;
        if (before !== after) out.push({ absolute, before, after });
      }
      return out;
    },
  };
}
