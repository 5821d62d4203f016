import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, openSync, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncFd, openFd, writeFd } from './fd';

/** Temp files end so; recovery after a crash removes the ones it finds next to a journaled write. */
export const TEMP_SUFFIX = '.chatbridge-tmp';

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

/**
 * The first half of writeFileAtomic: a temp file next to `path` holding `content`, fsync'd; returns its name. The
 * journal writes it while the before-image is made durable, so the two fsyncs overlap.
 */
export async function writeTempFile(path: string, content: Uint8Array | string, mode?: number): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const fd = await openFd(temp, 'wx', mode ?? 0o644);
  try {
    try {
      await writeAll(fd, content);
      if (mode !== undefined) fchmodSync(fd, mode);
      await fsyncFd(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  return temp;
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
    await fs.rename(temp, path);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  const sync = fsyncDir(dirname(path));
  if (deferSync) deferSync(sync);
  else await sync;
}

/*
 * The durable writes below go through bare descriptors: open, write and fsync are the trips through the thread
 * pool that may wait on a disk; fchmod, opening a directory that was just used and closing a descriptor that was
 * just fsync'd do not, and are made synchronously. A change to a file went through ~50 thread-pool trips before,
 * each ~35 us of main-thread CPU and an event-loop turn (bench).
 */

async function writeAll(fd: number, content: Uint8Array | string): Promise<void> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let written = 0;
  while (written < bytes.byteLength) written += (await writeFd(fd, bytes, written, bytes.byteLength - written)).bytesWritten;
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

/** Writes and fsyncs a small file (journal records) in place. */
export async function writeFileDurable(path: string, content: Uint8Array | string): Promise<void> {
  const fd = await openFd(path, 'w');
  try {
    await writeAll(fd, content);
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

export async function appendFileDurable(path: string, content: string): Promise<void> {
  const fd = await openFd(path, 'a');
  try {
    await writeAll(fd, content);
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}
