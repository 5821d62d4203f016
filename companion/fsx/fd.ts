/**
 * Promise forms of the descriptor calls the hot paths use (fs.read, the journal's writes): a bare descriptor costs
 * fewer trips through the thread pool than a FileHandle (bench/README.md).
 */
import { fchmod, fsync, open, read, readSync, write } from 'node:fs';
import { promisify } from 'node:util';

export const openFd = promisify(open);
export const readFd = promisify(read);
export const writeFd = promisify(write);
export const fsyncFd = promisify(fsync);
export const fchmodFd = promisify(fchmod);

/** Reads `size` bytes from the start of an open file; fewer when it shrank meanwhile. */
export async function readFdFully(fd: number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const { bytesRead } = await readFd(fd, buffer, length, size - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length === size ? buffer : buffer.subarray(0, length);
}

/** readFdFully on the calling thread, for small files in the page cache (see SYNC_READ_MAX_BYTES where it is used). */
export function readFdFullySync(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const bytesRead = readSync(fd, buffer, length, size - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length === size ? buffer : buffer.subarray(0, length);
}
