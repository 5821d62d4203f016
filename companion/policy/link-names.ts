import { readdirSync, readlinkSync, realpathSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { onRemoteMount } from '../fsx/mounts';

/**
 * The other names a file has through the symlinks in a few folders: where a dotfile manager (GNU Stow, rcm, a
 * dotfiles repository's install script) made `~/.bashrc` a link to `~/dotfiles/bashrc` or `~/.aws` one to
 * `~/dotfiles/aws`, the file `~/dotfiles/aws/credentials` is also `~/.aws/credentials`, and a rule that names the
 * latter (a deny glob, a file that runs code) is about the former too. The folders are read once, by whoever asks
 * first, so a link made later counts from the companion's next start. Not followed: a link onto a network or FUSE
 * mount (`~/nas`), which might never answer (fsx/mounts.ts).
 */
export interface LinkTable {
  /** a linked file's real path → the link */
  files: ReadonlyMap<string, string>;
  /** a linked folder's real path and the link, for the files under it */
  folders: ReadonlyArray<readonly [target: string, link: string]>;
}

/**
 * The links directly in `dirs` (each folder once, by its real place). `dangling` names where a link that leads to
 * nothing yet will lead once it is made, when the caller cares (a file that runs code, written by its real name).
 */
export function linksIn(dirs: Iterable<string>, dangling?: (link: string) => string | undefined): LinkTable {
  const files = new Map<string, string>();
  const folders: Array<readonly [string, string]> = [];
  // `/bin` is `/usr/bin` on most systems now: its links are the same
  const byReal = new Map<string, string>();
  for (const dir of dirs) {
    if (onRemoteMount(dir)) continue;
    try {
      const real = realpathSync.native(dir);
      if (!byReal.has(real)) byReal.set(real, dir);
    } catch {
      // a folder that is not there holds no links
    }
  }
  for (const dir of byReal.values()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.isSymbolicLink()) addLink(path.join(dir, entry.name), files, folders, dangling);
  }
  return { files, folders };
}

/**
 * The links directly in one folder, read once (the caller keeps it), and the real folders in it whose names `keep`
 * takes, as given; nothing when it cannot be read or is on a network or FUSE mount.
 */
export function linksAndFoldersIn(dir: string, keep: (name: string) => boolean, dangling?: (link: string) => string | undefined): { table: LinkTable; kept: string[] } {
  const files = new Map<string, string>();
  const folders: Array<readonly [string, string]> = [];
  const kept: string[] = [];
  if (onRemoteMount(dir)) return { table: { files, folders }, kept };
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // a folder that cannot be read holds no links
  }
  for (const entry of entries) {
    if (entry.isSymbolicLink()) addLink(path.join(dir, entry.name), files, folders, dangling);
    else if (entry.isDirectory() && keep(entry.name)) kept.push(entry.name);
  }
  return { table: { files, folders }, kept };
}

/** Puts a link in the table by where it leads (a file, or a folder for what is under it). */
function addLink(link: string, files: Map<string, string>, folders: Array<readonly [string, string]>, dangling?: (link: string) => string | undefined): void {
  let target: string | undefined;
  let folder = false;
  try {
    if (onRemoteMount(path.resolve(path.dirname(link), readlinkSync(link)))) return;
    target = realpathSync.native(link);
    folder = statSync(target).isDirectory();
  } catch {
    target = dangling?.(link);
  }
  if (target === undefined || target === link) return;
  if (folder) folders.push([target, link]);
  else files.set(target, link);
}

/** The names `resolved` has through the table's links, each with the link it goes through. */
export function namesThroughLinks(table: LinkTable, resolved: string): Array<{ name: string; link: string }> {
  const names: Array<{ name: string; link: string }> = [];
  const file = table.files.get(resolved);
  if (file !== undefined) names.push({ name: file, link: file });
  for (const [target, link] of table.folders) {
    // by whole segments: `~/dotfiles/aws-notes` is not under `~/dotfiles/aws`
    if (resolved === target) names.push({ name: link, link });
    else if (resolved.startsWith(target.endsWith(path.sep) ? target : target + path.sep)) names.push({ name: path.join(link, path.relative(target, resolved)), link });
  }
  return names;
}

/**
 * The folders directly in `dir` (not links to one: a linked folder is in the table already) whose names `keep` takes,
 * as given; none when it cannot be read or is on a network or FUSE mount.
 */
export function foldersIn(dir: string, keep: (name: string) => boolean = () => true): string[] {
  if (onRemoteMount(dir)) return [];
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && keep(entry.name))
      .map((entry) => path.join(dir, entry.name));
  } catch {
    return [];
  }
}
