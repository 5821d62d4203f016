import { browser } from 'wxt/browser';
import { companionUrl, genericHosts } from '../settings';
import { SITES } from '../sites';
import { safeLink } from './format';
import { uiLanguage } from './i18n';
import type { PopupDeps } from './popup';
import { browserPromptsDeps } from './prompts-browser';
import { promptsView } from './prompts-view';
import { siteEntries, siteStore } from './site-store';

/** The popup's browser side: the side panel, the active tab, the prompt library, the sites (site-store.ts). */

type PanelApis = {
  sidePanel?: { open(options: { windowId: number }): Promise<void> };
  sidebarAction?: { open(): Promise<void> };
};

/**
 * Chrome's side panel or Firefox's sidebar. Both must be opened straight from the click (a user gesture), so the
 * window id is looked up before.
 */
async function sidePanelOpener(): Promise<(() => void) | undefined> {
  const apis = browser as unknown as PanelApis;
  if (apis.sidebarAction) return () => void apis.sidebarAction!.open().then(() => window.close());
  if (!apis.sidePanel) return undefined;
  const windowId = (await browser.windows.getCurrent()).id;
  if (windowId === undefined) return undefined;
  return () => void apis.sidePanel!.open({ windowId }).then(() => window.close());
}

/** "Enable on this site": the active tab's host when it is a web page chatbridge does not run on yet. */
async function enableHere(): Promise<PopupDeps['enableHere']> {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true }).catch(() => []);
  const link = safeLink(tab?.url);
  if (link === undefined) return undefined;
  const url = new URL(link);
  const host = url.host;
  const hosts = await genericHosts.getValue();
  if (SITES.some((s) => s.hosts.includes(host)) || hosts.includes(host)) return undefined;
  return {
    host,
    async enable() {
      const granted = await browser.permissions.request({ origins: [`${url.protocol}//${host}/*`] });
      if (granted) await genericHosts.setValue([...(await genericHosts.getValue()), host]);
      return granted;
    },
  };
}

export async function browserPopupDeps(): Promise<PopupDeps> {
  const [sites, url, openSidePanel, here] = await Promise.all([siteEntries(), companionUrl.getValue(), sidePanelOpener().catch(() => undefined), enableHere()]);
  return {
    ...(await siteStore(sites)),
    companionUrl: url,
    ...(openSidePanel ? { openSidePanel } : {}),
    ...(here ? { enableHere: here } : {}),
    prompts: promptsView(browserPromptsDeps(uiLanguage())).element,
  };
}
