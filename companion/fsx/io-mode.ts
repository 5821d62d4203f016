/**
 * Whether the file-system calls a tool call makes on a path in use — realpath, open, fstat, a small read, the
 * listed directory's read — run on the main thread or through libuv's thread pool. Only where the work is done
 * changes, never what is done or checked.
 *
 * Each of those calls answers from the kernel's caches in a few µs, while a trip through the pool costs the main
 * thread ~35 µs of CPU and an event-loop wake-up on this kind of machine, so a call that is alone answers sooner
 * with all of them on the main thread (fs.read via POST /v1/run: p50 0.81 → 0.63 ms, bench/README.md). With
 * several calls at once the pool wins: its threads work on the other core while the main thread parses and answers
 * the rest, and answers leave in bursts instead of one by one (32 concurrent fs.read: ~1.3× the requests per second,
 * ~15 % less CPU per call, measured on the same machine). The run manager counts the calls executing — one waiting
 * for a person's approval does not count — and lets each call take one turn of the event loop before it starts, so
 * requests already waiting in their sockets are counted too.
 *
 * Not while a file system that may wait on a network or a FUSE program is mounted (mounts.ts): a call on the main
 * thread would then stop everything for as long as that file system does not answer.
 */
import { allFileSystemsLocal } from './mounts';

let executing = 0;

/** +1 when a call starts executing or resumes after an approval, -1 when it ends or starts waiting for one. */
export function callExecuting(change: 1 | -1): void {
  // never below zero: an imbalance could only ever choose a thread, and this keeps it from sticking
  executing = Math.max(0, executing + change);
}

/** On the main thread only while every mounted file system is local (mounts.ts: a hung network mount must not freeze the loop). */
export function ioOnMainThread(): boolean {
  return executing <= 1 && allFileSystemsLocal();
}
