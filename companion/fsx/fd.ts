/**
 * Promise forms of the descriptor calls the hot paths use (fs.read, the journal's writes): a bare descriptor costs
 * fewer trips through the thread pool than a FileHandle (bench/README.md).
 */
import { close, fchmod, fstat, fsync, open, read, write } from 'node:fs';
import { promisify } from 'node:util';

export const openFd = promisify(open);
export const readFd = promisify(read);
export const writeFd = promisify(write);
export const fsyncFd = promisify(fsync);
export const fchmodFd = promisify(fchmod);
export const fstatFd = promisify(fstat);
export const closeFd = promisify(close);
