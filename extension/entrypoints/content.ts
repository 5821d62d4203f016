import { defineContentScript } from 'wxt/utils/define-content-script';
import { start } from '../content/start';
import { STATIC_SITE_MATCHES } from '../sites';

export default defineContentScript({
  // The sites on by default (STATIC_SITE_IDS in sites/index.ts); every other site, and any host the person enables,
  // is registered at run time once its permission is granted (site-access.ts), so installing asks for no more.
  matches: [...STATIC_SITE_MATCHES],
  runAt: 'document_idle',
  main(ctx) {
    void start(ctx.signal);
  },
});
