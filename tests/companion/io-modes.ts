/**
 * A tool call's file-system calls run on the main thread when the call executes alone and through libuv's thread
 * pool when others execute too (companion/fsx/io-mode.ts, fsx/fs-calls.ts). Suites that must hold both ways run
 * once per mode: `describe.each(IO_MODES)(…, (_mode, others) => { executingBeside(others); … })`.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { callExecuting, ioOnMainThread } from '../../companion/fsx/io-mode';
import { allFileSystemsLocal } from '../../companion/fsx/mounts';

export const IO_MODES = [
  ['alone, file-system calls on the main thread', 0],
  ['beside two other calls, file-system calls through the thread pool', 2],
] as const;

/** Counts `others` calls as executing around each test of the enclosing suite. */
export function executingBeside(others: number): void {
  beforeEach(() => {
    for (let i = 0; i < others; i++) callExecuting(1);
    // a machine with a network or FUSE file system mounted keeps every call in the pool (fsx/mounts.ts)
    expect(ioOnMainThread()).toBe(others === 0 && allFileSystemsLocal());
  });
  afterEach(() => {
    for (let i = 0; i < others; i++) callExecuting(-1);
  });
}
