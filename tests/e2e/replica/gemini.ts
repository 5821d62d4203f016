/**
 * A Gemini-like page (extension/sites/gemini.ts DOM contract, 2026): `div.conversation-container` turns holding
 * `user-query` and `model-response > … > message-content#message-content-id-r_<hex> > .markdown`, code blocks as
 * `code-block > .code-block` with a decoration label and `pre > code.code-container`, and a REAL Quill composer in
 * `rich-textarea` (plus the off-screen `.ql-clipboard` decoy). The send button exists only while Quill holds text;
 * the same slot shows "Stop response" while a reply streams, when the answer's `.markdown` is also `aria-busy`.
 * `/app` → `/app/<16-hex>` on the first send.
 */
import Quill from 'quill';
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';

function hexId(length: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(length / 2)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Gemini names common languages in its label, shows unknown fence tags as written, and "Code snippet" for none. */
const LABELS: Record<string, string> = { python: 'Python', json: 'JSON', javascript: 'JavaScript', bash: 'Bash' };

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    const shown = label === '' ? 'Code snippet' : (LABELS[label.toLowerCase()] ?? label);
    return (
      '<code-block><div class="code-block ng-tns-c1-1"><div class="code-block-decoration header-formatted gds-title-s">' +
      `<span>${escapeHtml(shown)}</span><div class="buttons"><button aria-label="Copy code" class="copy-button"><mat-icon fonticon="content_copy" data-mat-icon-name="content_copy"></mat-icon></button></div></div>` +
      '<div class="formatted-code-block-internal-container"><div class="animated-opacity">' +
      `<pre><code role="text" data-test-id="code-content" class="code-container formatted">${escapeHtml(text)}</code></pre>` +
      '</div></div></div></code-block>\n'
    );
  },
});

startFamilyPage({
  site: 'gemini',
  title: 'Gemini',
  conversationId: (pathname) => /^\/app\/([0-9a-f]{16})$/.exec(pathname)?.[1] ?? null,
  newConversationPath: () => `/app/${hexId(16)}`,
  layout(body) {
    body.append(
      element(
        '<chat-app><main class="chat-app"><div class="chat-history" id="chat-history"><infinite-scroller id="replica-turns"></infinite-scroller></div>' +
          '<input-container><input-area-v2><div class="text-input-field">' +
          '<rich-textarea class="text-input-field_textarea" id="replica-editor-slot"></rich-textarea>' +
          '<div class="trailing-actions-wrapper" data-test-id="send-button-container" id="replica-control"></div>' +
          '</div></input-area-v2></input-container></main></chat-app>',
      ),
    );
    return {
      turns: body.querySelector('#replica-turns') as HTMLElement,
      editor: body.querySelector('#replica-editor-slot') as HTMLElement,
      control: body.querySelector('#replica-control') as HTMLElement,
    };
  },
  userTurn(turn) {
    return element(
      `<div class="conversation-container" id="${hexId(16)}"><user-query><user-query-content class="user-query-container">` +
        '<div class="query-content"><span class="cdk-visually-hidden">You said</span>' +
        `<div class="query-text" dir="ltr"><p class="query-text-line">${escapeHtml(turn.text)}</p></div></div>` +
        '</user-query-content></user-query></div>',
    );
  },
  assistantTurn(turn) {
    const root = element(
      `<div class="conversation-container" id="${hexId(16)}"><model-response><div><response-container><div class="response-container">` +
        `<div class="response-content"><message-content id="message-content-id-r_${turn.id.replace(/-/g, '').slice(0, 16)}" class="model-response-text">` +
        '<div class="markdown markdown-main-panel" dir="ltr"></div></message-content></div>' +
        '<div class="response-footer"><message-actions><button aria-label="Copy">Copy</button></message-actions></div>' +
        '</div></response-container></div></model-response></div>',
    );
    return { root, answer: root.querySelector('.markdown') as HTMLElement };
  },
  setTurnStreaming(root, streaming) {
    root.querySelector('.markdown')?.setAttribute('aria-busy', String(streaming));
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    if (state === 'empty') {
      // No send button while the composer is empty (the microphone stands there).
      slot.replaceChildren(element('<button aria-label="Microphone" class="speech_dictation_mic_button"><mat-icon fonticon="mic" data-mat-icon-name="mic"></mat-icon></button>'));
      return;
    }
    const button =
      state === 'streaming'
        ? element('<button aria-label="Stop response" class="send-button stop"><mat-icon fonticon="stop" data-mat-icon-name="stop"></mat-icon></button>')
        : element('<button aria-label="Send message" class="send-button submit"><mat-icon fonticon="arrow_upward" data-mat-icon-name="arrow_upward"></mat-icon></button>');
    button.addEventListener('click', state === 'streaming' ? actions.stop : actions.send);
    slot.replaceChildren(button);
  },
  mountComposer(slot, hooks) {
    const container = document.createElement('div');
    slot.append(container);
    const quill = new Quill(container, {
      formats: [],
      modules: {
        toolbar: false,
        keyboard: { bindings: { send: { key: 'Enter', shiftKey: false, handler: () => !hooks.enter() } } },
      },
      placeholder: 'Ask Gemini',
    });
    quill.root.setAttribute('role', 'textbox');
    quill.root.setAttribute('aria-label', 'Enter a prompt here');
    quill.root.setAttribute('aria-multiline', 'true');
    // Quill 1's paste target, still on the page: a second contenteditable that is never the composer.
    slot.append(element('<div class="ql-clipboard" contenteditable="true" tabindex="-1"></div>'));
    quill.on('text-change', () => hooks.changed());
    return {
      // Quill's document always ends with a newline of its own.
      text: () => quill.getText().replace(/\n$/, ''),
      clear: () => quill.setText(''),
    };
  },
});
