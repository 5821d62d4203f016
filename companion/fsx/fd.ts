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
 * Flags to read a path already checked to be a regular file or a directory (by lstat, before any open: opening a
 * device is itself an act — a serial port resets the board on it, /dev/watchdog arms the watchdog). What may still
 * be swapped in between that check and the open is opened as harmlessly as it can be: a symlink at its end is not
 * followed, a FIFO is not waited on (opening one for reading blocks a pool thread until a writer comes), and a
 * terminal does not become the companion's controlling one; the caller refuses it from the descriptor's fstat.
 */
export const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
