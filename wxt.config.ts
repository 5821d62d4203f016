import { defineConfig } from 'wxt';

// The extension's sources live in extension/; shared/ is imported by relative path from both sides.
export default defineConfig({
  srcDir: 'extension',
  outDir: 'dist',
  imports: false,
  modules: ['@wxt-dev/webextension-polyfill', '@wxt-dev/i18n/module'],
  manifest: {
    name: 'chatbridge',
    description: '__MSG_app_summary__',
    default_locale: 'en',
    permissions: ['storage', 'alarms', 'scripting', 'activeTab'],
    host_permissions: ['http://127.0.0.1/*', 'http://localhost/*'],
    // Other chat sites are enabled one host at a time from the popup (generic adapter).
    optional_host_permissions: ['https://*/*', 'http://*/*'],
    browser_specific_settings: { gecko: { id: 'chatbridge@local' } },
  },
});
