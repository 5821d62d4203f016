import { promises as fs } from 'node:fs';
import { sha256File } from '../fsx/sha256';

/**
 * What a card showed of the paths a call changes, to tell once the person decided whether they are still so
 * (DESIGN §5.4): the diff they approved was made from these files. A file up to HASHED_BYTES counts by its bytes and
 * mode (an editor saving the same bytes again is no change), a larger one or one this process may not read (a
 * delete needs no read) by its size, inode and change times — hashing a few GB twice would hold the card and the run
 * for minutes; a symlink counts by its target, anything else by its inode and change times, a missing path as missing.
 */
export type ShownStates = ReadonlyMap<string, string>;

const HASHED_BYTES = 16 * 1024 * 1024;

async function stateOf(target: string): Promise<string> {
  const stat = await fs.lstat(target, { bigint: true }).catch(() => undefined);
  if (stat === undefined) return 'missing';
  const changeTimes = `${stat.ino} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs}`;
  if (stat.isFile()) {
    const digest = stat.size <= HASHED_BYTES ? await sha256File(target, Number(stat.size)).catch(() => undefined) : undefined;
    return `file ${stat.mode} ${digest ?? changeTimes}`;
  }
  if (stat.isSymbolicLink()) return `symlink ${await fs.readlink(target)}`;
  return `${stat.isDirectory() ? 'directory' : 'other'} ${changeTimes}`;
}

export async function shownStates(paths: readonly string[]): Promise<ShownStates> {
  const unique = [...new Set(paths)];
  return new Map(await Promise.all(unique.map(async (target) => [target, await stateOf(target)] as const)));
}

/** The first path that is not as the card showed it, or undefined. */
export async function changedSince(shown: ShownStates): Promise<string | undefined> {
  for (const [target, state] of shown) if ((await stateOf(target)) !== state) return target;
  return undefined;
}
