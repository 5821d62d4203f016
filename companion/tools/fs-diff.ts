import { ToolError } from '../../shared/errors';
import { fsDiff } from '../../shared/tools/fs-diff';
import { looksBinary } from '../fsx/binary';
import { mapSecrets } from '../policy/redact';
import type { ToolContext } from '../types';
import { capText, defineHandler, readGuarded, resolvePath, unifiedDiff } from './define-handler';

async function readText(input: string, ctx: Pick<ToolContext, 'policy'>) {
  const path = await resolvePath(input, ctx, { mustExist: true });
  const bytes = await readGuarded(path, ctx.policy);
  if (looksBinary(bytes)) throw new ToolError('INVALID_INPUT', `${JSON.stringify(input)} is a binary file; fs.diff compares text`, { path });
  return { path, text: bytes.toString('utf8') };
}

async function pathsOf(args: { leftPath: string; rightPath?: string | undefined }, ctx: Pick<ToolContext, 'policy'>) {
  const paths = [await resolvePath(args.leftPath, ctx, { mustExist: true })];
  if (args.rightPath !== undefined) paths.push(await resolvePath(args.rightPath, ctx, { mustExist: true }));
  return paths;
}

export const fsDiffHandler = defineHandler({
  contract: fsDiff,
  async plan(args, ctx) {
    return { risk: 'read', paths: await pathsOf(args, ctx) };
  },
  async preview(args, ctx) {
    const paths = await pathsOf(args, ctx);
    const [left = '', right] = paths;
    return {
      title: `Compare ${paths.join(' with ')}${args.rightContent !== undefined ? ' with the given content' : ''}`,
      heading: right !== undefined ? { kind: 'compare', left, right } : { kind: 'compare', left },
      paths,
    };
  },
  async run(args, ctx) {
    const left = await readText(args.leftPath, ctx);
    const right = args.rightPath !== undefined ? await readText(args.rightPath, ctx) : { path: `${left.path} (rightContent)`, text: args.rightContent ?? '' };
    // Both sides are compared as a model may see them, redacted line for line (issue 9, finding 3): hunk context
    // never shows a piece of a secret, and rightContent that guesses a secret reads the same, right or wrong.
    const leftShown = mapSecrets(left.text, ctx.policy);
    const rightShown = mapSecrets(right.text, ctx.policy);
    if (leftShown.shown() === rightShown.shown()) {
      const hidden = leftShown.secrets.length + rightShown.secrets.length > 0;
      return { text: hidden ? 'No differences outside redacted text.' : 'No differences.', data: { identical: true } };
    }
    const patch = unifiedDiff(left.path, right.path, leftShown.shown(), rightShown.shown(), args.contextLines ?? 3);
    const capped = capText(patch, ctx.policy.limits.maxResultChars, 'compare smaller files or read parts with fs.read');
    return { ...capped, data: { identical: false } };
  },
});
