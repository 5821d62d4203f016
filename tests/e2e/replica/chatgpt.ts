/**
 * A ChatGPT-like page with the Mar–Aug 2026 conversation DOM (SITES.md): `section[data-testid=conversation-turn-N]`
 * turns, `[data-message-author-role][data-message-id]` > `.markdown.prose`, code blocks as the read-only CodeMirror
 * viewer with a header label and no language class, and a REAL ProseMirror composer whose send button exists only
 * while the editor state holds text.
 */
import { baseKeymap } from 'prosemirror-commands';
import { keymap } from 'prosemirror-keymap';
import { Fragment, Slice } from 'prosemirror-model';
import { schema } from 'prosemirror-schema-basic';
import { EditorState } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
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

const SITE = 'chatgpt';

const renderMarkdown = createSiteRenderer({
  // 2026-07 capture: header label + icon-only copy button, then #code-block-viewer.cm-editor > .cm-scroller >
  // pre.cm-content > code > span, with no language-* class anywhere.
  codeBlock(text, label) {
    return (
      '<pre class="overflow-visible! px-0!"><div class="relative w-full mt-4 mb-1"><div class="contents">' +
      '<div class="border border-token-border-light rounded-3xl"><div class="h-full w-full overflow-clip rounded-3xl">' +
      '<div class="flex items-center text-token-text-secondary px-4 py-2 text-xs font-sans justify-between h-9 select-none">' +
      `<div class="flex items-center gap-1">${escapeHtml(label)}</div>` +
      '<div class="pointer-events-none absolute end-1.5 top-1"><button type="button" class="pointer-events-auto size-9 rounded-full" aria-label="Copy" data-state="closed"><svg width="20" height="20" aria-hidden="true"></svg></button></div>' +
      '</div><div class="relative"><div class="pe-11 pt-3"><div class="relative z-0 flex max-w-full">' +
      '<div id="code-block-viewer" dir="ltr" class="q9tKkq_viewer cm-editor z-10 flex h-full w-full flex-col items-stretch ͼs ͼ16">' +
      `<div class="cm-scroller"><pre class="cm-content q9tKkq_readonly m-0"><code><span>${escapeHtml(text)}</span></code></pre></div>` +
      '</div></div></div></div></div></div></div></div></pre>\n'
    );
  },
});

interface Turn extends ReplicaTurn {
  id: string;
}

const doc = document;
doc.title = 'ChatGPT';
doc.body.innerHTML =
  '<div id="__next"><div class="relative flex h-full w-full flex-col"><main class="relative h-full w-full flex-1">' +
  '<div id="thread" class="flex h-full flex-col"><div class="flex flex-col text-sm" id="replica-turns"></div>' +
  '<div id="thread-bottom-container" class="sticky bottom-0"><form class="w-full" data-type="unified-composer">' +
  '<div class="bg-token-bg-primary rounded-[28px] p-2.5"><div class="flex items-end">' +
  '<div class="max-h-52 flex-1 overflow-auto" id="replica-editor-slot"></div>' +
  '<div class="ms-auto flex items-center gap-1.5" data-testid="composer-trailing-actions" id="replica-trailing"></div>' +
  '</div></div></form></div></div></main></div></div>';

const turnsRoot = doc.getElementById('replica-turns') as HTMLElement;
const trailing = doc.getElementById('replica-trailing') as HTMLElement;
const form = doc.querySelector('form') as HTMLFormElement;

let turns: Turn[] = [];
let streaming = false;
let lastTokenAt: number | null = null;
let stopRequested = false;
let held = false;
const submitted: string[] = [];
/** Pastes the composer turned into a "Pasted text" attachment (over 10,000 characters, as ChatGPT does since 2026-08). */
const pastedAttachments: string[] = [];
const PASTE_ATTACHMENT_CHARS = 10_000;

function currentConversationId(): string | null {
  return /^\/c\/([0-9a-f-]{36})$/.exec(location.pathname)?.[1] ?? null;
}

function persist(): void {
  const id = currentConversationId();
  if (id !== null) storeConversation(SITE, id, turns);
}

// --- turns --------------------------------------------------------------------------------------------------

