import { t } from '../ui/i18n';
import { codeMirrorText, defineSite, firstMatch, idAfter, outermost, plainText, positionKey, type CodeBlockText, type MessageRole } from './define-site';

/*
 * DOM contract (what replica pages must reproduce). Researched 2026-11 from other projects' adapters, exporters and
 * fixtures (public repositories robertpiosik/CodeWebChat `chatbots/qwen.ts` 2025–2026 (send button, stop icon,
 * response footer), srbhptl39/MCP-SuperAssistant `adapters/qwenchat.adapter.ts` (2024–2025 composer and send);
 * code-index ids 58967375669 (2026-06 selector set: composer, send, .phase-answer / .phase-thinking), 60951169641
 * (send/stop buttons and code classes read off the site's bundle), 62487300802 and 68405275417 (Monaco code blocks:
 * header label, .view-line, .margin-view-overlays), 54698554731 (a long block keeps ~39 lines in the DOM while the
 * body's height grows ~20 px per line), 57352583520 (code-body class list), 65801545426 / 68473104389 (answer
 * selectors), 57483029879 (send/stop inside .chat-prompt-send-button)):
 *
 *   message    .qwen-chat-message.qwen-chat-message-user | .qwen-chat-message-assistant (inside #chat-message-container)
 *   answer     .response-message-content.phase-answer (> .custom-qwen-markdown > .qwen-markdown …)
 *   thinking   .response-message-content.phase-thinking / .phase-reason (a sibling card) — never read
 *   code       pre.qwen-markdown-code > .qwen-markdown-code-header-wrapper > .qwen-markdown-code-header
 *                (first div = language label, .qwen-markdown-code-header-actions = copy/run buttons)
 *              + .qwen-markdown-code-body[style="height: Npx"] > Monaco: .monaco-editor .margin-view-overlays
 *                (.line-numbers) and .view-lines[style="line-height: Lpx"] > div.view-line[style="top: Tpx"] > span…
 *              Monaco renders only the lines near the viewport, in any DOM order, with spaces as U+00A0.
 *              Some builds use CodeMirror 6 (.cm-content > .cm-line, .cm-gap) or a plain <pre><code>.
 *   composer   textarea.message-input-textarea (2026-02–), textarea.chat-input (2026-01), textarea#chat-input (2024–2025)
 *   send       .chat-prompt-send-button .send-button / button.send-button / button#send-message-button /
 *              div.message-input-right-button-send button (2026-02), disabled attr
 *   generating .chat-prompt-send-button .stop-button (aria-label "Stop"), i.icon-StopIcon
 *   url        / → /c/<uuid>
 *   keys       an element id such as message-<uuid> where present, else position
 *
 * tongyi.aliyun.com (now a separate Qianwen product) renders replies with react-syntax-highlighter and other
 * containers; it is not served by this module.
 */

const MESSAGE_SELECTOR = '.qwen-chat-message-user, .qwen-chat-message-assistant';
const THINKING_SELECTOR = '.phase-thinking, .phase-reason, [class*="thinking" i]';

function roleOf(el: Element): MessageRole | null {
  if (el.classList.contains('qwen-chat-message-user')) return 'user';
  if (el.classList.contains('qwen-chat-message-assistant')) return 'assistant';
  return null;
}

/**
 * 2026-06 (ZS 69481764219 in SITES-MORE.md): an A/B comparison turn ("Which response do you prefer?") is the assistant
 * message marked qwen-chat-message-dual-message, holding two candidate replies, each a .response-message-box with its
 * own "I prefer this response" button; the person's pick turns it back into a normal reply. What the page keeps of the
 * candidate not picked is not documented: a box hidden by the page (hidden, aria-hidden, display: none) is not read.
 */
const COMPARISON_SELECTOR = '.qwen-chat-message-dual-message';
const CANDIDATE_SELECTOR = '.response-message-box';

/** Whether `el`, or an element between it and `msg`, is hidden by the page. */
function hiddenWithin(el: Element, msg: Element): boolean {
  for (let up: Element | null = el; up && up !== msg; up = up.parentElement) {
    if (up.hasAttribute('hidden') || up.getAttribute('aria-hidden') === 'true' || /display:\s*none/.test(up.getAttribute('style') ?? '')) return true;
  }
  return false;
}

/** The candidate replies of a message that holds more than one (a comparison turn); [] for an ordinary reply. */
function candidates(msg: Element): Element[] {
  const boxes = outermost(Array.from(msg.querySelectorAll(CANDIDATE_SELECTOR)));
  return boxes.length > 1 ? boxes : [];
}

/**
 * Still asking: the turn is marked a comparison, or it shows more than one candidate (what the page does after a pick
 * is not documented: two candidates still shown cannot be told apart, and neither runs by itself). The answers of the
 * candidates shown then, or null.
 */
