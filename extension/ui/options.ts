import { companionUrl, genericHosts, normalizeCompanionUrl } from '../settings';
import { SITES } from '../sites';
import { h } from './dom';
import { t } from './i18n';
import { siteSettingsView } from './site-settings-view';

/** The options page mirrors the popup's settings, plus the companion URL and the list of generic hosts. */
export async function renderOptions(root: HTMLElement): Promise<void> {
  const url = h('input', { id: 'companion-url', value: await companionUrl.getValue(), size: '32' });
  const error = h('div', { role: 'alert' });
  url.addEventListener('change', () => {
    try {
      void companionUrl.setValue(normalizeCompanionUrl(url.value));
      error.textContent = '';
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    }
  });
  root.replaceChildren(h('h1', {}, t('popup.title')), h('label', {}, `${t('popup.companionUrl')} `, url), error, h('h2', {}, t('popup.sites')));
  for (const site of SITES) root.append(await siteSettingsView(site.id, site.name));
  for (const host of await genericHosts.getValue()) root.append(await siteSettingsView(host, host));
}
