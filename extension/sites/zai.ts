import { codeMirrorText, defineSite, firstMatch, idAfter, isButtonDisabled, languageNearPre, positionKey, preCodeText, type MessageRole } from './define-site';

/*
 * DOM contract. Researched 2026-11 (SITES-MORE.md: a "validated live" provider (code-index 69462944180, 2026-06: turns,
 * per-turn ids, thinking, CodeMirror blocks and their plateau mid-stream, the id-less stop button),
 * MCP-SuperAssistant (codemirror accessor), CodeWebChat 2026-08 (composer, "no #send-message-button" while
 * generating)). The app derives from Open WebUI. Confidence: high.
 *
 *   turn       div.message-<uuid> (also an id="message-<uuid>" on Open WebUI builds): a stable per-turn id
 *   user       .user-message (.chat-user)
 *   assistant  .chat-assistant (also .markdown-prose)
 *   thinking   .thinking-chain-container INSIDE .chat-assistant — never read
 *   code       a wrapper div (rounded-xl) holding the language label, button.copy-code-button and div.language-xxx >
 *              a CodeMirror 6 view
 *              (.cm-editor > .cm-content > .cm-line, no newline text; .cm-announced is an a11y copy). CodeMirror
 *              virtualizes long blocks: a .cm-gap spacer or a gutter counting more lines marks the block partial.
 *              Older Open WebUI builds: pre > code.language-xxx
 *   composer   Svelte textarea#chat-input (.value + input event works; the native setter is used anyway)
 *   send       button#send-message-button, disabled for a frame after input
 *   generating send is replaced by an id-less round stop button (rounded-full, a square span inside, no svg);
 *              round scroll-to-bottom buttons carry an svg and are not it
 *   url        / → /c/<uuid>
 *   keys       the turn's uuid
 */

const UUID = /(?:^|\s)message-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\s|$)/i;

function roleOf(el: Element): MessageRole | null {
  if (el.matches('.user-message, .chat-user')) return 'user';
  if (el.matches('.chat-assistant')) return 'assistant';
  return null;
}

/** The round, id-less, svg-less button in the composer that stands where send was (2026-06). */
function stopButton(doc: Document): HTMLElement | null {
  const editor = doc.querySelector('textarea#chat-input');
  const scope = editor?.closest('form') ?? editor?.parentElement?.parentElement?.parentElement ?? null;
  if (!scope) return null;
  for (const button of Array.from(scope.querySelectorAll<HTMLElement>('button.rounded-full'))) {
    if (!button.id && !button.querySelector('svg') && button.querySelector('span')) return button;
  }
  return null;
}

export const zai = defineSite({
  id: 'zai',
  name: 'Z.ai (GLM)',
  hosts: ['chat.z.ai'],
  editorFamily: 'textarea',
  messageSelector: '.user-message, .chat-user, .chat-assistant',
  roleOf,
  messageNesting: 'outermost',
  answerRoot: (msg) => msg,
  skipSelector: '[data-chatbridge-chip], [data-chatbridge-indicator], button, .thinking-chain-container, .cm-announced, [class*="thinking" i]',
  // The element holding the CodeMirror view (class language-xxx on Open WebUI builds); the label and copy button
  // beside it are read as a line of text at most.
  codeBlockSelector: 'div:has(> .cm-editor), pre',
  codeLanguage: languageNearPre,
  codeText(codeEl) {
    return codeMirrorText(codeEl) ?? preCodeText(codeEl);
  },
  editor: (doc) => firstMatch(doc, ['textarea#chat-input', 'form textarea']),
  sendButton: (doc) => firstMatch(doc, ['button#send-message-button']),
  isSendDisabled: isButtonDisabled,
  isGenerating(doc) {
    if (stopButton(doc)) return true;
    // CodeWebChat (2026-08): the send button is gone for the whole generation.
    return doc.querySelector('textarea#chat-input') !== null && doc.querySelector('button#send-message-button') === null;
  },
  stopControl: stopButton,
  conversationId(location) {
    return idAfter(location.pathname, '/c/');
  },
  messageKey(msg, position) {
    for (let el: Element | null = msg; el; el = el.parentElement) {
      const match = el.id.match(/^message-(.+)$/) ?? el.className.match(UUID);
      if (match?.[1]) return `m:${match[1]}`;
    }
    return positionKey(position);
  },
  feedbackIntervalMs: 10_000,
});
