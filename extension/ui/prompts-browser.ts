import { browser } from 'wxt/browser';
import { ask } from '../messaging';
import { genericHosts, promptServersOff } from '../settings';
import { SITES } from '../sites';
import type { Language } from './i18n';
import { builtInTools, insertIntoActiveTab, type ActiveTabLink, type PromptsViewDeps } from './prompts-view';

/** The Prompts section's browser side: the tool list through the background, the active tab, the clipboard. */
export function browserPromptsDeps(language: Language): PromptsViewDeps {
  const link: ActiveTabLink = {
    activeTab: async () => (await browser.tabs.query({ active: true, currentWindow: true }))[0],
    isChatHost: async (host) => SITES.some((site) => site.hosts.includes(host)) || (await genericHosts.getValue()).includes(host),
    send: (tabId, message) => browser.tabs.sendMessage(tabId, message),
  };
  return {
    language,
    loadTools: async () => {
      try {
        const [tools, servers] = await Promise.all([ask('tools', {}), ask('mcp-servers', {}).catch(() => [])]);
        return { tools, live: true, servers };
      } catch {
        return { tools: builtInTools(), live: false };
      }
    },
    insert: (text) => insertIntoActiveTab(text, link),
    copy: (text) => navigator.clipboard.writeText(text),
    serversOff: { load: () => promptServersOff.getValue(), save: (servers) => promptServersOff.setValue(servers) },
  };
}