function pendingChoice(msg: Element): Element[] | null {
  const boxes = candidates(msg);
  const shown = boxes.filter((box) => !hiddenWithin(box, msg));
  if (!msg.matches(COMPARISON_SELECTOR) && !msg.querySelector(COMPARISON_SELECTOR) && shown.length < 2) {
    if (boxes.length > 0) return null;
    // A build that renamed the comparison's classes still draws each candidate's answer card, and a reply draws one.
    const cards = outermost(Array.from(msg.querySelectorAll(ANSWER_CARD))).filter((card) => !card.closest(THINKING_SELECTOR) && !hiddenWithin(card, msg));
    return cards.length > 1 ? cards : null;
  }
  return shown.flatMap((box) => answerIn(box) ?? []);
}

const ANSWER_CARD = '.response-message-content.phase-answer';

function answerRoot(msg: Element): Element | null {
  const boxes = candidates(msg);
  // Several candidates: the first one shown — the person's pick once the others are hidden; while the choice is
  // pending nothing of it runs by itself (pendingChoice). A candidate the page hides is never read.
  if (boxes.length > 0) {
    const shown = boxes.find((box) => !hiddenWithin(box, msg));
    return shown ? answerIn(shown) : null;
  }
  return answerIn(msg);
}

function answerIn(scope: Element): Element | null {
  // 2026-06: the answer card is marked by its phase; older builds have one .response-message-content.
  const phased = scope.querySelector('.response-message-content.phase-answer');
  if (phased) return phased;
  const content = Array.from(scope.querySelectorAll('.response-message-content, .custom-qwen-markdown, .qwen-markdown')).find(
    (el) => !el.closest(THINKING_SELECTOR),
  );
  return content ?? null;
}

