import { promises as fs } from 'node:fs';
import { sha256File } from '../fsx/sha256';

/**
 * What a card showed of the paths a call changes, to tell once the person decided whether they are still so
 * (DESIGN §5.4): the diff they approved was made from these files. A file counts by its bytes and mode (an editor
 * saving the same bytes again is no change), a symlink by its target, anything else by its inode and change times,
 * a missing path as missing.
 */
export type ShownStates = ReadonlyMap<string, string>;

async function stateOf(target: string): Promise<string> {
  const stat = await fs.lstat(target, { bigint: true }).catch(() => undefined);
  if (stat === undefined) return 'missing';
  if (stat.isFile()) return `file ${stat.mode} ${await sha256File(target, Number(stat.size))}`;
  if (stat.isSymbolicLink()) return `symlink ${await fs.readlink(target)}`;
  return `${stat.isDirectory() ? 'directory' : 'other'} ${stat.ino} ${stat.mtimeNs} ${stat.ctimeNs}`;
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
