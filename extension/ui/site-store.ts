import { genericHosts, readSiteSettings, siteSettingItems } from '../settings';
import type { SiteSettings } from '../site-settings';
import { SITES, siteById } from '../sites';
import { disableSite, enableSite, siteAccess } from '../site-access';
import type { SiteEntry, SiteStore } from './site-cards';

/** The sites and their settings in storage, as the popup and the options page show them. */

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
