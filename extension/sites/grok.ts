import { defineSite, firstMatch, firstWordOutside, idAfter, isButtonDisabled, languageClassOf, outermost, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: defuddle `extractors/grok.ts` 2026-07 (turns, bubble, answer,
 * DeepSearch card), discovery-oasis exporter 2025-11 (code block), CodeWebChat `chatbots/grok.ts` 2026-08 (composer,
 * action bar), OneClickPrompts 2025-10/11 and parallel-ai 2026-05 (TipTap composer, Submit / Stop labels),
 * MCP-SuperAssistant and a Zotero userscript 2025-08 (the textarea composer before ~2025-10)). Confidence: medium.
 *
 *   turn       div.relative.group.flex.flex-col.justify-center.w-full — .items-end (the person) or .items-start (Grok);
 *              often carrying id="response-<id>"
 *   message    .message-bubble inside the turn
 *   answer     .response-content-markdown; the DeepSearch card (.border-border-l1.bg-surface-base) and the
 *              thinking panel (no public selector: [class*="thinking"]) sit beside it and are never read
 *   code       [data-testid="code-block"] > label .font-mono.text-xs + copy button + pre > code (highlight spans)
 *   composer   TipTap div.tiptap.ProseMirror[contenteditable="true"] (.is-empty while empty; since ~2025-10);
 *              before: textarea[aria-label="Ask Grok anything"]
 *   send       button[type="submit"][aria-label="Submit"], disabled while the composer is empty
 *   generating button[aria-label="Stop model response"] (the stop control); labelled in the page's language, it
 *              draws a rounded square (CodeWebChat 2026-08) in the composer form
 *   url        / → /c/<uuid> (?rid=<response id> sometimes); private chats /c#private; a project's chats
 *              /project/<project id>?chat=<uuid> (links to them in saved reports, 2026-06)
 *   keys       the turn's response-<id> where present, else position
 */

const THINKING_SELECTOR = '.border-border-l1.bg-surface-base, [class*="thinking" i], [class*="think-" i]';
/**
 * 2026-08 (CodeWebChat): the composer's stop button draws a rounded square, in any language; its label is in the
 * page's language, so on a page in another language the icon alone names it.
 */
const STOP_ICON_BUTTON =
  'form button:has(path[d="M4 9.2v5.6c0 1.116 0 1.673.11 2.134a4 4 0 0 0 2.956 2.956c.46.11 1.018.11 2.134.11h5.6c1.116 0 1.673 0 2.134-.11a4 4 0 0 0 2.956-2.956c.11-.46.11-1.018.11-2.134V9.2c0-1.116 0-1.673-.11-2.134a4 4 0 0 0-2.956-2.955C16.474 4 15.916 4 14.8 4H9.2c-1.116 0-1.673 0-2.134.11a4 4 0 0 0-2.955 2.956C4 7.526 4 8.084 4 9.2Z"])';
const STOP_SELECTORS = ['button[aria-label="Stop model response"]', 'form button[aria-label*="Stop" i]', STOP_ICON_BUTTON];

function roleOf(el: Element): MessageRole | null {
  // The turn row says the side; inner rows may align their own children, so the turn is found first.
  const turn = el.closest('div.group.flex-col.w-full') ?? el.closest('.items-end, .items-start');
  if (turn?.classList.contains('items-end')) return 'user';
  if (turn?.classList.contains('items-start')) return 'assistant';
  return el.querySelector('.response-content-markdown') ? 'assistant' : null;
}

export const grok = defineSite({
  id: 'grok',
  name: 'Grok',
  hosts: ['grok.com'],
  editorFamily: 'tiptap',
  messageSelector: '.message-bubble',
  roleOf,
  messageNesting: 'outermost',
  answerRoot(msg) {
    const answers = outermost(Array.from(msg.querySelectorAll('.response-content-markdown')).filter((md) => !md.closest(THINKING_SELECTOR)));
    return answers[0] ?? null;
  },
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .action-buttons, .sr-only, ${THINKING_SELECTOR}`,
  codeBlockSelector: '[data-testid="code-block"], pre',
  codeLanguage(codeEl) {
    // The label is never inside the code: a code element drawn with the same utility classes (`font-mono text-xs
    // sm:text-sm` in a narrow window) would give the code's first word as the language.
    const label = Array.from(codeEl.querySelectorAll('.font-mono.text-xs'))
      .find((el) => !el.closest('code') && [null, codeEl].includes(el.closest('pre')))
      ?.textContent?.trim();
    if (label) return label.split(/\s+/)[0] ?? '';
    return languageClassOf(codeEl) || firstWordOutside(codeEl, 'button, pre, code, svg');
  },
  codeText: preCodeText,
  editor(doc) {
    return firstMatch(doc, [
      '.tiptap.ProseMirror[contenteditable="true"]',
      'form .ProseMirror[contenteditable="true"]',
      'textarea[aria-label="Ask Grok anything"]',
      'form textarea',
    ]);
  },
  sendButton(doc) {
    return firstMatch(doc, ['button[type="submit"][aria-label="Submit"]', 'form button[type="submit"]']);
  },
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return firstMatch(doc, STOP_SELECTORS) !== null;
  },
  stopControl: (doc) => firstMatch(doc, STOP_SELECTORS),
  conversationId(location) {
    // 2026-06: a project's chat is /project/<project id>?chat=<chat id>; the project's page alone is no chat.
    if (/^\/project\/[A-Za-z0-9_-]+\/?$/.test(location.pathname) && location.href) {
      const chat = new URL(location.href).searchParams.get('chat') ?? '';
      return idAfter(`/${chat}`, '/');
    }
    return idAfter(location.pathname, '/c/');
  },
  messageKey(msg, position) {
    const id = msg.closest('[id^="response-"]')?.id.slice('response-'.length);
    return id ? `r:${id}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});
