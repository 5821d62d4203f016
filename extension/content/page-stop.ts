import type { Site } from '../sites/define-site';
import type { StopMark } from './page-context';

/**
 * The person stopping a reply: a trusted click (or press) on the site's stop control, or a trusted Escape while the
 * site says a reply is generated. Listened for in the capture phase on the document, so it is seen before the site
 * turns the control back into send. Our own clicks (the send button on auto-submit) are not trusted and never count.
 * Nothing here runs per streamed token: the site's stop control is looked up only when the person clicks.
 */
export function watchStops(signal: AbortSignal, options: { site: Site; doc: Document; onStop(by: StopMark['by']): void }): void {
  const { site, doc, onStop } = options;
  const onPress = (event: Event): void => {
    if (!event.isTrusted || !(event.target instanceof Node)) return;
    const control = site.stopControl(doc);
    if (control?.contains(event.target)) onStop('control');
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
