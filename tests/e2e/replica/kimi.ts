/**
 * A Kimi-like page (extension/sites/kimi.ts DOM contract, 2026-07): `.chat-content-item-user` /
 * `.chat-content-item-assistant` rows wrapping `.segment`s, the reply in `.segment-content-box` with prose
 * (`.markdown-container > .markdown > div.paragraph`) and code (`.segment-code` with a header label and
 * `pre > code.language-xxx`) as siblings, and a REAL Lexical (plain text) composer `div.chat-input-editor`. The send
 * control is `.send-button-container`, a div: `.disabled` while Lexical's state is empty, `.stop` while a reply
 * streams (the same control stops it). `/` → `/chat/<20-character id>` on the first send.
 */
import { registerPlainText } from '@lexical/plain-text';
import { mountLexical } from './lexical';
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';

function kimiId(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  return Array.from(crypto.getRandomValues(new Uint8Array(20)), (byte) => alphabet[byte % 32]).join('');
}

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    const language = label === '' ? '' : ` class="language-${escapeHtml(label)}"`;
    return (
      '<div class="segment-code"><header class="segment-code-header">' +
      `<span class="segment-code-lang">${escapeHtml(label)}</span><div class="segment-code-actions"><div class="icon-button copy-button">Copy</div></div></header>` +
      `<div class="segment-code-content"><pre${language}><code${language}>${escapeHtml(text)}</code></pre></div></div>\n`
    );
  },
  paragraphTag: 'div',
  paragraphClass: 'paragraph',
  paragraphWrapper: ['<div class="markdown-container"><div class="markdown">', '</div></div>'],
});

startFamilyPage({
  site: 'kimi',
  title: 'Kimi',
  conversationId: (pathname) => /^\/chat\/([0-9a-v]{20})$/.exec(pathname)?.[1] ?? null,
  newConversationPath: () => `/chat/${kimiId()}`,
  layout(body) {
    body.append(
      element(
        '<div class="app"><div class="chat-page"><div class="chat-content-list" id="replica-turns"></div>' +
          '<div class="chat-editor"><div class="chat-input"><div id="replica-editor-slot"></div></div>' +
          '<div class="chat-editor-action" id="replica-control"></div></div></div></div>',
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
      '<div class="chat-content-item chat-content-item-user"><div class="segment segment-user"><div class="segment-container">' +
        `<div class="segment-content"><div class="segment-content-box"><div class="user-content">${escapeHtml(turn.text)}</div></div></div>` +
        '</div></div></div>',
    );
  },
  assistantTurn() {
    const root = element(
      '<div class="chat-content-item chat-content-item-assistant"><div class="segment segment-assistant"><div class="segment-avatar"></div>' +
        '<div class="segment-container"><div class="segment-content"><div class="segment-content-box"></div>' +
        '<div class="segment-assistant-actions"><div class="segment-assistant-actions-content"><div class="icon-button">Copy</div></div></div>' +
        '</div></div></div></div>',
    );
    return { root, answer: root.querySelector('.segment-content-box') as HTMLElement };
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    const container = element(
      state === 'streaming'
        ? '<div class="send-button-container stop"><svg class="stop-icon" width="16" height="16"></svg></div>'
        : `<div class="send-button-container${state === 'empty' ? ' disabled' : ''}"><svg class="send-icon" width="16" height="16"></svg></div>`,
    );
    container.addEventListener('click', () => {
      if (state === 'streaming') actions.stop();
      else if (!container.classList.contains('disabled')) actions.send();
    });
    slot.replaceChildren(container);
  },
  mountComposer(slot, hooks) {
    const root = element('<div class="chat-input-editor" contenteditable="true" role="textbox" spellcheck="false"></div>');
    slot.append(root);
    return mountLexical(root, hooks, 'kimi-chat-input', registerPlainText);
  },
});
