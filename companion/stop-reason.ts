import { ToolError } from '../shared/errors';

/** Whether a run was stopped and why: its AbortSignal, or its RunStop (runs/run-stop.ts), which says so without one. */
export type StopState = Pick<AbortSignal, 'aborted' | 'reason'>;

/**
 * Why a run was stopped, in words, from its signal (run-manager.ts aborts it with an Error naming who stopped it:
 * the person, a page that stopped the block, shutdown). Shared by the approval wait and the plans, which answer
 * what a stopped run did not do.
 */
export function stopReason(signal: StopState | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'stopped';
}

/**
 * CANCELLED when the run was stopped before `what` started: a Stop that reached the run while its call was still
 * being read and decided (the chip stops a block before the companion has answered with its run id) is kept, and
 * nothing of the call is done.
 */
export function throwIfStopped(signal: StopState | undefined, what: string): void {
  if (signal?.aborted) throw new ToolError('CANCELLED', `${what} was stopped before it started (${stopReason(signal)}); nothing was done`);
}
