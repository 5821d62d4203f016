import { commonAncestor, defineSite, firstMatch, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: MCP-SuperAssistant `openrouter.adapter.ts` 2026-01 (message test
 * ids, composer, send), CodeWebChat (native value setter; any .animate-spin as "generating", weak)). Confidence:
 * low-medium; code blocks have no public selector.
 *
 *   user       div[data-testid="user-message"]
 *   assistant  div[data-testid="assistant-message"]; a "room" can run several models, so one question may get
 *              several replies
 *   reasoning  a collapsible section toggled by button[id^="toggle-reasoning-char-"] — the box holding that toggle,
 *              and anything marked reasoning, is never read
 *   answer     the reply's markdown (.prose / [class*="markdown"]) outside the reasoning
 *   code       no public selector: pre (> code), language from a class or the header beside it
 *   composer   React textarea[data-testid="composer-input"] ("Start a new message..."): native value setter
 *   send       button[data-testid="send-button"] (aria "Send message" / "Send prompt")
 *   generating a stop button where one is labelled so; no reliable signal otherwise (text stability decides)
 *   url        /chat?room=orc-<timestamp>-<id>; chats live in the browser's IndexedDB
 *   keys       no message ids known: position
 */

const REASONING_SELECTOR = 'div:has(> button[id^="toggle-reasoning-"]), [id^="reasoning-"], [class*="reasoning" i]';
const STOP_SELECTORS = ['button[data-testid="stop-button"]', 'button[aria-label*="Stop" i]'];

function roleOf(el: Element): MessageRole | null {
  const id = el.getAttribute('data-testid');
  if (id === 'user-message') return 'user';
  if (id === 'assistant-message') return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  const parts = outermost(Array.from(msg.querySelectorAll('.prose, [class*="markdown" i]')).filter((md) => !md.closest(REASONING_SELECTOR)));
  if (parts.length > 0) return commonAncestor(parts, msg);
  return Array.from(msg.querySelectorAll('p, pre')).some((el) => !el.closest(REASONING_SELECTOR)) ? msg : null;
}

export const openrouter = defineSite({
  id: 'openrouter',
  name: 'OpenRouter chat',
  hosts: ['openrouter.ai'],
  matches: ['https://openrouter.ai/chat*'],
  editorFamily: 'react-textarea',
  messageSelector: '[data-testid="user-message"], [data-testid="assistant-message"]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .sr-only, ${REASONING_SELECTOR}`,
  codeBlockSelector: 'pre',
  codeLanguage: languageNearPre,
  codeText: preCodeText,
  editor: (doc) => firstMatch(doc, ['textarea[data-testid="composer-input"]', 'textarea[placeholder^="Start a new message"]']),
  sendButton: (doc) => firstMatch(doc, ['button[data-testid="send-button"]', 'button[aria-label="Send message"]', 'button[aria-label="Send prompt"]']),
  isSendDisabled: isButtonDisabled,
  // Only a labelled stop button is trusted; without one the page gives no signal rather than a false "finished".
  isGenerating: (doc) => (firstMatch(doc, STOP_SELECTORS) ? true : undefined),
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    if (!/^\/chat\/?$/.test(location.pathname) || !location.href) return null;
    const room = new URL(location.href).searchParams.get('room') ?? '';
    return /^[A-Za-z0-9_-]{4,120}$/.test(room) ? room : null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
