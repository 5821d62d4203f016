import { defineConfig } from 'wxt';

// The extension's sources live in extension/; shared/ is imported by relative path from both sides.
export default defineConfig({
  srcDir: 'extension',
  outDir: 'dist',
  imports: false,
  modules: ['@wxt-dev/webextension-polyfill', '@wxt-dev/i18n/module'],
  manifest: ({ manifestVersion, mode }) => ({
    name: 'chatbridge',
    description: '__MSG_app_summary__',
    default_locale: 'en',
    // notifications: an approval waiting while its tab is not in front (companion/notices.ts)
    permissions: ['storage', 'alarms', 'scripting', 'activeTab', 'notifications'],
    // Alt+Shift+R runs the latest block waiting for Run in the active tab (companion/commands.ts); a person can change
    // it at chrome://extensions/shortcuts (Firefox: about:addons → Manage extension shortcuts).
    commands: {
      'run-latest-block': { suggested_key: { default: 'Alt+Shift+R' }, description: '__MSG_notify_runLatest__' },
    },
    // `--mode granted` (e2e only, its own output dir): every https host already granted — the state a person reaches by
    // allowing each opt-in site, whose permission prompt a test cannot click through.
    host_permissions: ['http://127.0.0.1/*', 'http://localhost/*', ...(mode === 'granted' ? ['https://*/*'] : [])],
    // Every chat site but ChatGPT and DeepSeek, and any other host, is enabled one at a time from the popup, which asks
    // for that host's permission then (site-access.ts). Manifest V2 (Firefox) has no optional_host_permissions: there
    // the same patterns are optional_permissions.
    ...(manifestVersion === 2
      ? { optional_permissions: ['https://*/*', 'http://*/*'] }
      : { optional_host_permissions: ['https://*/*', 'http://*/*'] }),
    // The toolbar button uses the same icon as the extension (public/icon/, rendered from extension/assets/icon.svg).
    action: { default_icon: { 16: 'icon/16.png', 32: 'icon/32.png', 48: 'icon/48.png', 128: 'icon/128.png' } },
    // Firefox asks add-ons to declare what they collect: nothing leaves the machine but for the local companion.
    browser_specific_settings: { gecko: { id: 'chatbridge@local', data_collection_permissions: { required: ['none'] } } },
  }),
});
