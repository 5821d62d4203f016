import { ToolError } from '../../shared/errors';
import type { Policy } from './schema';

/**
 * limits.maxActions, the most files one fs.writeBatch writes and the most actions one plan holds (auto_coder file
 * actions and programs, Axon acts). Each is resolved through the path guard, shown on one card and written in one
 * turn of the journal: a call of tens of thousands held the companion's thread for many seconds, so status, other
 * calls and approvals waited on it. Refused naming the count, the limit and the key before any of it is resolved.
 */
export function assertWithinActionLimit(what: string, count: number, unit: string, policy: Pick<Policy, 'limits'>): void {
  const max = policy.limits.maxActions;
  if (count <= max) return;
  throw new ToolError(
    'LIMIT_EXCEEDED',
    `${what} holds ${count} ${unit}, over the limit of ${max} ${unit} in one call (limits.maxActions); nothing of it was done — split it into calls of at most ${max}`,
    { count, limit: max },
  );
}
