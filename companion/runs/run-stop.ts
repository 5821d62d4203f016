/**
 * A run's Stop. An AbortSignal is an EventTarget, and Node makes one for 10–30 µs of the main thread (a profile of
 * 5000 1 KB reads: as much as the read's own realpath), while most runs never listen for theirs (a read, a write):
 * `signal` is made the first time something asks for it — a program, a walk, an approval card — already aborted when
 * the run was stopped before. Whether and why it stopped is answered without one.
 */
export interface RunStop {
  readonly aborted: boolean;
  readonly reason: Error | undefined;
  readonly signal: AbortSignal;
  /** the first stop counts, as with an AbortController */
  abort(reason: Error): void;
}

export function createRunStop(): RunStop {
  let controller: AbortController | undefined;
  let stopped: Error | undefined;
  return {
    get aborted() {
      return stopped !== undefined;
    },
    get reason() {
      return stopped;
    },
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (stopped) controller.abort(stopped);
      }
      return controller.signal;
    },
    abort(reason) {
      if (stopped) return;
      stopped = reason;
      controller?.abort(reason);
    },
  };
}
