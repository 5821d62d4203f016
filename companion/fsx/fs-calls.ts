/**
 * The file-system calls of a tool call (fs.read's open and read, the journal's and its atomic writes) that answer
 * from the kernel's caches — create and open, a small write or read, fstat, close, fchmod, rename, mkdir, lstat — on
 * the main thread while the tool call is the only one executing and every mounted file system is local, through
 * libuv's thread pool otherwise (the rule of io-mode.ts, for the same reasons).
 * Alone, each is a few µs to ~0.1 ms on the main thread (a rename over a file whose data was not yet written makes
 * ext4 start writing it: ~0.13 ms) against ~35 µs of main-thread CPU and an event-loop wake-up per pool trip; with
 * other calls running, a rename or a create that waits for the file system's journal would hold all of them up.
 * fsync is always asynchronous. Through the pool, a call by path on a network or FUSE mount waits its turn
 * (mount-gate.ts).
 */
import { closeSync, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, promises as fs, readSync, renameSync, writeSync, type Stats } from 'node:fs';
import { closeFd, fchmodFd, fstatFd, openFd, readFd, writeFd } from './fd';
import { isMissing } from './errno';
import { ioOnMainThread } from './io-mode';
import { onMountOf } from './mount-gate';

export async function openFile(path: string, flags: string | number, mode?: number): Promise<number> {
  return ioOnMainThread() ? openSync(path, flags, mode) : onMountOf(path, () => openFd(path, flags, mode));
}

/** One write(2) at `position`; returns the bytes written. `sync`: the caller's own limit on what the main thread copies. */
export async function writeAt(fd: number, bytes: Uint8Array, offset: number, length: number, position: number, sync = true): Promise<number> {
  if (sync && ioOnMainThread()) return writeSync(fd, bytes, offset, length, position);
  return (await writeFd(fd, bytes, offset, length, position)).bytesWritten;
}

/** One read(2) at `position`; returns the bytes read. `sync`: the caller's own limit on what the main thread copies. */
async function readAt(fd: number, buffer: Buffer, offset: number, length: number, position: number, sync = true): Promise<number> {
  if (sync && ioOnMainThread()) return readSync(fd, buffer, offset, length, position);
  return (await readFd(fd, buffer, offset, length, position)).bytesRead;
}

/**
 * Up to this size a whole file is read on the main thread by the rule above: a file a person works on is in the
 * page cache, where 64 KB copy in tens of µs; a larger one may have to come from the disk, and goes through the
 * pool, leaving the loop free meanwhile.
 */
const MAIN_THREAD_READ_BYTES = 64 * 1024;

/**
 * The `size` bytes from the start of an open file (fewer when it shrank meanwhile), read with the size its fstat
 * gave: one read(2) for a file that did not change. fs.read's file and the journal's before-images.
 */
export async function readWhole(fd: number, size: number): Promise<Buffer> {
  const sync = size <= MAIN_THREAD_READ_BYTES;
  const buffer = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const got = await readAt(fd, buffer, length, size - length, length, sync);
    if (got === 0) break;
    length += got;
  }
  return length === size ? buffer : buffer.subarray(0, length);
}

/** fstat of an open descriptor: the inode is in memory, but a network or FUSE file system may still be asked. */
export async function fstatFile(fd: number): Promise<Stats> {
  return ioOnMainThread() ? fstatSync(fd) : fstatFd(fd);
}

/** Closes a descriptor; on a network file system a close may wait for the server (close-to-open flush). */
export async function closeFile(fd: number): Promise<void> {
  if (ioOnMainThread()) closeSync(fd);
  else await closeFd(fd);
}

export async function fchmodFile(fd: number, mode: number): Promise<void> {
  if (ioOnMainThread()) fchmodSync(fd, mode);
  else await fchmodFd(fd, mode);
}

export async function renamePath(from: string, to: string): Promise<void> {
  if (ioOnMainThread()) renameSync(from, to);
  else await onMountOf(from, () => fs.rename(from, to));
}

export async function makeDir(path: string, options?: { recursive?: boolean }): Promise<void> {
  if (ioOnMainThread()) mkdirSync(path, options);
  else await onMountOf(path, () => fs.mkdir(path, options));
}

/** lstat, undefined when nothing is there (ENOENT, ENOTDIR); any other failure is thrown. */
export async function lstatMaybe(path: string): Promise<Stats | undefined> {
  try {
    return ioOnMainThread() ? lstatSync(path) : await onMountOf(path, () => fs.lstat(path));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
