import { browser } from 'wxt/browser';
import { companionUrl, genericHosts, readSiteSettings, siteSettingItems } from '../settings';
import type { SiteSettings } from '../site-settings';
import { SITES, siteById } from '../sites';
import { disableSite, enableSite, siteAccess } from '../site-access';
import { safeLink } from './format';
import { uiLanguage } from './i18n';
import type { PopupDeps } from './popup';
import type { SiteEntry, SiteStore } from './site-cards';
import { browserPromptsDeps } from './prompts-browser';
import { promptsView } from './prompts-view';

/** The popup's and options page's browser side: sites and their settings in storage, the side panel, the active tab. */

export async function siteEntries(): Promise<SiteEntry[]> {
  return [...SITES.map((site) => ({ key: site.id, title: site.name })), ...(await genericHosts.getValue()).map((host) => ({ key: host, title: host }))];
}

/** The sites with every one's settings read up front, as the popup and the options page draw them. */
export async function siteStore(sites: SiteEntry[]): Promise<SiteStore> {
  const initial = Object.fromEntries(await Promise.all(sites.map(async (entry) => [entry.key, await readSiteSettings(entry.key)] as const)));
  const known = sites.filter((entry) => siteById(entry.key) !== null && initial[entry.key]?.enabled);
  const access = await Promise.all(known.map(async (entry) => ({ key: entry.key, ...(await siteAccess(entry.key)) })));
  return {
    sites,
    initial,
    missingAccess: access.filter((a) => !a.granted).map((a) => a.key),
    allowAccess: enableSite,
    readSite: readSiteSettings,
    writeSite: writeSiteSetting,
  };
}

export async function writeSiteSetting<K extends keyof SiteSettings>(key: string, name: K, value: SiteSettings[K]): Promise<void> {
  // Turning a known site on or off goes through site-access: an opt-in site asks for its permission in this click.
  if (name === 'enabled' && siteById(key)) {
    if (value === true) await enableSite(key);
    else await disableSite(key);
    return;
  }
  await (siteSettingItems(key)[name] as { setValue(v: SiteSettings[K]): Promise<void> }).setValue(value);
}

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
