import { clearEditor, editorText, holdsOnly, insertIntoEditor, isEditorEmpty, lineBreaksAsLf } from '../inject/insert';
import { pageWriting, submitEditor } from '../inject/submit';
import { waitFor } from '../inject/wait';
import { problemFor } from '../doctor/report';
import type { MessageRecord, PageContext, StopsMark, TrackedBlock } from './page-context';
import type { PageDoctor } from './page-doctor';
import { isUndecided, shownBlock } from './page-decide';
import type { Show } from './page-show';
import type { ReplyEnding } from '../scanner/blocks';
import type { Site } from '../sites/define-site';

/**
 * Results into the chat box, one at a time and in order: never over the person's draft (the result waits, or is
 * appended when the site says so), sent when auto-submit is on — but never for a reply the person stopped or that
 * ended inside a block (its results are typed in for the person to send) — and never across a conversation switch.
 * When the page fights back the person keeps working and nothing is lost or sent twice: a result the chat box will
 * not take (no box, or the box refused it) goes to the clipboard ("copied — paste it") and counts as delivered; a
 * submit that cannot be verified leaves the result in the box ("inserted — press Enter") and is not tried again.
 * Either is a problem the site doctor reports (chip and toolbar badge).
 */

export interface Deliverer {
  /**
   * `stopsBefore`: the person's Stops when the work that made this result began (default: now). The person stopping a
   * reply since then, in this tab or another of the conversation, means the result is typed in and not sent.
   * Resolves false when nothing was typed in because the page no longer shows the blocks the result answers (an edit
   * of the person's message or a regenerate drew another branch in their place, or the person went to another
   * conversation — also one the page has not caught up with yet): it is owed to them still. Answered delivered, the
   * run was settled and its result, never typed in anywhere, lost. 'offered': neither the chat box nor the clipboard
   * took the blocks' final result; it is kept on their chips (TrackedBlock.offered, Insert and Copy) and owed still.
   * `held`: why a result not to be sent is in the box (default: it came while another branch was shown).
   */
  deliver(record: MessageRecord, blocks: TrackedBlock[], text: string, stopsBefore?: StopsMark, options?: { send?: boolean; held?: 'note.inserted' | 'note.insertedBranch' }): Promise<Delivery>;
  /**
   * The person clicked Insert or Copy on a chip offering its block's result (TrackedBlock.offered): typed into the box,
   * never sent, or put on the clipboard. The blocks the result answers once it is in either (the ledger owes it no more
   * then); null when it is not.
   */
  takeOffered(record: MessageRecord, tracked: TrackedBlock, how: 'insert' | 'copy'): Promise<TrackedBlock[] | null>;
  /**
   * The person went to another conversation (or started a new chat) in this tab. A site with one chat box for all its
   * conversations keeps what the box holds: a result typed in and not sent yet would go out in that conversation. It is
   * taken out of the box and owed to its own conversation again (the ledger), typed in there once it is shown again.
   */
  leftConversation(): void;
}

/** true: in the chat (or on the clipboard); false: owed to blocks the page no longer shows; 'offered': kept on their chips. */
export type Delivery = boolean | 'offered';

/** A result this page typed into the box and has not seen sent: its blocks, the conversation it answers, as the ledger owes it. */
interface InBox {
  conv: string;
  blocks: TrackedBlock[];
  ending: ReplyEnding;
  startedAt: number;
}

const DRAFT_POLL_MS = 500;
/**
 * How long a result waits, once the page no longer writes, for its reply to be decided (how it ended): the site's
 * signal decides it at once, text standing still (STABLE_MS) where the page gives none.
 */
const DECIDED_WAIT_MS = 3_000;

