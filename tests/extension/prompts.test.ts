import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { INSERT_PROMPT_MESSAGE, MAX_PROMPT_CHARS, insertPromptIntoPage, isInsertPromptMessage } from '../../extension/content/insert-prompt';
import { editorText } from '../../extension/inject/insert';
import { chatgpt, deepseek } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { t } from '../../extension/ui/i18n';
import { useLocale } from './i18n-fake';
import { builtInTools, insertIntoActiveTab, promptsView, type ActiveTabLink, type PromptTools, type PromptsViewDeps } from '../../extension/ui/prompts-view';
import { buildPrompt, type ToolInfo } from '../../shared/prompts';
import type { McpServerProblem } from '../../shared/api';
import { findBlocks } from '../../shared/protocols';
import { listTools } from '../../companion/runs/tool-list';

const SITES_DIR = join(import.meta.dirname, '..', 'fixtures', 'sites');

function load(file: string): Document {
  document.open();
  document.write(readFileSync(join(SITES_DIR, file), 'utf8'));
  document.close();
  return document;
}

beforeEach(() => {
  document.body.replaceChildren();
});

describe('content script: inserting a prompt into the chat box', () => {
  const prompt = buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: listTools() });
  const cases: Array<[name: string, file: string, site: Site]> = [
    ['DeepSeek (React textarea)', 'deepseek/2026-10-thinking-idle.html', deepseek],
    ['ChatGPT (ProseMirror contenteditable)', 'chatgpt/2026-10-search-unit-idle.html', chatgpt],
  ];

  it.each(cases)('%s: the whole prompt lands in the editor, line breaks kept, and nothing is sent', async (_name, file, site) => {
    const doc = load(file);
    const editor = site.editor(doc)!;
    expect(editor).not.toBeNull();
    const messagesBefore = site.messages(doc).length;
    const reply = await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: prompt }, site, doc);
    expect(reply.ok).toBe(true);
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    expect(squash(editorText(editor))).toContain(squash(prompt));
    expect(editorText(editor).split('\n').length).toBeGreaterThan(20);
    expect(site.messages(doc).length).toBe(messagesBefore);
  });

  it('a page without a chat box answers with an error naming the site', async () => {
    document.body.innerHTML = '<main><p>no editor here</p></main>';
    const reply = await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: prompt }, deepseek, document);
    expect(reply).toEqual({ ok: false, error: 'no chat box found on this DeepSeek page; open a conversation and try again' });
  });

  it("says why it inserted nothing in the person's language", async () => {
    useLocale('zh_CN');
    document.body.innerHTML = '<main><p>no editor here</p></main>';
    expect(await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: prompt }, deepseek, document)).toEqual({
      ok: false,
      error: '此 DeepSeek 页面上找不到输入框：请打开一个对话后再试',
    });
    const doc = load('deepseek/2026-10-thinking-idle.html');
    expect(await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: ' ' }, deepseek, doc)).toEqual({ ok: false, error: '提示词为空：什么也没有填入' });
    const huge = await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: 'x'.repeat(MAX_PROMPT_CHARS + 1) }, deepseek, doc);
    expect(huge).toEqual({ ok: false, error: `提示词有 ${MAX_PROMPT_CHARS + 1} 个字符，超过了输入框可接受的 ${MAX_PROMPT_CHARS} 个` });
  });

  it('refuses an empty or oversized text without touching the editor', async () => {
    const doc = load('deepseek/2026-10-thinking-idle.html');
    const editor = deepseek.editor(doc)!;
    expect(await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: '  \n' }, deepseek, doc)).toEqual({
      ok: false,
      error: 'the prompt is empty; nothing was inserted',
    });
    const huge = 'x'.repeat(MAX_PROMPT_CHARS + 1);
    const reply = await insertPromptIntoPage({ type: INSERT_PROMPT_MESSAGE, text: huge }, deepseek, doc);
    expect(reply).toEqual({ ok: false, error: `the prompt has ${MAX_PROMPT_CHARS + 1} characters, more than the ${MAX_PROMPT_CHARS} a chat box is given` });
    expect(editorText(editor)).toBe('');
  });

  it('recognises only its own message type', () => {
    expect(isInsertPromptMessage({ type: INSERT_PROMPT_MESSAGE, text: 'x' })).toBe(true);
    for (const other of [null, 'chatbridge-insert-prompt', { type: 'run' }, { text: 'x' }]) expect(isInsertPromptMessage(other)).toBe(false);
  });
});

