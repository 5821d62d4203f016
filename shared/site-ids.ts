/**
 * Every site a call can come from: one per module in extension/sites (a host the person enabled themselves counts
 * as `generic`), and `mcp` for the companion's own `/mcp`. A config's `sites` overrides are keyed by these ids, so
 * one the companion would never be asked about (`deepsek`) is refused at start instead of never applying.
 */
export const SITE_IDS = [
  'chatgpt',
  'deepseek',
  'claude',
  'gemini',
  'aistudio',
  'qwen',
  'kimi',
  'grok',
  'perplexity',
  'copilot',
  'mistral',
  'doubao',
  'yuanbao',
  'zai',
  'poe',
  'huggingchat',
  'openrouter',
  't3chat',
  'generic',
  'mcp',
] as const;

export type SiteId = (typeof SITE_IDS)[number];

/** the site of every call made through the companion's own `/mcp` */
export const MCP_SITE: SiteId = 'mcp';
