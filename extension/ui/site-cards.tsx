import { useEffect, useState } from 'preact/hooks';
import type { SiteSettings } from '../site-settings';
import { t } from './i18n';
import { Switch } from './switch';
import { trusted } from './trusted';

/**
 * A card per site: its switches (enabled, auto-run, auto-submit) and, folded, the advanced settings. A site that is
 * off is one row (its name and the Enabled switch); the sites that were off when the page opened are folded under
 * "More sites", and nothing moves while the person switches them (focus stays where it was).
 */

export interface SiteEntry {
  key: string;
  title: string;
}

export type SiteSettingName = keyof SiteSettings;

export interface SiteStore {
  sites: SiteEntry[];
  readSite(key: string): Promise<SiteSettings>;
  writeSite<K extends SiteSettingName>(key: string, name: K, value: SiteSettings[K]): Promise<void>;
  /** every site's settings read before the page is drawn (no switch changes under the person's eyes) */
  initial?: Record<string, SiteSettings>;
  /** sites switched on whose host permission is missing (they cannot run until allowed) */
  missingAccess?: string[];
  /** asks for a site's host permission again (from the person's click); resolves whether it was granted */
  allowAccess?(key: string): Promise<boolean>;
}

function SiteCard(props: {
  entry: SiteEntry;
  settings: SiteSettings | null;
  onChange: <K extends SiteSettingName>(name: K, value: SiteSettings[K]) => void;
  /** set when the site is on but may not run: the button asks for its permission again */
  onAllow?: (() => void) | undefined;
}) {
  const { entry, settings } = props;
  const key = entry.key;
  const toggle = (name: 'enabled' | 'autoRun' | 'autoSubmit', label: string) => (
    <Switch
      label={label}
      checked={settings?.[name] ?? false}
      disabled={settings === null}
      onChange={(on) => props.onChange(name, on)}
      attributes={{ 'data-setting': `${key}.${name}` }}
    />
  );
  // A number out of range is put back to the setting as it is, and said so beside the field: it was dropped unsaid.
  const [refused, setRefused] = useState<Partial<Record<'approvalWaitMs' | 'feedbackIntervalMs', string>>>({});
  const seconds = (name: 'approvalWaitMs' | 'feedbackIntervalMs', label: string, min: number, max: number) => {
    const errorId = `${key}-${name}-error`;
    return (
      <>
        <label class="row">
          <span class="spacer">{label}</span>
          <input
            type="number"
            min={min}
            max={max}
            style="width:72px"
            data-setting={`${key}.${name}`}
            disabled={settings === null}
            aria-invalid={refused[name] !== undefined}
            aria-describedby={refused[name] !== undefined ? errorId : undefined}
            value={settings ? Math.round(settings[name] / 1000) : ''}
            onChange={(e) => {
              if (!settings) return;
              const input = e.currentTarget;
              const value = Number(input.value);
              if (input.value.trim() !== '' && Number.isFinite(value) && value >= min && value <= max) {
                setRefused((now) => ({ ...now, [name]: undefined }));
                props.onChange(name, Math.round(value * 1000));
                return;
              }
              const kept = String(Math.round(settings[name] / 1000));
              // an emptied field, or what the browser could not read as a number (its value is then ''), is not quoted as ""
              const why = input.value.trim() === '' ? t('popup.secondsRangeUnread', [min, max, kept]) : t('popup.secondsRange', [input.value, min, max, kept]);
              setRefused((now) => ({ ...now, [name]: why }));
              input.value = kept;
            }}
          />
        </label>
        {refused[name] !== undefined && (
          <p class="error" id={errorId} role="alert" data-setting-error={`${key}.${name}`} style="margin:0">
            {refused[name]}
          </p>
        )}
      </>
    );
  };
  const on = settings?.enabled === true;
  return (
    <fieldset class="card stack site" data-site={key} data-on={String(on)} style="margin:0">
      <legend class="sr-only">{entry.title}</legend>
      <div class="row">
        <strong aria-hidden="true">{entry.title}</strong>
        <span class="spacer" />
        {toggle('enabled', t('popup.enabled'))}
      </div>
      {on && props.onAllow && (
        <div class="row warn" data-missing-access={key}>
          <span class="spacer">{t('popup.accessMissing')}</span>
          <button type="button" data-allow-site={key} onClick={trusted(props.onAllow)}>
            {t('popup.allowAccess')}
          </button>
        </div>
      )}
      {on && (
        <>
          <div class="row" style="gap:16px">
            {toggle('autoRun', t('popup.autoRun'))}
            {toggle('autoSubmit', t('popup.autoSubmit'))}
          </div>
          <details>
            <summary>{t('popup.advanced')}</summary>
            <div class="stack" style="padding-top:6px">
              {seconds('approvalWaitMs', t('popup.approvalWait'), 5, 3600)}
              {seconds('feedbackIntervalMs', t('popup.feedbackInterval'), 2, 600)}
              <label class="row">
                <span class="spacer">{t('popup.draftPolicy')}</span>
                <select
                  data-setting={`${key}.draftPolicy`}
                  disabled={settings === null}
                  value={settings?.draftPolicy ?? 'wait'}
                  onChange={(e) => props.onChange('draftPolicy', e.currentTarget.value === 'append' ? 'append' : 'wait')}
                >
                  <option value="wait">{t('popup.draftWait')}</option>
                  <option value="append">{t('popup.draftAppend')}</option>
                </select>
              </label>
            </div>
          </details>
        </>
      )}
    </fieldset>
  );
}

export function Sites({ deps }: { deps: SiteStore }) {
  const [settings, setSettings] = useState<Record<string, SiteSettings>>(deps.initial ?? {});
  useEffect(() => {
    if (deps.initial) return;
    for (const entry of deps.sites) void deps.readSite(entry.key).then((s) => setSettings((all) => ({ ...all, [entry.key]: s })));
  }, [deps]);
  // Which sites are folded is decided once, from the settings the page opened with.
  const [folded] = useState(() => new Set(deps.initial ? deps.sites.filter((e) => deps.initial![e.key]?.enabled === false).map((e) => e.key) : []));
  const [missing, setMissing] = useState(() => new Set(deps.missingAccess ?? []));
  const allow = (key: string): void => {
    void deps.allowAccess?.(key).then((granted) => {
      if (!granted) return;
      setMissing((now) => new Set([...now].filter((k) => k !== key)));
    });
  };
  const card = (entry: SiteEntry) => (
    <SiteCard
      onAllow={missing.has(entry.key) && deps.allowAccess ? () => allow(entry.key) : undefined}
      key={entry.key}
      entry={entry}
      settings={settings[entry.key] ?? null}
      onChange={(name, value) => {
        setSettings((all) => ({ ...all, [entry.key]: { ...all[entry.key]!, [name]: value } }));
        // Read back after writing: enabling an opt-in site stays off when its permission is refused.
        void deps.writeSite(entry.key, name, value).then(() => deps.readSite(entry.key)).then((s) => setSettings((all) => ({ ...all, [entry.key]: s })));
      }}
    />
  );
  const more = deps.sites.filter((entry) => folded.has(entry.key));
  return (
    <div id="sites" class="stack">
      {deps.sites.filter((entry) => !folded.has(entry.key)).map(card)}
      {more.length > 0 && (
        <details id="more-sites">
          <summary>{t('popup.moreSites', [more.length])}</summary>
          <div class="stack" style="padding-top:6px">
            {more.map(card)}
          </div>
        </details>
      )}
    </div>
  );
}
