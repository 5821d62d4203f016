import { commonAncestor, defineSite, firstMatch, firstWordOutside, idAfter, languageClassOf, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

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
 *   message    .chat-content-item.chat-content-item-user | .chat-content-item-assistant (2026), which may wrap
 *              .segment.segment-user | .segment.segment-assistant; pages seen without the outer item
 *              (ZS 61934193286, validated 2026-07) have the .segment rows alone — both are messages (outermost wins)
 *   row        .segment = flex row [.segment-avatar | .segment-container > .segment-content]; .segment-content holds
 *              .segment-content-box (the reply), .okc-cards-container, then .segment-assistant-actions
 *   answer     the .segment-content-box(es) outside the reasoning. Inside one box, prose (.markdown-container, with or
 *              without a .markdown inside) and code (.segment-code) are SIBLINGS: reading only the prose misses
 *              every code block (ZS 2026-07). Pages without a content box: the nearest common ancestor of the
 *              .markdown / .markdown-container / .segment-code parts
 *   thinking   .thinking-container (a .toolcall-container; K2 thinking mode) — inside .segment-content-box on
 *              2026-07 pages, beside it on others — and .toolcall / .toolcall-flow (search and tool steps): never read
 *   code       variants, all read:
 *              2026-07 (ZS):  div.segment-code > .syntax-highlighter > pre.language-xxx (token spans, maybe no <code>)
 *              2026 (fixtures 59690473798, 71060453245): div.segment-code > header.segment-code-header
 *                (span.segment-code-lang, copy .icon-button) + .segment-code-content > pre > code.language-xxx
 *              plain markdown: pre > code.language-xxx; paragraphs are div.paragraph
 *              Prism line-number gutters (.line-numbers-rows) are left out of the text (plainText).
 *   composer   div.chat-input-editor[contenteditable="true"][data-lexical-editor="true"] (Lexical)
 *   send       .send-button-container (> svg.send-icon / div.send-button); class .disabled while empty, .stop while
 *              a reply streams (the same control stops it)
 *   url        / → /chat/<id> (20-character ids in 2026; uuids on the older domain)
 *   keys       no message ids in the DOM: position among messages
 */

const MESSAGE_SELECTOR = '.chat-content-item-user, .chat-content-item-assistant, .segment-user, .segment-assistant';
const THINKING_SELECTOR = '.thinking-container, .toolcall-container, .toolcall, .toolcall-flow, [class*="thinking" i]';
// 2026-07: the parts a reply's content box holds; prose and code are siblings.
const ANSWER_PART_SELECTOR = '.markdown, .markdown-container, .segment-code';

function roleOf(el: Element): MessageRole | null {
  if (el.matches('.chat-content-item-user, .segment-user')) return 'user';
  if (el.matches('.chat-content-item-assistant, .segment-assistant')) return 'assistant';
  return null;
}


function answerRoot(msg: Element): Element | null {
  // 2026-07: the content box holds every block of the reply; a box with only reasoning in it is no answer yet.
  const boxes = outermost(Array.from(msg.querySelectorAll('.segment-content-box')).filter((box) => !box.closest(THINKING_SELECTOR)));
  const answered = boxes.filter((box) => answerParts(box).length > 0);
  if (answered.length > 0) return commonAncestor(answered, msg);
  const parts = answerParts(msg);
  return parts.length > 0 ? commonAncestor(parts, msg) : null;
}

/** The outermost prose and code parts under `root` that are not reasoning or tool steps. */
function answerParts(root: Element): Element[] {
  return outermost(Array.from(root.querySelectorAll(ANSWER_PART_SELECTOR)).filter((part) => !part.closest(THINKING_SELECTOR)));
}

/** The label of a code block: the header's own label, else its first word of text, else a language- class. */
function codeLanguage(codeEl: Element): string {
  const label = codeEl.querySelector('.segment-code-lang')?.textContent?.trim();
  if (label) return label.split(/\s+/)[0] ?? '';
  const classed = languageClassOf(codeEl);
  if (classed) return classed;
  const header = codeEl.querySelector('.segment-code-header');
  return header ? firstWordOutside(header, 'button, [role="button"], .icon-button, [class*="copy" i]') : '';
}

function sendControl(doc: Document): HTMLElement | null {
  return firstMatch(doc, ['.send-button-container', 'div.send-button', '[data-testid="msh-chatinput-send-button"]']);
}

export const kimi = defineSite({
  id: 'kimi',
  name: 'Kimi',
  hosts: ['www.kimi.com', 'kimi.com', 'kimi.moonshot.cn'],
  editorFamily: 'lexical',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  // a 2026 .chat-content-item-assistant may still wrap .segment-assistant rows.
  messageNesting: 'outermost',
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, [role="button"], .segment-assistant-actions, .okc-cards-container, .icon-button, .rag-tag, ${THINKING_SELECTOR}`,
  codeBlockSelector: '.segment-code, pre',
  codeLanguage,
  codeText: preCodeText,
  editor(doc) {
    // 2026-07: editing an old message mounts a second .chat-input-editor above; the composer is the one in .chat-editor.
    // Without that wrapper (a build that renames it, or the composer's class) the composer is the last box the
    // fallbacks find, below the conversation: the first is the edit box, and a result typed there would go into the
    // person's old message.
    const composer = doc.querySelector<HTMLElement>('.chat-editor .chat-input-editor[contenteditable="true"]');
    if (composer) return composer;
    const boxes = doc.querySelectorAll<HTMLElement>(
      '.chat-input-editor[contenteditable="true"], [data-lexical-editor="true"][contenteditable="true"], [data-testid="msh-chatinput-editor"], .chat-input textarea',
    );
    return boxes[boxes.length - 1] ?? null;
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
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
