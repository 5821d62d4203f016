import { promises as fs } from 'node:fs';
import { ToolError } from '../../shared/errors';
import { fsRm } from '../../shared/tools/fs-rm';
import { assertSubtreeMayChange, describeSubtree } from '../policy/subtree-guard';
import type { ToolContext } from '../types';
import { defineHandler, resolvePath, resolvePathNow } from './define-handler';

/** Acts on the entry itself: removing a symlink removes the link, not what it points to. */
const WHERE = { forWrite: true, keepFinalName: true } as const;

/**
 * Deny globs say what no tool may change; deleting a directory changes everything in it, so a tree holding a
 * denied entry (a nested `.git`, an `.env`) is refused as a whole — the subtree guard that fs.mv, fs.chmod and
 * the plans use too, bounded, refusing what it cannot check.
 */
async function resolveRemovable(
  input: string,
  recursive: boolean | undefined,
  ctx: Pick<ToolContext, 'policy' | 'signal'>,
  resolve: typeof resolvePath = resolvePath,
): Promise<string> {
  const path = await resolve(input, ctx, WHERE);
  if (recursive) await assertSubtreeMayChange({ kind: 'remove', path }, ctx.policy, { signal: ctx.signal });
  return path;
}

export const fsRmHandler = defineHandler({
  contract: fsRm,
  async plan(args, ctx) {
    return { risk: 'delete', paths: [await resolveRemovable(args.path, args.recursive, ctx)] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, WHERE);
    const stat = await fs.lstat(path).catch(() => undefined);
    if (stat?.isDirectory()) {
      const subtree = await describeSubtree({ kind: 'remove', path }, ctx.policy, { signal: ctx.signal });
      const what = subtree.refused ? subtree.phrase : `${subtree.phrase}; all of it goes to the undo trash`;
      return {
        title: `Delete ${path} — ${what}`,
        heading: subtree.why
          ? ({ kind: 'refused', change: 'remove', path, ...subtree.why } as const)
          : ({ kind: 'delete', path, what: 'directory', entries: subtree.entries ?? 0 } as const),
        paths: [path, ...subtree.protectedPaths],
      };
    }
    const what = !stat ? 'nothing (does not exist)' : 'a file';
    return { title: `Delete ${path} — ${what}; it goes to the undo trash`, heading: { kind: 'delete', path, what: stat ? 'file' : 'missing' }, paths: [path] };
  },
  async run(args, ctx) {
    // the deny check walks the tree as it is now, so the path is resolved now (not carried from plan)
    const path = await resolveRemovable(args.path, args.recursive, ctx, resolvePathNow);
    const stat = await fs.lstat(path).catch(() => undefined);
    if (!stat) {
      if (args.force) return { text: `Nothing to remove: ${path} does not exist`, data: { path, removed: false } };
      throw new ToolError('NOT_FOUND', `${JSON.stringify(args.path)} does not exist (pass force: true to accept that)`, { path: args.path });
    }
    const entry = await ctx.journal.apply('fs.rm', [{ op: 'rm', path, recursive: args.recursive ?? false }], ctx.origin);
    return { text: `Removed ${path} (kept in the undo trash, journal ${entry.id})`, journalId: entry.id, data: { path, removed: true } };
  },
});
