/**
 * A DeepSeek-like page (SITES.md, 2026): a React app whose composer is a controlled `textarea#chat-input`; the send
 * control `div[role=button].ds-button.ds-button--circle` carries `ds-button--disabled` while the React state is
 * empty and turns into the stop button while a reply is generated. Messages are `.ds-message`; user messages have a
 * `.fbb737a4` child; the answer is the `.ds-markdown` outside `.ds-think-content`; code blocks are `.md-code-block`
 * with a `span.d813de27` banner label and Prism-like tokens in a bare `<pre>`.
 */
import { createElement as h, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { SWITCH_LOAD_MS } from './api';
import type { ReplicaApi, ReplicaTurn, StreamOptions } from './api';
import {
  createSiteRenderer,
  escapeHtml,
  loadConversation,
  reconcileBlocks,
  sleep,
  splitTokens,
  storeConversation,
} from './render';

const SITE = 'deepseek';

/** Prism-like tokens for JSON-ish text; everything else stays plain text inside the bare `<pre>`. */
function prismTokens(text: string): string {
  const pattern = /("(?:[^"\\\n]|\\.)*")|(-?\b\d+(?:\.\d+)?\b)|(\b(?:true|false|null)\b)|([{}[\]:,])/g;
  let html = '';
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    html += escapeHtml(text.slice(at, index));
    const kind = match[1] ? 'string' : match[2] ? 'number' : match[3] ? 'boolean' : 'punctuation';
    html += `<span class="token ${kind}">${escapeHtml(match[0])}</span>`;
    at = index + match[0].length;
  }
  return html + escapeHtml(text.slice(at));
}

const renderMarkdown = createSiteRenderer({
  paragraphClass: 'ds-markdown-paragraph',
  codeBlock(text, label) {
    return (
      '<div class="md-code-block md-code-block-light"><div class="md-code-block-banner-wrap">' +
      '<div class="md-code-block-banner md-code-block-banner-lite"><div class="_121d384">' +
      `<div class="d2a24f03"><span class="d813de27">${escapeHtml(label)}</span></div>` +
      '<div class="d2a24f03 _246a029"><div class="efa13877">' +
      '<button role="button" aria-disabled="false" class="ds-atom-button ds-text-button ds-text-button--with-icon"><span><span class="code-info-button-text">复制</span></span></button>' +
      '<button role="button" aria-disabled="false" class="ds-atom-button ds-text-button ds-text-button--with-icon"><span><span class="code-info-button-text">下载</span></span></button>' +
      `</div></div></div></div></div><pre>${prismTokens(text)}</pre></div>\n`
    );
  },
});

interface Turn extends ReplicaTurn {
  id: string;
}

type Phase = 'idle' | 'connecting' | 'generating';

interface PageState {
  turns: Turn[];
  phase: Phase;
}

// The page's "backend" state lives outside React so the test API can drive it; React subscribes to it.
let state: PageState = { turns: [], phase: 'idle' };
const listeners = new Set<() => void>();
function setState(next: Partial<PageState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}
function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const submitted: string[] = [];
let composerValue = '';
let stopRequested = false;
let held = false;

function currentConversationId(): string | null {
  return /^\/a\/chat\/s\/([0-9a-f-]{36})$/.exec(location.pathname)?.[1] ?? null;
}

function persist(): void {
  const id = currentConversationId();
  if (id !== null) storeConversation(SITE, id, state.turns);
}

function submitMessage(text: string): boolean {
  if (text.trim() === '' || state.phase !== 'idle') return false;
  submitted.push(text);
  if (currentConversationId() === null) history.pushState(null, '', `/a/chat/s/${crypto.randomUUID()}`);
  setState({ turns: [...state.turns, { role: 'user', text, id: crypto.randomUUID() }] });
  persist();
  return true;
}

function Markdown(props: { text: string; className: string }): ReactNode {
  const ref = useRef<HTMLDivElement | null>(null);
  const rendered = useRef(new WeakMap<Node, string>());
  useLayoutEffect(() => {
    if (ref.current) reconcileBlocks(ref.current, renderMarkdown(props.text), rendered.current);
  }, [props.text]);
  return h('div', { ref, className: props.className });
}

function Message(props: { turn: Turn }): ReactNode {
  const { turn } = props;
  if (turn.role === 'user') {
    return h(
      'div',
      { className: 'd29f3d7d ds-message _63c77b1' },
      h('div', { className: 'fbb737a4' }, h('div', { className: 'ds-collapsible-text' }, h('div', null, h('span', null, turn.text)))),
    );
  }
  return h(
    'div',
    { className: 'ds-message _63c77b1' },
    turn.reasoning
      ? h(
          'div',
          { className: '_74c0879' },
          h('div', { className: 'e1675d8b ds-think-content' }, h(Markdown, { text: turn.reasoning, className: 'ds-markdown' })),
        )
      : null,
    h(Markdown, { text: turn.text, className: 'ds-markdown ds-assistant-message-main-content' }),
  );
}

