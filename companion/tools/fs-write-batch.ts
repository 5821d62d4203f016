import { fsWriteBatch } from '../../shared/tools/fs-write-batch';
import { assertWithinActionLimit } from '../policy/action-limit';
import type { FileOp } from '../types';
import { currentText, defineHandler, diffDeadline, refuseMarkerOverSecretOnDisk, resolvePath, unifiedDiff } from './define-handler';

export const fsWriteBatchHandler = defineHandler({
  contract: fsWriteBatch,
  async plan(args, ctx) {
    assertWithinActionLimit('fs.writeBatch: files', args.files.length, 'files', ctx.policy);
    const paths = await Promise.all(args.files.map((file) => resolvePath(file.path, ctx, { forWrite: true })));
    for (const [i, file] of args.files.entries()) {
      if (file.mode !== 'append') await refuseMarkerOverSecretOnDisk(paths[i]!, file.content, ctx.policy);
    }
    return { risk: 'write', paths: [...new Set(paths)] };
  },
  async preview(args, ctx) {
    const changes: Array<{ path: string; before: string; after: string; created: boolean }> = [];
    // Later files in the batch see the earlier ones, as the batch applies them in order.
    const pending = new Map<string, string>();
    const paths: string[] = [];
    for (const file of args.files) {
      const path = await resolvePath(file.path, ctx, { forWrite: true });
      paths.push(path);
      const current = pending.has(path) ? undefined : await currentText(path, ctx.policy);
      const before = pending.get(path) ?? current?.text ?? '';
      const after = file.mode === 'append' ? before + file.content : file.content;
      pending.set(path, after);
      changes.push({ path, before, after, created: current?.exists === false });
    }
    return {
      title: `Write ${args.files.length} file(s) all-or-nothing`,
      heading: { kind: 'write-batch', files: args.files.length },
      paths: [...new Set(paths)],
      diffLater: async () => {
        const deadline = diffDeadline();
        // a file the batch creates is diffed from /dev/null, so the card tags it new
        return changes.map(({ path, before, after, created }) => unifiedDiff(created ? '/dev/null' : path, path, before, after, 3, deadline)).join('\n');
      },
    };
  },
  async run(args, ctx) {
    const ops: FileOp[] = [];
    for (const file of args.files) {
      const path = await resolvePath(file.path, ctx, { forWrite: true });
      ops.push({
        op: 'write',
        path,
        content: file.content,
        mode: file.mode ?? 'overwrite',
        ...(file.expectedSha256 ? { expectedSha256: file.expectedSha256 } : {}),
      });
    }
    const entry = await ctx.journal.apply('fs.writeBatch', ops, ctx.origin);
    return { text: 'WRITE_BATCH_SUCCESS', journalId: entry.id, data: { files: entry.paths } };
  },
});
