import { attachmentInComposer, commonAncestor, defineSite, firstMatch, firstWordOutside, idAfter, isButtonDisabled, languageClassOf, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract (what replica pages must reproduce). Researched 2026-11 from other projects' adapters, exporters and
 * fixtures (public repositories robertpiosik/CodeWebChat `chatbots/claude.ts` 2025–2026; code-index ids 62045554639
 * and 63363869329 (2026 assistant cascades), 59791049779 (.standard-markdown blocks inside .font-claude-response),
 * 61182744292 and 21604374262 (code block replicas), 34222314755 / 56170041050 / 48402363800 (send/stop labels)):
 *
 *   user       [data-testid="user-message"] (class font-user-message)
 *   assistant  2025–2026: .font-claude-response (inside div[data-is-streaming="true"|"false"])
 *              2024: .font-claude-message
 *   answer     the .standard-markdown blocks of the message (.progressive-markdown while streaming); tool use splits
 *              one reply into several such blocks, so the answer root is their nearest common ancestor
 *   thinking   a collapsible "Thought process" row (a box whose direct child is button[aria-expanded]) whose body
 *              is a nested .font-claude-response — never read (the least certain part of this contract: the
 *              sources describe the row and its label, not every class of its body, so both rules apply)
 *   code       2025–: div.group/copy > div.text-text-500 label ("python", or the fence tag as written) + sticky Copy
 *                     button + div.overflow-x-auto > pre.code-block__code > code.language-xxx (react-syntax-highlighter)
 *              2024: pre > div > label div + Copy + pre.code-block__code > code.language-xxx
 *   composer   fieldset div.ProseMirror[contenteditable="true"] (data-testid="chat-input" on some builds)
 *   send       button[aria-label="Send message"] (2024: "Send Message"), disabled while the composer is empty; labelled
 *              in the page's language, it draws the send icon (an arrow pointing up) in the composer
 *   generating button[aria-label="Stop response"] (also "Stop Response"; in the composer, labelled in the page's
 *              language, it draws the stop icon: a square in a circle); the turn wrapper says data-is-streaming="true"
 *   url        /new → /chat/<uuid>
 *   keys       no message ids in the DOM: position among messages
 */

/** The composer's button drawing the stop icon (a square in a circle), labelled in the page's language. */
const STOP_ICON_BUTTON =
  'fieldset button:has(path[d="M128,20A108,108,0,1,0,236,128,108.12,108.12,0,0,0,128,20Zm0,192a84,84,0,1,1,84-84A84.09,84.09,0,0,1,128,212Zm40-112v56a12,12,0,0,1-12,12H100a12,12,0,0,1-12-12V100a12,12,0,0,1,12-12h56A12,12,0,0,1,168,100Z"])';

/** The composer's button drawing the send icon (an arrow pointing up), labelled in the page's language. */
const SEND_ICON_BUTTON =
  'fieldset button:has(path[d="M208.49,120.49a12,12,0,0,1-17,0L140,69V216a12,12,0,0,1-24,0V69L64.49,120.49a12,12,0,0,1-17-17l72-72a12,12,0,0,1,17,0l72,72A12,12,0,0,1,208.49,120.49Z"])';

// 2026-11: newest layout first; .font-claude-message is the 2024 class.
const MESSAGE_SELECTOR = '[data-testid="user-message"], .font-user-message, .font-claude-response, .font-claude-message';
const ASSISTANT_SELECTOR = '.font-claude-response, .font-claude-message';
const ANSWER_BLOCK_SELECTOR = '.standard-markdown, .progressive-markdown';
/** The box of a collapsible row: its toggle is a direct child (the "Thought process" row). */
const COLLAPSIBLE_BOX = 'div:has(> button[aria-expanded])';
// The thinking body reuses the response class, so anything nested in a response's own response class is reasoning;
// so is anything in a collapsible region (a box whose direct child is an expand/collapse toggle), which the answer
// never is — that rule holds even if the thinking body ever gets .standard-markdown of its own.
const THINKING_SELECTOR =
  `.font-claude-response .font-claude-response, .font-claude-message .font-claude-message, ${COLLAPSIBLE_BOX}, [data-testid*="thinking" i], [class*="thinking" i]`;

function roleOf(el: Element): MessageRole | null {
  if (el.matches('[data-testid="user-message"], .font-user-message')) return 'user';
  if (el.matches(ASSISTANT_SELECTOR) && !isThinkingBody(el)) return 'assistant';
  return null;
}

/**
 * A response-classed element that is the body of a collapsible row (its box two or three levels up): the reasoning,
 * never a message. Inside its reply it is skipped by nesting; a build that renames the reply's own class would
 * otherwise make it the reply, and its blocks the answer.
 */
function isThinkingBody(el: Element): boolean {
  let up = el.parentElement;
  for (let depth = 0; up && depth < 3; depth += 1, up = up.parentElement) if (up.matches(COLLAPSIBLE_BOX)) return true;
  return false;
}


function answerRoot(msg: Element): Element | null {
  const blocks = Array.from(msg.querySelectorAll(ANSWER_BLOCK_SELECTOR)).filter((block) => !insideReasoning(block, msg));
  if (blocks.length === 1) return blocks[0] ?? null;
  if (blocks.length > 1) return commonAncestor(blocks, msg);
  // 2024 layout without .standard-markdown: the message is the answer once it shows any text (reasoning skipped).
  return msg.querySelector(':scope p, :scope pre, :scope ol, :scope ul') ? msg : null;
}

/** True when the block, or an ancestor below the message, is reasoning or itself sits inside another answer block. */
function insideReasoning(block: Element, msg: Element): boolean {
  if (block.matches(THINKING_SELECTOR)) return true;
  for (let el = block.parentElement; el && el !== msg; el = el.parentElement) {
    if (el.matches(THINKING_SELECTOR) || el.matches(ANSWER_BLOCK_SELECTOR)) return true;
  }
  return false;
}

export const claude = defineSite({
  id: 'claude',
  name: 'Claude',
  hosts: ['claude.ai'],
  editorFamily: 'prosemirror',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  // the thinking body nests a second .font-claude-response inside the message.
  messageNesting: 'outermost',
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, [role="button"], .sr-only, ${THINKING_SELECTOR}`,
  // The copy-group wrapper holds the label; taking it whole keeps the label out of the answer's prose.
  codeBlockSelector: '[class*="group/copy"], pre',
  codeLanguage(codeEl) {
    const classed = languageClassOf(codeEl);
    if (classed) return classed;
    // The header label is the first text outside the code, buttons and hidden parts. 2024: the block is a pre holding
    // the label and the code's own pre, so the label is read in its parts (the outer pre holds no code of its own).
    const parts = codeEl.matches('pre') && codeEl.querySelector('pre') ? Array.from(codeEl.children) : [codeEl];
    for (const part of parts) {
      const word = firstWordOutside(part, 'button, pre, code, [aria-hidden="true"], .sr-only');
      if (word) return word;
    }
    return '';
  },
  codeText: preCodeText,
  editor(doc) {
    // 2026-11: one ProseMirror composer; the fallbacks cover builds that drop the class or move the fieldset.
    return firstMatch(doc, [
      'fieldset .ProseMirror[contenteditable="true"]',
      '[data-testid="chat-input"][contenteditable="true"]',
      'div.ProseMirror[contenteditable="true"]',
      // 2026-08 (SAYPI in SITES-MORE.md): the composer is also known by its enterkeyhint, should the class go.
      'div[enterkeyhint][contenteditable="true"]',
      'fieldset [contenteditable="true"]',
    ]);
  },
  sendButton(doc) {
    // The label is in the page's language: on a page in another language only the composer's button drawing the
    // send arrow names it (the result was sent with Enter after the send control's whole wait).
    return firstMatch(doc, ['button[aria-label="Send message"]', 'button[aria-label="Send Message"]', 'fieldset button[type="submit"]', SEND_ICON_BUTTON]);
  },
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    // 2026-11: the stop button replaces send; the streaming attribute is the second signal.
    return firstMatch(doc, ['button[aria-label="Stop response"]', 'button[aria-label="Stop Response"]', '[data-is-streaming="true"]']) !== null;
  },
  stopControl(doc) {
    // 2026-02 (OCP, PAR in SITES-MORE.md): the send slot holds "Stop response" while a reply streams. The label is in
    // the page's language; the composer's button showing the stop icon (CWC) is the same button in any language.
    return firstMatch(doc, ['button[aria-label="Stop response"]', 'button[aria-label="Stop Response"]', STOP_ICON_BUTTON]);
  },
  conversationId(location) {
    return idAfter(location.pathname, '/chat/');
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
  // Claude turns a long paste into a "PASTED" attachment card above the box: a longer result goes in as several
  // shorter pastes.
  pasteMaxChars: 4_000,
  composerAttachment(doc) {
    // 2024 – 2026 (exporters and automation in other projects, code-index ids 17049329130, 63375346560, 70246162110): a
    // file attached to the next message is a [data-testid="file-thumbnail"] card in the composer, the one the person's
    // sent message shows too; the composer is the fieldset (or form) holding the chat box.
    return attachmentInComposer(this, doc, ['fieldset', 'form'], '[data-testid="file-thumbnail"]');
  },
});
