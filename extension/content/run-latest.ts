import type { MessageRecord, TrackedBlock } from './page-context';

/**
 * The keyboard command "run the latest waiting block" (manifest `commands`, Alt+Shift+R by default): the background
 * sends this message to the active tab's content script, which runs the block a person would click Run on last.
 */

export const RUN_LATEST_MESSAGE = 'chatbridge-run-latest';

export interface RunLatestMessage {
  type: typeof RUN_LATEST_MESSAGE;
}

export type RunLatestReply = { ok: true; kind: string; key: string } | { ok: false; error: string };

export function isRunLatestMessage(value: unknown): value is RunLatestMessage {
  return !!value && typeof value === 'object' && (value as { type?: unknown }).type === RUN_LATEST_MESSAGE;
}

export interface Waiting {
  record: MessageRecord;
  tracked: TrackedBlock;
}

/**
 * The block lowest on the page that waits for Run: ready, complete, in a reply of the model, and never run (a block
 * that ran before offers Re-run, which asks first; the command does not run anything twice).
 */
export function latestWaitingBlock(records: Iterable<Pick<MessageRecord, 'el' | 'role' | 'blocks'>>): Waiting | null {
  let latest: { record: Pick<MessageRecord, 'el' | 'role' | 'blocks'>; tracked: TrackedBlock } | null = null;
  for (const record of records) {
    if (record.role !== 'assistant' || !record.el.isConnected) continue;
    for (const tracked of record.blocks) {
      if (tracked.state !== 'ready' || tracked.ranBefore || !tracked.block.complete) continue;
      if (!latest || comesAfter(record.el, tracked.index, latest.record.el, latest.tracked.index)) latest = { record, tracked };
    }
  }
  return latest as Waiting | null;
}

/** Document order between messages; block order inside one. */
function comesAfter(el: Element, index: number, than: Element, thanIndex: number): boolean {
  if (el === than) return index > thanIndex;
  return (than.compareDocumentPosition(el) & 4) !== 0; // Node.DOCUMENT_POSITION_FOLLOWING
}
