import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NAME_MAX_BYTES } from './errno';
import { fsyncFd } from './fd';
import { fchmodFile, openFile, renamePath, writeAt } from './fs-calls';

/** Temp files end so; recovery after a crash removes the ones it finds next to a journaled write. */
export const TEMP_SUFFIX = '.chatbridge-tmp';

// the two dots, the longest tempTag (8 hex digits of pid, 6 random, 8 of counter) and TEMP_SUFFIX
const TEMP_NAME_EXTRA_BYTES = 2 + 8 + 6 + 8 + TEMP_SUFFIX.length;

/**
 * `.<name>.`, what the temp files for `target` are named from. A name near NAME_MAX is cut (never inside a
 * character) so the temp name fits too: otherwise a file the file system holds — a 250-byte name — could never be
 * written. Crash recovery finds strays by this same prefix.
 */
export function tempNamePrefix(target: string): string {
  let room = NAME_MAX_BYTES - TEMP_NAME_EXTRA_BYTES;
  let kept = '';
  for (const char of basename(target)) {
    room -= Buffer.byteLength(char);
    if (room < 0) break;
    kept += char;
  }
  return `.${kept}.`;
}

/*
 * Which calls go through libuv's thread pool and which are made on the main thread (fs-calls.ts): on the bench
 * machine (2 shared vCPUs, ext4) a trip through the pool costs ~35 us of main-thread CPU, ~100 us of a pool thread
 * and an event-loop wake-up, while the synchronous call itself, when it never waits on a disk, is a few us: rename
 * 6 us (57 us right after an fsync), opening a directory and closing it 2-4 us, creating a file and writing 1 KB into
 * the page cache 18-50 us (micro-benchmark). So while a call runs alone, creating, writing (up to
 * SYNC_WRITE_BYTES), fchmod and rename are synchronous; opening a directory to fsync it, closing a descriptor and
 * removing a failed temp file always are; fsync, which waits for the disk (0.2-0.3 ms for one 1 KB file), is always
 * asynchronous, and the journal keeps several in flight together. Above SYNC_WRITE_BYTES a write goes through the
 * pool: copying megabytes into the page cache would hold every other request up.
 */
const SYNC_WRITE_BYTES = 256 * 1024;

export interface AtomicWriteOptions {
  /** file mode for a new file; an existing file keeps its own unless given */
  mode?: number;
  /**
   * Runs after the temp file is complete and just before the rename. The path guard re-resolves the
   * directory here, so a directory swapped for a symlink after the first check is caught (see path-guard.ts).
   */
  beforeRename?: () => Promise<void>;
}

/**
 * Writes through a temp file in the target's own directory and renames it over the target: readers see the
 * old or the new content, never half of it, and rename replaces a symlink at the target instead of following it.
 */
export async function writeFileAtomic(path: string, content: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<void> {
  const temp = await writeTempFile(path, content, options.mode);
  await renameIntoPlace(temp, path, options.beforeRename);
}

/** The first half of writeFileAtomic: a temp file next to `path` holding `content`, fsync'd; returns its name. */
export async function writeTempFile(path: string, content: Uint8Array | string, mode?: number): Promise<string> {
  const { temp, fd } = await createTempFile(path, content, mode);
  try {
    await fsyncFd(fd);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
  return temp;
}

/**
 * A temp file next to `path` holding `content`, not yet fsync'd; its descriptor is left open for the caller's
 * fsync (renameThenSync). Its name needs to be unique, not secret ('wx' refuses one that exists): a counter and
 * the pid, no trip to the CSPRNG.
 */
export async function createTempFile(path: string, content: Uint8Array | string, mode?: number): Promise<{ temp: string; fd: number }> {
  const temp = join(dirname(path), `${tempNamePrefix(path)}${tempTag()}${TEMP_SUFFIX}`);
  const fd = await openFile(temp, 'wx', mode ?? 0o644);
  try {
    await writeAllAt(fd, toBytes(content), 0);
    if (mode !== undefined) await fchmodFile(fd, mode);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  return { temp, fd };
}

let tempCounter = 0;
const tempPrefix = `${process.pid.toString(16)}${randomBytes(3).toString('hex')}`;
function tempTag(): string {
  tempCounter = (tempCounter + 1) % 0x100000000;
  return `${tempPrefix}${tempCounter.toString(16).padStart(8, '0')}`;
}

/**
 * Renames a temp file from createTempFile over `path`, then fsyncs its content and the directory together (one
 * round instead of the content's fsync before the rename and the directory's after it). Until both are done a crash
 * can leave `path` naming the new inode without its bytes; the journal only takes this way when its recover() puts
 * the before-image back in that case (journal.ts, a lone write). The temp file goes on failure before the rename.
 */
export async function renameThenSync(temp: string, fd: number, path: string, beforeRename?: () => Promise<void>, afterRename?: () => Promise<void>): Promise<void> {
  try {
    await beforeRename?.();
    await renamePath(temp, path);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  try {
    await afterRename?.();
    await Promise.all([fsyncFd(fd), fsyncDir(dirname(path))]);
  } finally {
    closeSync(fd);
  }
}

/**
 * The second half: `beforeRename`, the rename over `path`, the directory's fsync. The temp file goes on failure.
 * With `deferSync`, the directory's fsync is handed to it instead of awaited (the journal awaits it together with
 * the entry's applied state).
 */
export async function renameIntoPlace(
  temp: string,
  path: string,
  beforeRename?: () => Promise<void>,
  deferSync?: (sync: Promise<void>) => void,
): Promise<void> {
  try {
    await beforeRename?.();
    await renamePath(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  const sync = fsyncDir(dirname(path));
  if (deferSync) deferSync(sync);
  else await sync;
}

function toBytes(content: Uint8Array | string): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
}

/** Writes all of `bytes` at `position`: on the main thread up to SYNC_WRITE_BYTES (while a call runs alone). */
export async function writeAllAt(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  let written = 0;
  const sync = bytes.byteLength <= SYNC_WRITE_BYTES;
  while (written < bytes.byteLength) written += await writeAt(fd, bytes, written, bytes.byteLength - written, position + written, sync);
}

/** Makes a rename or a new directory entry durable; some platforms cannot open a directory, which is fine. */
export async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    await fsyncFd(fd);
  } catch {
    // Windows cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes and fsyncs a new file (a large before-image beside a journal entry). */
export async function writeFileDurable(path: string, content: Uint8Array | string): Promise<void> {
  const fd = await openFile(path, 'w', 0o600);
  try {
    await writeAllAt(fd, toBytes(content), 0);
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}
