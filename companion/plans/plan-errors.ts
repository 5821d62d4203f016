import type { ErrorCode } from '../../shared/errors';
import { asToolError } from '../fsx/errno';
import { stopReason } from '../stop-reason';

/** `CODE: message`, the one-line form every plan reply uses for an error. */
export function errorLine(error: unknown): string {
  const { code, message } = asPlanError(error);
  return `${code}: ${message}`;
}

/** The one errno table (fsx/errno.ts), so a full disk reads LIMIT_EXCEEDED in a plan reply as in a tool result. */
export function asPlanError(error: unknown): { code: ErrorCode; message: string } {
  const { code, message } = asToolError(error);
  return { code, message };
}

/**
 * The line for what a stopped run did not do (the person's Stop, or shutdown), or undefined while it runs: a plan
 * checks it before each action it has left, so nothing starts once the run was stopped.
 */
export function stoppedLine(signal: AbortSignal): string | undefined {
  return signal.aborted ? `CANCELLED: not done, the run was stopped (${stopReason(signal)})` : undefined;
}

export function isMissingError(error: unknown): boolean {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  return errno === 'ENOENT' || errno === 'ENOTDIR';
}
