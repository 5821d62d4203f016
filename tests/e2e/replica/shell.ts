/**
 * The chat page around an editor-family replica: turns, streamed replies, conversations in localStorage, the send
 * control's states and the `window.__replica` test API. Each family page (claude.ts, gemini.ts, kimi.ts) gives the
 * site's own markup and mounts the REAL editor library as its composer; this shell only decides when text is sent.
 */
import { SWITCH_LOAD_MS } from './api';
import type { ReplicaApi, ReplicaSite, ReplicaTurn, StreamOptions } from './api';
import { loadConversation, reconcileBlocks, sleep, splitTokens, storeConversation } from './render';

export interface Turn extends ReplicaTurn {
  id: string;
}

/** The composer as the page's editor framework holds it. */
export interface Composer {
  /** The text the framework would send (its state, not the DOM). */
  text(): string;
  clear(): void;
}

/** What the page's send slot shows: nothing typed, text typed, a reply streaming. */
export type ControlState = 'empty' | 'text' | 'streaming';

export interface FamilyPage {
  site: ReplicaSite;
  title: string;
  /** The conversation id in a path, or null (the start page). */
  conversationId(pathname: string): string | null;
  /** The path a new conversation moves to on its first send. */
  newConversationPath(): string;
  /** Builds the page; returns where turns go, where the editor mounts and the send slot. */
  layout(body: HTMLElement): { turns: HTMLElement; editor: HTMLElement; control: HTMLElement };
  /** A user turn's element (appended to `turns`). */
  userTurn(turn: Turn): HTMLElement;
  /** An assistant turn's element and the node its markdown is rendered into. */
  assistantTurn(turn: Turn): { root: HTMLElement; answer: HTMLElement };
  /** Marks an assistant turn as streaming or finished (attributes the site's generating signal reads). */
  setTurnStreaming?(root: HTMLElement, streaming: boolean): void;
  renderMarkdown(markdown: string): string;
  /** Draws the send slot for `state` into `slot` (called only when the state changes). */
  drawControl(slot: HTMLElement, state: ControlState, actions: { send(): void; stop(): void }): void;
  /** Mounts the real editor; `changed` after every state change, `enter` when Enter (no Shift) should send. */
  mountComposer(slot: HTMLElement, hooks: { changed(): void; enter(): boolean }): Composer;
}

export function startFamilyPage(page: FamilyPage): void {
  const { site } = page;
  document.title = page.title;
  const slots = page.layout(document.body);
  let turns: Turn[] = [];
  let streaming = false;
  let stopRequested = false;
  let held = false;
  let lastTokenAt: number | null = null;
  let drawn: ControlState | null = null;
  const submitted: string[] = [];

  const currentId = (): string | null => page.conversationId(location.pathname);
  const persist = (): void => {
    const id = currentId();
    if (id !== null) storeConversation(site, id, turns);
  };

  const renderTurn = (turn: Turn): void => {
    if (turn.role === 'user') {
      slots.turns.append(page.userTurn(turn));
      return;
    }
    const { root, answer } = page.assistantTurn(turn);
    answer.innerHTML = page.renderMarkdown(turn.text);
    page.setTurnStreaming?.(root, false);
    slots.turns.append(root);
  };

  const send = (): boolean => {
    const text = composer.text();
    if (text.trim() === '' || streaming) return false;
    submitted.push(text);
    composer.clear();
    if (currentId() === null) history.pushState(null, '', page.newConversationPath());
    const turn: Turn = { role: 'user', text, id: crypto.randomUUID() };
    turns.push(turn);
    renderTurn(turn);
    persist();
    return true;
  };

  const drawControl = (): void => {
    const state: ControlState = streaming ? 'streaming' : composer.text().trim() === '' ? 'empty' : 'text';
    if (state === drawn) return;
    drawn = state;
    page.drawControl(slots.control, state, {
      send: () => void send(),
      stop: () => {
        if (streaming) stopRequested = true;
      },
    });
  };

  const composer = page.mountComposer(slots.editor, { changed: () => drawControl(), enter: send });

  async function stream(markdown: string, options: StreamOptions = {}): Promise<void> {
    if (streaming) throw new Error(`replica ${site}: a reply is already streaming`);
    streaming = true;
    stopRequested = false;
    // A reply belongs to a conversation: a start page gets its conversation's address once the reply begins.
    if (currentId() === null) history.replaceState(null, '', page.newConversationPath());
    drawControl();
    const turn: Turn = { role: 'assistant', text: '', id: options.messageId ?? crypto.randomUUID() };
    turns.push(turn);
    const { root, answer } = page.assistantTurn(turn);
    page.setTurnStreaming?.(root, true);
    slots.turns.append(root);
    const rendered = new WeakMap<Node, string>();
    let text = '';
    for (const token of splitTokens(markdown, options.tokenChars ?? 6)) {
      if (stopRequested) break;
      await sleep(options.tokenMs ?? 12);
      text += token;
      reconcileBlocks(answer, page.renderMarkdown(text), rendered);
      lastTokenAt = performance.now();
      if (options.holdAt !== undefined && !held && text.includes(options.holdAt)) {
        held = true;
        while (!stopRequested) await sleep(20);
        held = false;
      }
    }
    turn.text = text;
    page.setTurnStreaming?.(root, false);
    streaming = false;
    drawControl();
    persist();
  }

  const openedId = currentId();
  if (openedId !== null) {
    turns = loadConversation<Turn>(site, openedId) ?? [];
    turns.forEach(renderTurn);
  }
  drawControl();

  const api: ReplicaApi = {
    site,
    submitted,
    stream,
    addUserTurn(text) {
      const turn: Turn = { role: 'user', text, id: crypto.randomUUID() };
      turns.push(turn);
      renderTurn(turn);
      persist();
    },
    saveConversation(id, saved) {
      storeConversation(site, id, saved.map((turn) => ({ ...turn, id: turn.id ?? crypto.randomUUID() })));
    },
    async switchConversation(id) {
      if (streaming) throw new Error(`replica ${site}: cannot switch conversations while a reply streams`);
      const path = page.newConversationPath().replace(/[^/]+$/, id);
      history.pushState(null, '', path);
      turns = [];
      slots.turns.replaceChildren();
      await sleep(SWITCH_LOAD_MS);
      turns = loadConversation<Turn>(site, id) ?? [];
      turns.forEach(renderTurn);
    },
    conversationId: currentId,
    composerText: () => composer.text(),
    isStreaming: () => streaming,
    lastTokenAt: () => lastTokenAt,
    isHeld: () => held,
    stop() {
      if (streaming) stopRequested = true;
    },
  };
  window.__replica = api;
}

/** An element from markup (one root). */
export function element(html: string): HTMLElement {
  const template = document.createElement('template');
  template.innerHTML = html.trim();
  return template.content.firstElementChild as HTMLElement;
}