export const qwen = defineSite({
  id: 'qwen',
  name: 'Qwen',
  hosts: ['chat.qwen.ai'],
  editorFamily: 'react-textarea',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  // A message card may nest another element with the message classes; the outer one is the message.
  messageNesting: 'outermost',
  answerRoot,
  pendingChoice,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, [role="button"], .message-footer-buttons, ${THINKING_SELECTOR}`,
  codeBlockSelector: 'pre.qwen-markdown-code, .qwen-markdown-code, pre',
  codeLanguage(codeEl) {
    const header = firstMatch<Element>(codeEl, ['.qwen-markdown-code-header']);
    if (header) {
      // The label is the header's first element that is not the actions group.
      for (const child of Array.from(header.children)) {
        if (child.matches('.qwen-markdown-code-header-actions, button, [role="button"]')) continue;
        const text = child.textContent?.trim() ?? '';
        if (text) return text.split(/\s+/)[0] ?? '';
      }
    }
    const classed = codeEl.querySelector('code[class*="language-"]');
    return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? '';
  },
  codeText: qwenCodeText,
  editor(doc) {
    return firstMatch(doc, [
      'textarea.message-input-textarea',
      'textarea.qwen-chat-v2-input-textarea',
      // 2026-01 (SITES-MORE.md): textarea.chat-input beside div.chat-prompt-send-button.
      'textarea.chat-input',
      'textarea#chat-input',
      '.chat-message-input textarea',
    ]);
  },
  sendButton(doc) {
    const send = firstMatch(doc, [
      '.chat-prompt-send-button .send-button',
      'button.send-button',
      'button#send-message-button',
      // 2026-02 (MSA, ZS in SITES-MORE.md): the button inside the send area, which carries its disabled state and
      // its click; the area itself only where it holds no button.
      '.message-input-right-button-send button',
      '.message-input-right-button-send',
    ]);
    // The stop button takes the send button's place in the send area while a reply is written (ZS): the area's
    // button is then the stop control, and a press on it is the person stopping the reply, never a send.
    const stop = stopButton(doc);
    return send && stop && send.contains(stop) ? null : send;
  },
  isSendDisabled(button) {
    return (
      (button as HTMLButtonElement).disabled === true ||
      button.getAttribute('aria-disabled') === 'true' ||
      button.classList.contains('disabled')
    );
  },
  isGenerating(doc) {
    return firstMatch(doc, ['.chat-prompt-send-button .stop-button', 'button.stop-button', 'i.icon-StopIcon']) !== null;
  },
  stopControl: stopButton,
  conversationId(location) {
    return idAfter(location.pathname, '/c/');
  },
  messageKey(msg, position) {
    // Unverified on the live site: an own id such as message-<uuid>. Container ids (chat-message-container) are not
    // message ids, so only an id with a long, digit-bearing tail counts.
    const own = msg.id || msg.closest('[id^="message-"]')?.id || '';
    const id = own.replace(/^(?:chat-)?message-/, '');
    return /^(?=.*\d)[A-Za-z0-9_-]{16,80}$/.test(id) ? `m:${id}` : positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});

/** 2026-06 (ZS in SITES-MORE.md): button.stop-button replaces send for the whole generation; else the button holding the stop icon. */
function stopButton(doc: Document): HTMLElement | null {
  const icon = doc.querySelector('i.icon-StopIcon');
  return firstMatch(doc, ['.chat-prompt-send-button .stop-button', 'button.stop-button']) ?? icon?.closest<HTMLElement>('button, [role="button"]') ?? null;
}

/** The code of one Qwen block; Monaco and CodeMirror viewers may leave lines out of the page (then `partial`). */
function qwenCodeText(codeEl: Element): CodeBlockText {
  const viewLines = codeEl.querySelector('.view-lines');
  if (viewLines) return monacoText(codeEl, viewLines);
  const cm = codeMirrorText(codeEl);
  if (cm) return cm;
  const body = codeEl.querySelector('.qwen-markdown-code-body') ?? codeEl;
  const code = body.querySelector('code') ?? (body.matches('pre') ? body : body.querySelector('pre'));
  return { text: code ? plainText(code) : '' };
}

function px(value: string | null | undefined): number | null {
  const match = value?.match(/(-?\d+(?:\.\d+)?)px/);
  return match?.[1] !== undefined ? Number(match[1]) : null;
}

function monacoText(block: Element, viewLines: Element): CodeBlockText {
  const rows = Array.from(viewLines.querySelectorAll(':scope > .view-line'), (line, index) => ({
    top: px((line as HTMLElement).style?.top) ?? index * 1e6,
    // Monaco writes every space as U+00A0 so the browser keeps runs of them; the code had plain spaces. A cut
    // line's "Show more" label is no code (the block is partial then: monacoGap).
    text: lineText(line).replace(/\u00a0/g, ' '),
  }));
  // Monaco reuses line elements: document order is not line order, the top offset is.
  rows.sort((a, b) => a.top - b.top);
  const text = rows.map((row) => row.text).join('\n');
  const reason = monacoGap(block, viewLines, rows.map((row) => row.top));
  return reason ? { text, partial: reason } : { text };
}

/** One Monaco line's text without the label Monaco appends to a line it cut short. */
function lineText(line: Element): string {
  const overflow = line.querySelector('.mtkoverflow');
  if (!overflow) return line.textContent ?? '';
  const copy = line.cloneNode(true) as Element;
  copy.querySelector('.mtkoverflow')?.remove();
  return copy.textContent ?? '';
}

/** Why the rendered Monaco lines may not be the whole block, or null when they evidently are. */
function monacoGap(block: Element, viewLines: Element, tops: number[]): string | null {
  // Monaco draws a line only up to `stopRenderingLineAfter` characters (10,000 by default) and ends it with a
  // "Show more (12KB)" span (.mtkoverflow, monaco-editor's viewLineRenderer) — a one-line JSON call writing a file, or
  // a long line of a plan's content, is cut there (SITES.md "Text that may not all be in the DOM").
  if (viewLines.querySelector('.mtkoverflow')) return t('reason.viewerCutLine');
  const count = tops.length;
  const numbers = Array.from(block.querySelectorAll('.margin-view-overlays .line-numbers'), (n) => Number(n.textContent?.trim()))
    .filter((n) => Number.isFinite(n) && n > 0)
    .sort((a, b) => a - b);
  if (numbers.length > 0) {
    // With word wrap, Monaco draws each row of a long line as a view-line of its own and numbers only its first row: the
    // rows joined by line breaks are not the code.
    if (count > numbers.length) return t('reason.viewerWrapped');
    const first = numbers[0]!;
    const last = numbers[numbers.length - 1]!;
    if (first !== 1) return t('reason.viewerStartsAt', [first]);
    if (last !== numbers.length) return t('reason.viewerNumbered', [numbers.length, last]);
  }
  const lineHeight = px((viewLines as HTMLElement).style?.lineHeight) ?? px((viewLines.querySelector('.view-line') as HTMLElement | null)?.style?.height);
  if (lineHeight && lineHeight > 0) {
    if (tops.length > 0 && tops[0]! > lineHeight / 2) return t('reason.viewerStartsBelow');
    for (let i = 1; i < tops.length; i++) {
      if (tops[i]! - tops[i - 1]! > lineHeight * 1.5) return t('reason.viewerSkips', [i]);
    }
    // The block's body is as tall as all its lines while only those near the viewport are rendered.
    const height = px((block.querySelector('.qwen-markdown-code-body') as HTMLElement | null)?.style?.height);
    if (height !== null) {
      const expected = Math.floor((height + 1) / lineHeight);
      if (expected > count) return t('reason.viewerAbout', [count, expected]);
    }
  }
  return null;
}
