import { defineSite, firstMatch, plainText, positionKey } from './define-site';

/*
 * DOM contract (what replica pages must reproduce; sources in SITES.md: adkeb/flycode selectors and test 2026-03,
 * MCP-SuperAssistant PR #206 (div role=button) 2026-09, captures of rows and the send/stop control 2026-10-02/04):
 *
 *   message    .ds-message (rows of a virtual list; off-screen rows may be unmounted)
 *              user message: has a direct child .fbb737a4; assistant message: holds a .ds-markdown
 *   reasoning  .ds-think-content .ds-markdown            (never read)
 *   answer     the .ds-markdown outside .ds-think-content
 *   code       .md-code-block > .md-code-block-banner-wrap (…span.d813de27 = language label, Copy/Download buttons)
 *              followed by a bare <pre> holding Prism token spans (no <code>)
 *   composer   textarea#chat-input (React-controlled)
 *   send/stop  div[role="button"].ds-button.ds-button--circle near the composer; disabled by .ds-button--disabled;
 *              the same element is the stop button while generating (square icon) and shows div.ds-loading while
 *              connecting. 2025: div._7436101[role="button"][aria-disabled]
 *   url        / → /a/chat/s/<uuid> on the first send
 */

const MESSAGE_SELECTOR = '.ds-message';

function answerMarkdown(msg: Element): Element | null {
  // 2026-11: the answer is a direct child of the message; looking there first spares a walk of every code token.
  for (const child of Array.from(msg.children)) if (child.classList.contains('ds-markdown') && !child.closest('.ds-think-content')) return child;
  for (const md of Array.from(msg.querySelectorAll('.ds-markdown'))) {
    // 2026-11: reasoning is .ds-think-content .ds-markdown; the answer is the other one.
    if (md.closest('.ds-think-content')) continue;
    if (md.parentElement?.closest('.ds-markdown')) continue;
    return md;
  }
  return null;
}

export const deepseek = defineSite({
  id: 'deepseek',
  name: 'DeepSeek',
  hosts: ['chat.deepseek.com'],
  editorFamily: 'react-textarea',
  messageSelector: MESSAGE_SELECTOR,
  roleOf(el) {
    // 2026-11: the user bubble is a direct .fbb737a4 child; fall back on "has an answer body".
    if (Array.from(el.children).some((child) => child.classList.contains('fbb737a4'))) return 'user';
    return answerMarkdown(el) ? 'assistant' : 'user';
  },
  answerRoot: answerMarkdown,
  skipSelector:
    '[data-chatbridge-chip], [data-chatbridge-indicator], .ds-think-content, .md-code-block-banner-wrap, button, [role="button"]',
  codeBlockSelector: '.md-code-block, pre',
  codeLanguage(codeEl) {
    // The banner holds the Copy and Download buttons too: a build that draws its label in another element must not
    // have their words (复制, Copy) read as the language, which turns a call into plain code no one is told about.
    const label =
      firstMatch<Element>(codeEl, ['.md-code-block-banner-wrap span.d813de27']) ??
      Array.from(codeEl.querySelectorAll('.md-code-block-banner span')).find((span) => !span.closest('button, [role="button"]'));
    if (label?.textContent?.trim()) return label.textContent.trim();
    const classed = codeEl.querySelector('[class*="language-"]');
    return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? '';
  },
  codeText(codeEl) {
    const pre = codeEl.matches('pre') ? codeEl : codeEl.querySelector('pre');
    return { text: pre ? plainText(pre) : '' };
  },
  editor(doc) {
    // 2026-11: textarea#chat-input; the class and placeholder are fallbacks for reshuffled ids.
    return firstMatch(doc, [
      'textarea#chat-input',
      'textarea._27c9245',
      'textarea[placeholder*="DeepSeek"]',
      'textarea',
    ]);
  },
  sendButton(doc) {
    const editor = this.editor(doc);
    // 2026-09: the circle button closest to the composer is send (and stop); walk up until one is in scope.
    for (let scope = editor?.parentElement ?? null; scope; scope = scope.parentElement) {
      const circles = scope.querySelectorAll<HTMLElement>('div[role="button"].ds-button--circle, div[role="button"]._7436101');
      const last = circles[circles.length - 1];
      if (last) return last;
      if (scope === doc.body) break;
    }
    return firstMatch(doc, ['div[role="button"].ds-button--circle', 'div._7436101[role="button"]']);
  },
  isSendDisabled(button) {
    return button.classList.contains('ds-button--disabled') || button.getAttribute('aria-disabled') === 'true';
  },
  // the circle is the send control itself, disabled while the composer holds nothing to send: enabled with the box
  // empty (2026-11 capture), it sends a file the person attached to their next message
  sendOffWhenEmpty: true,
  isGenerating(doc) {
    const button = this.sendButton(doc);
    if (!button) return false;
    if (button.querySelector('.ds-loading')) return true;
    // The send control turns into stop (a square icon) while a reply streams: enabled even though the box is empty.
    // 2026-10-04 capture (code-index 70882088046): the square is one <path> (d="M2 4.88C…", a rounded square), like
    // the send arrow; it stays while the person types the next message, when the box is no longer empty.
    if (button.querySelector('svg rect, svg path[d^="M2 4.88"]')) return true;
    // The same capture's send arrow (d="M8.3125…", also what other projects' adapters find the send control by): nothing
    // is written while the control shows it, though it may be enabled with the box empty — a file attached to the next
    // message sends alone. Read by the empty box below, a reply that ended while a file waited there was never decided,
    // and the person's press of send counted as a Stop.
    if (button.querySelector('svg path[d^="M8.3125"]')) return false;
    const editor = this.editor(doc) as HTMLTextAreaElement | null;
    return !this.isSendDisabled(button) && editor !== null && editor.value === '';
  },
  stopControl(doc) {
    // 2026-10: no separate stop button — the send control is the stop control while it shows the stop icon (or the
    // connecting spinner).
    const button = this.sendButton(doc);
    return button && this.isGenerating(doc) === true ? button : null;
  },
  conversationId(location) {
    const match = location.pathname.match(/^\/a\/chat\/s\/([A-Za-z0-9-]{8,80})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey(msg, position) {
    // The virtual-list key was removed around 2026-10-04; use it where still present.
    const key = msg.closest('[data-virtual-list-item-key]')?.getAttribute('data-virtual-list-item-key');
    return key ? `k:${key}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});

