import { commonAncestor, defineSite, firstMatch, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: CodeWebChat `chatbots/doubao.ts` 2026-08 (action bar, copy, the
 * break button as the generating signal), several undated scripts that agree on the message test ids, the sibling
 * product Dola's virtual list (code-index 59091852708, 2026-08), a test fixture with local_ ids (71171684691)).
 * Confidence: medium for turns, low for code blocks (no public selector: any pre, its label read from beside it).
 *
 *   row        [data-testid="union_message"] (virtual list rows, div.v_list_row[data-observe-row] on Dola — off-screen
 *              rows are unmounted, spacer rows have no id)
 *   user       [data-testid="send_message"]
 *   assistant  [data-testid="receive_message"]; text parts [data-testid="message_text_content"] (.flow-markdown-body);
 *              action bar div[data-testid="message_action_bar"]
 *   thinking   a collapsed block with a hashed think-quota-block-… class — never read
 *   code       no public selector: pre (> code), language from a class or the header beside it
 *   composer   Semi Design textarea[data-testid="chat_input_input"] (.semi-input-textarea; a hidden class-less
 *              autosize mirror textarea exists and is never picked): native value setter + input event
 *   send       button#flow-end-msg-send / button[data-testid="chat_input_send_button"]
 *   generating div[data-testid="chat_input_local_break_button"] without its !hidden class (the stop control)
 *   url        /chat/ → /chat/<numeric id>; a local_<n> placeholder id comes first and is no conversation yet
 *   keys       no message ids known: position
 */

const THINKING_SELECTOR = '[class*="think-quota-block"], [class*="thinking" i], [data-testid*="think" i]';

function roleOf(el: Element): MessageRole | null {
  const id = el.getAttribute('data-testid');
  if (id === 'send_message') return 'user';
  if (id === 'receive_message') return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  const parts = outermost(
    Array.from(msg.querySelectorAll('[data-testid="message_text_content"], .flow-markdown-body')).filter((part) => !part.closest(THINKING_SELECTOR)),
  );
  return parts.length > 0 ? commonAncestor(parts, msg) : null;
}

/** The break (stop) button while it shows: CodeWebChat's signal is that it loses its !hidden class. */
function breakButton(doc: Document): HTMLElement | null {
  const candidates = doc.querySelectorAll<HTMLElement>('[data-testid="chat_input_local_break_button"], div[class*="break-btn-"]');
  for (const button of Array.from(candidates)) {
    if (!button.classList.contains('!hidden') && !button.hidden && button.getAttribute('aria-hidden') !== 'true') return button;
  }
  return null;
}

export const doubao = defineSite({
  id: 'doubao',
  name: 'Doubao',
  hosts: ['www.doubao.com', 'doubao.com'],
  editorFamily: 'react-textarea',
  messageSelector: '[data-testid="send_message"], [data-testid="receive_message"]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, [data-testid="message_action_bar"], ${THINKING_SELECTOR}`,
  codeBlockSelector: 'pre',
  codeLanguage: languageNearPre,
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, ['textarea[data-testid="chat_input_input"]', 'textarea.semi-input-textarea', '[data-testid="chat_input"] textarea[class]']);
  },
  sendButton(doc) {
    return firstMatch(doc, ['button#flow-end-msg-send', 'button[data-testid="chat_input_send_button"]']);
  },
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return breakButton(doc) !== null;
  },
  stopControl: breakButton,
  conversationId(location) {
    const match = location.pathname.match(/^\/chat\/(\d{6,30})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
