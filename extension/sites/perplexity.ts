import { defineSite, firstMatch, isButtonDisabled, languageNearPre, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: MCP-SuperAssistant `perplexity.adapter.ts` 2026-02 (composer
 * #ask-input, relayout fixed 2026-02-09), OneClickPrompts 2025-12 (submit button and its three disabled forms, a
 * main-world insert), CodeWebChat until 2026-01 (stop button), discovery-oasis exporter 2025-11 (turns, code
 * wrapper)). Confidence: medium; the code block has a single source.
 *
 *   turn       .max-w-threadContentWidth: one question and its answer
 *   user       div.group/query (the class is literally "group/query")
 *   answer     .prose (the answer's markdown, inside [id^="markdown-content-"] on some builds); search steps, sources
 *              and related questions sit outside it
 *   code       .codeWrapper > [data-testid="code-language-indicator"] (label) + pre > code; plain pre > code elsewhere
 *   composer   Lexical div#ask-input[contenteditable="true"][role="textbox"][data-lexical-editor="true"] (textarea
 *              before 2025-06) — DOM text written directly is reverted by Lexical
 *   send       button[data-testid="submit-button"][aria-label="Submit"], disabled by disabled, aria-disabled or
 *              data-disabled
 *   generating button[data-testid="stop-generating-response-button"] / button[aria-label="Stop"]
 *   url        / → /search/<slug-or-uuid>; /search/new?q= prefill
 *   keys       no message ids known: position
 */

const STOP_SELECTORS = ['button[data-testid="stop-generating-response-button"]', 'button[aria-label="Stop"]'];

function roleOf(el: Element): MessageRole | null {
  if (el.matches('[class*="group/query"]')) return 'user';
  if (el.matches('.prose')) return 'assistant';
  return null;
}

export const perplexity = defineSite({
  id: 'perplexity',
  name: 'Perplexity',
  hosts: ['www.perplexity.ai', 'perplexity.ai'],
  editorFamily: 'lexical',
  messageSelector: '[class*="group/query"], .prose',
  roleOf,
  // A query may render its text with .prose, and an answer may nest a .prose block: the outer element is the message.
  messageNesting: 'outermost',
  answerRoot: (msg) => msg,
  skipSelector: '[data-chatbridge-chip], [data-chatbridge-indicator], button, [role="button"], .sr-only, [class*="citation" i]',
  codeBlockSelector: '.codeWrapper, pre',
  codeLanguage(codeEl) {
    const label = codeEl.querySelector('[data-testid="code-language-indicator"]')?.textContent?.trim();
    return label ? (label.split(/\s+/)[0] ?? '') : languageNearPre(codeEl.querySelector('pre') ?? codeEl);
  },
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, [
      '#ask-input[contenteditable="true"]',
      '[data-lexical-editor="true"][contenteditable="true"]',
      'textarea#ask-input',
      'textarea[placeholder*="Ask" i]',
    ]);
  },
  sendButton(doc) {
    return firstMatch(doc, ['button[data-testid="submit-button"]', 'button[aria-label="Submit"]']);
  },
  isSendDisabled(button) {
    return isButtonDisabled(button) || (button.hasAttribute('data-disabled') && button.getAttribute('data-disabled') !== 'false');
  },
  isGenerating(doc) {
    return firstMatch(doc, STOP_SELECTORS) !== null;
  },
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    const match = location.pathname.match(/^\/search\/([A-Za-z0-9._-]{4,200})(?:\/|$)/);
    return match?.[1] && match[1] !== 'new' ? match[1] : null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
