import { canMove, type BlockState } from '../scanner/blocks';
import { createChip, type ChipAction } from '../ui/chip';
import type { MessageRecord, PageContext, TrackedBlock } from './page-context';
import { chipView } from './page-decide';

/**
 * The chips under the blocks: put after their block's element, drawn from the block's state (a chip redraws only
 * what changed), and the state machine every state change goes through.
 */

export interface Show {
  /** Puts the block's chip after its element and shows its current state. */
  placeChip(record: MessageRecord, tracked: TrackedBlock): void;
  render(record: MessageRecord, tracked: TrackedBlock): void;
  /** Moves blocks to `state` (moves the state machine refuses are reported and skipped) with an optional note. */
  setState(record: MessageRecord, blocks: TrackedBlock[], state: BlockState, note?: string): void;
  /** Sets the same note on blocks and redraws them. */
  note(record: MessageRecord, blocks: TrackedBlock[], message: string): void;
  /**
   * The background's connection to the companion changed: while it cannot be reached (disconnected, not paired: `why`,
   * as the connection badge says it; null once connected) every chip says its Run and approval buttons cannot act, and
   * they do nothing (ChipModel.away).
   */
  setAway(why: string | null): void;
}

export function createShow(
  ctx: PageContext,
  onAction: (record: MessageRecord, tracked: TrackedBlock, action: ChipAction) => void,
): Show {
  const { doc, deps } = ctx;
  let away: string | undefined;

  const placeChip = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (!tracked.anchor) return;
    if (!tracked.chip) {
      tracked.chip = createChip(doc, (action) => onAction(record, tracked, action));
      tracked.chip.host.setAttribute('data-chatbridge-theme', ctx.theme);
    }
    render(record, tracked);
    const host = tracked.chip.host;
    if (tracked.anchor.nextSibling !== host) tracked.anchor.after(host);
  };

  const render = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (!tracked.chip) return;
    const view = chipView(record, tracked, () => deps.settings().autoRun, ctx.t);
    tracked.chip.host.setAttribute('data-chatbridge-key', tracked.key);
    tracked.chip.host.setAttribute('data-chatbridge-origin', record.origin);
    tracked.chip.update({
      kind: tracked.block.kind,
      state: tracked.state,
      actions: view.actions,
      note: view.note,
      preview: tracked.preview,
      approval: tracked.approval,
      progress: tracked.progress,
      away,
    });
  };

  const setState = (record: MessageRecord, blocks: TrackedBlock[], state: BlockState, note?: string): void => {
    for (const tracked of blocks) {
      if (!canMove(tracked.state, state)) {
        ctx.reportOnce('block state machine', new Error(`a ${tracked.state} block cannot become ${state}`));
        continue;
      }
      tracked.state = state;
      tracked.note = note;
      render(record, tracked);
    }
  };

  const note = (record: MessageRecord, blocks: TrackedBlock[], message: string): void => {
    for (const b of blocks) {
      b.note = message;
      render(record, b);
    }
  };

  const setAway = (why: string | null): void => {
    if ((why ?? undefined) === away) return;
    away = why ?? undefined;
    for (const record of ctx.records.values()) for (const tracked of record.blocks) render(record, tracked);
  };

  return { placeChip, render, setState, note, setAway };
}
