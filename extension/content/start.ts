import { browser, type Browser } from 'wxt/browser';
import { answerDoctor, isDoctorMessage } from '../doctor/answer';
import { PAGE_PORT, ask, isInsertPromptMessage, type PagePush } from '../messaging';
import { RunLedger } from '../scanner/blocks';
import { genericHosts, readSiteSettings, siteSettingItems, type SiteSettings } from '../settings';
import { STARTED_FLAG } from '../site-access';
import { generic, siteForHost } from '../sites';
import type { Site } from '../sites/define-site';
import { insertPromptIntoPage } from './insert-prompt';
import { startPage, type PageBridge, type PageController } from './page';
import { isRunLatestMessage, type RunLatestReply } from './run-latest';

/** The tab's sessionStorage, if the page lets it be read (page-context.ts newChatName). */
function tabStorage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

/**
 * The content script's starter: picks the site module for this host, keeps its settings fresh, connects to the
 * background, and runs the page while the site is enabled. Aborting `signal` (navigation away, extension reload)
 * stops everything.
 */
export async function start(outer: AbortSignal): Promise<void> {
  // Stopped with the content script's own context, or once this script is cut off from its extension (createBridge):
  // the script a reload of the extension leaves in an open tab is never told to stop otherwise.
  const alive = new AbortController();
  outer.addEventListener('abort', () => alive.abort(), { once: true });
  const signal = alive.signal;
  // Enabling a site injects into its open tabs unless this says the script runs there already (site-access.ts).
  (globalThis as Record<string, unknown>)[STARTED_FLAG] = true;
  signal.addEventListener('abort', () => delete (globalThis as Record<string, unknown>)[STARTED_FLAG], { once: true });
  const host = location.host;
  const site: Site | null = siteForHost(host) ?? ((await genericHosts.getValue()).includes(host) ? generic : null);
  if (!site) return;
  const siteKey = site === generic ? host : site.id;
  let settings: SiteSettings = await readSiteSettings(siteKey);
  let page: AbortController | null = null;
  let controller: PageController | null = null;

  // The extension reloaded or updated under this page (cutOff): the page says what it still owed and stops acting.
  const bridge = createBridge(signal, () => {
    controller?.cutOff();
    alive.abort();
  });
  const ledger = new RunLedger(browser.storage.local);

  const apply = (): void => {
    if (settings.enabled && !page) {
      page = new AbortController();
      signal.addEventListener('abort', () => page?.abort(), { once: true });
      controller = startPage(page.signal, { site, doc: document, location, settings: () => settings, bridge, ledger, tabStorage: tabStorage() });
    } else if (!settings.enabled && page) {
      page.abort();
      page = null;
      controller = null;
    }
  };

  // The popup's prompt library inserts here whether or not blocks run on this site: it only fills the chat box.
  // sendResponse + `true` rather than a returned promise: every browser version keeps the channel open for that.
  // The background's keyboard command runs the latest waiting block here, while blocks run on this site.
  const onPopupMessage = (message: unknown, sender: Browser.runtime.MessageSender, sendResponse: (reply: unknown) => void) => {
    if (sender.id !== browser.runtime.id) return undefined;
    // The site doctor (relayed by the background from the popup): answered whether or not the page runs here.
    if (isDoctorMessage(message)) {
      try {
        sendResponse(answerDoctor(message, site, document, controller?.doctor() ?? null, host));
      } catch (error) {
        sendResponse(null);
        console.warn('[chatbridge] the site doctor failed', error);
      }
      return undefined;
    }
    const fail = (error: unknown) => sendResponse({ ok: false, error: String(error) });
    if (isInsertPromptMessage(message)) {
      void insertPromptIntoPage(message, site, document).then(sendResponse, fail);
      return true;
    }
    if (isRunLatestMessage(message)) {
      const off: RunLatestReply = { ok: false, error: `chatbridge is switched off on ${site.name}` };
      void (controller ? controller.runLatest() : Promise.resolve(off)).then(sendResponse, fail);
      return true;
    }
    return undefined;
  };
  browser.runtime.onMessage.addListener(onPopupMessage);
  signal.addEventListener('abort', () => browser.runtime.onMessage.removeListener(onPopupMessage), { once: true });

  const items = siteSettingItems(siteKey);
  for (const item of Object.values(items)) {
    const unwatch = item.watch(() => {
      void readSiteSettings(siteKey).then((fresh) => {
        settings = fresh;
        apply();
      });
    });
    signal.addEventListener('abort', unwatch, { once: true });
  }
  apply();
}

/**
 * Requests through runtime messages; pushes through a port that is reopened when the service worker restarts. A port
 * closed because the extension itself went (reloaded, updated, switched off) is not reopened: `cutOff` is called once.
 */
function createBridge(signal: AbortSignal, cutOff: () => void): PageBridge {
  const listeners = new Set<(push: PagePush) => void>();
  let attempt = 0;
  const connect = (): void => {
    if (signal.aborted) return;
    let port: Browser.runtime.Port;
    try {
      port = browser.runtime.connect({ name: PAGE_PORT });
    } catch {
      cutOff();
      return;
    }
    port.onMessage.addListener((message: unknown) => {
      attempt = 0;
      for (const listener of listeners) listener(message as PagePush);
    });
    port.onDisconnect.addListener(() => {
      if (signal.aborted) return;
      if (!extensionReachable()) {
        cutOff();
        return;
      }
      for (const listener of listeners) listener({ type: 'connection', connection: { state: 'connecting', companionUrl: '' } });
      const delay = Math.min(30_000, 500 * 2 ** attempt++);
      setTimeout(connect, delay);
    });
    signal.addEventListener('abort', () => port.disconnect(), { once: true });
  };
  connect();
  return {
    ask,
    onPush(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Whether this content script still belongs to a running extension (Chrome takes `runtime.id` away once it does not). */
function extensionReachable(): boolean {
  try {
    return browser.runtime?.id !== undefined;
  } catch {
    return false;
  }
}
