import { defineSite, firstMatch, idAfter, isButtonDisabled, labelInBlock, languageClassOf, languageNearPre, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: CodeWebChat `chatbots/copilot.ts` 2026-08 (reactions, copy, stop
 * test ids), OneClickPrompts (native value setter, "Stop responding"), discovery-oasis exporter 2025-11 (code block
 * wrapper), a Zotero userscript 2025-08). Confidence: medium-low.
 *
 *   root       div.max-w-chat[data-content="conversation"]
 *   user       [data-content="user-message"] (text in .whitespace-pre-wrap)
 *   assistant  [data-content="ai-message"] (also .group/ai-message-item); reactions
 *              div[data-testid="message-item-reactions"], copy button[data-testid="copy-ai-message-button"]
 *   thinking   "Think deeper" reasoning: no public selector ([class*="reasoning"], [class*="thinking"]) — never read
 *   code       div.rounded-xl wrapper > header with a .capitalize language label + pre (> code), the pre possibly in
 *              further boxes (a scroll box) inside the wrapper
 *   composer   React textarea#userInput (placeholder "Message Copilot"): native value setter + input event
 *   send       button[data-testid="submit-button"] (title "Submit message")
 *   generating button[data-testid="stop-button"] (title / aria-label "Stop responding") — the stop control
 *   url        / → /chats/<id>
 *   keys       no message ids known: position
 */

const THINKING_SELECTOR = '[class*="reasoning" i], [class*="thinking" i], [data-testid*="reasoning" i]';
const STOP_SELECTORS = ['button[data-testid="stop-button"]', 'button[aria-label="Stop responding"]', 'button[title="Stop responding"]'];

function roleOf(el: Element): MessageRole | null {
  const content = el.getAttribute('data-content');
  if (content === 'user-message') return 'user';
  if (content === 'ai-message') return 'assistant';
  return null;
}

export const copilot = defineSite({
  id: 'copilot',
  name: 'Microsoft Copilot',
  hosts: ['copilot.microsoft.com'],
  editorFamily: 'react-textarea',
  messageSelector: '[data-content="user-message"], [data-content="ai-message"]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot: (msg) => (msg.textContent?.trim() ? msg : null),
  // The code block's language label sits in a header outside the pre: skipped as text, read by codeLanguage.
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .sr-only, [data-testid="message-item-reactions"], .capitalize, ${THINKING_SELECTOR}`,
  codeBlockSelector: 'pre',
  // 2025-11: the .capitalize label is in the block's div.rounded-xl wrapper, which may hold the pre a few levels down
  // (in a scroll box): looked for only beside the pre or its parent, it was missed there, and the call read as plain code.
  codeLanguage: (pre) => languageClassOf(pre) || labelInBlock(pre, '.capitalize') || languageNearPre(pre),
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, ['textarea#userInput', 'textarea[placeholder*="Copilot" i]', 'form textarea']);
  },
  sendButton(doc) {
    return firstMatch(doc, ['button[data-testid="submit-button"]', 'button[title="Submit message"]', 'button[aria-label="Submit message"]']);
  },
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return firstMatch(doc, STOP_SELECTORS) !== null;
  },
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    return idAfter(location.pathname, '/chats/');
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
