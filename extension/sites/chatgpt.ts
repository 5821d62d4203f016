import { attachmentInComposer, codeMirrorText, commonAncestor, defineSite, firstMatch, firstWordOutside, isButtonDisabled, isShown, languageClassOf, outermost, plainText, positionKey, type MessageRole } from './define-site';

/*
 * DOM contract (what replica pages must reproduce; see SITES.md for the sources):
 *
 *   turn       2024–02/2026: article[data-testid="conversation-turn-N"][data-turn-id]
 *              03–08/2026:  div[data-turn-id-container] > section[data-testid="conversation-turn-N"][data-turn-id]
 *   message    [data-message-author-role="assistant"|"user"][data-message-id]   (placeholder ids: request-placeholder-…)
 *              09–11/2026 (partial rollout): [data-turn-key] turn holding both roles >
 *                [data-chatgpt-search-unit-key$=":assistant"|":user"][data-chatgpt-search-message-ids] (the person's
 *                unit may carry only data-content-search-unit-key, with the same role suffix); the unit key
 *                is no id ("fallback-turn-0:2:assistant" repeats from turn to turn); the message ids and the turn key are
 *   answer     .markdown (also .markdown.prose) or [data-markdown-text-style="assistant-message"] inside the message;
 *              09–11/2026: a unit listing several message ids holds one such body per message
 *   code       2026: pre > …header label… + button[aria-label="Copy"] > #code-block-viewer.cm-editor > .cm-scroller
 *                    > pre.cm-content > code > span   (no language-* class; the label is the header text)
 *              2024: pre > div > (div header "python" + button "Copy code") > div > code.hljs.language-python
 *              09–11/2026: div[data-markdown-copy="code-block"] > (header label + Copy) + div > code   (no pre)
 *   composer   form[data-type="unified-composer"] div#prompt-textarea.ProseMirror[contenteditable="true"]
 *              2026-10: form > div.ProseMirror[contenteditable][data-composer-markdown] (writing blocks in replies
 *              are ProseMirror editors too)
 *   send       button#composer-submit-button[data-testid="send-button"] — only present while the composer has text
 *              2026-10: button[aria-label="Send"] in the composer's form
 *   generating button[data-testid="stop-button"] ("Stop streaming") — also the stop control the person clicks
 *   url        /c/<uuid>, also /g/<gizmo>/c/<uuid>; "/" until the first reply starts streaming
 */

// 2026-11: both message attribute generations are live; the search-unit key is the late-2026 rollout. A capture of it
// (2026-09-28) shows the person's unit keyed only as data-content-search-unit-key, the reply's with both keys.
const MESSAGE_SELECTOR = '[data-message-author-role], [data-chatgpt-search-unit-key], [data-content-search-unit-key]';

function roleOf(el: Element): MessageRole | null {
  const role = el.getAttribute('data-message-author-role');
  if (role === 'assistant' || role === 'user') return role;
  const unit = el.getAttribute('data-chatgpt-search-unit-key') ?? el.getAttribute('data-content-search-unit-key') ?? '';
  if (unit.endsWith(':assistant')) return 'assistant';
  if (unit.endsWith(':user')) return 'user';
  return null;
}

// Reasoning ("Thought for …") panels, by test id or class; never the answer.
const REASONING_SELECTOR = '[data-testid*="reasoning"], [data-testid*="thinking"], [class*="reasoning"]';

/** Whether `el`, or an element between it and the message (the message itself not counted), is a reasoning panel. */
function insideReasoning(el: Element, msg: Element): boolean {
  const panel = el.closest(REASONING_SELECTOR);
  return panel !== null && panel !== msg && msg.contains(panel);
}

/**
 * 2025–2026: the comparison ChatGPT asks for ("You're giving feedback on a new version of ChatGPT. Which response do you
 * prefer?") draws two candidate replies side by side in the reply's turn, each a div[data-paragen-root="true"] holding
 * its own assistant message and an "I prefer this response" button, the question in [data-testid="paragen-feedback-title"]
 * (other projects reading the live page: code-index ids 61993026618 (a turn's paragen roots, each with its
 * message), 54773155893 (the title's test id), 55184339889; text captures 2406150803, 51860189120). Not seen in a
 * capture here, so two other shapes are read the same way: the candidates inside one assistant message (another
 * project's fixture, 54672841128), and a candidate the page keeps hidden after the pick, which is never read. Medium
 * confidence in the markup, none in what the page keeps after the pick.
 */
