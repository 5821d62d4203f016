import { browser } from 'wxt/browser';
import { genericHosts, siteSettingItems } from './settings';
import { SITES, STATIC_SITE_IDS, siteById } from './sites';
import type { Site } from './sites/define-site';

/**
 * Which pages the content script runs on. ChatGPT and DeepSeek are in the manifest (on by default, no prompt). Every
 * other site is opt-in: enabling it asks for its host permission right then (in the click) and registers the content
 * script for its pages at run time, so installing chatbridge asks for no access to sites the person never uses.
 * The background keeps the registrations in line with the settings and the granted permissions
 * (`startSiteScripts`); the popup calls `enableSite` / `disableSite`.
 */

const CONTENT_SCRIPT = 'content-scripts/content.js';
const SCRIPT_PREFIX = 'chatbridge-site-';
const GENERIC_SCRIPT_ID = 'chatbridge-generic';
/** Set by the content script in its (isolated) world once it started; injection into open tabs checks it first. */
export const STARTED_FLAG = 'chatbridgeContentStarted';

export function isOptInSite(site: Site): boolean {
  return !STATIC_SITE_IDS.includes(site.id);
}

/** The host permissions a site needs: every page of its hosts (permissions cannot be narrower than a host). */
export function siteOrigins(site: Site): string[] {
  return site.hosts.map((host) => `https://${host}/*`);
}

function requireSite(siteId: string): Site {
  const site = siteById(siteId);
  if (!site) throw new Error(`"${siteId}" is not a site chatbridge knows (one of ${SITES.map((s) => s.id).join(', ')})`);
  return site;
}

/**
 * Turns a site on. For an opt-in site this asks for its host permission, so call it straight from the person's click
 * (before any other await). Resolves to whether the site is on now. The wish is stored before the answer comes:
 * Firefox closes the popup when its permission prompt opens, and the background finishes the registration when the
 * permission arrives (permissions.onAdded).
 */
export async function enableSite(siteId: string): Promise<boolean> {
  const site = requireSite(siteId);
  const enabled = siteSettingItems(site.id).enabled;
  if (!isOptInSite(site)) {
    await enabled.setValue(true);
    return true;
  }
  const request = browser.permissions.request({ origins: siteOrigins(site) });
  await enabled.setValue(true);
  const granted = await request.catch(() => false);
  if (!granted) await enabled.setValue(false);
  return granted;
}

/** Turns a site off; an opt-in site also gives its host permission back (the background unregisters its script). */
export async function disableSite(siteId: string): Promise<void> {
  const site = requireSite(siteId);
  await siteSettingItems(site.id).enabled.setValue(false);
  if (isOptInSite(site)) await browser.permissions.remove({ origins: siteOrigins(site) }).catch(() => false);
}

export interface SiteAccess {
  enabled: boolean;
  /** false for an opt-in site that is enabled but whose host permission is missing (it cannot run until allowed). */
  granted: boolean;
  optIn: boolean;
}

export async function siteAccess(siteId: string): Promise<SiteAccess> {
  const site = requireSite(siteId);
  const enabled = await siteSettingItems(site.id).enabled.getValue();
  const optIn = isOptInSite(site);
  const granted = !optIn || (await hasOrigins(siteOrigins(site)));
  return { enabled, granted, optIn };
}

async function hasOrigins(origins: string[]): Promise<boolean> {
  return browser.permissions.contains({ origins }).catch(() => false);
}

// ------------------------------------------------------------------------------------------------ background side

export interface ScriptRegistration {
  id: string;
  matches: string[];
}

/**
 * The content script registrations that should exist, from plain facts (pure, so it is tested without a browser):
 * an opt-in site that is enabled and whose permission is granted, and the generic hosts whose permission is granted.
 */
export function wantedRegistrations(
  sites: ReadonlyArray<Pick<Site, 'id' | 'matches'>>,
  enabled: ReadonlySet<string>,
  grantedSites: ReadonlySet<string>,
  genericOrigins: string[],
): ScriptRegistration[] {
  const wanted: ScriptRegistration[] = sites
    .filter((site) => enabled.has(site.id) && grantedSites.has(site.id))
    .map((site) => ({ id: `${SCRIPT_PREFIX}${site.id}`, matches: [...site.matches] }));
  if (genericOrigins.length > 0) wanted.push({ id: GENERIC_SCRIPT_ID, matches: [...genericOrigins] });
  return wanted;
}

