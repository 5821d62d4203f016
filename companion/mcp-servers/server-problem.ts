import type { McpServerProblem } from '../../shared/api';

/** Why a server is not running, as facts; whether it was starting, and how many failures gave it up, are added later. */
export type ProblemFacts = Omit<McpServerProblem, 'starting' | 'failures'>;

/**
 * An error that says why a server could not start or went away, in English (its message: `lastError`, the log, a
 * call's answer) and as facts the extension words in the person's language (the health's `problem`).
 */
export class ServerProblemError extends Error {
  constructor(
    message: string,
    readonly facts: ProblemFacts,
  ) {
    super(message);
  }
}

/** The facts of an error: those it carries, or its English message alone. */
export function factsOf(error: unknown, message: string): ProblemFacts {
  return error instanceof ServerProblemError ? error.facts : { code: 'other', detail: message };
}
