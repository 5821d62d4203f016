import { commonAncestor, defineSite, firstMatch, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: several undated scripts that agree on the list and bubble classes,
 * a Playwright script (code-index 55784646107, undated) for data-conv-outputting, 68894492423 for the deep-search
 * reasoning container, 2025 sources for the Quill composer and #yuanbao-send-btn, a later undated script for a
 * ProseMirror composer and div[dt-button-id="send_btn"], CodeWebChat 2026-08 (any contenteditable)). Confidence:
 * low-medium; the editor family is uncertain (Quill in 2025 sources, ProseMirror in a later one — both are found).
 *
 *   list       .agent-chat__list__content
 *   user       .agent-chat__list__item--human (text .hyc-content-text)
 *   assistant  .agent-chat__list__item--ai[data-conv-outputting="true"|"false"] (bubble .agent-chat__bubble--ai)
 *   answer     .hyc-content-md (→ .hyc-content-md-done when finished); in deep-search mode
 *              .hyc-component-deep-search-agent wraps the answer too
 *   thinking   .hyc-component-reasoner, .hyc-component-deep-search-agent__think-container — never read
 *   code       no public selector: pre (> code), language from a class or the header beside it
 *   composer   2025: .agent-chat__input-box .ql-editor (Quill); later: .agent-chat__input-wrapper .ProseMirror
 *   send       #yuanbao-send-btn / div[dt-button-id="send_btn"]; disabled by a class containing "disabled"
 *   generating data-conv-outputting="true" on the last reply; the send slot is taken as the stop control then
 *              (unverified). A page without the attribute gives no signal (text stability decides)
 *   url        /chat/<agentId>/<conversationId> (default agent naQivTmsDa)
 *   keys       no message ids known: position
 */

const THINKING_SELECTOR = '.hyc-component-reasoner, .hyc-component-deep-search-agent__think-container';
const SEND_SELECTORS = ['#yuanbao-send-btn', 'div[dt-button-id="send_btn"]', '.agent-chat__input-box [class*="send-btn"]'];

function roleOf(el: Element): MessageRole | null {
  if (el.classList.contains('agent-chat__list__item--human')) return 'user';
  if (el.classList.contains('agent-chat__list__item--ai')) return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  const parts = outermost(Array.from(msg.querySelectorAll('.hyc-content-md, .hyc-content-md-done')).filter((md) => !md.closest(THINKING_SELECTOR)));
  return parts.length > 0 ? commonAncestor(parts, msg) : null;
}

function outputting(doc: Document): boolean | undefined {
  const replies = doc.querySelectorAll('.agent-chat__list__item--ai[data-conv-outputting]');
  if (replies.length === 0) return undefined;
  return doc.querySelector('.agent-chat__list__item--ai[data-conv-outputting="true"]') !== null;
}

export const yuanbao = defineSite({
  id: 'yuanbao',
  name: 'Tencent Yuanbao',
  hosts: ['yuanbao.tencent.com'],
  editorFamily: 'quill',
  messageSelector: '.agent-chat__list__item--human, .agent-chat__list__item--ai',
  roleOf,
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .agent-chat__toolbar, ${THINKING_SELECTOR}`,
  codeBlockSelector: 'pre',
  codeLanguage: languageNearPre,
  codeText: preCodeText,
  editor(doc) {
    // .ql-clipboard is also contenteditable: every Quill selector names .ql-editor.
    return firstMatch(doc, [
      '.agent-chat__input-box .ql-editor[contenteditable="true"]',
      '.chat-input-editor .ql-editor[contenteditable="true"]',
      '.agent-chat__input-wrapper .ProseMirror[contenteditable="true"]',
      '.ql-editor[contenteditable="true"]',
      '.ProseMirror[contenteditable="true"]',
    ]);
  },
  sendButton: (doc) => firstMatch(doc, SEND_SELECTORS),
  isSendDisabled(button) {
    return isButtonDisabled(button) || /disabled/i.test(button.className) || outputting(button.ownerDocument) === true;
  },
  isGenerating: outputting,
  stopControl(doc) {
    return outputting(doc) === true ? firstMatch(doc, SEND_SELECTORS) : null;
  },
  conversationId(location) {
    const match = location.pathname.match(/^\/chat\/[A-Za-z0-9_-]+\/([A-Za-z0-9_-]{8,80})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