export function createDeliverer(ctx: PageContext, show: Show, doctor?: PageDoctor): Deliverer {
  const { site, doc, deps, signal, t, now } = ctx;
  const waits = deps.deliverWaitMs ?? {};
  const copy = deps.copy ?? ((text: string) => copyToClipboard(doc, text));
  let deliveries: Promise<unknown> = Promise.resolve();
  /** What we put into the box and has not been sent yet (the box holding exactly that is not a draft). */
  let lastInserted: string | null = null;
  /**
   * That text was left unsent on purpose (its reply was stopped or ended early, or the person stopped a reply since
   * its run began): a later result joins it in the box and is not sent either — sending it would send that one too.
   */
  let heldBack = false;
  /** The blocks whose result this page typed into the box (their keys), sent or not. */
  const typedKeys = new Set<string>();
  /** The results the box holds that this page typed in and has not seen sent (lastInserted is their text). */
  let inBox: InBox[] = [];
  /** Results taken out of the box as the person left their conversation (leftConversation): owed to it still. */
  const takenBack = new WeakSet<InBox>();

  const deliver: Deliverer['deliver'] = (record, blocks, text, stopsBefore = ctx.stopsMark(), { send = true, held = 'note.insertedBranch' } = {}) => {
    const startedIn = ctx.epoch;
    const next = deliveries.then(() => (startedIn === ctx.epoch ? deliverNow(record, blocks, text, stopsBefore, startedIn, send, held) : false));
    deliveries = next.catch((error: unknown) => ctx.reportOnce('putting a result into the chat failed', error));
    return next;
  };

  const deliverNow = async (
    record: MessageRecord,
    blocks: TrackedBlock[],
    text: string,
    stopsBefore: StopsMark,
    epoch: number,
    send: boolean,
    held: 'note.inserted' | 'note.insertedBranch',
  ): Promise<Delivery> => {
    const note = (message: string): void => show.note(record, blocks, message);
    // The person went to another conversation while the result waited (for the chat box, a draft, a reply still
    // streaming): the box now belongs to that conversation, and the result never crosses into it.
    // (The address is read too: the page notices a switch on its next poll, which may come after the box emptied.)
    const conversation = ctx.conversation;
    const switched = (): boolean =>
      epoch !== ctx.epoch || (conversation !== null && site.conversationId(deps.location) !== conversation);
    // The person edited their message, or had the reply written again, while the result waited: the page shows another
    // branch of the conversation, whose model never wrote these blocks, and the box sends into that branch.
    const onPage = (): boolean => blocks.every((b) => shownBlock(ctx.records.values(), b.key) !== null);
    /**
     * The box will not take the result: it goes to the clipboard, and the chip and the badge say so. Where the clipboard
     * will not take it either (the window not focused), the blocks' final result is kept on their chips and owed still:
     * told delivered, it was in the chip alone, and gone with the page.
     */
    const handOver = async (why: string): Promise<Delivery> => {
      const copied = await copy(text).then(
        () => true,
        (error: unknown) => {
          ctx.reportOnce('copying a result to the clipboard failed', error);
          return false;
        },
      );
      doctor?.setProblem('insert-failed', problemFor('insert-failed', why));
      // (runtime feedback, or a reply's "pending" answer, is no block's final result: a later one follows it)
      if (!copied && blocks.every((b) => b.state === 'done' || b.state === 'failed')) {
        for (const b of blocks) b.offered = text;
        note(t('note.copyFailedOffered'));
        return 'offered';
      }
      note(t(copied ? 'note.copied' : 'note.copyFailed'));
      return true;
    };
    /**
     * The chat box on the page now. A site may draw its box anew while a result waits (a re-render, a route change):
     * the one taken out keeps what it held — a draft the person has long sent — and takes text no one sends.
     */
    const boxOnPage = (): Promise<HTMLElement | undefined> => waitFor(() => site.editor(doc), { timeoutMs: waits.editor ?? 5_000, signal });
    let editor = await boxOnPage();
    if (signal.aborted) return true;
    if (switched()) return false;
    if (!onPage()) return false;
    const noBox = (): Promise<Delivery> => {
      doctor?.setProblem('no-composer', problemFor('no-composer'));
      return handOver(t('doctor.problemNoComposer'));
    };
    if (!editor) return noBox();
    let append = false;
    /** The box holds this very result already: not typed in again. */
    let already = false;
    // A module whose only tell of a file attached to the next message is its send control with the box empty (DeepSeek's)
    // sees none once the result is in the box, nor while a reply is written (the control is the Stop then): a result to
    // be sent goes into the box once the reply ends, when the control can say whether a file came meanwhile. Typed in
    // earlier, it was sent with a file attached while it waited.
    const tellsOnlyWhenEmpty = site.sendOffWhenEmpty && !site.composerAttachment;
    const toBeSent = send && record.ending === 'normal' && deps.settings().autoSubmit && !heldBack;
    // How long a reply still written is waited for, all waits for it together (from the first, until it is seen ended).
    let writingSince: number | null = null;
    const writingLeft = (): number => Math.max(0, (writingSince ??= Date.now()) + (waits.writing ?? 120_000) - Date.now());
    // Never overwrite the person's draft: wait for the box to be empty (or ours), or append when told to. A file the
    // person attached to their next message is a draft too: a send of the result would take it along.
    for (;;) {
      if (!editor.isConnected) editor = await boxOnPage();
      if (signal.aborted) return true;
      if (switched()) return false;
      if (!onPage()) return false;
      if (!editor) return noBox();
      const box: HTMLElement = editor;
      const current = editorText(box).trim();
      // The box holds this very result: typed in before a reload (or before the person went to another conversation and
      // came back) and kept there by the site with the conversation's unsent text. Typed in again, it was in the box
      // twice — or, taken for the person's draft, typed in once they sent it, and sent a second time.
      if (current !== '' && holdsOnly(box, text) && (lastInserted === null || blocks.every((b) => typedKeys.has(b.key)))) {
        already = true;
        break;
      }
      if (current === '' && tellsOnlyWhenEmpty && toBeSent && pageWriting(site, doc) && writingLeft() > 0) {
        await waitFor(() => !pageWriting(site, doc) || !box.isConnected || editorText(box).trim() !== '', { timeoutMs: writingLeft(), signal });
        if (!pageWriting(site, doc)) writingSince = null;
        continue;
      }
      const besides = current === '' ? besidesText(site, doc) : null;
      if ((current === '' && besides !== 'attachment') || (lastInserted !== null && current === lastInserted.trim())) break;
      if (deps.settings().draftPolicy === 'append') {
        append = true;
        break;
      }
      note(t(besides === 'attachment' ? 'note.attachment' : 'note.draft'));
      await new Promise((resolve) => setTimeout(resolve, DRAFT_POLL_MS));
    }
    const typedInto: HTMLElement = editor;
    /** The box the result was typed into, or the one the site drew in its place since. */
    const boxNow = (): HTMLElement => (typedInto.isConnected ? typedInto : (site.editor(doc) ?? typedInto));
    // what the box holds of it (its line breaks as LF), to know it again as ours and not a draft
    const shown = lineBreaksAsLf(text);
    const entry: InBox = { conv: ctx.conversationKey(), blocks, ending: record.ending, startedAt: stopsBefore.at };
    /** Taken out of the box since, as the person went to another conversation: not delivered, owed to its own still. */
    const takenOut = (): boolean => takenBack.has(entry);
    if (already) {
      // In the box as it was left: what happens to it next is what would have, had this page typed it in.
      lastInserted = shown;
      inBox = [entry];
    } else {
      const ours = !isEditorEmpty(typedInto) && !append;
      const joinsHeldBack = ours && heldBack;
      const inserted = await insertIntoEditor(typedInto, text, { pasteMaxChars: site.pasteMaxChars });
      performance.mark('chatbridge:result-inserted');
      doctor?.inserted(inserted);
      if (!inserted.ok) return handOver(inserted.reason);
      for (const b of blocks) typedKeys.add(b.key);
      inBox = ours && lastInserted ? [...inBox, entry] : [entry];
      lastInserted = ours && lastInserted ? `${lastInserted}\n\n${shown}` : shown;
      heldBack = joinsHeldBack;
    }
    if (record.ending !== 'normal') {
      heldBack = true;
      note(t(record.ending === 'stopped' ? 'note.insertedStopped' : 'note.insertedEnded'));
      return true;
    }
    // Kept while another branch was shown, and typed in once the person came back to its own: looking at a branch is
    // not going on in it, and sending would.
    if (!send) {
      heldBack = true;
      note(t(held));
      return true;
    }
    if (!deps.settings().autoSubmit || append) {
      note(t('note.inserted'));
      return true;
    }
    if (heldBack) {
      note(t('note.insertedAfterUnsent'));
      return true;
    }
    // Wait for any reply still streaming before sending (the send control is the stop button meanwhile). A page that
    // never says it is writing (the generic adapter) is while it shows its stop control: a reply whose text stood still
    // long enough to be decided may be written on.
    const writing = (): boolean => pageWriting(site, doc);
    await waitFor(() => !writing(), { timeoutMs: writingLeft(), signal });
    if (signal.aborted) return true;
    if (takenOut()) return false;
    // Still written after all that time (a long reply, or a Stop the page never takes away): the result stays in the
    // box for the person to send. Pressed now, the send control may be the page's Stop (one button that is both).
    if (writing()) {
      note(t('note.insertedWriting'));
      return true;
    }
    // The reply the result answers may have ended just now and not be decided yet (a Run clicked while it was written):
    // how it ended decides whether the result is sent.
    await waitFor(() => !isUndecided(record) || !record.el.isConnected, { timeoutMs: DECIDED_WAIT_MS, signal });
    if (signal.aborted) return true;
    // Asked before the wait for the send control and again when it is ready, right before it is pressed: the wait can
    // be long (a page that draws its Stop button in the send button's place while a reply streams), and the person may
    // act meanwhile. Why the result stays in the box unsent, if it does.
    const hold: { note: 'note.inserted' | 'note.insertedStopped' | 'note.insertedEnded' | 'note.insertedAttachment' | null } = { note: null };
    const stillToSend = async (): Promise<boolean> => {
      // Another conversation, or another branch of this one, is shown now: its box is not this result's.
      if (switched() || !onPage()) hold.note = 'note.inserted';
      // The person stopped a reply since this result's run began (another message of the same turn, a newer reply),
      // here or in another tab of the conversation (told through the ledger, with the time): nothing is sent after a
      // Stop.
      else if (await ctx.stoppedSince(stopsBefore)) {
        heldBack = true;
        hold.note = 'note.insertedStopped';
      }
      // The reply ended abnormally after the result went into the box (it was still being written when a Run began): one
      // that ended inside a block (its page's send control back early, a network error), or that another tab's Stop
      // stopped, has its results typed in for the person to send, as any result of such a reply. So has one from before
      // the page that the person stopped here while the site still wrote it (page.ts markStopped).
      else if (record.ending !== 'normal' || record.stop?.by === 'control') {
        heldBack = true;
        hold.note = record.ending === 'cut' ? 'note.insertedEnded' : 'note.insertedStopped';
      }
      // Not known how the reply ended: nothing is sent on a guess.
      else if (isUndecided(record)) hold.note = 'note.inserted';
      // The person turned auto-submit off for the site while the result waited to be sent: it is theirs to send now.
      else if (!deps.settings().autoSubmit) hold.note = 'note.inserted';
      // The person wrote into the box while the result waited there (a question of their own under it, an edit of
      // it): what it holds now is theirs to send, never ours.
      else if (lastInserted === null || !holdsOnly(boxNow(), lastInserted)) hold.note = 'note.inserted';
      // The person attached a file (an image, a pasted-text card) to their next message while the result waited in the
      // box: a press sends it along, which they never approved. The result stays for them to send.
      else if (besidesText(site, doc) === 'attachment') hold.note = 'note.insertedAttachment';
      if (hold.note === null) ctx.lastSendAt = now();
      return hold.note === null;
    };
    const sent = (await stillToSend())
      ? await submitEditor(site, doc, boxNow(), {
          signal,
          stillToSend,
          ...(waits.sendButton !== undefined ? { buttonTimeoutMs: waits.sendButton } : {}),
          ...(waits.verify !== undefined ? { verifyTimeoutMs: waits.verify } : {}),
        })
      : null;
    if (hold.note !== null || !sent) {
      if (takenOut()) return false;
      note(t(hold.note ?? 'note.inserted'));
      return true;
    }
    if (signal.aborted) return true;
    doctor?.submitted(sent, text);
    if (sent.ok) {
      lastInserted = null;
      inBox = [];
      heldBack = false;
      note(t('note.submitted'));
    } else {
      // The result stays in the box for the person to send; it is not tried again (it might have gone after all).
      ctx.reportOnce('sending a result could not be verified', new Error(sent.reason));
      note(t('note.pressEnter'));
    }
    return true;
  };

  const leftConversation = (): void => {
    const box = site.editor(doc);
    // The box holds something else now: the site's own box of that conversation, or the person's words.
    if (lastInserted === null || inBox.length === 0 || !box || !holdsOnly(box, lastInserted)) return;
    if (!clearEditor(box)) return;
    const owed = inBox;
    inBox = [];
    lastInserted = null;
    heldBack = false;
    for (const entry of owed) {
      takenBack.add(entry);
      const byRun = new Map<string, string[]>();
      for (const b of entry.blocks) {
        typedKeys.delete(b.key);
        if (b.runId) byRun.set(b.runId, [...(byRun.get(b.runId) ?? []), b.key]);
      }
      for (const [runId, keys] of byRun) {
        void ctx.ledger.startedRun(entry.conv, keys, runId, entry.ending, entry.startedAt).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
      }
    }
  };

  const takeOffered: Deliverer['takeOffered'] = async (record, tracked, how) => {
    const text = tracked.offered;
    if (text === undefined) return null;
    const blocks = record.blocks.filter((b) => b.offered === text);
    let taken: boolean;
    if (how === 'insert') {
      // Asked for: typed in for the person to send, as any result they put in by hand.
      taken = (await deliver(record, blocks, text, ctx.stopsMark(), { send: false, held: 'note.inserted' })) === true;
    } else {
      taken = await copy(text).then(
        () => true,
        (error: unknown) => {
          ctx.reportOnce('copying a result to the clipboard failed', error);
          return false;
        },
      );
      show.note(record, blocks, t(taken ? 'note.copiedByClick' : 'note.copyFailedOffered'));
    }
    if (!taken) return null;
    for (const b of blocks) b.offered = undefined;
    for (const b of blocks) show.render(record, b);
    return blocks;
  };

  return { deliver, leftConversation, takeOffered };
}

