import { isEditorEmpty } from '../inject/insert';
import type { Site } from '../sites/define-site';
import type { StopMark } from './page-context';

/** The longest a press's click is looked for after it (a person holds a button down for a fraction of a second). */
const PRESS_CLICK_MS = 1_000;

/**
 * The person stopping a reply: a trusted click (or press) on the site's stop control, or a trusted Escape while the
 * site says a reply is generated. Listened for in the capture phase on the document, so it is seen before the site
 * turns the control back into send. Our own clicks (the send button on auto-submit) are not trusted and never count.
 * Nothing here runs per streamed token: the site's stop control is looked up only when the person clicks.
 * A press of the send control is the person sending (`onSend`) while it is no stop control and has something to send:
 * on sites whose send control is their Stop while a reply is written (DeepSeek, Gemini, Kimi), a Stop taken for a send
 * undid a Stop pressed before the reply's row was drawn (the person sent again since, page-scan.ts). So did the click
 * of a press taken for the Stop once the site had swapped the control back by then, and a second press of the control
 * (a double click on Stop), which lands on a send control with nothing to send: disabled, or an empty chat box.
 */
export function watchStops(signal: AbortSignal, options: { site: Site; doc: Document; onStop(by: StopMark['by']): void; onSend(): void }): void {
  const { site, doc, onStop, onSend } = options;
  /**
   * When the last press (pointerdown) taken for the Stop was: the click that ends it is that Stop, whatever the control
   * shows by then. Only the one click, and only a click that follows soon (not one from the keyboard long after).
   */
  let stopPressedAt: number | null = null;
  const sends = (button: HTMLElement): boolean => {
    if (site.isSendDisabled(button)) return false;
    // An empty chat box sends nothing, unless the composer holds a file (where the module can tell; on a site whose
    // send control is off with nothing to send, enabled it is such a file).
    const editor = site.editor(doc);
    return !editor || !isEditorEmpty(editor) || site.sendOffWhenEmpty || (site.composerAttachment?.(doc) ?? null) !== null;
  };
  const onPress = (event: Event): void => {
    if (!event.isTrusted || !(event.target instanceof Node)) return;
    const press = event.type === 'pointerdown';
    const clickOfStop = !press && stopPressedAt !== null && event.timeStamp - stopPressedAt <= PRESS_CLICK_MS;
    const stop = clickOfStop || site.stopControl(doc)?.contains(event.target) === true;
    stopPressedAt = press && stop ? event.timeStamp : null;
    if (stop) return onStop('control');
    const send = site.sendButton(doc);
    if (send?.contains(event.target) && sends(send)) onSend();
  };
  // pointerdown as well as click: a site may act on the press and have swapped the control by the click.
  doc.addEventListener('pointerdown', onPress, { capture: true, signal });
  doc.addEventListener('click', onPress, { capture: true, signal });
  doc.addEventListener(
    'keydown',
    (event) => {
      if (!event.isTrusted || event.key !== 'Escape' || event.isComposing) return;
      if (site.isGenerating(doc) === true) onStop('escape');
    },
    { capture: true, signal },
  );
}
