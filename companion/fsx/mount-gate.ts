import { ToolError } from '../../shared/errors';
import { remoteMountAt, type Mount } from './mounts';

/**
 * File-system calls on a network or FUSE mount inside the roots, bounded. Paths on such a mount outside the roots are
 * never looked into (path-guard realpathLoose); inside a root they must be, and a call there whose server stopped
 * answering (an NFS or SMB share gone, an sshfs link down, a FUSE program stopped) holds a thread of libuv's pool
 * until it answers, maybe for good. The pool has UV_THREADPOOL_SIZE threads (4 by default), which every file tool
 * shares: six reads of a file on a dead share took them all, and every file tool of the companion waited with them.
 *
 * So at most PER_MOUNT calls are in flight on one such mount, and at most one thread fewer than the pool has on all
 * of them together: a local file always has a thread. A call past that waits for its turn, up to TURN_WAIT_MS, and is
 * then refused naming the mount — it is not made, so it takes no thread. On a share that answers, a turn comes in
 * the time of a call. What is gated: resolving a path (lstat, readlink), opening, listing, lstat, mkdir and rename by
 * path — the calls that reach a dead mount first, the subtree check's walk and the journal's look at a change's
 * paths (an undo's) among them; a call on a descriptor already open there is not (it was opened while the share
 * answered), nor a copy or removal of a whole tree (fs.cp, fs.rm), which only follows gated calls on the same paths.
 */
const PER_MOUNT = 2;
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const ALL_MOUNTS = Math.max(1, POOL_THREADS - 1);
const TURN_WAIT_MS = 10_000;

const inFlight = new Map<string, number>();
let inFlightAll = 0;
const waiting = new Set<() => void>();

function hasTurn(mount: Mount): boolean {
  return (inFlight.get(mount.mountPoint) ?? 0) < PER_MOUNT && inFlightAll < ALL_MOUNTS;
}

function take(mount: Mount): void {
  inFlight.set(mount.mountPoint, (inFlight.get(mount.mountPoint) ?? 0) + 1);
  inFlightAll += 1;
}

function giveBack(mount: Mount): void {
  const left = (inFlight.get(mount.mountPoint) ?? 1) - 1;
  if (left > 0) inFlight.set(mount.mountPoint, left);
  else inFlight.delete(mount.mountPoint);
  inFlightAll = Math.max(0, inFlightAll - 1);
  for (const wake of [...waiting]) wake();
}

async function turnOn(mount: Mount, path: string): Promise<void> {
  const deadline = Date.now() + TURN_WAIT_MS;
  while (!hasTurn(mount)) {
    const left = deadline - Date.now();
    const woken = left > 0 && (await new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiting.delete(wake);
        resolve(false);
      }, left);
      waiting.add(wake);
    }));
    if (!woken && !hasTurn(mount)) {
      const mine = inFlight.get(mount.mountPoint) ?? 0;
      throw new ToolError(
        'UNAVAILABLE',
        `the file system mounted at ${mount.mountPoint} (${mount.type}) has not answered: ` +
          (mine > 0 ? `${mine} call${mine === 1 ? '' : 's'} on it still wait` : `calls on other network or FUSE mounts still wait`) +
          `, and this one waited ${Math.round(TURN_WAIT_MS / 1000)} s for its turn, so ${JSON.stringify(path)} was not looked at. ` +
          'Is its server (a network share, sshfs, a FUSE program) still there?',
        { path, mountPoint: mount.mountPoint },
      );
    }
  }
  take(mount);
}

/** Runs `call` on `path` within the bounds above when the path is on a network or FUSE mount; at once otherwise. */
export async function onMountOf<T>(path: string, call: () => Promise<T>): Promise<T> {
  const mount = remoteMountAt(path);
  if (mount === undefined) return call();
  await turnOn(mount, path);
  try {
    return await call();
  } finally {
    giveBack(mount);
  }
}
