import { editorText, insertIntoEditor, isEditorEmpty } from '../inject/insert';
import { submitEditor } from '../inject/submit';
import { waitFor } from '../inject/wait';
import type { MessageRecord, PageContext, TrackedBlock } from './page-context';
import type { Show } from './page-show';

/**
 * Results into the chat box, one at a time and in order: never over the person's draft (the result waits, or is
 * appended when the site says so), sent when auto-submit is on — but never for a reply the person stopped or that
 * ended inside a block (its results are typed in for the person to send) — and never across a conversation switch.
 */

export interface Deliverer {
  deliver(record: MessageRecord, blocks: TrackedBlock[], text: string): Promise<void>;
}

const DRAFT_POLL_MS = 500;

export function createDeliverer(ctx: PageContext, show: Show): Deliverer {
  const { site, doc, deps, signal, t } = ctx;
  let deliveries: Promise<unknown> = Promise.resolve();
  /** What we put into the box and has not been sent yet (the box holding exactly that is not a draft). */
  let lastInserted: string | null = null;

  const deliver = (record: MessageRecord, blocks: TrackedBlock[], text: string): Promise<void> => {
    const startedIn = ctx.epoch;
    const next = deliveries.then(() => (startedIn === ctx.epoch ? deliverNow(record, blocks, text) : undefined));
    deliveries = next.catch((error: unknown) => ctx.reportOnce('putting a result into the chat failed', error));
    return next;
  };

  const deliverNow = async (record: MessageRecord, blocks: TrackedBlock[], text: string): Promise<void> => {
    const note = (message: string): void => show.note(record, blocks, message);
    const editor = await waitFor(() => site.editor(doc), { timeoutMs: 5_000, signal });
    if (!editor) {
      note('no chat box found on this page');
      return;
    }
    let append = false;
    // Never overwrite the person's draft: wait for the box to be empty (or ours), or append when told to.
    for (;;) {
      if (signal.aborted) return;
      const current = editorText(editor).trim();
      if (current === '' || (lastInserted !== null && current === lastInserted.trim())) break;
      if (deps.settings().draftPolicy === 'append') {
        append = true;
        break;
      }
      note(t('note.draft'));
      await new Promise((resolve) => setTimeout(resolve, DRAFT_POLL_MS));
    }
    const ours = !isEditorEmpty(editor) && !append;
    const inserted = await insertIntoEditor(editor, text);
    performance.mark('chatbridge:result-inserted');
    if (!inserted.ok) {
      show.setState(record, blocks, 'failed', inserted.reason);
      return;
    }
    lastInserted = ours && lastInserted ? `${lastInserted}\n\n${text}` : text;
    if (record.ending !== 'normal') {
      note(t(record.ending === 'stopped' ? 'note.insertedStopped' : 'note.insertedEnded'));
      return;
    }
    if (!deps.settings().autoSubmit || append) {
      note(t('note.inserted'));
      return;
    }
    // Wait for any reply still streaming before sending (the send control is the stop button meanwhile).
    await waitFor(() => site.isGenerating(doc) !== true, { timeoutMs: 120_000, signal });
    const sent = await submitEditor(site, doc, editor, { signal });
    if (sent.ok) {
      lastInserted = null;
      note(t('note.submitted'));
    } else note(sent.reason);
  };

  return { deliver };
}
