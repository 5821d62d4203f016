import { commonAncestor, defineSite, firstMatch, idAfter, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: christofflick/t3-chatnavigator and MCP-SuperAssistant 2025-06
 * (message articles, composer), mannaswal/EnhanceChat ~2025 (send and "Cancel message"), a public clone
 * (code-index 31260781082) for the assistant's sr-only prefix). Confidence: low-medium; code blocks are not
 * documented (Shiki is likely: pre.shiki > code > span.line, a data-language attribute on some setups).
 *
 *   wrapper    [data-message-id]
 *   user       div[role="article"][aria-label="Your message"] with .prose
 *   assistant  div[role="article"][aria-label="Assistant message"] with an sr-only "Assistant Reply:" prefix
 *   reasoning  a collapsible "Reasoning" section (details / [class*="reasoning"]) — never read
 *   answer     the reply's .prose parts outside the reasoning (a part before and after a tool's card)
 *   code       pre (> code); Shiki lines (span.line) joined with newlines; language from a class, data-language or
 *              the header beside the block
 *   composer   React textarea#chat-input ("Type your message here…"): native value setter
 *   send       button[type="submit"][aria-label="Send message"], disabled while empty or streaming
 *   generating button[aria-label="Cancel message"] (~2025); without it the page gives no signal
 *   url        / → /chat/<uuid>
 *   keys       data-message-id
 */

const REASONING_SELECTOR = 'details, [class*="reasoning" i], [aria-label*="reasoning" i]';
const STOP_SELECTORS = ['button[aria-label="Cancel message"]', 'button[aria-label="Stop generating"]'];

function roleOf(el: Element): MessageRole | null {
  const label = el.getAttribute('aria-label') ?? '';
  if (label === 'Your message') return 'user';
  if (label === 'Assistant message') return 'assistant';
  return null;
}

export const t3chat = defineSite({
  id: 't3chat',
  name: 'T3 Chat',
  hosts: ['t3.chat'],
  editorFamily: 'react-textarea',
  messageSelector: '[role="article"][aria-label="Your message"], [role="article"][aria-label="Assistant message"]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot(msg) {
    // A reply with tool use (a web search) draws a .prose part before and after the tool's card: the answer is all
    // of them (the reasoning and the card's buttons inside their common box are skipped, skipSelector).
    const prose = outermost(Array.from(msg.querySelectorAll('.prose')).filter((md) => !md.closest(REASONING_SELECTOR)));
    return prose.length > 0 ? commonAncestor(prose, msg) : null;
  },
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .sr-only, ${REASONING_SELECTOR}`,
  codeBlockSelector: 'pre',
  codeLanguage: languageNearPre,
  // Shiki writes one span.line per line, with or without the newline as text between them: plainText reads both.
  codeText: preCodeText,
  editor: (doc) => firstMatch(doc, ['textarea#chat-input', 'textarea[placeholder^="Type your message"]', 'form textarea']),
  sendButton: (doc) => firstMatch(doc, ['button[type="submit"][aria-label="Send message"]', 'form button[type="submit"]']),
  isSendDisabled: isButtonDisabled,
  isGenerating: (doc) => (firstMatch(doc, STOP_SELECTORS) ? true : undefined),
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    return idAfter(location.pathname, '/chat/');
  },
  messageKey(msg, position) {
    const id = msg.closest('[data-message-id]')?.getAttribute('data-message-id');
    return id ? `m:${id}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});
