import { commonAncestor, defineSite, firstMatch, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: several undated scripts that agree on the list and bubble classes,
 * a Playwright script (code-index 55784646107, undated) for data-conv-outputting, 68894492423 for the deep-search
 * reasoning container, 55068265813 (a live audit, 2026-07: answer body, deep-thinking section, send icon), 2025
 * sources for the Quill composer and #yuanbao-send-btn, a later undated script for a ProseMirror composer and
 * div[dt-button-id="send_btn"], CodeWebChat 2026-08 (any contenteditable, the stop icon)). Confidence:
 * low-medium; the editor family is uncertain (Quill in 2025 sources, ProseMirror in a later one — both are found).
 *
 *   list       .agent-chat__list__content
 *   user       .agent-chat__list__item--human (text .hyc-content-text)
 *   assistant  .agent-chat__list__item--ai[data-conv-outputting="true"|"false"] (bubble .agent-chat__bubble--ai)
 *   answer     .hyc-content-md (→ .hyc-content-md-done when finished); in deep-search mode
 *              .hyc-component-deep-search-agent wraps the answer too; 2026-07: .hyc-common-markdown in
 *              .agent-chat__conv--ai__speech_show
 *   thinking   .hyc-component-reasoner, .hyc-component-deep-search-agent__think-container, 2026-07:
 *              .hyc-component-deepsearch-cot__think (its bodies are .hyc-common-markdown too) — never read
 *   code       no public selector: pre (> code), language from a class or the header beside it
 *   composer   2025: .agent-chat__input-box .ql-editor (Quill); later: .agent-chat__input-wrapper .ProseMirror
 *   send       #yuanbao-send-btn / div[dt-button-id="send_btn"] / 2026-07: span.icon-send; disabled by a class
 *              containing "disabled"
 *   generating data-conv-outputting="true" on the last reply; the send slot is taken as the stop control then
 *              (unverified). 2026-08 (CodeWebChat): the stop icon (svg rect x=7.71448) in the send slot — its
 *              control is the stop control. A page with neither gives no signal (text stability decides)
 *   url        /chat/<agentId>/<conversationId> (default agent naQivTmsDa)
 *   keys       no message ids known: position
 */

// 2026-07 (a live audit, code-index 55068265813): the deep-thinking section is .hyc-component-deepsearch-cot__think and
// holds markdown bodies of the answer's own class.
const MESSAGE_SELECTOR = '.agent-chat__list__item--human, .agent-chat__list__item--ai';
const THINKING_SELECTOR = '.hyc-component-reasoner, .hyc-component-deep-search-agent__think-container, .hyc-component-deepsearch-cot__think';
// 2026-07: the send control is an icon-font span.icon-send.
const SEND_SELECTORS = ['#yuanbao-send-btn', 'div[dt-button-id="send_btn"]', '.agent-chat__input-box [class*="send-btn"]', '.icon-send'];
/** The answer's markdown bodies: .hyc-content-md (-done once finished); 2026-07: .hyc-common-markdown. */
const ANSWER_PART_SELECTOR = '.hyc-content-md, .hyc-content-md-done, .hyc-common-markdown';

function roleOf(el: Element): MessageRole | null {
  if (el.classList.contains('agent-chat__list__item--human')) return 'user';
  if (el.classList.contains('agent-chat__list__item--ai')) return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  const parts = outermost(Array.from(msg.querySelectorAll(ANSWER_PART_SELECTOR)).filter((md) => !md.closest(THINKING_SELECTOR)));
  return parts.length > 0 ? commonAncestor(parts, msg) : null;
}

/**
 * 2026-08 (CodeWebChat): the send slot draws the stop icon (a rect at x=7.71448) while a reply is written, the one
 * signal on a build whose replies carry no data-conv-outputting: the control holding it is the stop control.
 */
/**
 * A markdown body read as answer that stands in a wrapper of its own beside the answer's body: the reasoning draws its
 * bodies with the answer's classes (2026-07), so one whose reasoning section a redesign renamed is told only by that
 * wrapper. Its first words; null when the answer's bodies stand side by side (or there is one).
 */
function unplacedRegion(msg: Element): string | null {
  const parts = outermost(Array.from(msg.querySelectorAll(ANSWER_PART_SELECTOR)).filter((md) => !md.closest(THINKING_SELECTOR)));
  if (parts.length < 2) return null;
  const root = commonAncestor(parts, msg);
  const apart = parts.find((part) => part.parentElement !== root && part.querySelector('pre'));
  if (!apart) return null;
  const words = (apart.textContent ?? '').trim().replace(/\s+/g, ' ');
  return words.length > 24 ? `${words.slice(0, 24)}…` : words;
}

function stopIcon(doc: Document): HTMLElement | null {
  const icon = Array.from(doc.querySelectorAll('rect[x="7.71448"]')).find((rect) => !rect.closest(MESSAGE_SELECTOR));
  if (!icon) return null;
  return icon.closest<HTMLElement>('[dt-button-id], #yuanbao-send-btn, button, [role="button"], a') ?? icon.closest('svg')?.parentElement ?? null;
}

function outputting(doc: Document): boolean | undefined {
  if (stopIcon(doc)) return true;
  const replies = doc.querySelectorAll('.agent-chat__list__item--ai[data-conv-outputting]');
  if (replies.length === 0) return undefined;
  return doc.querySelector('.agent-chat__list__item--ai[data-conv-outputting="true"]') !== null;
}

export const yuanbao = defineSite({
  id: 'yuanbao',
  name: 'Tencent Yuanbao',
  hosts: ['yuanbao.tencent.com'],
  editorFamily: 'quill',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  answerRoot,
  unplacedRegion,
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
    return outputting(doc) === true ? (stopIcon(doc) ?? firstMatch(doc, SEND_SELECTORS)) : null;
  },
  conversationId(location) {
    const match = location.pathname.match(/^\/chat\/[A-Za-z0-9_-]+\/([A-Za-z0-9_-]{8,80})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
