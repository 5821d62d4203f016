import {
  commonAncestor,
  defineSite,
  firstMatch,
  idAfter,
  isButtonDisabled,
  labelInBlock,
  languageClassOf,
  languageNearPre,
  outermost,
  positionKey,
  preCodeText,
  type MessageRole,
} from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: a Le Chat exporter userscript ~2025-11 (greasyfork 555673: turns,
 * answer body, code block), CodeWebChat `chatbots/mistral.ts` 2026-08 (reply footer, stop icon), MCP-SuperAssistant
 * 2025-06-19 / 07-23 (ProseMirror composer replacing the textarea, data-message-part-type)). Confidence: medium-low.
 *
 *   message    [data-message-author-role="user"|"assistant"][data-message-id]
 *   answer     the message's [data-message-part-type="answer"] parts (their common ancestor), else
 *              .markdown-container-style; other part types (reasoning, tool use — uncertain names) are never read
 *   user text  .select-text > span.whitespace-pre-wrap
 *   code       pre with a header label span.text-xs.capitalize and code.language-xxx (the class only where the
 *              highlighter writes one)
 *   composer   ProseMirror div.ProseMirror[contenteditable="true"] ("Ask Le Chat anything", since ~2025-06);
 *              before: textarea[name="message.text"]
 *   send       the composer form's button[type="submit"]; with an empty box a "Dictation" button holds the slot
 *   generating a stop icon (svg rect[rx="2"]) in the composer form — its button is the stop control
 *   url        2026 (captured live 2026-09, code-index 68629123359; saved pages link New chat to /work): /work →
 *              /work/<uuid>; before: /chat → /chat/<uuid>; /incognito
 *   keys       data-message-id
 */

const OTHER_PARTS = '[data-message-part-type]:not([data-message-part-type="answer"]), [class*="reasoning" i], [class*="thinking" i]';

function roleOf(el: Element): MessageRole | null {
  const role = el.getAttribute('data-message-author-role');
  return role === 'user' || role === 'assistant' ? role : null;
}

function answerRoot(msg: Element): Element | null {
  const parts = Array.from(msg.querySelectorAll('[data-message-part-type="answer"]'));
  if (parts.length > 0) return commonAncestor(outermost(parts), msg);
  return Array.from(msg.querySelectorAll('.markdown-container-style')).find((md) => !md.closest(OTHER_PARTS)) ?? null;
}

function stopButton(doc: Document): HTMLElement | null {
  const labelled = firstMatch(doc, ['form button[aria-label*="Stop" i]']);
  if (labelled) return labelled;
  // 2026-08: the stop icon is a small rounded square drawn in the composer form's button.
  const icon = doc.querySelector('form button svg rect[rx="2"]');
  return icon?.closest<HTMLElement>('button') ?? null;
}

export const mistral = defineSite({
  id: 'mistral',
  name: 'Mistral Le Chat',
  hosts: ['chat.mistral.ai'],
  editorFamily: 'prosemirror',
  messageSelector: '[data-message-author-role]',
  roleOf,
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .sr-only, span.text-xs.capitalize, ${OTHER_PARTS}`,
  codeBlockSelector: 'pre',
  // The span.text-xs.capitalize label is drawn in the pre, beside the code: a highlighter that writes no language-
  // class on the code (the label is then the only hint) left the call read as plain code.
  codeLanguage: (pre) => languageClassOf(pre) || labelInBlock(pre, 'span.text-xs.capitalize') || languageNearPre(pre),
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, [
      'form .ProseMirror[contenteditable="true"]',
      '.ProseMirror[contenteditable="true"]',
      'textarea[name="message.text"]',
    ]);
  },
  sendButton(doc) {
    return firstMatch(doc, ['form button[type="submit"]', 'button.bg-state-primary']);
  },
  isSendDisabled(button) {
    // The submit slot shows the stop icon while a reply streams: present, but not a send control then.
    return isButtonDisabled(button) || button.querySelector('svg rect[rx="2"]') !== null;
  },
  isGenerating(doc) {
    return stopButton(doc) !== null;
  },
  stopControl: stopButton,
  conversationId(location) {
    // 2026: conversations are at /work/<uuid> (New chat is /work); /chat/<uuid> before.
    return idAfter(location.pathname, '/work/') ?? idAfter(location.pathname, '/chat/');
  },
  messageKey(msg, position) {
    const id = msg.getAttribute('data-message-id');
    return id ? `m:${id}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});
