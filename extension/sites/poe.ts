import { defineSite, firstMatch, idAfter, isButtonDisabled, languageNearPre, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: a Zotero GPT userscript 2025-08 (turn classes, action bar as
 * "done", raw markdown in React props), KoriIku/poe-exporter ~2025 (bubbles, markdown container, code header), a 2023
 * script for the code header). CSS-module classes carry hashed suffixes, so every selector matches a name prefix
 * (`Name_local__`). Confidence: low-medium.
 *
 *   tuple      [class*="ChatMessagesView_messageTuple__"]
 *   message    [class*="ChatMessage_chatMessage__"] > [class*="Message_…Bubble__"]: the right-side (human) or
 *              left-side (bot) bubble says the role
 *   answer     [class*="Markdown_markdownContainer__"] (or Message_selectableText__)
 *   done       [class*="ChatMessageActionBar_actionBar__"] appears under a finished reply
 *   code       [class*="MarkdownCodeBlock_codeHeader__"] (language in a child div) + pre > code.language-xxx
 *   composer   React textarea[class*="GrowingTextArea_textArea__"]: native value setter + input event
 *   send       button[data-button-send="true"] / button[aria-label="Send message"]
 *   generating [aria-label="Stop message"] (ChatStopMessageButton_…) — the stop control
 *   url        /chat/<id>; bot pages /<BotName>
 *   keys       no message ids known: position
 */

const STOP_SELECTORS = ['button[aria-label="Stop message"]', '[class*="ChatStopMessageButton_"]'];

function roleOf(el: Element): MessageRole | null {
  const bubble = el.querySelector('[class*="Bubble__"]')?.className ?? '';
  if (/rightSide|human/i.test(bubble)) return 'user';
  if (/leftSide|bot/i.test(bubble)) return 'assistant';
  return null;
}

export const poe = defineSite({
  id: 'poe',
  name: 'Poe',
  hosts: ['poe.com'],
  editorFamily: 'react-textarea',
  messageSelector: '[class*="ChatMessage_chatMessage__"]',
  roleOf,
  messageNesting: 'outermost',
  answerRoot(msg) {
    return outermost(Array.from(msg.querySelectorAll('[class*="Markdown_markdownContainer__"], [class*="Message_selectableText__"]')))[0] ?? null;
  },
  skipSelector:
    '[data-chatbridge-chip], [data-chatbridge-indicator], button, [class*="MarkdownCodeBlock_codeHeader__"], [class*="ChatMessageActionBar_"], [class*="thinking" i]',
  codeBlockSelector: 'pre',
  codeLanguage(codeEl) {
    const classed = languageNearPre(codeEl);
    if (classed) return classed;
    const header = codeEl.parentElement?.querySelector('[class*="MarkdownCodeBlock_languageName__"], [class*="MarkdownCodeBlock_codeHeader__"] > div');
    return header?.textContent?.trim().split(/\s+/)[0] ?? '';
  },
  codeText: preCodeText,
  editor: (doc) => firstMatch(doc, ['textarea[class*="GrowingTextArea_textArea__"]', 'footer textarea', 'textarea[placeholder*="Message" i]']),
  sendButton: (doc) => firstMatch(doc, ['button[data-button-send="true"]', 'button[aria-label="Send message"]', 'button[class*="ChatMessageSendButton_sendButton__"]']),
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return firstMatch(doc, STOP_SELECTORS) !== null;
  },
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    return idAfter(location.pathname, '/chat/');
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
