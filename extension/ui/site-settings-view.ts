import { readSiteSettings, siteSettingItems, type DraftPolicy } from '../settings';
import { h } from './dom';
import { t } from './i18n';

/** The per-site settings block shared by the popup and the options page. Writes go straight to storage. */
export async function siteSettingsView(siteKey: string, title: string): Promise<HTMLElement> {
  const items = siteSettingItems(siteKey);
  const current = await readSiteSettings(siteKey);

  const toggle = (name: 'enabled' | 'autoRun' | 'autoSubmit', label: string): HTMLElement => {
    const input = h('input', { type: 'checkbox', 'data-setting': `${siteKey}.${name}`, checked: current[name] });
    input.addEventListener('change', () => void items[name].setValue(input.checked));
    return h('label', {}, input, ` ${label}`);
  };
  const seconds = (name: 'approvalWaitMs' | 'feedbackIntervalMs', label: string, min: number, max: number): HTMLElement => {
    const input = h('input', {
      type: 'number',
      min: String(min),
      max: String(max),
      'data-setting': `${siteKey}.${name}`,
      value: String(Math.round(current[name] / 1000)),
    });
    input.addEventListener('change', () => {
      const value = Number(input.value);
      if (Number.isFinite(value) && value >= min && value <= max) void items[name].setValue(Math.round(value * 1000));
      else input.value = String(Math.round(current[name] / 1000));
    });
    return h('label', {}, `${label} `, input);
  };
  const draft = h(
    'select',
    { 'data-setting': `${siteKey}.draftPolicy` },
    h('option', { value: 'wait', selected: current.draftPolicy === 'wait' }, t('popup.draftWait')),
    h('option', { value: 'append', selected: current.draftPolicy === 'append' }, t('popup.draftAppend')),
  );
  draft.addEventListener('change', () => void items.draftPolicy.setValue(draft.value as DraftPolicy));

  return h(
    'fieldset',
    { class: 'site', 'data-site': siteKey },
    h('legend', {}, title),
    toggle('enabled', t('popup.enabled')),
    toggle('autoRun', t('popup.autoRun')),
    toggle('autoSubmit', t('popup.autoSubmit')),
    seconds('approvalWaitMs', t('popup.approvalWait'), 5, 3600),
    seconds('feedbackIntervalMs', t('popup.feedbackInterval'), 2, 600),
    h('label', {}, `${t('popup.draftPolicy')} `, draft),
  );
}
