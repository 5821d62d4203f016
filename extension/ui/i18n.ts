import { createI18n } from '@wxt-dev/i18n';
import { browser } from 'wxt/browser';
import type { GeneratedI18nStructure } from '#i18n';

/**
 * The extension's words, through the browser's own i18n (`_locales/<lang>/messages.json`, generated at build time
 * from `extension/locales/*.yml` by @wxt-dev/i18n). The browser picks the language from its own UI language;
 * nothing is bundled into the scripts, so the content script carries no dictionary.
 */

const i18n = createI18n<GeneratedI18nStructure>();

export type MessageKey = keyof GeneratedI18nStructure;

/** The message for `key` in the browser's language; `substitutions` fill `$1`…`$9`. */
export function t(key: MessageKey, substitutions?: Array<string | number>): string {
  return substitutions ? (i18n.t as (k: string, s: string[]) => string)(key, substitutions.map(String)) : (i18n.t as (k: string) => string)(key);
}

/**
 * A message whose words follow a count: its `1:` or `n:` form in the locale file, `$1` being the count. Only a count
 * goes in: the library picks the form by cutting the finished text at " | ", which a path put in could hold.
 */
export function tn(key: MessageKey, count: number): string {
  return (i18n.t as (k: string, n: number) => string)(key, count);
}

/** A class of action (read, write, delete, exec) as a card, a plan's action list and a grant name it. */
export function riskName(risk: 'read' | 'write' | 'delete' | 'exec'): string {
  return t(`risk.${risk}`);
}

export type Language = 'zh' | 'en';

export function languageFor(tag: string | undefined): Language {
  return tag?.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** The language the UI is shown in (the browser's UI language, as the messages are chosen by it). */
export function uiLanguage(): Language {
  return languageFor(browser.i18n.getUILanguage());
}
