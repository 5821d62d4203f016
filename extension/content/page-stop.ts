import type { Site } from '../sites/define-site';
import type { StopMark } from './page-context';

/**
 * The person stopping a reply: a trusted click (or press) on the site's stop control, or a trusted Escape while the
 * site says a reply is generated. Listened for in the capture phase on the document, so it is seen before the site
 * turns the control back into send. Our own clicks (the send button on auto-submit) are not trusted and never count.
 * Nothing here runs per streamed token: the site's stop control is looked up only when the person clicks.
 * A press of the send control is the person sending (`onSend`) while it is no stop control: on sites whose send
 * control is their Stop while a reply is written (DeepSeek, Gemini, Kimi), a Stop taken for a send undid a Stop pressed
 * before the reply's row was drawn (the person sent again since, page-scan.ts).
 */
export function watchStops(signal: AbortSignal, options: { site: Site; doc: Document; onStop(by: StopMark['by']): void; onSend(): void }): void {
  const { site, doc, onStop, onSend } = options;
  const onPress = (event: Event): void => {
    if (!event.isTrusted || !(event.target instanceof Node)) return;
    if (site.stopControl(doc)?.contains(event.target)) onStop('control');
    else if (site.sendButton(doc)?.contains(event.target)) onSend();
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
