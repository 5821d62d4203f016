import { promises as fs } from 'node:fs';
import { fsMkdir } from '../../shared/tools/fs-mkdir';
import { defineHandler, resolvePath } from './define-handler';

export const fsMkdirHandler = defineHandler({
  contract: fsMkdir,
  async plan(args, ctx) {
    return { risk: 'write', paths: [await resolvePath(args.path, ctx, { forWrite: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { forWrite: true });
    return {
      title: `Create directory ${path}${args.parents ? ' (and missing parents)' : ''}`,
      heading: { kind: 'mkdir', path, parents: args.parents === true },
      paths: [path],
    };
  },
  async run(args, ctx) {
    const path = await resolvePath(args.path, ctx, { forWrite: true });
    const existed = (await fs.lstat(path).catch(() => undefined))?.isDirectory() ?? false;
    const entry = await ctx.journal.apply('fs.mkdir', [{ op: 'mkdir', path, parents: args.parents ?? false }], ctx.origin);
    return { text: existed ? `Directory ${path} already exists` : `Created directory ${path}`, journalId: entry.id, data: { path, created: !existed } };
  },
});
