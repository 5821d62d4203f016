import type { Site } from './define-site';
import { aistudio } from './aistudio';
import { chatgpt } from './chatgpt';
import { claude } from './claude';
import { copilot } from './copilot';
import { deepseek } from './deepseek';
import { doubao } from './doubao';
import { gemini } from './gemini';
import { generic } from './generic';
import { grok } from './grok';
import { huggingchat } from './huggingchat';
import { kimi } from './kimi';
import { mistral } from './mistral';
import { openrouter } from './openrouter';
import { perplexity } from './perplexity';
import { poe } from './poe';
import { qwen } from './qwen';
import { t3chat } from './t3chat';
import { yuanbao } from './yuanbao';
import { zai } from './zai';

/**
 * Every site with its own module, in the order the popup lists them. `generic` serves hosts the person enabled
 * themselves. Only the sites in STATIC_SITE_IDS are in the manifest's content script; the others are opt-in: enabling
 * one asks for its host permission and registers the content script for its pages then (site-access.ts).
 */
export const SITES: readonly Site[] = [
  chatgpt,
  deepseek,
  claude,
  gemini,
  aistudio,
  qwen,
  kimi,
  grok,
  perplexity,
  copilot,
  mistral,
  doubao,
  yuanbao,
  zai,
  poe,
  huggingchat,
  openrouter,
  t3chat,
];

/**
 * Sites on by default, whose hosts are in the manifest (no permission to ask for): the two first-class sites, and
 * since 2026-11 Claude and Gemini, whose editor families (TipTap, Quill) are proven in a real browser on replicas
 * and were seen working on real editors by an independent check. The other replica-proven sites (Kimi, Grok,
 * Perplexity, Z.ai) stay one click away, so installing asks for four chat hosts and no more.
 */
export const STATIC_SITE_IDS: readonly string[] = ['chatgpt', 'deepseek', 'claude', 'gemini'];

/** The manifest's content script matches: every static site's pages. */
export const STATIC_SITE_MATCHES: readonly string[] = SITES.filter((site) => STATIC_SITE_IDS.includes(site.id)).flatMap((site) => site.matches);

export { aistudio, chatgpt, claude, copilot, deepseek, doubao, gemini, generic, grok, huggingchat, kimi, mistral, openrouter, perplexity, poe, qwen, t3chat, yuanbao, zai };

export function siteForHost(host: string): Site | null {
  return SITES.find((site) => site.hosts.includes(host)) ?? null;
}

export function siteById(id: string): Site | null {
  return SITES.find((site) => site.id === id) ?? null;
}
