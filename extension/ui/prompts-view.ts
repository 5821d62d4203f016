import { z } from 'zod';
import { buildPrompt, PROMPT_LANGUAGES, type PromptLanguage, type ToolInfo } from '../../shared/prompts';
import { BLOCK_KINDS, type BlockKind } from '../../shared/protocols/types';
import { TOOL_CONTRACTS } from '../../shared/tools';
import type { McpServerItem } from '../companion/api-types';
import { INSERT_PROMPT_MESSAGE, type InsertPromptMessage, type InsertPromptReply } from '../content/insert-prompt';
import { h, onTrustedClick } from './dom';
import { safeLink } from './format';
import { t, type Language, type MessageKey } from './i18n';

/**
 * The popup's prompt library (DESIGN §6.4): pick a protocol and a language, preview the instructions generated from
 * the companion's live tool list, then put them into the active chat tab's box (through its content script) or
 * copy them. The person's MCP servers' tools are listed after chatbridge's own, each server with a switch so the
 * prompt stays short. Stable ids for tests: `#prompts`, `#prompt-protocol`, `#prompt-lang`, `#prompt-root`,
 * `#prompt-tools`, `#prompt-servers` (`[data-prompt-server=<name>]` switches), `#prompt-preview`, `#prompt-insert`, `#prompt-copy`, `#prompt-status` (`data-state` ok|error).
 */

export interface PromptTools {
  tools: ToolInfo[];
  /** false: the companion did not answer and the extension's own catalogue stands in */
  live: boolean;
  /** the person's MCP servers and how they are doing (GET /v1/mcp-servers); a failing one has no tools to list */
  servers?: Array<Pick<McpServerItem, 'name' | 'state' | 'lastError'>>;
}

export interface PromptsViewDeps {
  language: Language;
  loadTools(): Promise<PromptTools>;
  insert(text: string): Promise<InsertPromptReply>;
  copy(text: string): Promise<void>;
  /** the person's MCP servers left out of the prompt (kept in storage by the browser side) */
  serversOff?: { load(): Promise<string[]>; save(servers: string[]): Promise<void> };
}

export interface PromptsView {
  element: HTMLElement;
  /** settles once the tool list is loaded and the first preview is shown */
  ready: Promise<void>;
  insert(): Promise<void>;
  copy(): Promise<void>;
}

const PROTOCOL_LABELS: Record<BlockKind, string> = {
  'mcp-request': 'mcp-request (JSON-RPC)',
  'flycode-call': 'flycode-call',
  autocoder: 'auto_coder (#####--)',
  axon: 'Axon (~~~~~act)',
  'function-calls': '<function_calls> (XML)',
};

const LANGUAGE_LABELS: Record<PromptLanguage, string> = { zh: '中文', en: 'English' };