function turnShell(turn: Turn, index: number): { wrapper: HTMLElement; message: HTMLElement } {
  const wrapper = doc.createElement('div');
  wrapper.setAttribute('data-turn-id-container', turn.id);
  const section = doc.createElement('section');
  section.setAttribute('data-testid', `conversation-turn-${index + 1}`);
  section.setAttribute('data-turn', turn.role);
  section.setAttribute('data-turn-id', turn.id);
  section.setAttribute('data-scroll-anchor', 'false');
  section.className = 'text-token-text-primary w-full';
  const heading = doc.createElement('h4');
  heading.className = 'sr-only select-none';
  heading.textContent = turn.role === 'user' ? 'You said:' : 'ChatGPT said:';
  const message = doc.createElement('div');
  message.setAttribute('data-message-author-role', turn.role);
  message.setAttribute('data-message-id', turn.id);
  message.className = 'min-h-8 text-message relative flex w-full flex-col gap-2 text-start break-words';
  section.append(heading, message);
  wrapper.append(section);
  return { wrapper, message };
}

function renderUserTurn(turn: Turn, index: number): void {
  const { wrapper, message } = turnShell(turn, index);
  // User text is shown as typed (pre-wrap), never as markdown.
  message.innerHTML =
    '<div class="flex w-full flex-col gap-1 items-end"><div class="user-message-bubble-color relative rounded-[18px] px-4 py-1.5">' +
    `<div class="whitespace-pre-wrap">${escapeHtml(turn.text)}</div></div></div>`;
  turnsRoot.append(wrapper);
}

function addTurnActions(message: HTMLElement): void {
  const actions = doc.createElement('div');
  actions.className = 'flex justify-start turn-actions';
  actions.innerHTML = '<button data-testid="copy-turn-action-button" aria-label="Copy" class="rounded-lg"></button>';
  message.closest('section')?.append(actions);
}

function renderAssistantTurn(turn: Turn, index: number): HTMLElement {
  const { wrapper, message } = turnShell(turn, index);
  const body = doc.createElement('div');
  body.className = 'flex w-full flex-col gap-1 empty:hidden first:pt-[1px]';
  const markdown = doc.createElement('div');
  markdown.className = 'markdown prose dark:prose-invert w-full wrap-break-word light markdown-new-styling';
  markdown.innerHTML = renderMarkdown(turn.text);
  body.append(markdown);
  message.append(body);
  turnsRoot.append(wrapper);
  return message;
}

function renderHistory(): void {
  turns.forEach((turn, index) => {
    if (turn.role === 'user') renderUserTurn(turn, index);
    else addTurnActions(renderAssistantTurn(turn, index));
  });
}

// --- composer: a real ProseMirror editor -----------------------------------------------------------------------

const editorDom = doc.createElement('div');
editorDom.id = 'prompt-textarea';
(doc.getElementById('replica-editor-slot') as HTMLElement).append(editorDom);

function stateText(state: EditorState): string {
  return state.doc.textBetween(0, state.doc.content.size, '\n', '\n');
}

// ChatGPT's composer keeps blank lines of pasted text: one paragraph per line, empty ones included.
function textToSlice(text: string): Slice {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const paragraphs = lines.map((line) => schema.nodes.paragraph.create(null, line === '' ? null : schema.text(line)));
  return new Slice(Fragment.from(paragraphs), 1, 1);
}

function submitFromComposer(): boolean {
  const text = stateText(view.state).trim();
  if (text === '' || streaming) return false;
  submitted.push(stateText(view.state));
  for (const card of Array.from(form.querySelectorAll('[data-testid="composer-pasted-text-card"]'))) card.remove();
  view.dispatch(view.state.tr.delete(0, view.state.doc.content.size));
  const turn: Turn = { role: 'user', text: submitted[submitted.length - 1] ?? '', id: crypto.randomUUID() };
  turns.push(turn);
  renderUserTurn(turn, turns.length - 1);
  persist();
  return true;
}

const view: EditorView = new EditorView(
  { mount: editorDom },
  {
    state: EditorState.create({
      schema,
      plugins: [
        keymap({ Enter: () => submitFromComposer(), 'Shift-Enter': baseKeymap.Enter ?? (() => false) }),
        keymap(baseKeymap),
      ],
    }),
    attributes: {
      role: 'textbox',
      'aria-label': 'Chat with ChatGPT',
      'data-virtualkeyboard': 'true',
      translate: 'no',
    },
    clipboardTextParser: (text) => textToSlice(text),
    handlePaste(_view, event) {
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (text.length <= PASTE_ATTACHMENT_CHARS) return false;
      pastedAttachments.push(text);
      // drawn in the composer as the site does (a card above the box), sent with the next message
      const card = doc.createElement('section');
      card.setAttribute('data-testid', 'composer-pasted-text-card');
      card.setAttribute('role', 'group');
      card.innerHTML = '<span>Pasted text</span><button type="button" data-testid="remove-pasted-text-button" aria-label="Remove"></button>';
      form.prepend(card);
      return true;
    },
    dispatchTransaction(transaction) {
      view.updateState(view.state.apply(transaction));
      renderTrailingButton();
    },
  },
);

