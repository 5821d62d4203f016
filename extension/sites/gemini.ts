import { attachmentInComposer, defineSite, firstMatch, plainText, positionKey, type MessageRole } from './define-site';

/*
 * DOM contract (what replica pages must reproduce). Researched 2026-11 from other projects' adapters, exporters and a
 * hand survey (public repositories robertpiosik/CodeWebChat `chatbots/gemini.ts` 2025–2026 (stop icon, message-actions),
 * srbhptl39/MCP-SuperAssistant `adapters/gemini.adapter.ts`; code-index ids 69419130951 (survey of the live page,
 * 2026-09-09: turn anatomy, ids, send/stop slot, ql-clipboard decoy), 53772725120 and 71182615864 (what to exclude:
 * model-thoughts, .thoughts-container, .cdk-visually-hidden), 32697380045 / 17232371120 / 54564698767 (code-block
 * anatomy and its label), 70971869811 ("Code snippet" label for a fence without language), 59255274701 /
 * 70189679533 (composer and send selectors)):
 *
 *   turn       div#<16-hex>.conversation-container > user-query + model-response
 *   user       user-query > user-query-content > div.query-content (a visually hidden "You said" label first)
 *   assistant  model-response > response-container > … > message-content#message-content-id-r_<16-hex>
 *                > div.markdown.markdown-main-panel
 *   thinking   model-thoughts (data-test-id="model-thoughts", .thoughts-container) beside message-content; a
 *              thinking reply gains class has-thoughts and a thinking-overlay — never read
 *   code       code-block > div.code-block > div.code-block-decoration (span label: "Python", "JSON", the fence tag as
 *              written for unknown tags, "Code snippet" when the fence has none — and for some unknown tags too:
 *              a ```webmcp fence, code-index 59530579061, 2026-08) + div.buttons (copy) >
 *              div.formatted-code-block-internal-container > pre > code.code-container[data-test-id="code-content"]
 *   composer   rich-textarea div.ql-editor[contenteditable="true"][role="textbox"] (Quill); div.ql-clipboard is a
 *              second, off-screen contenteditable that must never be picked
 *   send       button[aria-label="Send message"] (class send-button) — only present once the composer has text;
 *              the same slot becomes button[aria-label="Stop response"] (class stop) while a reply streams
 *   generating the stop button, mat-icon[data-mat-icon-name="stop"], or a .markdown[aria-busy="true"]
 *   url        /app → /app/<16-hex>; also /u/<n>/app/<id> and /gem/<gem>/<id>
 *   keys       the r_<hex> id of message-content for replies, the conversation-container id for prompts
 *
 * aistudio.google.com is not served by this module: its turns are ms-chat-turn elements with a textarea composer and
 * ms-code-block code, a different page altogether.
 */

const MESSAGE_SELECTOR = 'user-query, model-response';
const THOUGHTS_SELECTOR = 'model-thoughts, .model-thoughts, .thoughts-container, thinking-overlay, [data-test-id="model-thoughts"]';

function roleOf(el: Element): MessageRole | null {
  const tag = el.tagName.toLowerCase();
  if (tag === 'user-query') return 'user';
  if (tag === 'model-response') return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  // 2026-09: the reply's message-content carries the r_ id; a thought summary may hold a message-content without it.
  const content =
    msg.querySelector('message-content[id^="message-content-id-r_"]') ??
    Array.from(msg.querySelectorAll('message-content, .model-response-text')).find((el) => !el.closest(THOUGHTS_SELECTOR)) ??
    null;
  if (!content) return null;
  return Array.from(content.querySelectorAll('.markdown')).find((el) => !el.closest(THOUGHTS_SELECTOR)) ?? content;
}

/**
 * The label Gemini draws in a code block's header, whole: the decoration's own span (its buttons hold a localized "Copy
 * code" label or text of their own), else the decoration's text outside its buttons. '' when it draws none.
 */
function headerLabel(codeEl: Element): string {
  const decoration = codeEl.querySelector('.code-block-decoration');
  if (!decoration) return '';
  const span = Array.from(decoration.querySelectorAll('span')).find((el) => !el.closest(HEADER_NOT_LABEL));
  if (span) return (span.textContent ?? '').trim().replace(/\s+/g, ' ');
  return textOutside(decoration, HEADER_NOT_LABEL).trim().replace(/\s+/g, ' ');
}

const HEADER_NOT_LABEL = '.buttons, button, [role="button"], mat-icon, [aria-hidden="true"], .cdk-visually-hidden';

function textOutside(root: Element, exclude: string): string {
  let out = '';
  for (const child of Array.from(root.childNodes)) {
    if (child.nodeType === 3) out += ` ${child.nodeValue ?? ''}`;
    else if (child.nodeType === 1 && !(child as Element).matches(exclude)) out += ` ${textOutside(child as Element, exclude)}`;
  }
  return out;
}

