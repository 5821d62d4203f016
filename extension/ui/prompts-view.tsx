import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { z } from 'zod';
import { buildPrompt, PROMPT_LANGUAGES, type PromptLanguage, type ToolInfo } from '../../shared/prompts';
import { BLOCK_KINDS, type BlockKind } from '../../shared/protocols/types';
import { TOOL_CONTRACTS } from '../../shared/tools';
import type { McpServerItem } from '../companion/api-types';
import { INSERT_PROMPT_MESSAGE, type InsertPromptMessage, type InsertPromptReply } from '../content/insert-prompt';
import { safeLink } from './format';
import { serverProblemText } from './server-problem';
import { t, tn, type Language } from './i18n';
import { trusted } from './trusted';

/**
 * The popup's prompt library (DESIGN §6.4): pick a protocol and a language, preview the instructions generated from
 * the companion's live tool list, then put them into the active chat tab's box (through its content script) or
 * copy them. The person's MCP servers' tools are listed after chatbridge's own, each server with a switch so the
 * prompt stays short. Stable ids for tests: `#prompts`, `#prompt-protocol`, `#prompt-lang`, `#prompt-root`,
 * `#prompt-tools`, `#prompt-servers` (`[data-prompt-server=<name>]` switches), `#prompt-preview`, `#prompt-insert`,
 * `#prompt-copy`, `#prompt-status` (`data-state` ok|error).
 */

