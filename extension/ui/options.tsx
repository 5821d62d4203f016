import { useEffect, useState } from 'preact/hooks';
import { normalizeCompanionUrl } from '../companion/url';
import { t } from './i18n';
import { Sites, type SiteStore } from './site-cards';

/** The settings page: the companion's address and every site's card, as in the popup. */
export function OptionsView(props: { store: SiteStore; companionUrl: string; saveUrl: (url: string) => Promise<void> }) {
  const [error, setError] = useState('');
  // the page's title names its tab and window: in the person's language, as the page is
  useEffect(() => {
    document.title = t('popup.settingsTitle');
  }, []);
  return (
    <main class="stack" style="padding:24px;max-width:720px;gap:16px">
      <h1>{t('popup.title')}</h1>
      <label class="stack">
        <span>{t('popup.companionUrl')}</span>
        <input
          id="companion-url"
          value={props.companionUrl}
          onChange={(e) => {
            try {
              void props.saveUrl(normalizeCompanionUrl(e.currentTarget.value));
              setError('');
            } catch (err) {
              setError(err instanceof Error ? err.message : String(err));
            }
          }}
        />
      </label>
      <div id="error" class="error" role="alert">
        {error}
      </div>
      <h2>{t('popup.sites')}</h2>
      <Sites deps={props.store} />
    </main>
  );
}
