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
          // a screen reader says the field is wrong and reads why with it, not only when the alert is announced
          aria-invalid={error !== ''}
          aria-describedby="error"
          onChange={(e) => {
            let url: string;
            try {
              url = normalizeCompanionUrl(e.currentTarget.value);
            } catch (err) {
              setError(err instanceof Error ? err.message : String(err));
              return;
            }
            setError('');
            // a save the browser refuses (its storage full, say) is said where the address is, not lost unseen
            props.saveUrl(url).catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
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