// With an empty composer the trailing button is the voice button; send exists only while the state has text;
// stop replaces it while a reply streams.
function renderTrailingButton(): void {
  const hasText = stateText(view.state).trim() !== '';
  const wanted = streaming ? 'stop' : hasText ? 'send' : 'voice';
  if (trailing.getAttribute('data-replica-button') === wanted) return;
  trailing.setAttribute('data-replica-button', wanted);
  trailing.replaceChildren();
  const button = doc.createElement('button');
  button.type = 'button';
  if (wanted === 'send') {
    button.id = 'composer-submit-button';
    button.setAttribute('data-testid', 'send-button');
    button.setAttribute('aria-label', 'Send prompt');
    button.className = 'composer-submit-btn composer-submit-button-color h-9 w-9';
    button.addEventListener('click', () => submitFromComposer());
  } else if (wanted === 'stop') {
    button.id = 'composer-submit-button';
    button.setAttribute('data-testid', 'stop-button');
    button.setAttribute('aria-label', 'Stop streaming');
    button.className = 'composer-submit-btn composer-secondary-button-color h-9 w-9';
    button.addEventListener('click', () => {
      stopRequested = true;
    });
  } else {
    button.setAttribute('aria-label', 'Start Voice');
    button.className = 'composer-btn h-9 w-9';
  }
  trailing.append(button);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  submitFromComposer();
});

// --- streaming -----------------------------------------------------------------------------------------------

async function stream(markdown: string, options: StreamOptions = {}): Promise<void> {
  if (streaming) throw new Error('replica chatgpt: a reply is already streaming');
  streaming = true;
  stopRequested = false;
  renderTrailingButton();
  const turn: Turn = { role: 'assistant', text: '', id: `request-placeholder-${crypto.randomUUID()}` };
  turns.push(turn);
  const index = turns.length - 1;
  const message = renderAssistantTurn(turn, index);
  const markdownEl = message.querySelector('.markdown') as HTMLElement;
  const rendered = new WeakMap<Node, string>();
  const tokens = splitTokens(markdown, options.tokenChars ?? 6);
  let text = '';
  for (const [n, token] of tokens.entries()) {
    if (stopRequested) break;
    await sleep(options.tokenMs ?? 12);
    if (n === 0) {
      // The real id arrives with the first streamed token; a new chat's route changes only now (replaceState).
      turn.id = options.messageId ?? crypto.randomUUID();
      message.setAttribute('data-message-id', turn.id);
      message.closest('section')?.setAttribute('data-turn-id', turn.id);
      if (currentConversationId() === null) history.replaceState(null, '', `/c/${crypto.randomUUID()}`);
    }
    text += token;
    reconcileBlocks(markdownEl, renderMarkdown(text), rendered);
    lastTokenAt = performance.now();
    if (options.holdAt !== undefined && !held && text.includes(options.holdAt)) {
      held = true;
      while (!stopRequested) await sleep(20);
      held = false;
    }
  }
  turn.text = text;
  if (options.replaceAtEnd !== false) {
    // The streaming .markdown node is replaced wholesale once the reply is final.
    const final = doc.createElement('div');
    final.className = markdownEl.className;
    final.innerHTML = renderMarkdown(text);
    markdownEl.replaceWith(final);
  }
  addTurnActions(message);
  streaming = false;
  renderTrailingButton();
  persist();
}

// --- boot ----------------------------------------------------------------------------------------------------

const openedId = currentConversationId();
if (openedId !== null) {
  turns = loadConversation<Turn>(SITE, openedId) ?? [];
  renderHistory();
}
renderTrailingButton();

const api: ReplicaApi = {
  site: SITE,
  submitted,
  pastedAttachments,
  stream,
  addUserTurn(text) {
    const turn: Turn = { role: 'user', text, id: crypto.randomUUID() };
    turns.push(turn);
    renderUserTurn(turn, turns.length - 1);
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
    if (streaming) throw new Error('replica chatgpt: cannot switch conversations while a reply streams');
    history.pushState(null, '', `/c/${id}`);
    turns = [];
    turnsRoot.replaceChildren();
    await sleep(SWITCH_LOAD_MS);
    turns = loadConversation<Turn>(SITE, id) ?? [];
    renderHistory();
  },
  conversationId: currentConversationId,
  composerText: () => stateText(view.state),
  isStreaming: () => streaming,
  lastTokenAt: () => lastTokenAt,
  isHeld: () => held,
  stop() {
    if (streaming) stopRequested = true;
  },
  setTheme(theme) {
    document.documentElement.className = theme;
    document.documentElement.style.colorScheme = theme;
  },
};
window.__replica = api;
