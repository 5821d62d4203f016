import { statSync } from 'node:fs';
import path from 'node:path';
import { onRemoteMount } from '../fsx/mounts';
import { givenAndReal } from './given-and-real';
import { linksAndFoldersIn, namesThroughLinks, type LinkTable } from './link-names';

/**
 * The links inside a project, kept per folder for the deny check (path-guard.ts, deny-under.ts) and the write
 * decision (runs-code.ts). A project that keeps `config/dev.env` and links `.env` to it (or keeps `vault/aws` and
 * links `.aws` to that folder) has a file that a rule naming `.env` is about by its real name too; a hook manager
 * that links `.husky/pre-commit` to a tracked script makes that script code git runs. The links looked for by the
 * deny check are those directly in the file's own folder and in each folder above it up to its root; a link in a
 * sibling folder (`a/.env` to `../b/dev.env`) is not among them, nor a hard link (no name leads from one to the other).
 */

/**
 * The folders inside a project whose own entries may be links to the files they run (hook managers link
 * `.husky/pre-commit` to a tracked script), with the folders in them that are read too (runs-code.ts).
 */
export const PROJECT_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  '.husky': ['_'],
  '.vscode': [],
  '.github': ['workflows'],
  '.devcontainer': [],
  '.cursor': [],
  '.claude': [],
  '.cargo': [],
  '.gemini': [],
  '.codex': [],
};
const PROJECT_FOLDER_NAMES = new Set(Object.entries(PROJECT_FOLDERS).flat(2));

/**
 * A folder's identity and change times, and whether those had settled (were older than SETTLED_MS) when it was
 * stat'ed. A folder changed within the file system's timestamp granularity of a look at it (a few ms on ext4, whose
 * times come from a coarse clock) can change again with the same times, so what was read from one that had not
 * settled is not kept for a later look.
 */
export interface FolderStat {
  signature: string;
  settled: boolean;
}

const SETTLED_MS = 100;

/** The folder's FolderStat now; undefined when it is no folder (or cannot be stat'ed). */
export function folderStat(dir: string): FolderStat | undefined {
  try {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return undefined;
    return { signature: `${stat.dev}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`, settled: Date.now() - Math.max(stat.mtimeMs, stat.ctimeMs) > SETTLED_MS };
  } catch {
    return undefined;
  }
}

/** A folder's links (link-names.ts, a dangling one as where it will lead) and the PROJECT_FOLDERS it holds. */
export interface FolderLinks {
  signature: string;
  table: LinkTable;
  folders: readonly string[];
}

/**
 * Kept across calls and read again once the folder's identity or change times differ: making, removing or
 * retargeting a link in it (`ln -sfn` renames a new link over the old) changes them; only a folder whose times had
 * settled when it was read (FolderStat). Bounded: a companion that has looked in more folders than this starts again.
 */
const kept = new Map<string, FolderLinks>();
export const MAX_FOLDERS_KEPT = 4096;

/**
 * The links in `dir` as it is now (`stat`: the folder as the caller just stat'ed it, when it did); undefined when it
 * is no folder or is on a network or FUSE mount, which might never answer (fsx/mounts.ts).
 */
export function folderLinks(dir: string, stat?: FolderStat): FolderLinks | undefined {
  if (onRemoteMount(dir)) return undefined;
  const folder = stat ?? folderStat(dir);
  if (folder === undefined) return undefined;
  const known = kept.get(dir);
  if (known?.signature === folder.signature) return known;
  const { table, kept: folders } = linksAndFoldersIn(dir, (name) => PROJECT_FOLDER_NAMES.has(name), (link) => givenAndReal(link).at(-1));
  // a real folder only among those kept: a link to one is in the table, and counts for everything under its target
  const read: FolderLinks = { signature: folder.signature, table, folders };
  if (folder.settled) {
    if (kept.size >= MAX_FOLDERS_KEPT) kept.clear();
    kept.set(dir, read);
  }
  return read;
}

function holdsLinks(table: LinkTable): boolean {
  return table.files.size > 0 || table.folders.length > 0;
}

/**
 * The link tables of `dir` and the folders above it up to `root` (both inside it by whole segments, `dir` included),
 * those that hold a link. `memo`, when given, keeps each folder's answer for one walk, so a listing or search stats a
 * folder once, not once per entry.
 */
export function linkTablesAround(dir: string, root: string, memo?: Map<string, readonly LinkTable[]>): readonly LinkTable[] {
  const known = memo?.get(dir);
  if (known !== undefined) return known;
  const own = folderLinks(dir)?.table;
  const above = dir === root || path.dirname(dir) === dir ? [] : linkTablesAround(path.dirname(dir), root, memo);
  const tables = own === undefined || !holdsLinks(own) ? above : [own, ...above];
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
