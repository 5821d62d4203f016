import { fsMv } from '../../shared/tools/fs-mv';
import { ToolError } from '../../shared/errors';
import { assertSubtreeMayChange, describeSubtree } from '../policy/subtree-guard';
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

/** Per call (its scoped context): where plan() found entries that run code would land, as decided. */
const decidedLandings = new WeakMap<object, ReadonlySet<string>>();

/**
 * At run, an entry that runs code where it lands and that plan() did not see (written into the source while the
 * call waited, or by a call running beside it) was never decided as exec: the move is refused.
 */
export function assertLandingsDecided(decided: ReadonlySet<string> | undefined, now: readonly string[], from: string, to: string): void {
  const undecided = decided === undefined ? undefined : now.find((landing) => !decided.has(landing));
  if (undecided !== undefined) {
    throw new ToolError(
      'POLICY_BLOCKED',
      `moving ${JSON.stringify(from)} → ${JSON.stringify(to)} would now put a file at ${JSON.stringify(undecided)}, which runs code (it counts as exec), and it was not there when the move was decided; nothing was moved — send the call again`,
      { path: undecided },
    );
  }
}

export const fsMvHandler = defineHandler({
  contract: fsMv,
  async plan(args, ctx) {
    // where an entry that runs code would land is a path of the move too: it is decided as that file's write (exec)
    const { from, to, runsCodeAt } = await resolveMovable(args, ctx);
    decidedLandings.set(ctx, new Set(runsCodeAt));
    return { risk: 'write', paths: [from, to, ...runsCodeAt] };
  },
  async preview(args, ctx) {
    const { from, to } = await resolveBoth(args, ctx);
    const subtree = await describeSubtree({ kind: 'move', from, to }, ctx.policy, { signal: ctx.signal });
    return {
      title: `Move ${from} → ${to}${args.overwrite ? ' (replacing it if it exists)' : ''}${subtree.phrase ? ` — ${subtree.phrase}` : ''}`,
      paths: [from, to, ...subtree.protectedPaths],
    };
  },
  async run(args, ctx) {
    const { from, to, runsCodeAt } = await resolveMovable(args, ctx);
    assertLandingsDecided(decidedLandings.get(ctx), runsCodeAt, from, to);
    const entry = await ctx.journal.apply('fs.mv', [{ op: 'mv', from, to, overwrite: args.overwrite ?? false }], ctx.origin);
    return { text: `Moved ${from} → ${to}`, journalId: entry.id, data: { fromPath: from, toPath: to } };
  },
});