function SendControl(props: { phase: Phase; empty: boolean; onSend: () => void }): ReactNode {
  const disabled = props.phase === 'idle' && props.empty;
  const className =
    'ds-button ds-button--primary ds-button--filled ds-button--rect ds-button--circle ds-button--m _7436101' +
    (disabled ? ' ds-button--disabled' : '');
  const icon =
    props.phase === 'connecting'
      ? h('div', { className: 'ds-loading' })
      : h(
          'div',
          { className: 'ds-icon', style: { fontSize: '16px', width: '16px', height: '16px' } },
          props.phase === 'generating'
            ? h('svg', { width: '16', height: '16', viewBox: '0 0 16 16' }, h('rect', { x: '3', y: '3', width: '10', height: '10', rx: '2' }))
            : h('svg', { width: '16', height: '16', viewBox: '0 0 16 16' }, h('path', { d: 'M8 2 L8 14 M3 7 L8 2 L13 7' })),
        );
  return h(
    'div',
    {
      role: 'button',
      className,
      onClick: () => {
        if (props.phase !== 'idle') stopRequested = true;
        else if (!props.empty) props.onSend();
      },
    },
    h('div', { className: 'ds-button__icon' }, icon),
  );
}

function Composer(props: { phase: Phase }): ReactNode {
  const [value, setValue] = useState('');
  composerValue = value;
  const send = (): void => {
    if (submitMessage(value)) setValue('');
  };
  return h(
    'div',
    { className: '_77cefa5' },
    h(
      'div',
      { className: 'dd442025 _42b6996' },
      h('textarea', {
        id: 'chat-input',
        className: '_27c9245 ds-scroll-area',
        placeholder: 'Message DeepSeek',
        rows: 2,
        value,
        onChange: (event: { target: HTMLTextAreaElement }) => setValue(event.target.value),
        onKeyDown: (event: KeyboardEvent) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            send();
          }
        },
      }),
    ),
    h('div', { className: 'ec4f5d61' }, h(SendControl, { phase: props.phase, empty: value.trim() === '', onSend: send })),
  );
}

function App(): ReactNode {
  const page = useSyncExternalStore(subscribe, () => state);
  return h(
    'div',
    { className: 'ds-theme _8f60047' },
    h(
      'div',
      { className: 'ds-scroll-area _765a5cd' },
      h(
        'div',
        { className: 'ds-virtual-list' },
        h(
          'div',
          { className: 'ds-virtual-list-items' },
          h(
            'div',
            { className: 'ds-virtual-list-visible-items' },
            page.turns.map((turn) => h('div', { key: turn.id, className: '_9663006' }, h(Message, { turn }))),
          ),
        ),
      ),
    ),
    h(Composer, { phase: page.phase }),
  );
}

let lastTokenAt: number | null = null;

async function stream(markdown: string, options: StreamOptions = {}): Promise<void> {
  if (state.phase !== 'idle') throw new Error('replica deepseek: a reply is already being generated');
  stopRequested = false;
  const turn: Turn = { role: 'assistant', text: '', id: options.messageId ?? crypto.randomUUID() };
  if (options.reasoning !== undefined) turn.reasoning = '';
  setState({ turns: [...state.turns, turn], phase: 'connecting' });
  await sleep(80);
  setState({ phase: 'generating' });
  const update = (patch: Partial<Turn>): void => {
    Object.assign(turn, patch);
    setState({ turns: state.turns.map((t) => (t.id === turn.id ? { ...turn } : t)) });
  };
  const tokenMs = options.tokenMs ?? 12;
  const size = options.tokenChars ?? 6;
  let reasoning = '';
  for (const token of splitTokens(options.reasoning ?? '', size)) {
    if (stopRequested) break;
    await sleep(tokenMs);
    reasoning += token;
    update({ reasoning });
  }
  let text = '';
  for (const token of splitTokens(markdown, size)) {
    if (stopRequested) break;
    await sleep(tokenMs);
    text += token;
    update({ text });
    lastTokenAt = performance.now();
    if (options.holdAt !== undefined && !held && text.includes(options.holdAt)) {
      held = true;
      while (!stopRequested) await sleep(20);
      held = false;
    }
  }
  setState({ phase: 'idle' });
  persist();
}

// --- boot ----------------------------------------------------------------------------------------------------

document.title = 'DeepSeek';
const openedId = currentConversationId();
if (openedId !== null) state = { ...state, turns: loadConversation<Turn>(SITE, openedId) ?? [] };
const mount = document.createElement('div');
mount.id = 'root';
document.body.append(mount);
const root = createRoot(mount);
// History must be in the DOM before the page finishes loading, as on the real site's first paint.
flushSync(() => root.render(h(App)));

const api: ReplicaApi = {
  site: SITE,
  submitted,
  stream,
  addUserTurn(text) {
    setState({ turns: [...state.turns, { role: 'user', text, id: crypto.randomUUID() }] });
    persist();
  },
  saveConversation(id, saved) {
    storeConversation(
      SITE,
      id,
      saved.map((turn) => ({ ...turn, id: turn.id ?? crypto.randomUUID() })),
    );
  },
  async switchConversation(id) {
    if (state.phase !== 'idle') throw new Error('replica deepseek: cannot switch conversations while generating');
    history.pushState(null, '', `/a/chat/s/${id}`);
    setState({ turns: [] });
    await sleep(SWITCH_LOAD_MS);
    setState({ turns: loadConversation<Turn>(SITE, id) ?? [] });
  },
  conversationId: currentConversationId,
  composerText: () => composerValue,
  isStreaming: () => state.phase !== 'idle',
  lastTokenAt: () => lastTokenAt,
  isHeld: () => held,
  stop() {
    if (state.phase !== 'idle') stopRequested = true;
  },
  setTheme(theme) {
    if (theme === 'dark') document.body.setAttribute('data-ds-dark-theme', 'dark');
    else document.body.removeAttribute('data-ds-dark-theme');
  },
};
window.__replica = api;
