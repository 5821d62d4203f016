import { statSync } from 'node:fs';
import path from 'node:path';
import { onRemoteMount } from '../fsx/mounts';
import { linksAndFoldersIn, namesThroughLinks, type LinkTable } from './link-names';

/**
 * The names the links inside a project give a file: a project that keeps `config/dev.env` and links `.env` to it
 * (or keeps `vault/aws` and links `.aws` to that folder) has a file that a rule naming `.env` is about, by its real
 * name too. The links looked for are those directly in the file's own folder and in each folder above it up to its
 * root; a link in a sibling folder (`a/.env` to `../b/dev.env`) is not among them, nor a hard link (no name leads
 * from one to the other).
 *
 * Each folder is stat'ed when asked and read again only once its identity or change times differ: making, removing
 * or retargeting a link in it (`ln -sfn` renames a new link over the old) changes them. Bounded: a companion that has
 * looked in more folders than this starts again.
 */
interface FolderLinks {
  signature: string;
  table: LinkTable;
}

const folderLinks = new Map<string, FolderLinks>();
const MAX_FOLDERS_KEPT = 4096;

/** The links directly in `dir`, as it is now; undefined when it holds none (or is no folder, or on a network mount). */
function linksOf(dir: string): LinkTable | undefined {
  if (onRemoteMount(dir)) return undefined;
  let signature: string;
  try {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return undefined;
    signature = `${stat.dev}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`;
  } catch {
    return undefined;
  }
  let known = folderLinks.get(dir);
  if (known?.signature !== signature) {
    if (folderLinks.size >= MAX_FOLDERS_KEPT) folderLinks.clear();
    known = { signature, table: linksAndFoldersIn(dir, () => false).table };
    folderLinks.set(dir, known);
  }
  return known.table.files.size > 0 || known.table.folders.length > 0 ? known.table : undefined;
}

/**
 * The link tables of `dir` and the folders above it up to `root` (both inside it by whole segments, `dir` included),
 * those that hold a link. `memo`, when given, keeps each folder's answer for one walk, so a listing or search stats a
 * folder once, not once per entry.
 */
export function linkTablesAround(dir: string, root: string, memo?: Map<string, readonly LinkTable[]>): readonly LinkTable[] {
  const kept = memo?.get(dir);
  if (kept !== undefined) return kept;
  const own = linksOf(dir);
  const above = dir === root || path.dirname(dir) === dir ? [] : linkTablesAround(path.dirname(dir), root, memo);
  const tables = own === undefined ? above : [own, ...above];
  memo?.set(dir, tables);
  return tables;
}

/** The names `resolved` has through `tables`' links. */
export function namesThroughTables(tables: readonly LinkTable[], resolved: string): string[] {
  const names: string[] = [];
  for (const table of tables) for (const { name } of namesThroughLinks(table, resolved)) names.push(name);
  return names;
}

/** The names the links in the folders around `resolved` (inside `root`, not `root` itself) give it. */
export function projectLinkNames(resolved: string, root: string, memo?: Map<string, readonly LinkTable[]>): string[] {
  return namesThroughTables(linkTablesAround(path.dirname(resolved), root, memo), resolved);
}
