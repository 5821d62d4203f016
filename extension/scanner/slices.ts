/**
 * Work through a list in slices of at most `budgetMs` of main thread, giving the page its turn between them, so a
 * long conversation opened in the tab never freezes because of us (issue 13: no long task). An item is never split:
 * a slice ends after the item that used up its budget, so the budget is a target the caller keeps well inside the
 * limit it must hold (one message's scan is a fraction of a millisecond; the slowest, a reply of many blocks, a few).
 *
 * The first slice runs synchronously in the call (a short page is done before it returns, as it was before slicing);
 * the promise settles when the last item is done, or right after the slice in which `signal` was aborted.
 */

export interface SliceOptions {
  /** Main thread one slice may take before it yields (checked after each item). */
  budgetMs: number;
  /** Monotonic milliseconds (performance.now in the page). */
  clock: () => number;
  /** Gives the page its turn; resolves when the next slice may run. */
  yieldToPage: () => Promise<void>;
  signal: AbortSignal;
  /** Called once per slice with when it started and ended (the bench's named measures). */
  onSlice?: (start: number, end: number) => void;
}

/**
 * `each` is called once per item, in order; items the caller adds to the list while it runs (after the current
 * one) are done too. An item `each` throws on is reported by the caller's `each`, not here.
 */
export async function runInSlices<T>(items: readonly T[], each: (item: T, index: number) => void, options: SliceOptions): Promise<'done' | 'aborted'> {
  const { budgetMs, clock, yieldToPage, signal, onSlice } = options;
  if (!(budgetMs >= 0)) throw new Error(`runInSlices: budgetMs must be a number ≥ 0, got ${String(budgetMs)}`);
  let index = 0;
  if (items.length === 0) return 'done';
  for (;;) {
    if (signal.aborted) return 'aborted';
    const start = clock();
    // At least one item per slice, so a budget smaller than one item still makes progress.
    do {
      each(items[index] as T, index);
      index++;
    } while (index < items.length && clock() - start < budgetMs);
    onSlice?.(start, clock());
    if (index >= items.length) return 'done';
    await yieldToPage();
  }
}

/**
 * The page's turn, as soon as it has had it: `scheduler.yield()` where the browser has it (Chromium 129+; the
 * continuation keeps its place ahead of other tasks), else a MessageChannel task (no 4 ms timer clamp), else a
 * zero timeout.
 */
export function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}
