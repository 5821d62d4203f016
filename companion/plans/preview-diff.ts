import { unifiedDiff as boundedDiff } from '../tools/define-handler';

/**
 * One file change as the person sees it before approving: a unified diff with `a/` and `b/` names relative to the
 * workspace root, `/dev/null` for a file that is created or deleted; bounded in size and time like every diff
 * (tools/define-handler.ts), `deadline` shared by the files of one plan.
 */
export function unifiedDiff(relative: string, before: string | null, after: string | null, deadline: number): string {
  const name = relative.replace(/^\.\//, '');
  return boundedDiff(before === null ? '/dev/null' : `a/${name}`, after === null ? '/dev/null' : `b/${name}`, before ?? '', after ?? '', 3, deadline);
}

/** Most characters of diff shown for approval; a plan rewriting a huge file should not freeze the approval card. */
export const MAX_PREVIEW_CHARS = 200_000;

export function capPreview(diff: string, limit = MAX_PREVIEW_CHARS): string {
  if (diff.length <= limit) return diff;
  return `${diff.slice(0, limit)}\n[… preview cut: ${diff.length - limit} more characters of diff not shown …]\n`;
}
