import { fsWrite } from '../../shared/tools/fs-write';
import { sha256, sha256File } from '../fsx/sha256';
import { binaryChange, currentText, defineHandler, fileExistsNow, refuseMarkerOverSecretOnDisk, resolvePath, unifiedDiff } from './define-handler';

export const fsWriteHandler = defineHandler({
  contract: fsWrite,
  async plan(args, ctx) {
    const path = await resolvePath(args.path, ctx, { forWrite: true });
    if (args.mode !== 'append') await refuseMarkerOverSecretOnDisk(path, args.content, ctx.policy);
    return { risk: 'write', paths: [path] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { forWrite: true });
    const exists = await fileExistsNow(path);
    const verb = args.mode === 'append' ? 'Append to' : exists ? 'Overwrite' : 'Create';
    return {
      title: `${verb} ${path}`,
      heading: { kind: 'write', mode: args.mode === 'append' ? 'append' : exists ? 'overwrite' : 'create', path },
      paths: [path],
      async diffLater() {
        const before = await currentText(path, ctx.policy);
        const after = args.mode === 'append' ? before.text + args.content : args.content;
        // a file not there yet is diffed from /dev/null, as the plans' cards do: the card tags it new, not changed
        if (before.binary) return binaryChange(path, args.content.length, args.mode === 'append');
        return unifiedDiff(before.exists ? path : '/dev/null', path, before.text, after);
      },
    };
  },
  async run(args, ctx) {
    const path = await resolvePath(args.path, ctx, { forWrite: true });
    const entry = await ctx.journal.apply(
      'fs.write',
      [{ op: 'write', path, content: args.content, mode: args.mode, ...(args.expectedSha256 ? { expectedSha256: args.expectedSha256 } : {}) }],
      ctx.origin,
    );
    // The file's new sha256 is what a following write passes as expectedSha256. An overwrite put exactly these
    // bytes there, so their hash is it without reading the file back; an append's is the whole file's.
    const sha = args.mode === 'append' ? await sha256File(path) : sha256(Buffer.from(args.content, 'utf8'));
    return { text: 'WRITE_SUCCESS', journalId: entry.id, data: { path, bytes: Buffer.byteLength(args.content), sha256: sha } };
  },
});
