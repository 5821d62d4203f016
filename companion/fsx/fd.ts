/**
 * Promise forms of the descriptor calls the hot paths use (fs.read, the journal's writes): a bare descriptor costs
 * fewer trips through the thread pool than a FileHandle (bench/README.md).
 */
import { close, constants, fchmod, fstat, fsync, open, read, write } from 'node:fs';
import { promisify } from 'node:util';

export const openFd = promisify(open);
export const readFd = promisify(read);
export const writeFd = promisify(write);
export const fsyncFd = promisify(fsync);
export const fchmodFd = promisify(fchmod);
export const fstatFd = promisify(fstat);
export const closeFd = promisify(close);

/**
 * Flags to read a path already checked: a symlink at its end is not followed, and a FIFO planted or swapped in is
 * not waited on (opening one for reading blocks a pool thread until a writer comes; the caller then refuses it).
 */
export const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
