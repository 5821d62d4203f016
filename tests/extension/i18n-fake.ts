import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateChromeMessages, parseMessagesText } from '@wxt-dev/i18n/build';
import type { MessageKey } from '../../extension/ui/i18n';

/**
 * The browser's i18n for tests: `chrome.i18n.getMessage` answered from the same `extension/locales/*.yml` the
 * build turns into `_locales/<lang>/messages.json`, through the same converter, so a test reads what a browser shows.
 */

const LOCALES_DIR = path.resolve(import.meta.dirname, '../../extension/locales');

export const LOCALES: Record<string, Record<string, { message: string }>> = Object.fromEntries(
  readdirSync(LOCALES_DIR)
    .filter((file) => file.endsWith('.yml'))
    .map((file) => [file.replace(/\.yml$/, ''), generateChromeMessages(parseMessagesText(readFileSync(path.join(LOCALES_DIR, file), 'utf8'), 'YAML'))]),
);

let locale = 'en';

/** The browser's UI language for the tests that follow (until the next call). */
export function useLocale(next: string): void {
  if (!LOCALES[next]) throw new Error(`no locale file for "${next}" in ${LOCALES_DIR}`);
  locale = next;
}

function getMessage(name: string, substitutions?: string | string[]): string {
  const entry = LOCALES[locale]?.[name] ?? LOCALES.en?.[name];
  if (!entry) return '';
  const subs = typeof substitutions === 'string' ? [substitutions] : (substitutions ?? []);
  return entry.message.replace(/\$(\$|[1-9])/g, (_, what: string) => (what === '$' ? '$' : (subs[Number(what) - 1] ?? '')));
}

/** The message for `key` in `in_` (e.g. zh_CN), whatever the current locale. */
export function messageIn(in_: string, key: MessageKey): string {
  const previous = locale;
  useLocale(in_);
  try {
    return getMessage(key.replaceAll('.', '_'));
  } finally {
    locale = previous;
  }
}

export function installBrowserI18n(): void {
  const g = globalThis as { chrome?: Record<string, unknown> };
  g.chrome ??= {};
  g.chrome.i18n = { getMessage, getUILanguage: () => locale.replace('_', '-') };
}