/** A fence tag as written, or a language's name: one word (`mcp-request`, `Python`, `C++`, `Objective-C`). */
const TAG_WORD = /^[A-Za-z][\w+#.-]*$/;
/** The English words of the phrase, and of the forms of it that are one word, for pages whose phrase is that. */
const NO_LANGUAGE_LABELS = new Set(['code snippet', 'code-snippet', 'codesnippet']);

/**
 * Whether a header label names no language: what Gemini draws for a fence with no tag, and for some tags it does not
 * know, is a phrase of its interface in the person's language ("Code snippet", "代码段", "Fragmento de código"), where a
 * tag it shows as written or a language's name is one word. Its English words are known too, for a build that draws
 * the phrase as one.
 */
function namesNoLanguage(label: string): boolean {
  // a zero-width character the page shows nowhere is no part of the word (shared/protocols fenceLabel)
  const shown = label.replace(/[\u200B-\u200D\u2060\uFEFF]/g, '');
  return shown !== '' && (NO_LANGUAGE_LABELS.has(shown.toLowerCase()) || !TAG_WORD.test(shown));
}

export const gemini = defineSite({
  id: 'gemini',
  name: 'Gemini',
  hosts: ['gemini.google.com'],
  editorFamily: 'quill',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, mat-icon, .cdk-visually-hidden, message-actions, sources-list, ${THOUGHTS_SELECTOR}`,
  codeBlockSelector: 'code-block, .code-block, pre',
  codeLanguage(codeEl) {
    const label = headerLabel(codeEl);
    if (label) return namesNoLanguage(label) ? '' : label;
    const classed = codeEl.querySelector('[class*="language-"]');
    return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? '';
  },
  labelHidden(codeEl) {
    // "Code snippet" (in the person's language) is drawn for a fence with no tag and for some it does not know (a
    // ```webmcp fence, code-index 59530579061, 2026-08), the tag nowhere in the page: a ```mcp-request block may be shown so.
    return namesNoLanguage(headerLabel(codeEl));
  },
  codeText(codeEl) {
    const code = codeEl.querySelector('pre code') ?? codeEl.querySelector('code[data-test-id="code-content"], code');
    if (code) {
      // 2026: the code element ends with the fence's last line break, which the block shows as no line (captures:
      // code-index 55341721633, 22399456289). Kept, every Axon parameter gained a line break: write_file wrote a
      // blank line the model never wrote, and replace looked for text followed by one.
      const text = plainText(code);
      return { text: code.matches('[data-test-id="code-content"]') && text.endsWith('\n') ? text.slice(0, -1) : text };
    }
    const pre = codeEl.matches('pre') ? codeEl : codeEl.querySelector('pre');
    return { text: pre ? plainText(pre) : '' };
  },
  editor(doc) {
    // 2026-11: the Quill editor; .ql-clipboard is also contenteditable, so every selector names .ql-editor or the role.
    return firstMatch(doc, [
      'rich-textarea .ql-editor[contenteditable="true"]',
      'div.ql-editor[contenteditable="true"]',
      'rich-textarea [contenteditable="true"][role="textbox"]',
      '[contenteditable="true"][role="textbox"][aria-label*="prompt" i]',
    ]);
  },
  sendButton(doc) {
    // 2026-09: absent while the composer is empty; stop takes the same slot while a reply streams. Labels are
    // localized: the icon (mat-icon fonticon "arrow_upward") names the send button in any language.
    return (
      firstMatch(doc, [
        'button[aria-label="Send message"]',
        'button.send-button',
        '[data-test-id="send-button-container"] button',
        'button[aria-label="Stop response"]',
      ]) ?? doc.querySelector('mat-icon[fonticon="arrow_upward"]')?.closest<HTMLElement>('button') ?? null
    );
  },
  isSendDisabled(button) {
    if ((button as HTMLButtonElement).disabled === true || button.getAttribute('aria-disabled') === 'true') return true;
    // The slot holds the stop button while a reply streams: present, but not a send control.
    return button.classList.contains('stop') || /stop/i.test(button.getAttribute('aria-label') ?? '') || button.querySelector('mat-icon[fonticon="stop"]') !== null;
  },
  isGenerating(doc) {
    return (
      firstMatch(doc, [
        'button[aria-label="Stop response"]',
        'button.send-button.stop',
        'mat-icon[data-mat-icon-name="stop"]',
        // 2026-06 (ZS): the icon, not the localized label, says "stop" in every language.
        'input-area-v2 mat-icon[fonticon="stop"]',
        '.send-button-container mat-icon[fonticon="stop"]',
        'model-response .markdown[aria-busy="true"]',
      ]) !== null
    );
  },
  stopControl(doc) {
    // 2026-06 (ZS, OCP in SITES-MORE.md): the send slot turns into "Stop response" (class stop, mat-icon "stop").
    const icon = doc.querySelector('mat-icon[data-mat-icon-name="stop"], mat-icon[fonticon="stop"]');
    return firstMatch(doc, ['button[aria-label="Stop response"]', 'button.send-button.stop']) ?? icon?.closest<HTMLElement>('button') ?? null;
  },
  conversationId(location) {
    // /app/<id>, /u/1/app/<id>, /gem/<gem>/<id>; ids are hex (16 in 2026), never uuids.
    const match = location.pathname.match(/^(?:\/u\/\d+)?\/(?:app|gem\/[A-Za-z0-9_-]+)\/([A-Za-z0-9_-]{8,80})(?:\/|$)/);
    return match?.[1] ?? null;
  },
  messageKey(msg, position) {
    const content = msg.querySelector('message-content[id^="message-content-id-"]')?.id;
    if (content) return `r:${content.slice('message-content-id-'.length)}`;
    const turn = msg.closest('.conversation-container[id]')?.id;
    if (turn) return `t:${turn}:${msg.tagName.toLowerCase()}`;
    return positionKey(position);
  },
  feedbackIntervalMs: 10_000,
  composerAttachment(doc) {
    // 2025 – 2026-08 (automation in other projects, code-index ids 62339617203, 71051169319, 68313254840, 1285980580): a
    // file or image attached to the next message is an uploader-file-preview element (an image's shows
    // img[data-test-id="image-preview"]) in the input area; the page has no form, the input-container (input-area-v2)
    // holding the chat box is the composer. Its row container (uploader-file-preview-container) may be there with no
    // file, so it says nothing.
    return attachmentInComposer(this, doc, ['input-container', 'input-area-v2'], 'uploader-file-preview, img[data-test-id="image-preview"]');
  },
});