const CANDIDATE = '[data-paragen-root]:not([data-paragen-root="false"])';
const COMPARISON_TITLE = '[data-testid="paragen-feedback-title"]';
const TURN = '[data-turn-id], article, section[data-testid^="conversation-turn-"], [data-turn-key]';

/** Whether the page hides `el`, or an element between it and `scope`. */
function hiddenWithin(el: Element, scope: Element): boolean {
  for (let up: Element | null = el; up && up !== scope; up = up.parentElement) {
    if (up.hasAttribute('hidden') || up.getAttribute('aria-hidden') === 'true' || /display:\s*none/.test(up.getAttribute('style') ?? '')) return true;
  }
  return !isShown(el);
}

/** The candidates drawn in `scope` that it shows, and whether it asks which one to keep. */
function comparisonIn(scope: Element): { shown: Element[]; asking: boolean } {
  const shown = outermost(Array.from(scope.querySelectorAll(CANDIDATE))).filter((candidate) => !hiddenWithin(candidate, scope));
  return { shown, asking: shown.length > 1 || scope.querySelector(COMPARISON_TITLE) !== null };
}

/** The turn a candidate message is drawn in: where its comparison's other candidates are. */
function turnOfCandidate(candidate: Element): Element {
  return candidate.parentElement?.closest(TURN) ?? candidate.parentElement ?? candidate;
}

/** The answer bodies of a message (or of a candidate in it), outermost, reasoning panels left out. */
function bodiesOf(msg: Element, scope: Element = msg): Element[] {
  // 2026-11: `.markdown` in every dated layout but the late-2026 one, which marks the body with a style attribute.
  // A reasoning summary is markdown too. SITES.md records no place for it in any of the three layouts, so a build
  // rendering it inside the message, above the answer and with the same body class, must not make it the answer:
  // the answer is the bodies outside the reasoning panels skipped below. 09–11/2026: a reply of several messages (words
  // before a search, then the answer) is one unit listing their ids, each message's body drawn in it: the answer is
  // all of them, their nearest common ancestor (its headings and tool buttons are skipped).
  for (const selector of ['.markdown', '[data-markdown-text-style="assistant-message"]', '[class*="DilResponseRoot"]']) {
    const bodies = outermost(Array.from(scope.querySelectorAll(selector)).filter((el) => !insideReasoning(el, msg)));
    if (bodies.length > 0) return bodies;
  }
  return [];
}

/** The answer of a message (or of a candidate in it): the nearest element holding its bodies; null when none is drawn yet. */
function bodyOf(msg: Element, scope: Element = msg): Element | null {
  const bodies = bodiesOf(msg, scope);
  return bodies.length > 0 ? commonAncestor(bodies, scope) : null;
}

const REPLY = '[data-message-author-role="assistant"]';

/**
 * The question's words, for a build that renames the candidates' markup: English, and the Portuguese another project
 * met (code-index 60990821144). Looked for only in a turn drawing another reply beside this one, outside the replies.
 */
const COMPARISON_WORDS = /which response do you prefer|i prefer this response|qual resposta voc[êe] prefere|prefiro esta resposta/i;

/** Whether the turn `msg` is drawn in shows it beside another reply and asks in words which one to keep. */
function askedInWords(msg: Element): boolean {
  const turn = msg.parentElement?.closest(TURN);
  if (!turn) return false;
  // another reply beside it, looked for in what sits beside the message on its way up to the turn (an ordinary turn's
  // headings and action bar), never in the message itself: this runs at every scan of a reply
  let beside = false;
  for (let el: Element | null = msg; el && el !== turn && !beside; el = el.parentElement) {
    for (let sibling: Element | null = el.parentElement?.firstElementChild ?? null; sibling && !beside; sibling = sibling.nextElementSibling) {
      if (sibling !== el && (sibling.matches(REPLY) || sibling.querySelector(REPLY) !== null)) beside = true;
    }
  }
  if (!beside) return false;
  const replies = outermost(Array.from(turn.querySelectorAll(REPLY)));
  let words = '';
  const walker = turn.ownerDocument.createTreeWalker(turn, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!replies.some((reply) => reply.contains(node))) words += ` ${node.nodeValue ?? ''}`;
  return COMPARISON_WORDS.test(words.replace(/\s+/g, ' '));
}

