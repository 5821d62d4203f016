import { fsWriteBatch } from '../../shared/tools/fs-write-batch';
import { assertWithinActionLimit } from '../policy/action-limit';
import type { FileOp } from '../types';
import { binaryChange, currentText, defineHandler, diffDeadline, refuseMarkerOverSecretOnDisk, resolvePath, unifiedDiff } from './define-handler';

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
    const changes: Array<{ path: string; before: string; after: string; created: boolean; binary: boolean; append: boolean; chars: number }> = [];
    // Later files in the batch see the earlier ones, as the batch applies them in order. A binary file has no text
    // to diff (currentText gives ''): the card says what happens to it, as fs.write's does, rather than a diff that
    // reads as if the file were empty; it stays binary until the batch overwrites it.
    const pending = new Map<string, { text: string; binary: boolean }>();
    const paths: string[] = [];
    for (const file of args.files) {
      const path = await resolvePath(file.path, ctx, { forWrite: true });
      paths.push(path);
      const current = pending.has(path) ? undefined : await currentText(path, ctx.policy);
      const before = pending.get(path) ?? { text: current?.text ?? '', binary: current?.binary ?? false };
      const append = file.mode === 'append';
      const after = append ? before.text + file.content : file.content;
      pending.set(path, { text: after, binary: before.binary && append });
      changes.push({ path, before: before.text, after, created: current?.exists === false, binary: before.binary, append, chars: file.content.length });
    }
    return {
      title: `Write ${args.files.length} file(s) all-or-nothing`,
      heading: { kind: 'write-batch', files: args.files.length },
      paths: [...new Set(paths)],
      diffLater: async () => {
        const deadline = diffDeadline();
        // a file the batch creates is diffed from /dev/null, so the card tags it new
        return changes
          .map(({ path, before, after, created, binary, append, chars }) =>
            binary ? binaryChange(path, chars, append) : unifiedDiff(created ? '/dev/null' : path, path, before, after, 3, deadline),
          )
          .join('\n');
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
