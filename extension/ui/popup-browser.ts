import { browser } from 'wxt/browser';
import { ask } from '../messaging';
import { companionUrl, genericHosts, readSiteSettings, siteSettingItems } from '../settings';
import { siteAccess } from '../site-access';
import { SITES } from '../sites';
import { h } from 'preact';
import { DoctorView, type DoctorViewDeps } from './doctor-view';
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

type Tab = { id?: number; url?: string };

/**
 * The tab the popup is about: the active tab of its window; the popup opened as a page of its own
 * (`popup.html#tab=<id>`, as the end-to-end tests open it) is about the tab named there.
 */
export async function targetTab(hash = location.hash): Promise<Tab | undefined> {
  const named = /(?:^#|&)tab=(\d{1,10})(?:&|$)/.exec(hash)?.[1];
  if (named !== undefined) return browser.tabs.get(Number(named)).catch(() => undefined);
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true }).catch(() => []);
  return tab;
}

/**
 * "Enable on this site": the tab's host when it is a web page chatbridge does not run on yet. The click asks for the
 * host's permission first (it must come straight from the click); the wish is stored before the answer comes, as
 * Firefox closes the popup while its prompt is open, and the background registers the generic content script once
 * the permission arrives. The host's own switch is turned on with it: the page runs at once.
 */
async function enableHere(tab: Tab | undefined): Promise<PopupDeps['enableHere']> {
  const link = safeLink(tab?.url);
  if (link === undefined) return undefined;
  const url = new URL(link);
  const host = url.host;
  const hosts = await genericHosts.getValue();
  if (SITES.some((s) => s.hosts.includes(host)) || hosts.includes(host)) return undefined;
  return {
    host,
    async enable() {
      const request = browser.permissions.request({ origins: [`${url.protocol}//${host}/*`] });
      const before = await genericHosts.getValue();
      await siteSettingItems(host).enabled.setValue(true);
      if (!before.includes(host)) await genericHosts.setValue([...before, host]);
      const granted = await request.catch(() => false);
      if (!granted) {
        await siteSettingItems(host).enabled.setValue(false);
        await genericHosts.setValue((await genericHosts.getValue()).filter((h) => h !== host));
      }
      return granted;
    },
  };
}

/**
 * What the settings say of the tab's site: a site chatbridge knows, or a host enabled for the generic adapter, is on,
 * off, or on without the browser's access to it; undefined for any other. A tab chatbridge does not run in is then
 * told why: a page open from before chatbridge was installed or updated has none of its script until reloaded.
 */
export async function siteOfTab(tab: Tab | undefined): Promise<DoctorViewDeps['site']> {
  const link = safeLink(tab?.url);
  if (link === undefined) return undefined;
  const host = new URL(link).host;
  const known = SITES.find((s) => s.hosts.includes(host));
  if (known) {
    const access = await siteAccess(known.id);
    return !access.enabled ? 'off' : access.granted ? 'on' : 'no-access';
  }
  if (!(await genericHosts.getValue()).includes(host)) return undefined;
  if (!(await readSiteSettings(host)).enabled) return 'off';
  const granted = await browser.permissions.contains({ origins: [`${new URL(link).protocol}//${host}/*`] }).catch(() => false);
  return granted ? 'on' : 'no-access';
}

/** The doctor's view of the tab, through the background (which asks the tab's content script). */
async function doctorDeps(tab: Tab | undefined): Promise<DoctorViewDeps | undefined> {
  const tabId = tab?.id;
  if (tabId === undefined || safeLink(tab?.url) === undefined) return undefined;
  const site = await siteOfTab(tab).catch(() => undefined);
  return {
    load: (outline) => ask('doctor', { tabId, outline }),
    copy: (text) => navigator.clipboard.writeText(text),
    version: browser.runtime.getManifest().version,
    ...(site ? { site } : {}),
  };
}

export async function browserPopupDeps(): Promise<PopupDeps> {
  const tab = await targetTab();
  const [sites, url, openSidePanel, here, doctor] = await Promise.all([
    siteEntries(),
    companionUrl.getValue(),
    sidePanelOpener().catch(() => undefined),
    enableHere(tab),
    doctorDeps(tab),
  ]);
  return {
    ...(await siteStore(sites)),
    companionUrl: url,
    ...(openSidePanel ? { openSidePanel } : {}),
    ...(here ? { enableHere: here } : {}),
    ...(doctor ? { doctor: h(DoctorView, { deps: doctor }) } : {}),
    prompts: promptsView(browserPromptsDeps(uiLanguage())).element,
  };
}
