import { lstatSync, promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { fsLs } from '../../shared/tools/fs-ls';
import { ioOnMainThread } from '../fsx/io-mode';
import { onMountOf } from '../fsx/mount-gate';
import { allFileSystemsLocal } from '../fsx/mounts';
import { walkTreeBatches } from '../fsx/walk';
import { denyUnder } from '../policy/deny-under';
import { realpathLoose, rootOf } from '../policy/path-guard';
import type { Policy } from '../policy/schema';
import { defineHandler, formatBytes, resolvePath, resolvePathNow } from './define-handler';
import { modelGlob } from '../fsx/model-glob';

/**
 * Where a listed symlink leads, as the listing says it: the target relative to the link (absolute when it is in
 * another root) when it ends up inside the roots — worked out from where it really leads, never from the link's
 * text, which may climb through outside directories on its way back in — and only that it points outside the
 * workspace otherwise: an outside target's name is not the model's to learn (issue 9, finding 7).
 */
async function shownLinkTarget(link: string, policy: Pick<Policy, 'roots'>): Promise<string> {
  let resolved: string;
  try {
    resolved = await realpathLoose(link, policy.roots);
  } catch {
    return '(cannot be resolved: a loop, or a name the system refuses)';
  }
  const root = rootOf(resolved, policy.roots);
  if (root === undefined) return '(points outside the workspace)';
  return root === rootOf(link, policy.roots) ? path.relative(path.dirname(link), resolved) || '.' : resolved;
}

/**
 * The size of an entry the walk just read from its directory (only with `sizes`). Synchronous while every mounted
 * file system is local (fsx/mounts.ts), whatever else runs: in a folder in use the inodes are in the kernel's cache
 * and lstat(2) answers in 2–3 µs, while the same call through the thread pool cost ~10 µs of CPU and a trip through
 * the event loop — 1000 entries took 27 ms that way, 3 ms now (bench). A cold cache makes each one wait for the
 * disk, so the loop is handed back whenever a slice has taken SLICE_MS: other requests wait at most that plus one
 * lstat. With a network or FUSE file system mounted, an entry may be its mount point, whose server may not answer:
 * then through the pool.
 */
function sizeOf(entry: string): number {
  try {
    return lstatSync(entry, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

async function sizeThroughPool(entry: string): Promise<number> {
  return (await onMountOf(entry, () => fs.lstat(entry)).catch(() => undefined))?.size ?? 0;
}

const SLICE_MS = 2;

type ListedEntry = { name: string; type: 'dir' | 'file' | 'other' | 'symlink' | 'denied'; size?: number; target?: string };
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Lines like `src/`, `src/a.ts`, `link -> target (symlink)`; with `sizes`, `src/a.ts  123 B`. Nothing is hidden —
 * dot files and node_modules are listed — but a denied entry is only named, never entered, and symlinks are never
 * followed. Names only by default, like ls and the reference MCP filesystem server's `list_directory`: a size is
 * an lstat per entry (~2 µs each with warm caches, most of a 1000-entry listing's time), paid only when asked.
 */
export const fsLsHandler = defineHandler({
  contract: fsLs,
  async plan(args, ctx) {
    return { risk: 'read', paths: [await resolvePath(args.path, ctx, { mustExist: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    return { title: `List ${path}`, heading: { kind: 'list', path }, paths: [path] };
  },
  async run(args, ctx) {
    // the walk follows the path as it is now, so it is resolved now (not carried from plan)
    const root = await resolvePathNow(args.path, ctx, { mustExist: true });
    // the start's stat and the directory reads on the main thread while this is the only call executing
    // (fsx/io-mode.ts): realpath has just walked the same path, so its inode is in the kernel's cache
    const onMain = ioOnMainThread();
    const stat = onMain ? statSync(root) : await onMountOf(root, () => fs.stat(root));
    const sizes = args.sizes === true;
    const sizesOnMain = sizes && allFileSystemsLocal();
    if (!stat.isDirectory()) {
      if (!sizes) return { text: root, data: { path: root, entries: [{ name: root, type: 'file' }] } };
      return { text: `${root}  ${formatBytes(stat.size)}`, data: { path: root, entries: [{ name: root, type: 'file', size: stat.size }] } };
    }
    const max = ctx.policy.limits.maxListEntries;
    const matches = args.glob ? modelGlob(args.glob, 'glob', { dot: true, basename: !args.glob.includes('/') }) : undefined;
    const deniedUnder = denyUnder(root, ctx.policy);
    const isDenied = (relative: string) => deniedUnder(relative) !== undefined;
    // the text's lines and the structured entries are made in the same pass, one line string and one entry each
    const lines: string[] = [];
    const entries: ListedEntry[] = [];
    let truncated = false;
    let slice = performance.now();
    const walk = walkTreeBatches(root, { maxDepth: args.depth ?? 1, descend: (entry) => !isDenied(entry.relative), signal: ctx.signal, readSync: onMain });
    listing: for await (const batch of walk) {
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i]!;
        const name = entry.relative;
        if (matches && !matches(name)) continue;
        if (lines.length >= max) {
          truncated = true;
          break listing;
        }
        const dirent = entry.dirent;
        if (isDenied(name)) {
          lines.push(dirent.isDirectory() ? `${name}/  [denied by policy]` : `${name}  [denied by policy]`);
          entries.push({ name, type: 'denied' });
        } else if (dirent.isSymbolicLink()) {
          const target = await shownLinkTarget(entry.path, ctx.policy);
          lines.push(`${name} -> ${target} (symlink)`);
          entries.push({ name, type: 'symlink', target });
        } else if (dirent.isDirectory()) {
          lines.push(`${name}/`);
          entries.push({ name, type: 'dir' });
        } else if (!sizes) {
          lines.push(name);
          entries.push({ name, type: dirent.isFile() ? 'file' : 'other' });
        } else {
          const size = sizesOnMain ? sizeOf(entry.path) : await sizeThroughPool(entry.path);
          if (performance.now() - slice > SLICE_MS) {
            await yieldToLoop();
            slice = performance.now();
          }
          lines.push(`${name}  ${formatBytes(size)}`);
          entries.push({ name, type: dirent.isFile() ? 'file' : 'other', size });
        }
      }
    }
    if (truncated) {
      lines.push(`… more entries not listed (limit ${max}, limits.maxListEntries); narrow with depth or glob`);
    }
    const text = lines.length === 0 ? `(no entries in ${root}${args.glob ? ` matching ${args.glob}` : ''})` : lines.join('\n');
    return { text, truncated, data: { path: root, entries } };
  },
});
