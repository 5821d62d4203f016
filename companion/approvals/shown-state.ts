import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { onMountOf } from '../fsx/mount-gate';
import { sha256File } from '../fsx/sha256';
import { MAX_SUBTREE_ENTRIES } from '../policy/subtree-guard';

/**
 * What a card showed of the paths a call changes, to tell once the person decided whether they are still so
 * (DESIGN §5.4): the diff they approved was made from these files. A file up to HASHED_BYTES counts by its bytes and
 * mode (an editor saving the same bytes again is no change), a larger one or one this process may not read (a
 * delete needs no read) by its size, inode and change times — hashing a few GB twice would hold the card and the run
 * for minutes; a symlink counts by its target, anything else by its inode and change times, a missing path as missing.
 * A directory a call changes counts by everything under it too (`subtrees`): its own change times move only when an
 * entry is added to it or removed from it, so a file the person edited or saved in a folder inside it while the card
 * of its removal waited (the card said how many entries it held) went with the rest.
 */
export type ShownStates = ReadonlyMap<string, string> & { readonly subtrees?: boolean };

const HASHED_BYTES = 16 * 1024 * 1024;

export async function stateOf(target: string, subtrees = false): Promise<string> {
  const stat = await fs.lstat(target, { bigint: true }).catch(() => undefined);
  if (stat === undefined) return 'missing';
  const changeTimes = `${stat.ino} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs}`;
  if (stat.isFile()) {
    const digest = stat.size <= HASHED_BYTES ? await sha256File(target, Number(stat.size)).catch(() => undefined) : undefined;
    return `file ${stat.mode} ${digest ?? changeTimes}`;
  }
  if (stat.isSymbolicLink()) return `symlink ${await fs.readlink(target)}`;
  if (stat.isDirectory()) return `directory ${changeTimes}${subtrees ? ` ${await subtreeState(target)}` : ''}`;
  return `other ${changeTimes}`;
}

/**
 * Every entry under a directory by its name, kind, mode, inode, size and change times (an edit moves a file's), in
 * one digest; symlinks are not followed. Bounded like the subtree guard's walk: a directory holding more is refused
 * by that guard before it is removed, moved or chmod-ed, so past the bound only what was read counts.
 */
async function subtreeState(top: string): Promise<string> {
  const digest = createHash('sha256');
  let entries = 0;
  const pending: string[] = [''];
  walk: while (pending.length > 0) {
    const relative = pending.pop()!;
    const dir = path.join(top, relative);
    const names = await onMountOf(dir, () => fs.readdir(dir)).catch((error: NodeJS.ErrnoException) => error.code ?? 'unreadable');
    if (typeof names === 'string') {
      digest.update(`${relative}\0${names}\n`);
      continue;
    }
    names.sort();
    const subdirs: string[] = [];
    for (const name of names) {
      if (++entries > MAX_SUBTREE_ENTRIES) break walk;
      const child = relative === '' ? name : `${relative}/${name}`;
      const entry = path.join(top, child);
      const stat = await onMountOf(entry, () => fs.lstat(entry, { bigint: true })).catch(() => undefined);
      if (stat === undefined) {
        digest.update(`${child}\0missing\n`);
        continue;
      }
      digest.update(`${child}\0${stat.mode} ${stat.ino} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs}\n`);
      if (stat.isDirectory()) subdirs.push(child);
    }
    pending.push(...subdirs.reverse());
  }
  return digest.digest('hex');
}

/**
 * `subtrees`: a directory counts by everything under it (the paths a call changes: a removal, move or chmod of a
 * folder changes what it holds); without, by its own entries only (a folder a pinned script's link leads to).
 */
export async function shownStates(paths: readonly string[], options: { subtrees?: boolean } = {}): Promise<ShownStates> {
  const unique = [...new Set(paths)];
  const subtrees = options.subtrees === true;
  const states = new Map(await Promise.all(unique.map(async (target) => [target, await stateOf(target, subtrees)] as const)));
  return Object.assign(states, { subtrees });
}

/** The first path that is not as the card showed it, or undefined. */
export async function changedSince(shown: ShownStates): Promise<string | undefined> {
  for (const [target, state] of shown) if ((await stateOf(target, shown.subtrees === true)) !== state) return target;
  return undefined;
}
