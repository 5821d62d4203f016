import { lstatSync, promises as fs } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { fsLs } from '../../shared/tools/fs-ls';
import { walkTreeBatches } from '../fsx/walk';
import { denyUnder } from '../policy/deny-under';
import { realpathLoose, rootOf } from '../policy/path-guard';
import type { Policy } from '../policy/schema';
import { defineHandler, formatBytes, resolvePath, resolvePathNow } from './define-handler';

/**
 * Where a listed symlink leads, as the listing says it: the target relative to the link (absolute when it is in
 * another root) when it ends up inside the roots — worked out from where it really leads, never from the link's
 * text, which may climb through outside directories on its way back in — and only that it points outside the
 * workspace otherwise: an outside target's name is not the model's to learn (issue 9, finding 7).
 */
async function shownLinkTarget(link: string, policy: Pick<Policy, 'roots'>): Promise<string> {
  let resolved: string;
  try {
    resolved = await realpathLoose(link);
  } catch {
    return '(cannot be resolved: a loop, or a name the system refuses)';
  }
  const root = rootOf(resolved, policy.roots);
  if (root === undefined) return '(points outside the workspace)';
  return root === rootOf(link, policy.roots) ? path.relative(path.dirname(link), resolved) || '.' : resolved;
}

/**
 * The size of an entry the walk just read from its directory. Synchronous on purpose: in a folder in use the
 * inodes are in the kernel's cache and lstat(2) answers in 2–3 µs, while the same call through the thread pool
 * cost ~10 µs of CPU and a trip through the event loop — 1000 entries took 27 ms that way, 3 ms now (bench). A
 * cold cache makes each one wait for the disk, so the loop is handed back whenever a slice has taken SLICE_MS:
 * other requests wait at most that plus one lstat.
 */
function sizeOf(entry: string): number {
  try {
    return lstatSync(entry, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

const SLICE_MS = 2;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Lines like `src/`, `src/a.ts  123 B`, `link -> target (symlink)`. Nothing is hidden — dot files and
 * node_modules are listed — but a denied entry is only named, never entered, and symlinks are never followed.
 */
export const fsLsHandler = defineHandler({
  contract: fsLs,
  async plan(args, ctx) {
    return { risk: 'read', paths: [await resolvePath(args.path, ctx, { mustExist: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    return { title: `List ${path}`, paths: [path] };
  },
  async run(args, ctx) {
    // the walk follows the path as it is now, so it is resolved now (not carried from plan)
    const root = await resolvePathNow(args.path, ctx, { mustExist: true });
    const stat = await fs.stat(root);
    if (!stat.isDirectory()) {
      return { text: `${root}  ${formatBytes(stat.size)}`, data: { path: root, entries: [{ name: root, type: 'file', size: stat.size }] } };
    }
    const max = ctx.policy.limits.maxListEntries;
    const matches = args.glob ? picomatch(args.glob, { dot: true, basename: !args.glob.includes('/') }) : undefined;
    const deniedUnder = denyUnder(root, ctx.policy);
    const isDenied = (relative: string) => deniedUnder(relative) !== undefined;
    const lines: string[] = [];
    const entries: Array<{ name: string; type: string; size?: number; target?: string }> = [];
    let truncated = false;
    let slice = performance.now();
    const walk = walkTreeBatches(root, { maxDepth: args.depth ?? 1, descend: (entry) => !isDenied(entry.relative), signal: ctx.signal });
    listing: for await (const batch of walk) {
      for (const entry of batch) {
        if (matches && !matches(entry.relative)) continue;
        if (lines.length >= max) {
          truncated = true;
          break listing;
        }
        if (isDenied(entry.relative)) {
          lines.push(`${entry.relative}${entry.dirent.isDirectory() ? '/' : ''}  [denied by policy]`);
          entries.push({ name: entry.relative, type: 'denied' });
        } else if (entry.dirent.isSymbolicLink()) {
          const target = await shownLinkTarget(entry.path, ctx.policy);
          lines.push(`${entry.relative} -> ${target} (symlink)`);
          entries.push({ name: entry.relative, type: 'symlink', target });
        } else if (entry.dirent.isDirectory()) {
          lines.push(`${entry.relative}/`);
          entries.push({ name: entry.relative, type: 'dir' });
        } else {
          const size = sizeOf(entry.path);
          if (performance.now() - slice > SLICE_MS) {
            await yieldToLoop();
            slice = performance.now();
          }
          lines.push(`${entry.relative}  ${formatBytes(size)}`);
          entries.push({ name: entry.relative, type: entry.dirent.isFile() ? 'file' : 'other', size });
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