export function promptsView(deps: PromptsViewDeps): PromptsView {
  const protocol = h('select', { id: 'prompt-protocol' }, ...BLOCK_KINDS.map((kind) => h('option', { value: kind }, PROTOCOL_LABELS[kind])));
  const lang = h(
    'select',
    { id: 'prompt-lang' },
    ...PROMPT_LANGUAGES.map((code) => h('option', { value: code, selected: code === deps.language }, LANGUAGE_LABELS[code])),
  );
  lang.value = deps.language;
  const root = h('input', { id: 'prompt-root', placeholder: t('prompts.root'), size: '30', autocomplete: 'off' });
  const toolsNote = h('div', { id: 'prompt-tools' }, t('prompts.loading'));
  const preview = h('textarea', { id: 'prompt-preview', readonly: true, rows: '10', cols: '48', 'aria-label': t('prompts.preview') });
  const insertButton = h('button', { id: 'prompt-insert', type: 'button', disabled: true }, t('prompts.insert'));
  const copyButton = h('button', { id: 'prompt-copy', type: 'button', disabled: true }, t('prompts.copy'));
  const status = h('div', { id: 'prompt-status', role: 'status' });
  const servers = h('fieldset', { id: 'prompt-servers', class: 'stack', hidden: true }, h('legend', {}, t('prompts.servers')));

  let tools: PromptTools | null = null;
  let off = new Set<string>();
  let text = '';

  const say = (state: 'ok' | 'error', message: string): void => {
    status.setAttribute('data-state', state);
    status.textContent = message;
  };

  const render = (): void => {
    if (!tools) return;
    try {
      const workspaceRoot = root.value.trim();
      text = buildPrompt({
        protocol: protocol.value as BlockKind,
        lang: lang.value as PromptLanguage,
        tools: tools.tools.filter((tool) => tool.server === undefined || !off.has(tool.server)),
        ...(workspaceRoot === '' ? {} : { workspaceRoot }),
      });
      status.textContent = '';
      status.removeAttribute('data-state');
    } catch (error) {
      text = '';
      say('error', `${t('prompts.failed')}: ${error instanceof Error ? error.message : String(error)}`);
    }
    preview.value = text;
    insertButton.disabled = text === '';
    copyButton.disabled = text === '';
  };

  /** One switch per MCP server the tools come from: off leaves its tools out of the prompt. */
  const showServers = (loaded: PromptTools): void => {
    const counts = new Map<string, number>();
    for (const server of loaded.servers ?? []) counts.set(server.name, 0);
    for (const tool of loaded.tools) if (tool.server !== undefined) counts.set(tool.server, (counts.get(tool.server) ?? 0) + 1);
    servers.hidden = counts.size === 0;
    for (const [server, count] of counts) {
      const health = loaded.servers?.find((s) => s.name === server);
      const input = h('input', { type: 'checkbox', role: 'switch', 'data-prompt-server': server, checked: !off.has(server) && count > 0, disabled: count === 0 });
      input.addEventListener('change', () => {
        if (input.checked) off.delete(server);
        else off.add(server);
        void deps.serversOff?.save([...off]);
        render();
      });
      servers.append(
        h(
          'label',
          { class: 'switch', title: health?.lastError },
          input,
          h('span', { class: 'switch-track', 'aria-hidden': 'true' }),
          h('span', { class: 'switch-label' }, `${server} (${t('prompts.serverTools', [count])})`),
          health ? h('span', { class: 'tag', 'data-server-state': health.state }, t(`mcpState.${health.state}`)) : null,
        ),
      );
    }
  };

  const ready = Promise.all([deps.loadTools(), deps.serversOff?.load().catch(() => []) ?? []])
    .then(([loaded, leftOut]) => {
      tools = loaded;
      off = new Set(leftOut);
      showServers(loaded);
      toolsNote.textContent = `${t(loaded.live ? 'prompts.toolsLive' : 'prompts.toolsBuiltIn')} (${loaded.tools.length})`;
      toolsNote.setAttribute('data-live', String(loaded.live));
    })
    .catch((error: unknown) => {
      tools = { tools: [], live: false };
      toolsNote.textContent = '';
      say('error', `${t('prompts.failed')}: ${error instanceof Error ? error.message : String(error)}`);
    })
    .then(render);

  for (const control of [protocol, lang]) control.addEventListener('change', render);
  root.addEventListener('input', render);

  const insert = async (): Promise<void> => {
    if (text === '') return;
    const reply = await deps.insert(text).catch((error: unknown): InsertPromptReply => ({ ok: false, error: String(error) }));
    if (reply.ok) say('ok', t('prompts.inserted'));
    else say('error', reply.error);
  };
  const copy = async (): Promise<void> => {
    if (text === '') return;
    try {
      await deps.copy(text);
      say('ok', t('prompts.copied'));
    } catch (error) {
      say('error', error instanceof Error ? error.message : String(error));
    }
  };
  onTrustedClick(insertButton, insert);
  onTrustedClick(copyButton, copy);

  const label = (key: MessageKey, control: HTMLElement): HTMLElement => h('label', {}, `${t(key)} `, control);
  const element = h(
    'details',
    { id: 'prompts' },
    h('summary', {}, t('prompts.title')),
    h('fieldset', {}, label('prompts.protocol', protocol), label('prompts.language', lang), root, toolsNote),
    servers,
    preview,
    h('div', {}, insertButton, copyButton),
    status,
  );
  return { element, ready, insert, copy };
}

// ---------------------------------------------------------------------------------------------- the browser side

/** What "Insert into chat" needs from the browser, passed in so the rules are tested without one. */
export interface ActiveTabLink {
  activeTab(): Promise<{ id?: number; url?: string } | undefined>;
  /** a host chatbridge's content script runs on (a known site, or one the person enabled) */
  isChatHost(host: string): Promise<boolean>;
  send(tabId: number, message: InsertPromptMessage): Promise<unknown>;
}

function hostOf(url: string | undefined): string | null {
  const link = safeLink(url);
  return link === undefined ? null : new URL(link).host;
}

function isReply(value: unknown): value is InsertPromptReply {
  if (!value || typeof value !== 'object') return false;
  const reply = value as Record<string, unknown>;
  return (reply.ok === true && typeof reply.method === 'string') || (reply.ok === false && typeof reply.error === 'string');
}

/**
 * Sends the prompt to the active tab's content script. A tab that is not a chat page is refused before anything is
 * sent; a chat tab whose content script does not answer (opened before the extension was loaded) says to reload.
 */
export async function insertIntoActiveTab(text: string, link: ActiveTabLink): Promise<InsertPromptReply> {
  const tab = await link.activeTab().catch(() => undefined);
  const host = hostOf(tab?.url);
  if (tab?.id === undefined || host === null || !(await link.isChatHost(host))) return { ok: false, error: t('prompts.notChatPage') };
  let reply: unknown;
  try {
    reply = await link.send(tab.id, { type: INSERT_PROMPT_MESSAGE, text });
  } catch {
    return { ok: false, error: t('prompts.noContentScript') };
  }
  return isReply(reply) ? reply : { ok: false, error: t('prompts.noContentScript') };
}

/** The extension's own catalogue as JSON Schema, the same way the companion lists it; used only when it is unreachable. */
export function builtInTools(): ToolInfo[] {
  return Object.values(TOOL_CONTRACTS).map((contract) => ({
    name: contract.name,
    description: contract.description,
    inputSchema: z.toJSONSchema(contract.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  }));
}
