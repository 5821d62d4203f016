import { defineSite, firstMatch, idAfter, isButtonDisabled, languageNearPre, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract — from the site's own source (huggingface/chat-ui, HEAD c100c16, 2026-08-21, per SITES-MORE.md:
 * ChatMessage.svelte, CodeBlock.svelte, ChatInput.svelte; CodeWebChat 2026-08 for the reply footer). Confidence: high.
 *
 *   history    [aria-label="Conversation messages"]
 *   user       div[data-message-type="user"][data-message-id] (older: data-message-role="user")
 *   assistant  div[data-message-role="assistant"][data-message-id] (role="presentation"); markdown in .prose
 *   reasoning  OpenReasoningResults inside div[data-exclude-from-copy] (scrolling .thinking-viewport) — never read
 *   code       div.group.relative > sticky copy button (+ "Preview HTML") > pre > code with highlight.js spans. 2026
 *              builds put NO language in the DOM, so a fenced block's label is lost there and labelled blocks
 *              (mcp-request, flycode-call, act) are found only on builds that keep code.language-xxx (2024–25);
 *              auto_coder plans, which carry their own markers, are found either way
 *   composer   Svelte textarea (bind:value, placeholder "Ask anything")
 *   send       button[type="submit"][name="submit"][aria-label="Send message"]
 *   generating button.stop-generating-btn[aria-label="Stop generating"] — the stop control
 *   url        /chat/ → /chat/conversation/<id>; the content script runs under /chat only
 *   keys       data-message-id
 */

const STOP_SELECTORS = ['button.stop-generating-btn', 'button[aria-label="Stop generating"]'];

function roleOf(el: Element): MessageRole | null {
  if (el.getAttribute('data-message-type') === 'user' || el.getAttribute('data-message-role') === 'user') return 'user';
  if (el.getAttribute('data-message-role') === 'assistant') return 'assistant';
  return null;
}

export const huggingchat = defineSite({
  id: 'huggingchat',
  name: 'HuggingChat',
  hosts: ['huggingface.co'],
  matches: ['https://huggingface.co/chat*'],
  editorFamily: 'textarea',
  messageSelector: '[data-message-role], [data-message-type]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot(msg) {
    const prose = Array.from(msg.querySelectorAll('.prose')).find((md) => !md.closest('[data-exclude-from-copy]'));
    if (prose) return prose;
    // Builds without .prose: the message is the answer once it shows text outside the reasoning.
    const shown = Array.from(msg.querySelectorAll('p, pre, ul, ol')).some((el) => !el.closest('[data-exclude-from-copy]'));
    return shown ? msg : null;
  },
  skipSelector: '[data-chatbridge-chip], [data-chatbridge-indicator], button, [data-exclude-from-copy], .thinking-viewport',
  codeBlockSelector: 'pre',
  codeLanguage: languageNearPre,
  // 2026 builds draw no language: a block with none read may have been written ```mcp-request
  labelHidden: () => true,
  codeText: preCodeText,
  editor: (doc) => firstMatch(doc, ['form textarea[placeholder="Ask anything"]', 'form textarea', 'textarea[placeholder="Ask anything"]']),
  sendButton: (doc) => firstMatch(doc, ['button[type="submit"][name="submit"]', 'button[aria-label="Send message"]']),
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return firstMatch(doc, STOP_SELECTORS) !== null;
  },
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    return idAfter(location.pathname, '/chat/conversation/');
  },
  messageKey(msg, position) {
    const id = msg.getAttribute('data-message-id');
    return id ? `m:${id}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});
