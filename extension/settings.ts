import { storage } from 'wxt/utils/storage';
import { DEFAULT_COMPANION_URL } from './companion/api-types';
export { normalizeCompanionUrl } from './companion/url';
import { defaultSiteSettings, sanitizeSiteSettings, type DraftPolicy, type SiteSettings } from './site-settings';

export { defaultSiteSettings, ENABLED_BY_DEFAULT, type DraftPolicy, type SiteSettings } from './site-settings';

/**
 * One storage item per setting (DESIGN §6.4). Per-site settings are keyed by the site id (`chatgpt`, `deepseek`) or,
 * for the generic adapter, by the host the person enabled. Everything lives in storage.local so it survives the
 * service worker and the browser being restarted.
 */

export function siteSettingItems(siteKey: string) {
  // A host the person enabled may carry a port (a chat UI served on localhost:3000).
  if (!/^[a-z0-9.-]{1,253}(:\d{1,5})?$/i.test(siteKey)) throw new Error(`site key "${siteKey}" must be a site id or a host name (with an optional :port)`);
  const defaults = defaultSiteSettings(siteKey);
  return {
    enabled: storage.defineItem<boolean>(`local:site.${siteKey}.enabled`, { fallback: defaults.enabled }),
    autoRun: storage.defineItem<boolean>(`local:site.${siteKey}.autoRun`, { fallback: defaults.autoRun }),
    autoSubmit: storage.defineItem<boolean>(`local:site.${siteKey}.autoSubmit`, { fallback: defaults.autoSubmit }),
    approvalWaitMs: storage.defineItem<number>(`local:site.${siteKey}.approvalWaitMs`, { fallback: defaults.approvalWaitMs }),
    feedbackIntervalMs: storage.defineItem<number>(`local:site.${siteKey}.feedbackIntervalMs`, {
      fallback: defaults.feedbackIntervalMs,
    }),
    draftPolicy: storage.defineItem<DraftPolicy>(`local:site.${siteKey}.draftPolicy`, { fallback: defaults.draftPolicy }),
  };
}

export type SiteSettingItems = ReturnType<typeof siteSettingItems>;

export async function readSiteSettings(siteKey: string): Promise<SiteSettings> {
  const items = siteSettingItems(siteKey);
  const defaults = defaultSiteSettings(siteKey);
  const [enabled, autoRun, autoSubmit, approvalWaitMs, feedbackIntervalMs, draftPolicy] = await Promise.all([
    items.enabled.getValue(),
    items.autoRun.getValue(),
    items.autoSubmit.getValue(),
    items.approvalWaitMs.getValue(),
    items.feedbackIntervalMs.getValue(),
    items.draftPolicy.getValue(),
  ]);
  return sanitizeSiteSettings({ enabled, autoRun, autoSubmit, approvalWaitMs, feedbackIntervalMs, draftPolicy }, defaults);
}

export const companionUrl = storage.defineItem<string>('local:companion.url', { fallback: DEFAULT_COMPANION_URL });
export const companionToken = storage.defineItem<string>('local:companion.token', { fallback: '' });
/** The person's MCP servers whose tools the prompt library leaves out (the popup's per-server switches). */
export const promptServersOff = storage.defineItem<string[]>('local:prompts.servers-off', { fallback: [] });
/** Hosts beyond the first-class sites the person enabled the generic adapter on. */
export const genericHosts = storage.defineItem<string[]>('local:generic.hosts', { fallback: [] });