/**
 * The answers of the candidates while the page asks which to keep, or null. A message drawn in a candidate is that
 * candidate (its answer, or none yet); a message holding the candidates offers each one shown.
 */
function pendingChoice(msg: Element): Element[] | null {
  const own = msg.closest(CANDIDATE);
  if (own) {
    if (!comparisonIn(turnOfCandidate(own)).asking) return null;
    const answer = bodyOf(msg);
    return answer ? [answer] : [];
  }
  // one query, which finds nothing in an ordinary reply
  if (msg.querySelector(`${CANDIDATE}, ${COMPARISON_TITLE}`)) {
    const { shown, asking } = comparisonIn(msg);
    if (asking) return shown.flatMap((candidate) => bodyOf(msg, candidate) ?? []);
    return null;
  }
  if (askedInWords(msg)) {
    const answer = bodyOf(msg);
    return answer ? [answer] : [];
  }
  return null;
}

export const chatgpt = defineSite({
  id: 'chatgpt',
  name: 'ChatGPT',
  hosts: ['chatgpt.com', 'chat.openai.com'],
  editorFamily: 'prosemirror',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  answerRoot(msg) {
    // A candidate of a comparison the page hides (the one not picked, if the page keeps it) is never read; of the
    // candidates one message holds (each draws a body), the first shown is read: the person's pick once the others are
    // hidden, and while the choice is pending nothing of it runs by itself (pendingChoice).
    const own = msg.closest(CANDIDATE);
    if (own) return hiddenWithin(own, turnOfCandidate(own)) ? null : bodyOf(msg);
    const bodies = bodiesOf(msg);
    const candidates = bodies.length > 1 ? outermost(Array.from(msg.querySelectorAll(CANDIDATE))) : [];
    if (candidates.length > 0) {
      const shown = candidates.find((candidate) => !hiddenWithin(candidate, msg));
      return shown ? bodyOf(msg, shown) : null;
    }
    return bodies.length > 0 ? commonAncestor(bodies, msg) : null;
  },
  pendingChoice,
  // Reasoning summaries sit outside `.markdown`; these catch the variants that nest it, plus copy buttons and labels.
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, .sr-only, ${REASONING_SELECTOR}`,
  // 09–11/2026 (captures of 2026-09 and 2026-10-01): a fenced block is div[data-markdown-copy="code-block"] holding its
  // header (label + Copy, data-markdown-copy="exclude") and a bare code element, with no pre.
  codeBlockSelector: 'pre, [data-markdown-copy="code-block"]',
  codeLanguage(codeEl) {
    // 2024–02/2026: highlight.js class on the code element; 03/2026–: the header label is the only hint; it is the first text outside the editor and the buttons.
    return languageClassOf(codeEl) || headerLabel(codeEl);
  },
  codeText(codeEl) {
    const code = codeEl.querySelector('code');
    const viewer = codeMirrorText(codeEl);
    if (viewer) return viewer;
    const text = code ? plainText(code) : plainText(codeEl);
    // 2024–02/2026: the highlight.js code element ends with the fence's last line break, which the block shows as no
    // line (captures: code-index 19371891601, 16983605432, 1315091072). Kept, every Axon parameter gained a line
    // break: write_file wrote a blank line the model never wrote, and replace looked for text followed by one.
    return { text: code?.classList.contains('hljs') && text.endsWith('\n') ? text.slice(0, -1) : text };
  },
  editor(doc) {
    // 2026-11: ProseMirror composer; the textarea of the same name is a hidden fallback, used only if it is alone.
    // 2026-10: the composer marked data-composer-markdown, in a form without a test id; a reply's writing block is a
    // ProseMirror editor too, drawn before it in the page, so an editor inside a message is never taken.
    for (const selector of [
      '#prompt-textarea[contenteditable="true"]',
      'form[data-type="unified-composer"] [contenteditable="true"]',
      'form[data-chatgpt-composer] [contenteditable="true"]',
      '[data-composer-markdown][contenteditable="true"]',
      '.ProseMirror[contenteditable="true"]',
      'textarea[name="prompt-textarea"]',
    ]) {
      const editor = Array.from(doc.querySelectorAll<HTMLElement>(selector)).find((el) => !el.closest(MESSAGE_SELECTOR));
      if (editor) return editor;
    }
    return null;
  },
  sendButton(doc) {
    // 2026-08: appears only once the composer holds text (the voice button sits there before). 2026-10: an unnamed
    // "Send" button beside the composer, looked for only there.
    const send = ['button[data-testid="send-button"]', 'button#composer-submit-button', 'button[aria-label="Send prompt"]'];
    const composer = this.editor(doc)?.closest('form, [data-composer-body]');
    return (composer ? firstMatch(composer, [...send, 'button[aria-label="Send"]']) : null) ?? firstMatch(doc, send);
  },
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    return stopButton(doc, this.editor(doc)) !== null;
  },
  stopControl(doc) {
    return stopButton(doc, this.editor(doc));
  },
  conversationId(location) {
    const match = location.pathname.match(/(?:^|\/)c\/([A-Za-z0-9-]{8,80})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey(msg, position) {
    const id = msg.getAttribute('data-message-id');
    // The placeholder id is replaced once the reply starts; it would give one message two keys.
    if (id && !id.startsWith('request-placeholder')) return `m:${id}`;
    // 09–11/2026: the unit lists its message ids (the first is the one the older layouts carry as data-message-id).
    const unitId = msg.closest('[data-chatgpt-search-message-ids]')?.getAttribute('data-chatgpt-search-message-ids')?.trim().split(/\s+/)[0];
    if (unitId && !unitId.startsWith('request-placeholder')) return `m:${unitId}`;
    const turn = msg.closest('[data-turn-id]')?.getAttribute('data-turn-id');
    if (turn) return `t:${turn}`;
    // 09–11/2026: a turn keyed by the site holds both roles, so its key names a message with the role.
    const turnKey = msg.closest('[data-turn-key]')?.getAttribute('data-turn-key');
    const role = roleOf(msg);
    if (turnKey && role) return `k:${turnKey}:${role}`;
    const testId = msg.closest('[data-testid^="conversation-turn-"]')?.getAttribute('data-testid');
    if (testId) return `n:${testId.slice('conversation-turn-'.length)}`;
    return positionKey(position);
  },
  feedbackIntervalMs: 10_000,
  // ChatGPT turns pasted text over 10,000 characters into a "Pasted text" attachment (release notes, 2026-08-04;
  // earlier reports say 5,000): a longer result goes in as several shorter pastes, with room to spare.
  pasteMaxChars: 4_000,
  composerAttachment(doc) {
    // 2025-09 – 2026-10 (captures in other projects' adapters and fixtures, code-index ids 71046801311, 55722592935,
    // 56216050554, 68598146159): an attached file or image is a div[role="group"].group/file-tile named after the file,
    // with a "Remove file N: name" button; a long paste the composer made an attachment is
    // section[data-testid="composer-pasted-text-card"]. They sit in the composer's form, or (late 2026) in a header
    // above it inside [data-testid="composer-surface"]. The person's sent message draws the same tiles.
    return attachmentInComposer(
      this,
      doc,
      ['[data-testid="composer-surface"]', 'form'],
      '[role="group"][class*="group/file-tile"], [data-testid="composer-pasted-text-card"], button[aria-label^="Remove file"]',
    );
  },
});

/**
 * 2026-08: the stop button replaces send while a reply streams ("Stop streaming"). It sits in the composer's form at
 * the end of the page: looking there first spares a walk of the whole chat on every check while a reply streams.
 */
function stopButton(doc: Document, editor: HTMLElement | null): HTMLElement | null {
  const stop = ['button[data-testid="stop-button"]', 'button[aria-label="Stop streaming"]'];
  const composer = editor?.closest('form');
  return (composer ? firstMatch(composer, stop) : null) ?? firstMatch(doc, stop);
}

function headerLabel(pre: Element): string {
  return firstWordOutside(pre, 'button, code, .cm-editor, [aria-hidden="true"], .sr-only');
}
