import { beforeEach } from 'vitest';
import { installBrowserI18n, useLocale } from './i18n-fake';

// Extension code reads its words through the browser's i18n; every test starts in English.
installBrowserI18n();
beforeEach(() => useLocale('en'));