describe('popup: "Insert into chat" goes only to a chat tab whose content script answers', () => {
  const link = (over: Partial<ActiveTabLink> & { sent?: unknown[] }): ActiveTabLink => ({
    activeTab: async () => ({ id: 7, url: 'https://chat.deepseek.com/a/chat/s/1' }),
    isChatHost: async (host) => host === 'chat.deepseek.com',
    send: async (_tab, message) => {
      over.sent?.push(message);
      return { ok: true, method: 'native-setter' };
    },
    ...over,
  });

  it('sends the text to the active chat tab and returns its answer', async () => {
    const sent: unknown[] = [];
    expect(await insertIntoActiveTab('hello', link({ sent }))).toEqual({ ok: true, method: 'native-setter' });
    expect(sent).toEqual([{ type: INSERT_PROMPT_MESSAGE, text: 'hello' }]);
  });

  const notChat: Array<[name: string, over: Partial<ActiveTabLink>]> = [
    ['a site chatbridge does not run on', { activeTab: async () => ({ id: 7, url: 'https://example.com/' }) }],
    ['a browser page', { activeTab: async () => ({ id: 7, url: 'chrome://extensions/' }) }],
    ['no active tab', { activeTab: async () => undefined }],
    ['a tab without an id', { activeTab: async () => ({ url: 'https://chat.deepseek.com/' }) }],
  ];
  it.each(notChat)('refuses %s without sending anything', async (_name, over) => {
    const sent: unknown[] = [];
    expect(await insertIntoActiveTab('hello', link({ ...over, sent }))).toEqual({ ok: false, error: t('prompts.notChatPage') });
    expect(sent).toEqual([]);
  });

  it('a chat tab opened before the extension loaded (no receiver) is told to reload', async () => {
    const failing = link({
      send: async () => {
        throw new Error('Could not establish connection. Receiving end does not exist.');
      },
    });
    useLocale('zh_CN');
    expect(await insertIntoActiveTab('hello', failing)).toEqual({ ok: false, error: 'chatbridge 尚未在此标签页运行：请刷新聊天页面后再试' });
    useLocale('en');
    expect(await insertIntoActiveTab('hello', link({ send: async () => undefined }))).toEqual({ ok: false, error: t('prompts.noContentScript') });
  });

  it("passes the content script's own error through", async () => {
    const reply = { ok: false, error: 'no chat box found on this DeepSeek page; open a conversation and try again' };
    expect(await insertIntoActiveTab('hello', link({ send: async () => reply }))).toEqual(reply);
  });
});

