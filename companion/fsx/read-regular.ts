import { closeSync, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { closeFd, fstatFd, openFd, READ_NO_FOLLOW } from './fd';
import { readWhole } from './fs-calls';

/**
 * The bytes of a file the companion reads for itself (a start-up file's includes, a package.json's scripts, the
 * lines of a search hit), if it is a regular file of at most `maxBytes`; undefined when it is something else. Once a
 * gap: these were a stat, then a plain open of the path. A FIFO put in its place between the two held the open
 * until a writer came (on the main thread, the whole companion; in the thread pool, a thread each time), and a
 * device was opened, which is itself an act (fd.ts). Now what is opened is what the stat saw or nothing: the path is
 * opened as fd.ts's READ_NO_FOLLOW opens it, and the descriptor's own fstat decides. `follow`: a symlink at its end
 * is read where it leads (resolved first, as a plain open would), else not read.
 */
export async function readRegularFile(file: string, maxBytes: number, follow: boolean): Promise<Buffer | undefined> {
  const target = follow ? await realpath(file) : file;
  if (!fitting(await (follow ? stat(target) : lstat(target)), maxBytes)) return undefined;
  const fd = await openFd(target, READ_NO_FOLLOW);
  try {
    const opened = await fstatFd(fd);
    if (!fitting(opened, maxBytes)) return undefined;
    return await readWhole(fd, opened.size);
  } finally {
    await closeFd(fd);
  }
}

/** readRegularFile on the main thread, for the policy's decisions (runs-code.ts), which are synchronous. */
export function readRegularFileSync(file: string, maxBytes: number, follow: boolean): Buffer | undefined {
  const target = follow ? realpathSync(file) : file;
  if (!fitting(follow ? statSync(target) : lstatSync(target), maxBytes)) return undefined;
  const fd = openSync(target, READ_NO_FOLLOW);
  try {
    const opened = fstatSync(fd);
    if (!fitting(opened, maxBytes)) return undefined;
    const bytes = readFileSync(fd);
    // grown since its fstat: past the limit, it is not read
    return bytes.length <= maxBytes ? bytes : undefined;
  } finally {
    closeSync(fd);
  }
}

function fitting(stat: { isFile(): boolean; size: number }, maxBytes: number): boolean {
  return stat.isFile() && stat.size <= maxBytes;
}
