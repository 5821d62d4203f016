/**
 * Why a run was stopped, in words, from its signal (run-manager.ts aborts it with an Error naming who stopped it:
 * the person, a page that stopped the block, shutdown). Shared by the approval wait and the plans, which answer
 * what a stopped run did not do.
 */
export function stopReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'stopped';
}
