import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

export const MAX_SYMLINK_HOPS = 40;

/**
 * A path as given (resolved to absolute) and where it really is, for the companion's own places (its data directory,
 * its config file, its program, the folders on its PATH): a symlink to one and the link's own name are both caught.
 * One that does not exist yet is where it will be once made: the real place of what exists of it, then the rest of
 * its name, a dangling link followed to where it points — a PATH folder `~/bin` linked to a root's `proj/bin` that is
 * not there yet is that folder, once a model has made it and written `git` into it.
 */
export function givenAndReal(given: string): string[] {
  const resolved = path.resolve(given);
  return [...new Set([resolved, realOrWillBe(resolved, 0)])];
}

/** realpath(3) of a path that may not exist (yet), as realpathLoose walks it; synchronous, for the start-up lists. */
function realOrWillBe(absolute: string, hops: number): string {
  try {
    return realpathSync(absolute);
  } catch {
    // what exists of it is resolved below
  }
  const parent = path.dirname(absolute);
  if (parent === absolute || hops > MAX_SYMLINK_HOPS) return absolute;
  let target: string | undefined;
  try {
    target = readlinkSync(absolute);
  } catch {
    // not a link (missing, or not a folder on the way): its name under its parent's real place
  }
  const realParent = realOrWillBe(parent, hops);
  return target === undefined ? path.join(realParent, path.basename(absolute)) : realOrWillBe(path.resolve(realParent, target), hops + 1);
}
