import type { Site } from '../sites/define-site';
import { t } from '../ui/i18n';
import { isEditorEmpty } from './insert';
import { waitFor } from './wait';

export type SubmitResult = { ok: true; method: 'click' | 'enter' } | { ok: false; reason: string };

const WITHHELD: SubmitResult = { ok: false, reason: 'withheld' };

export interface SubmitOptions {
  /** How long to wait for the send button to exist and be enabled. */
  buttonTimeoutMs?: number;
  /** How long to wait for proof that the message went. */
  verifyTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Asked once the send control is ready, right before it is pressed (and before the Enter tried after it): whether
   * the text is still to be sent. The wait for the control can be long — a page may draw its Stop button in the send
   * button's place while a reply streams — and the person may press that Stop or write into the box meanwhile.
   * False leaves the text in the box, unsent (reason 'withheld': the caller knows why).
   */
  stillToSend?: () => Promise<boolean>;
}

/**
 * Whether the page is writing a reply: the site says so, or, where it says nothing (the generic adapter, a site whose
 * only writing signal is its stop control), it shows its stop control. The send control is not pressed meanwhile: on a
 * page whose one button is Stop while a reply is written, the press stops that reply.
 */
export function pageWriting(site: Site, doc: Document): boolean {
  const generating = site.isGenerating(doc);
  return generating === true || (generating === undefined && site.stopControl(doc) !== null);
}

/**
 * Sends what is in the editor: waits until the send button exists and is enabled (ChatGPT only shows it once the
 * composer has text; DeepSeek enables it once React's state holds the text), clicks it ONCE, and checks that a new
 * user message appeared or the box emptied. If not, presses Enter once; else reports failure.
 */
export async function submitEditor(site: Site, doc: Document, editor: HTMLElement, options: SubmitOptions = {}): Promise<SubmitResult> {
  const countUserMessages = (): number => site.messages(doc).filter((m) => m.role === 'user').length;
  const usersBefore = countUserMessages();
  // A reply starting counts too: a click that sent must never be followed by an Enter that sends again.
  const sent = (): boolean => countUserMessages() > usersBefore || isEditorEmpty(editor) || pageWriting(site, doc);
  const verify = { timeoutMs: options.verifyTimeoutMs ?? 3_000, ...(options.signal ? { signal: options.signal } : {}) };

  const ready = (): HTMLElement | undefined => {
    const b = site.sendButton(doc);
    return b && !site.isSendDisabled(b) && !pageWriting(site, doc) ? b : undefined;
  };
  const stillToSend = options.stillToSend ?? (async () => true);
  const deadline = Date.now() + (options.buttonTimeoutMs ?? 5_000);
  let button: HTMLElement | undefined;
  for (;;) {
    button = await waitFor(ready, { timeoutMs: Math.max(0, deadline - Date.now()), ...(options.signal ? { signal: options.signal } : {}) });
    if (!button) break;
    if (!(await stillToSend())) return WITHHELD;
    // The page as it is once that was answered: a reply that began meanwhile makes a control that is also the site's
    // Stop (DeepSeek's) stop it rather than send.
    if (ready() === button) break;
    if (Date.now() >= deadline) {
      button = undefined;
      break;
    }
  }
  if (button) {
    button.click();
    if (await waitFor(sent, verify)) return { ok: true, method: 'click' };
  }
  if (options.signal?.aborted) return { ok: false, reason: 'stopped' };

  if (!sent()) {
    if (!(await stillToSend())) return WITHHELD;
  }
  if (!sent()) {
    editor.focus({ preventScroll: true });
    const view = doc.defaultView;
    const init: KeyboardEventInit = { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true } as KeyboardEventInit;
    editor.dispatchEvent(new (view?.KeyboardEvent ?? KeyboardEvent)('keydown', init));
    editor.dispatchEvent(new (view?.KeyboardEvent ?? KeyboardEvent)('keypress', init));
    editor.dispatchEvent(new (view?.KeyboardEvent ?? KeyboardEvent)('keyup', init));
    if (await waitFor(sent, verify)) return { ok: true, method: 'enter' };
  }
  return {
    ok: false,
    reason: button ? t('reason.submitNotSent') : t('reason.submitNoButton'),
  };
}