export interface PromptTools {
  tools: ToolInfo[];
  /** false: the companion did not answer and the extension's own catalogue stands in */
  live: boolean;
  /** the person's MCP servers and how they are doing (GET /v1/mcp-servers); a failing one has no tools to list */
  servers?: Array<Pick<McpServerItem, 'name' | 'state' | 'lastError' | 'problem'>>;
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

type Status = { state: 'ok' | 'error'; message: string } | null;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The prompt for the choices made, or why it cannot be built. */
function promptFor(tools: PromptTools, off: ReadonlySet<string>, protocol: BlockKind, lang: PromptLanguage, root: string): { text: string; error?: string } {
  try {
    const workspaceRoot = root.trim();
    return {
      text: buildPrompt({
        protocol,
        lang,
        tools: tools.tools.filter((tool) => tool.server === undefined || !off.has(tool.server)),
        ...(workspaceRoot === '' ? {} : { workspaceRoot }),
      }),
    };
  } catch (error) {
    return { text: '', error: `${t('prompts.failed')}: ${message(error)}` };
  }
}

/** One switch per MCP server the tools come from (or that is failing): off leaves its tools out of the prompt. */
function ServerSwitches(props: { tools: PromptTools; off: ReadonlySet<string>; onToggle: (server: string, on: boolean) => void }) {
  const counts = new Map<string, number>();
  for (const server of props.tools.servers ?? []) counts.set(server.name, 0);
  for (const tool of props.tools.tools) if (tool.server !== undefined) counts.set(tool.server, (counts.get(tool.server) ?? 0) + 1);
  return (
    <fieldset id="prompt-servers" class="stack" hidden={counts.size === 0}>
      <legend>{t('prompts.servers')}</legend>
      {[...counts].map(([server, count], index) => {
        const health = props.tools.servers?.find((s) => s.name === server);
        // why a server is not ready is written under its switch (a title on a disabled switch reached only a mouse)
        const problem = health && health.state !== 'ready' ? serverProblemText(health) : undefined;
        const why = problem !== undefined ? `prompt-server-error-${index}` : undefined;
        return (
          <div key={server}>
            <label class="switch">
              <input
                type="checkbox"
                role="switch"
                data-prompt-server={server}
                checked={!props.off.has(server) && count > 0}
                disabled={count === 0}
                aria-describedby={why}
                onChange={(e) => props.onToggle(server, e.currentTarget.checked)}
              />
              <span class="switch-track" aria-hidden="true" />
              <span class="switch-label">{`${server} (${tn('prompts.serverTools', count)})`}</span>
              {health && (
                <span class="tag" data-server-state={health.state}>
                  {t(`mcpState.${health.state}`)}
                </span>
              )}
            </label>
            {why && (
              <div class="muted mono" id={why} data-server-error="">
                {problem}
              </div>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/** What the view hands out to `promptsView`'s caller: the current text and a way to say what happened. */
interface Handle {
  text: string;
  say: (status: Status) => void;
  ready: () => void;
}

function PromptsPanel({ deps, handle }: { deps: PromptsViewDeps; handle: Handle }) {
  const [tools, setTools] = useState<PromptTools | null>(null);
  const [off, setOff] = useState<ReadonlySet<string>>(new Set());
  const [protocol, setProtocol] = useState<BlockKind>('mcp-request');
  const [lang, setLang] = useState<PromptLanguage>(deps.language);
  const [root, setRoot] = useState('');
  const [status, setStatus] = useState<Status>(null);
  const [loadError, setLoadError] = useState('');

  useEffect(() => {
    void Promise.all([deps.loadTools(), deps.serversOff?.load().catch(() => []) ?? []])
      .then(([loaded, leftOut]) => {
        setOff(new Set(leftOut));
        setTools(loaded);
      })
      .catch((error: unknown) => {
        setLoadError(`${t('prompts.failed')}: ${message(error)}`);
        setTools({ tools: [], live: false });
      });
  }, [deps]);

  const built = useMemo(() => (tools ? promptFor(tools, off, protocol, lang, root) : { text: '' }), [tools, off, protocol, lang, root]);
  const text = built.text;
  // A choice that makes a new prompt clears what was said about the last one.
  useEffect(() => setStatus(null), [text]);
  handle.text = text;
  handle.say = setStatus;
  useEffect(() => {
    if (tools) handle.ready();
  }, [tools]);

  const shown: Status = status ?? (built.error ? { state: 'error', message: built.error } : loadError ? { state: 'error', message: loadError } : null);
  const toggle = (server: string, on: boolean): void => {
    const next = new Set(off);
    if (on) next.delete(server);
    else next.add(server);
    setOff(next);
    void deps.serversOff?.save([...next]);
  };
  return (
    <>
      <summary>{t('prompts.title')}</summary>
      <fieldset>
        <label>
          {t('prompts.protocol')}{' '}
          <select id="prompt-protocol" value={protocol} onChange={(e) => setProtocol(e.currentTarget.value as BlockKind)}>
            {BLOCK_KINDS.map((kind) => (
              <option value={kind}>{PROTOCOL_LABELS[kind]}</option>
            ))}
          </select>
        </label>
        <label>
          {t('prompts.language')}{' '}
          <select id="prompt-lang" value={lang} onChange={(e) => setLang(e.currentTarget.value as PromptLanguage)}>
            {PROMPT_LANGUAGES.map((code) => (
              <option value={code}>{LANGUAGE_LABELS[code]}</option>
            ))}
          </select>
        </label>
        <input
          id="prompt-root"
          placeholder={t('prompts.root')}
          aria-label={t('prompts.root')}
          autocomplete="off"
          value={root}
          onInput={(e) => setRoot(e.currentTarget.value)}
        />
        <div id="prompt-tools" data-live={tools && !loadError ? String(tools.live) : undefined}>
          {!tools ? t('prompts.loading') : loadError ? '' : `${t(tools.live ? 'prompts.toolsLive' : 'prompts.toolsBuiltIn')} (${tools.tools.length})`}
        </div>
      </fieldset>
      {tools && <ServerSwitches tools={tools} off={off} onToggle={toggle} />}
      <textarea id="prompt-preview" readonly rows={10} aria-label={t('prompts.preview')} value={text} />
      <div>
        <button id="prompt-insert" type="button" disabled={text === ''} onClick={trusted(() => void insertText(deps, handle))}>
          {t('prompts.insert')}
        </button>
        <button id="prompt-copy" type="button" disabled={text === ''} onClick={trusted(() => void copyText(deps, handle))}>
          {t('prompts.copy')}
        </button>
      </div>
      <div id="prompt-status" role="status" data-state={shown?.state}>
        {shown?.message ?? ''}
      </div>
    </>
  );
}

async function insertText(deps: PromptsViewDeps, handle: Handle): Promise<void> {
  if (handle.text === '') return;
  const reply = await deps.insert(handle.text).catch((error: unknown): InsertPromptReply => ({ ok: false, error: String(error) }));
  handle.say(reply.ok ? { state: 'ok', message: t('prompts.inserted') } : { state: 'error', message: reply.error });
}

async function copyText(deps: PromptsViewDeps, handle: Handle): Promise<void> {
  if (handle.text === '') return;
  try {
    await deps.copy(handle.text);
    handle.say({ state: 'ok', message: t('prompts.copied') });
  } catch (error) {
    handle.say({ state: 'error', message: message(error) });
  }
}

/** The prompt library as an element (a `<details id="prompts">`), for the popup and for tests. */
export function promptsView(deps: PromptsViewDeps): PromptsView {
  const element = document.createElement('details');
  element.id = 'prompts';
  let settle!: () => void;
  const ready = new Promise<void>((resolve) => (settle = resolve));
  const handle: Handle = { text: '', say: () => undefined, ready: () => settle() };
  render(<PromptsPanel deps={deps} handle={handle} />, element);
  return { element, ready, insert: () => insertText(deps, handle), copy: () => copyText(deps, handle) };
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
