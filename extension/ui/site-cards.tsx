import { useEffect, useState } from 'preact/hooks';
import type { SiteSettings } from '../site-settings';
import { t } from './i18n';
import { Switch } from './switch';

/** A card per site: its switches (enabled, auto-run, auto-submit) and, folded, the advanced settings. */

export interface SiteEntry {
  key: string;
  title: string;
}

export type SiteSettingName = keyof SiteSettings;

export interface SiteStore {
  sites: SiteEntry[];
  readSite(key: string): Promise<SiteSettings>;
  writeSite<K extends SiteSettingName>(key: string, name: K, value: SiteSettings[K]): Promise<void>;
}

function SiteCard(props: { entry: SiteEntry; settings: SiteSettings | null; onChange: <K extends SiteSettingName>(name: K, value: SiteSettings[K]) => void }) {
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
  const seconds = (name: 'approvalWaitMs' | 'feedbackIntervalMs', label: string, min: number, max: number) => (
    <label class="row">
      <span class="spacer">{label}</span>
      <input
        type="number"
        min={min}
        max={max}
        style="width:72px"
        data-setting={`${key}.${name}`}
        disabled={settings === null}
        value={settings ? Math.round(settings[name] / 1000) : ''}
        onChange={(e) => {
          const input = e.currentTarget;
          const value = Number(input.value);
          if (settings && Number.isFinite(value) && value >= min && value <= max) props.onChange(name, Math.round(value * 1000));
          else if (settings) input.value = String(Math.round(settings[name] / 1000));
        }}
      />
    </label>
  );
  return (
    <fieldset class="card stack site" data-site={key} style="margin:0">
      <legend class="sr-only">{entry.title}</legend>
      <div class="row">
        <strong aria-hidden="true">{entry.title}</strong>
        <span class="spacer" />
        {toggle('enabled', t('popup.enabled'))}
      </div>
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
    </fieldset>
  );
}

export function Sites({ deps }: { deps: SiteStore }) {
  const [settings, setSettings] = useState<Record<string, SiteSettings>>({});
  useEffect(() => {
    for (const entry of deps.sites) void deps.readSite(entry.key).then((s) => setSettings((all) => ({ ...all, [entry.key]: s })));
  }, [deps]);
  return (
    <div id="sites" class="stack">
      {deps.sites.map((entry) => (
        <SiteCard
          entry={entry}
          settings={settings[entry.key] ?? null}
          onChange={(name, value) => {
            setSettings((all) => ({ ...all, [entry.key]: { ...all[entry.key]!, [name]: value } }));
            // Read back after writing: enabling an opt-in site stays off when its permission is refused.
            void deps.writeSite(entry.key, name, value).then(() => deps.readSite(entry.key)).then((s) => setSettings((all) => ({ ...all, [entry.key]: s })));
          }}
        />
      ))}
    </div>
  );
}
