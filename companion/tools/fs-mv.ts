import { fsMv } from '../../shared/tools/fs-mv';
import { assertLandingsDecided, assertSubtreeMayChange, decideLandings, describeSubtree } from '../policy/subtree-guard';
import type { ToolContext } from '../types';
import { defineHandler, resolvePath } from './define-handler';

/** rename(2) semantics: a symlink is moved (or replaced) as a link, never followed. */
const WHERE = { forWrite: true, keepFinalName: true } as const;

async function resolveBoth(args: { fromPath: string; toPath: string }, ctx: Pick<ToolContext, 'policy'>) {
  return { from: await resolvePath(args.fromPath, ctx, { ...WHERE, mustExist: true }), to: await resolvePath(args.toPath, ctx, WHERE) };
}

/**
 * Deny globs name paths: moving a directory renames everything in it, so every entry is checked where it is and
 * where it would land, and a replaced destination as a removal (policy/subtree-guard) — at plan, before any
 * approval, and again at run, for what appeared while the approval waited.
 */
async function resolveMovable(args: { fromPath: string; toPath: string }, ctx: Pick<ToolContext, 'policy' | 'signal'>) {
  const { from, to } = await resolveBoth(args, ctx);
  const { runsCodeAt } = await assertSubtreeMayChange({ kind: 'move', from, to }, ctx.policy, { signal: ctx.signal });
  return { from, to, runsCodeAt };
}

export const fsMvHandler = defineHandler({
  contract: fsMv,
  async plan(args, ctx) {
    // where an entry that runs code would land is a path of the move too: it is decided as that file's write (exec)
    const { from, to, runsCodeAt } = await resolveMovable(args, ctx);
    decideLandings(ctx, runsCodeAt);
    return { risk: 'write', paths: [from, to, ...runsCodeAt] };
  },
  async preview(args, ctx) {
    const { from, to } = await resolveBoth(args, ctx);
    const subtree = await describeSubtree({ kind: 'move', from, to }, ctx.policy, { signal: ctx.signal });
    return {
      title: `Move ${from} → ${to}${args.overwrite ? ' (replacing it if it exists)' : ''}${subtree.phrase ? ` — ${subtree.phrase}` : ''}`,
      heading: subtree.why
        ? ({ kind: 'refused', change: 'move', path: from, to, overwrite: args.overwrite === true, ...subtree.why } as const)
        : ({ kind: 'move', from, to, overwrite: args.overwrite === true, ...(subtree.entries !== undefined ? { entries: subtree.entries } : {}) } as const),
      paths: [from, to, ...subtree.protectedPaths],
    };
  },
  async run(args, ctx) {
    const { from, to } = await resolveBoth(args, ctx);
    // in the journal's turn: a call that held it (a write into the folder) may have changed what lands where
    const check = async () => {
      const { runsCodeAt } = await assertSubtreeMayChange({ kind: 'move', from, to }, ctx.policy, { signal: ctx.signal });
      assertLandingsDecided(ctx, runsCodeAt, from, to);
    };
    const entry = await ctx.journal.apply('fs.mv', [{ op: 'mv', from, to, overwrite: args.overwrite ?? false }], ctx.origin, { check });
    return { text: `Moved ${from} → ${to}`, journalId: entry.id, data: { fromPath: from, toPath: to } };
  },
});
