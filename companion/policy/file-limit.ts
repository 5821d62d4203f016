import { ToolError } from '../../shared/errors';
import type { Policy } from './schema';

/**
 * limits.maxFileBytes, the largest file a tool reads or writes. A file over it is never read whole — not for a read,
 * a search, or a change's before-image — whatever size it says it is (a sparse file may say 100 GB): refused naming
 * the file, its size and the limit, before any of it is read.
 */
export function assertWithinFileLimit(file: string, size: number, policy: Pick<Policy, 'limits'>, why = ''): void {
  if (size <= policy.limits.maxFileBytes) return;
  throw new ToolError(
    'LIMIT_EXCEEDED',
    `${JSON.stringify(file)} is ${size} bytes, over the limit of ${policy.limits.maxFileBytes} bytes (limits.maxFileBytes)${why}`,
    { path: file },
  );
}