describe('popup: the Prompts section', () => {
  function deps(over: Partial<PromptsViewDeps> = {}): PromptsViewDeps & { inserted: string[]; copied: string[] } {
    const inserted: string[] = [];
    const copied: string[] = [];
    return {
      language: 'en',
      loadTools: async () => ({ tools: listTools(), live: true }),
      insert: async (text) => {
        inserted.push(text);
        return { ok: true, method: 'paste' };
      },
      copy: async (text) => {
        copied.push(text);
      },
      inserted,
      copied,
      ...over,
    };
  }
  const byId = <T extends HTMLElement>(view: HTMLElement, id: string): T => view.querySelector<T>(`#${id}`)!;
  /** Preact draws a change on the next turn. */
  const drawn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
  const choose = async (select: HTMLSelectElement, value: string): Promise<void> => {
    select.value = value;
    select.dispatchEvent(new Event('change'));
    await drawn();
  };

  it('previews the prompt for the chosen protocol and language, from the live tools', async () => {
    const view = promptsView(deps({ language: 'zh' }));
    document.body.append(view.element);
    await view.ready;
    const preview = byId<HTMLTextAreaElement>(view.element, 'prompt-preview');
    expect(byId<HTMLSelectElement>(view.element, 'prompt-lang').value).toBe('zh');
    expect(preview.value).toBe(buildPrompt({ protocol: 'mcp-request', lang: 'zh', tools: listTools() }));
    await choose(byId(view.element, 'prompt-protocol'), 'axon');
    await choose(byId(view.element, 'prompt-lang'), 'en');
    expect(preview.value).toBe(buildPrompt({ protocol: 'axon', lang: 'en', tools: listTools() }));
    const root = byId<HTMLInputElement>(view.element, 'prompt-root');
    root.value = '/srv/shop';
    root.dispatchEvent(new Event('input'));
    await drawn();
    expect(preview.value).toBe(buildPrompt({ protocol: 'axon', lang: 'en', tools: listTools(), workspaceRoot: '/srv/shop' }));
    expect(byId(view.element, 'prompt-tools').getAttribute('data-live')).toBe('true');
  });

  it('Insert and Copy hand over exactly the previewed text and say what happened', async () => {
    const d = deps();
    const view = promptsView(d);
    await view.ready;
    await choose(byId(view.element, 'prompt-protocol'), 'flycode-call');
    await view.insert();
    await view.copy();
    await drawn();
    const text = byId<HTMLTextAreaElement>(view.element, 'prompt-preview').value;
    expect(d.inserted).toEqual([text]);
    expect(d.copied).toEqual([text]);
    expect(findBlocks(text).some((block) => block.kind === 'flycode-call')).toBe(true);
    expect(byId(view.element, 'prompt-status').getAttribute('data-state')).toBe('ok');
  });

  it('shows the reason when the tab refuses the insertion', async () => {
    const view = promptsView(deps({ insert: async () => ({ ok: false, error: 'not a chat page' }) }));
    await view.ready;
    await view.insert();
    await drawn();
    const status = byId(view.element, 'prompt-status');
    expect(status.getAttribute('data-state')).toBe('error');
    expect(status.textContent).toBe('not a chat page');
  });

  it('the buttons ignore clicks a script dispatches (attack: page script fills the chat box)', async () => {
    const d = deps();
    const view = promptsView(d);
    await view.ready;
    byId<HTMLButtonElement>(view.element, 'prompt-insert').click();
    byId<HTMLButtonElement>(view.element, 'prompt-copy').click();
    expect(d.inserted).toEqual([]);
    expect(d.copied).toEqual([]);
  });

  it('without the companion it says so and uses the built-in catalogue, which matches the live one', async () => {
    const builtIn: ToolInfo[] = builtInTools();
    expect(builtIn.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(
      listTools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    );
    const view = promptsView(deps({ loadTools: async () => ({ tools: builtIn, live: false }) }));
    await view.ready;
    expect(byId(view.element, 'prompt-tools').textContent).toBe(`${t('prompts.toolsBuiltIn')} (${builtIn.length})`);
  });

  it("lists the person's MCP servers with a switch each; off leaves that server's tools out, and is remembered", async () => {
    const external: ToolInfo[] = [
      { name: 'git.status', server: 'git', description: 'Working tree status.', inputSchema: { type: 'object', properties: { repo_path: { type: 'string' } }, required: ['repo_path'] } },
      { name: 'memory.read_graph', server: 'memory', description: 'Reads the graph.', inputSchema: { type: 'object', properties: {} } },
    ];
    const saved: string[][] = [];
    const view = promptsView(
      deps({
        loadTools: async () => ({ tools: [...listTools(), ...external], live: true }),
        serversOff: { load: async () => ['memory'], save: async (servers) => void saved.push(servers) },
      }),
    );
    document.body.append(view.element);
    await view.ready;
    const preview = byId<HTMLTextAreaElement>(view.element, 'prompt-preview');
    const git = view.element.querySelector<HTMLInputElement>('[data-prompt-server="git"]')!;
    const memory = view.element.querySelector<HTMLInputElement>('[data-prompt-server="memory"]')!;
    expect(byId(view.element, 'prompt-servers').hidden).toBe(false);
    expect(git.checked).toBe(true);
    expect(memory.checked).toBe(false);
    expect(git.closest('label')!.textContent).toBe('git (1 tool)');
    expect(preview.value).toBe(buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: [...listTools(), external[0]!] }));
    expect(preview.value).toContain('- `git.status` — Working tree status. (arguments {repo_path: string})');
    git.click();
    await drawn();
    expect(preview.value).toBe(buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: listTools() }));
    memory.click();
    await drawn();
    expect(preview.value).toContain('memory.read_graph');
    expect(saved).toEqual([['memory', 'git'], ['git']]);
  });

  it("shows each server's state; a failing server without tools is listed, its switch off and disabled, its error written under it", async () => {
    const view = promptsView(
      deps({
        loadTools: async () => ({
          tools: [...listTools(), { name: 'git.status', server: 'git', description: 'Status.', inputSchema: { type: 'object', properties: {} } }],
          live: true,
          servers: [
            { name: 'git', state: 'ready' },
            { name: 'db', state: 'error', lastError: 'spawn pg-mcp ENOENT' },
          ],
        }),
      }),
    );
    document.body.append(view.element);
    await view.ready;
    const db = view.element.querySelector<HTMLInputElement>('[data-prompt-server="db"]')!;
    expect(db.disabled).toBe(true);
    expect(db.checked).toBe(false);
    // the error is text on the page, describing the switch: a title on a disabled switch's row reached only a mouse
    const why = view.element.querySelector(`#${db.getAttribute('aria-describedby')}`);
    expect(why?.textContent).toBe('spawn pg-mcp ENOENT');
    expect(why?.closest('[hidden]')).toBeNull();
    expect(db.closest('label')!.querySelector('[data-server-state]')!.textContent).toBe('failing');
    expect(view.element.querySelector('[data-prompt-server="git"]')!.closest('label')!.querySelector('[data-server-state]')!.textContent).toBe('ready');
  });

  it("says why a server is failing in the person's language, from the facts the companion gives, not its English lastError", async () => {
    const failing = (servers: NonNullable<PromptTools['servers']>) =>
      promptsView(deps({ loadTools: async () => ({ tools: listTools(), live: true, servers }) }));
    const said = async (view: ReturnType<typeof failing>, name: string) => {
      document.body.append(view.element);
      await view.ready;
      const row = view.element.querySelector(`[data-prompt-server="${name}"]`)!;
      return view.element.querySelector(`#${row.getAttribute('aria-describedby')}`)?.textContent;
    };
    const lastError = 'could not start: the program "/opt/mcp/bin/notes" does not exist (gave up after 5 failures in a row; the next call to one of its tools tries it again; restart chatbridge after changing its entry)';
    const missing = { name: 'notes', state: 'error' as const, lastError, problem: { code: 'program-not-found' as const, starting: true, program: '/opt/mcp/bin/notes', failures: 5 } };
    useLocale('zh_CN');
    expect(await said(failing([missing]), 'notes')).toBe(
      '无法启动：程序 "/opt/mcp/bin/notes" 不存在。连续失败 5 次，chatbridge 已停止重试：下次调用它的工具时会再试一次。修改它的配置项后，请重启 chatbridge。',
    );
    const exited = {
      name: 'db',
      state: 'retrying' as const,
      lastError: 'the server exited (code 3); its stderr ended with: FATAL: no database',
      problem: { code: 'exited' as const, starting: false, program: 'pg-mcp', exitCode: 3, stderr: 'FATAL: no database' },
    };
    expect(await said(failing([exited]), 'db')).toBe('已停止：服务器已退出，退出码 3。它最后输出的一行（stderr）：“FATAL: no database”。');
    const slow = { name: 'big', state: 'error' as const, lastError: 'x', problem: { code: 'start-timeout' as const, starting: true, timeoutMs: 60_000, failures: 1 } };
    expect(await said(failing([slow]), 'big')).toMatch(/^无法启动：启动后 1 分钟 内没有应答/);
    useLocale('en');
    expect(await said(failing([slow]), 'big')).toMatch(/^Could not start: it did not answer within 1 min of being started, .* It failed 1 time in a row, so chatbridge stopped trying/);
    // what the companion gives only in its own (English) words is said to be so, in its quotes, not read on as if it
    // were the sentence in the person's language
    const closed = { name: 'remote', state: 'retrying' as const, lastError: 'x', problem: { code: 'other' as const, starting: false, detail: 'the connection to the server was closed' } };
    const refused = { name: 'bad', state: 'error' as const, lastError: 'x', problem: { code: 'config' as const, starting: true, detail: '"url" must be an http(s) address.' } };
    useLocale('zh_CN');
    expect(await said(failing([closed]), 'remote')).toBe('已停止。本地助手的英文说明：“the connection to the server was closed”。');
    expect(await said(failing([refused]), 'bad')).toBe('它在配置中的配置项被拒绝。本地助手的英文说明：“"url" must be an http(s) address”。');
    expect(await said(failing([{ ...closed, problem: { ...closed.problem, failures: 2 } }]), 'remote')).toMatch(/^已停止。本地助手的英文说明：“the connection to the server was closed”。连续失败 2 次/);
    useLocale('en');
    expect(await said(failing([closed]), 'remote')).toBe('Stopped: the connection to the server was closed.');
    expect(await said(failing([refused]), 'bad')).toBe('Its entry in the config is refused: "url" must be an http(s) address.');
    // a companion from before the facts: its English words, as they are
    expect(await said(failing([{ name: 'old', state: 'error', lastError }]), 'old')).toBe(lastError);
  });

  it('says in the person\'s language how a running server went wrong: the connection closed, a message too large, its input unread, no answer, a call or the refreshed list failing', async () => {
    const failing = (servers: NonNullable<PromptTools['servers']>) =>
      promptsView(deps({ loadTools: async () => ({ tools: listTools(), live: true, servers }) }));
    const said = async (problem: McpServerProblem): Promise<string | undefined> => {
      const view = failing([{ name: 'remote', state: 'retrying', lastError: 'the English words', problem }]);
      document.body.append(view.element);
      await view.ready;
      const row = view.element.querySelector('[data-prompt-server="remote"]')!;
      const text = view.element.querySelector(`#${row.getAttribute('aria-describedby')}`)?.textContent;
      view.element.remove();
      return text;
    };
    const refused = 'fetch failed (connect ECONNREFUSED 127.0.0.1:3001)';
    const cases: Array<[McpServerProblem, string, string]> = [
      [{ code: 'connection-closed', starting: false }, 'Stopped: the connection to the server was closed.', '已停止：与服务器的连接已关闭。'],
      [
        { code: 'message-too-large', starting: false, maxBytes: 16 * 1024 * 1024 },
        'Stopped: the server sent a message larger than 16 MB, so the connection was reset.',
        '已停止：服务器发来的一条消息超过 16 MB，连接已重置。',
      ],
      [
        { code: 'not-reading', starting: false },
        'Stopped: the server stopped reading what chatbridge sent it, so the connection was reset.',
        '已停止：服务器不再读取 chatbridge 发给它的内容，连接已重置。',
      ],
      [
        { code: 'not-answering', starting: false, cause: refused, failures: 5 },
        `Stopped: the server stopped answering. The error: “${refused}”. It failed 5 times in a row, so chatbridge stopped trying: the next call to one of its tools tries once more. After changing its entry, restart chatbridge.`,
        `已停止：服务器不再应答。错误信息：“${refused}”。连续失败 5 次，chatbridge 已停止重试：下次调用它的工具时会再试一次。修改它的配置项后，请重启 chatbridge。`,
      ],
      [
        { code: 'call-failed', starting: false, tool: 'echo', cause: refused },
        `Stopped: calling its tool "echo" failed, so chatbridge connects to it again. The error: “${refused}”.`,
        `已停止：调用它的工具 "echo" 失败，chatbridge 正在重新连接它。错误信息：“${refused}”。`,
      ],
      [
        { code: 'list-refresh-failed', starting: false, cause: 'MCP error -32603: the tool index is being rebuilt' },
        'Stopped: it said its tools changed, but reading the new list failed; the tools listed before stay. The error: “MCP error -32603: the tool index is being rebuilt”.',
        '已停止：它表示自己的工具有变化，但读取新的工具列表失败；之前列出的工具仍然保留。错误信息：“MCP error -32603: the tool index is being rebuilt”。',
      ],
    ];
    for (const [problem, english, chinese] of cases) {
      useLocale('en');
      expect(await said(problem), problem.code).toBe(english);
      useLocale('zh_CN');
      expect(await said(problem), problem.code).toBe(chinese);
    }
    useLocale('en');
  });

  it('without MCP servers there is no server list', async () => {
    const view = promptsView(deps());
    await view.ready;
    expect(byId(view.element, 'prompt-servers').hidden).toBe(true);
  });

  it('a prompt that cannot be built disables Insert and Copy and names the reason', async () => {
    const view = promptsView(deps({ loadTools: async () => ({ tools: [], live: true }) }));
    await view.ready;
    expect(byId<HTMLButtonElement>(view.element, 'prompt-insert').disabled).toBe(true);
    expect(byId<HTMLButtonElement>(view.element, 'prompt-copy').disabled).toBe(true);
    expect(byId(view.element, 'prompt-status').textContent).toMatch(/the mcp-request prompt needs the tool list, got no tools/);
    await choose(byId(view.element, 'prompt-protocol'), 'axon');
    expect(byId<HTMLButtonElement>(view.element, 'prompt-insert').disabled).toBe(false);
  });
});
