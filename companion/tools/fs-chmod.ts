import { promises as fs } from 'node:fs';
import { ToolError } from '../../shared/errors';
import { fsChmod } from '../../shared/tools/fs-chmod';
import { assertNoPrivilegeBits, assertSingleLink } from '../policy/mode-guard';
import { assertSubtreeMayChange, describeSubtree } from '../policy/subtree-guard';
import type { ToolContext } from '../types';
import { defineHandler, resolvePath } from './define-handler';

function assertSupported(): void {
  if (process.platform === 'win32') {
    throw new ToolError('NOT_SUPPORTED', 'fs.chmod is not supported on Windows (no POSIX permission bits there)');
  }
}

async function resolveTarget(path: string, ctx: Pick<ToolContext, 'policy'>) {
  assertSupported();
  return resolvePath(path, ctx, { forWrite: true, mustExist: true });
}

/**
 * The mode rules (policy/mode-guard: no setuid/setgid, no file with a second hard link) and, for a directory,
 * its subtree (policy/subtree-guard: a mode on a directory decides who reaches everything under it). Checked at
 * plan and at run; the journal checks the link count again on the descriptor it changes.
 */
async function resolveChangeable(args: { path: string; mode: string }, ctx: Pick<ToolContext, 'policy' | 'signal'>) {
  const path = await resolveTarget(args.path, ctx);
  assertNoPrivilegeBits(path, Number.parseInt(args.mode, 8));
  const stat = await fs.lstat(path);
  assertSingleLink(path, stat);
  if (stat.isDirectory()) await assertSubtreeMayChange({ kind: 'chmod', path }, ctx.policy, { signal: ctx.signal });
  return path;
}

export const fsChmodHandler = defineHandler({
  contract: fsChmod,
  async plan(args, ctx) {
    return { risk: 'write', paths: [await resolveChangeable(args, ctx)] };
  },
  async preview(args, ctx) {
    const path = await resolveTarget(args.path, ctx);
    const stat = await fs.stat(path);
    const current = (stat.mode & 0o7777).toString(8).padStart(4, '0');
    const subtree = stat.isDirectory() ? await describeSubtree({ kind: 'chmod', path }, ctx.policy, { signal: ctx.signal }) : undefined;
    return {
      title: `chmod ${args.mode} ${path} (now ${current})${subtree ? ` — ${subtree.phrase}` : ''}`,
      heading: subtree?.why
        ? ({ kind: 'refused', change: 'chmod', path, mode: args.mode, current, ...subtree.why } as const)
        : ({ kind: 'chmod', mode: args.mode, path, current, ...(subtree?.entries !== undefined ? { entries: subtree.entries } : {}) } as const),
      paths: [path, ...(subtree?.protectedPaths ?? [])],
      command: `chmod ${args.mode} ${path}`,
    };
  },
  async run(args, ctx) {
    const path = await resolveChangeable(args, ctx);
    const mode = Number.parseInt(args.mode, 8);
    const entry = await ctx.journal.apply('fs.chmod', [{ op: 'chmod', path, mode }], ctx.origin);
    return { text: `Changed mode of ${path} to ${mode.toString(8).padStart(4, '0')}`, journalId: entry.id, data: { path, mode: args.mode } };
  },
});
