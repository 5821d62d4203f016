/**
 * The test control surface both replica chat pages put on `window.__replica` (main world). Tests drive the
 * page through it (what the "server" streams, what history a conversation has) and read back what reached the
 * page's OWN submit handler — the only thing a real chat site would have received.
 */
export type ReplicaSite = 'chatgpt' | 'deepseek' | 'claude' | 'gemini' | 'kimi' | 'zai' | 'grok' | 'perplexity' | 'plain' | 'editable';

export interface ReplicaTurn {
  role: 'user' | 'assistant';
  /** Markdown for assistant turns; plain text for user turns (sites show user text as typed). */
  text: string;
  /** DeepSeek only: a reasoning ("thinking") section shown above the answer. */
  reasoning?: string;
  /** Stable per message, kept across reloads like a real site's message ids. */
  id?: string;
}

export interface StreamOptions {
  /** Reasoning streamed before the answer (DeepSeek only). */
  reasoning?: string;
  /** Milliseconds between tokens (default 12). */
  tokenMs?: number;
  /** Characters per token, roughly (default 6). */
  tokenChars?: number;
  /** ChatGPT only: replace the streamed `.markdown` node wholesale when the reply is final, as the site does (default true). */
  replaceAtEnd?: boolean;
  /** The message id the "server" gives the reply (default: a fresh one) — the same reply seen in two tabs has one id. */
  messageId?: string;
  /**
   * The model pauses right after the streamed text first contains this string: the reply stays generating (stop
   * control showing) until it is stopped — by the page's own stop control or `stop()` — and then ends there, the
   * way the sites end a stopped reply (an unfinished fence is shown as a closed code block).
   */
  holdAt?: string;
}

export interface ReplicaApi {
  site: ReplicaSite;
  /** Every message that reached the page's submit handler, in order. */
  submitted: string[];
  /** Pastes the page turned into file attachments instead of text (ChatGPT's long pastes); absent where it never does. */
  pastedAttachments?: string[];
  /** Streams an assistant reply token by token, re-rendering the markdown after each token like the sites do. */
  stream(markdown: string, options?: StreamOptions): Promise<void>;
  /** Adds a finished user turn (as if sent earlier); does NOT go through the submit handler. */
  addUserTurn(text: string): void;
  /**
   * Stores a conversation the way the site's backend would; navigate to `conversationUrl(id)` to open it.
   * The page renders stored history synchronously at load, before any content script runs.
   */
  saveConversation(id: string, turns: ReplicaTurn[]): void;
  /**
   * Switches to a stored conversation inside the running app, the way the sites' sidebars do: the URL changes
   * (pushState) at once, the old turns go away, and the stored turns arrive a moment later (as from a fetch).
   */
  switchConversation(id: string): Promise<void>;
  /** The conversation id in the URL, or null on the start page. */
  conversationId(): string | null;
  /** The composer's text as the page's framework holds it (ProseMirror state / React state), not the DOM. */
  composerText(): string;
  /** A reply is streaming (the stop control is showing). */
  isStreaming(): boolean;
  /** `performance.now()` right after the latest streamed token was rendered (null before any); the bench times from it. */
  lastTokenAt(): number | null;
  /** The stream is paused at its `holdAt` text, waiting to be stopped. */
  isHeld(): boolean;
  /**
   * Ends the reply being generated the way the site's stop does, without anyone touching the page: the stand-in for
   * a reply the site or the network cut short. A person's stop is a real click on the page's stop control.
   */
  stop(): void;
  /**
   * ChatGPT and DeepSeek: switches the page's theme the way the site's own setting does — ChatGPT (2024–2026) puts
   * `class="dark"` and `color-scheme: dark` on <html> (`light` otherwise), DeepSeek (2025–2026) puts
   * `data-ds-dark-theme` on <body> and takes it away for light.
   */
  setTheme?(theme: 'light' | 'dark'): void;
}

declare global {
  interface Window {
    __replica: ReplicaApi;
  }
}

/** The path a conversation lives at on each site. */
/** How long a switched-to conversation takes to "load" in the replicas. */
export const SWITCH_LOAD_MS = 150;

export function conversationPath(site: ReplicaSite, id: string): string {
  const paths: Record<ReplicaSite, string> = { chatgpt: '/c/', deepseek: '/a/chat/s/', claude: '/chat/', gemini: '/app/', kimi: '/chat/', zai: '/c/', grok: '/c/', perplexity: '/search/', plain: '/chat/', editable: '/chat/' };
  return paths[site] + id;
}
