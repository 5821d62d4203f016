import { defineSite, firstMatch, idAfter, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract (what replica pages must reproduce). Researched 2026-11 from other projects' adapters, exporters and
 * fixtures (public repositories robertpiosik/CodeWebChat `chatbots/kimi.ts` 2025–2026 (send container and its
 * .disabled class, .segment-assistant-actions-content), srbhptl39/MCP-SuperAssistant `adapters/kimi.adapter.ts`
 * (Lexical .chat-input-editor); code-index ids 55068265813 (2026-07 audit: .send-button-container is the clickable
 * control, thinking-mode .markdown inside .thinking-container), 55601120803 (.send-button-container.stop while
 * generating), 59690473798 and 71060453245 (fixtures: .toolcall markdown is not the answer; .segment-code header
 * with .segment-code-lang), 69594901623 (div.paragraph instead of <p>, language- classes on pre/code),
 * 51779107275 (/chat/<id> urls, 2026-03)):
 *
 *   message    .chat-content-item.chat-content-item-user | .chat-content-item-assistant
 *              (kimi.moonshot.cn 2024: .segment.segment-user | .segment-assistant, now redirected to kimi.com)
 *   answer     the .markdown (in .segment-content > .markdown-container) outside the reasoning; a reply with tool
 *              calls holds several, so the answer root is their nearest common ancestor
 *   thinking   .thinking-container (K2 thinking mode), .toolcall / .toolcall-flow (search and tool steps) — never read
 *   code       div.segment-code > header.segment-code-header (span.segment-code-lang, copy .icon-button)
 *              + .segment-code-content > pre > code.language-xxx; paragraphs are div.paragraph
 *   composer   div.chat-input-editor[contenteditable="true"][data-lexical-editor="true"] (Lexical)
 *   send       .send-button-container (> svg.send-icon / div.send-button); class .disabled while empty, .stop while
 *              a reply streams (the same control stops it)
 *   url        / → /chat/<id> (20-character ids in 2026; uuids on the older domain)
 *   keys       no message ids in the DOM: position among messages
 */

const MESSAGE_SELECTOR = '.chat-content-item-user, .chat-content-item-assistant, .segment-user, .segment-assistant';
const THINKING_SELECTOR = '.thinking-container, .toolcall, .toolcall-flow, [class*="thinking" i]';

function roleOf(el: Element): MessageRole | null {
  if (el.matches('.chat-content-item-user, .segment-user')) return 'user';
  if (el.matches('.chat-content-item-assistant, .segment-assistant')) return 'assistant';
  return null;
}


function answerRoot(msg: Element): Element | null {
  const answers = Array.from(msg.querySelectorAll('.markdown')).filter(
    (md) => !md.closest(THINKING_SELECTOR) && !md.parentElement?.closest('.markdown'),
  );
  if (answers.length === 0) return null;
  if (answers.length === 1) return answers[0] ?? null;
  let common: Element | null = answers[0]!.parentElement;
  while (common && common !== msg && !answers.every((el) => common!.contains(el))) common = common.parentElement;
  return common ?? msg;
}

function sendControl(doc: Document): HTMLElement | null {
  return firstMatch(doc, ['.send-button-container', 'div.send-button', '[data-testid="msh-chatinput-send-button"]']);
}

export const kimi = defineSite({
  id: 'kimi',
  name: 'Kimi',
  hosts: ['www.kimi.com', 'kimi.com', 'kimi.moonshot.cn'],
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  // a 2026 .chat-content-item-assistant may still wrap .segment-assistant rows.
  messageNesting: 'outermost',
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, [role="button"], .segment-assistant-actions, .icon-button, .rag-tag, ${THINKING_SELECTOR}`,
  codeBlockSelector: '.segment-code, pre',
  codeLanguage(codeEl) {
    const label = codeEl.querySelector('.segment-code-lang')?.textContent?.trim();
    if (label) return label.split(/\s+/)[0] ?? '';
    const classed = codeEl.querySelector('[class*="language-"]') ?? (codeEl.className.includes('language-') ? codeEl : null);
    return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? '';
  },
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, [
      '.chat-input-editor[contenteditable="true"]',
      '[data-lexical-editor="true"][contenteditable="true"]',
      '[data-testid="msh-chatinput-editor"]',
      '.chat-input textarea',
    ]);
  },
  sendButton: sendControl,
  isSendDisabled(button) {
    const container = button.closest('.send-button-container') ?? button;
    return (
      container.classList.contains('disabled') ||
      container.classList.contains('stop') ||
      button.getAttribute('aria-disabled') === 'true' ||
      (button as HTMLButtonElement).disabled === true
    );
  },
  isGenerating(doc) {
    // 2026-07: the send container turns into stop while a reply streams.
    return firstMatch(doc, ['.send-button-container.stop', '.send-button-container .stop-icon']) !== null;
  },
  stopControl(doc) {
    // 2026-07: the send container (not a button) is the stop control while it carries .stop.
    return firstMatch(doc, ['.send-button-container.stop']) ?? doc.querySelector('.send-button-container .stop-icon')?.closest<HTMLElement>('.send-button-container') ?? null;
  },
  conversationId(location) {
    return idAfter(location.pathname, '/chat/');
  },
  messageKey: (_msg, position) => `p:${position}`,
  feedbackIntervalMs: 10_000,
});