/** What to unregister and register to get from the current registrations to the wanted ones. */
export function registrationChanges(
  current: ScriptRegistration[],
  wanted: ScriptRegistration[],
): { unregister: string[]; register: ScriptRegistration[] } {
  const same = (a: ScriptRegistration, b: ScriptRegistration): boolean => a.matches.join('\n') === b.matches.join('\n');
  const ours = current.filter((c) => c.id === GENERIC_SCRIPT_ID || c.id.startsWith(SCRIPT_PREFIX));
  const unregister = ours.filter((c) => !wanted.some((w) => w.id === c.id && same(w, c))).map((c) => c.id);
  const register = wanted.filter((w) => !ours.some((c) => c.id === w.id && same(w, c)));
  return { unregister, register };
}

type Scripting = NonNullable<typeof browser.scripting>;

async function syncSiteScripts(): Promise<void> {
  const scripting = browser.scripting as Scripting | undefined;
  if (!scripting?.registerContentScripts) return;
  const optIn = SITES.filter(isOptInSite);
  const enabled = new Set<string>();
  const granted = new Set<string>();
  for (const site of optIn) {
    if (await siteSettingItems(site.id).enabled.getValue()) enabled.add(site.id);
    if (await hasOrigins(siteOrigins(site))) granted.add(site.id);
  }
  const genericOrigins: string[] = [];
  for (const host of await genericHosts.getValue()) {
    for (const scheme of ['https', 'http']) {
      const origin = `${scheme}://${host}/*`;
      if (await hasOrigins([origin])) genericOrigins.push(origin);
    }
  }
  const current = (await scripting.getRegisteredContentScripts().catch(() => [])).map((s) => ({ id: s.id, matches: s.matches ?? [] }));
  const { unregister, register } = registrationChanges(current, wantedRegistrations(optIn, enabled, granted, genericOrigins));
  if (unregister.length > 0) await scripting.unregisterContentScripts({ ids: unregister }).catch(() => undefined);
  if (register.length === 0) return;
  try {
    await scripting.registerContentScripts(
      register.map((r) => ({ id: r.id, matches: r.matches, js: [CONTENT_SCRIPT], runAt: 'document_idle' as const, persistAcrossSessions: true })),
    );
  } catch (error) {
    console.warn('[chatbridge] registering content scripts failed', error);
    return;
  }
  // Tabs already open on a newly enabled site get the script now, not only after a reload.
  for (const r of register) await injectIntoOpenTabs(scripting, r.matches);
}

async function injectIntoOpenTabs(scripting: Scripting, matches: string[]): Promise<void> {
  const tabs = await browser.tabs.query({ url: matches }).catch(() => []);
  for (const tab of tabs) {
    if (tab.id === undefined) continue;
    const target = { tabId: tab.id };
    try {
      const [probe] = await scripting.executeScript({ target, func: (flag: string) => (globalThis as Record<string, unknown>)[flag] === true, args: [STARTED_FLAG] });
      if (probe?.result !== true) await scripting.executeScript({ target, files: ['/content-scripts/content.js'] });
    } catch {
      // a tab the browser does not let extensions script (a discarded tab, an error page): it gets the script on reload
    }
  }
}

/** Background: keep the registrations in line with the sites' settings, the generic hosts and the granted permissions. */
export function startSiteScripts(): void {
  let running: Promise<void> = Promise.resolve();
  // Changes come in bursts (setting + permission); one sync at a time, each seeing the latest state.
  const sync = (): void => {
    running = running.then(syncSiteScripts).catch((error: unknown) => console.warn('[chatbridge] syncing site scripts failed', error));
  };
  for (const site of SITES.filter(isOptInSite)) siteSettingItems(site.id).enabled.watch(sync);
  genericHosts.watch(sync);
  browser.permissions.onAdded.addListener(sync);
  browser.permissions.onRemoved.addListener(sync);
  sync();
}