/**
 * What the composer holds to send besides the chat box's text: 'attachment' when the module finds something the person
 * put there for their next message (a file, an image, a "pasted text" card: `composerAttachment`), whatever the box
 * holds, or, with the box empty, when a module that knows its send control is off with nothing to send finds it enabled
 * all the same (sendOffWhenEmpty) — a press would send that along. null when neither tells, or where the module
 * cannot tell (the generic adapter, whose guessed control may be enabled with nothing to send: there a result is sent
 * as before, an attached file along with it). The send control tells nothing while a reply is written: it is then
 * often the page's Stop.
 */
export function besidesText(site: Site, doc: Document): 'attachment' | null {
  if (site.composerAttachment?.(doc)) return 'attachment';
  if (!site.sendOffWhenEmpty || pageWriting(site, doc)) return null;
  const editor = site.editor(doc);
  if (!editor || editorText(editor).trim() !== '') return null;
  const button = site.sendButton(doc);
  return button && !site.isSendDisabled(button) ? 'attachment' : null;
}

/**
 * The async clipboard API, which needs the page to have focus; else a copy command on a text field taken out again
 * at once (it needs a recent click on the page).
 */
export async function copyToClipboard(doc: Document, text: string): Promise<void> {
  try {
    await doc.defaultView!.navigator.clipboard.writeText(text);
    return;
  } catch (error) {
    const field = doc.createElement('textarea');
    field.value = text;
    field.setAttribute('aria-hidden', 'true');
    field.style.cssText = 'position:fixed;left:-9999px;top:0;opacity:0';
    doc.documentElement.append(field);
    field.select();
    let copied = false;
    try {
      copied = (doc as Document & { execCommand(command: string): boolean }).execCommand('copy');
    } catch {
      copied = false;
    } finally {
      field.remove();
    }
    if (!copied) throw error instanceof Error ? error : new Error(String(error));
  }
}
