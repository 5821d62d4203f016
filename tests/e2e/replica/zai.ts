/**
 * A Z.ai-like page (extension/sites/zai.ts DOM contract, 2026; an Open WebUI app): `div.message-<uuid>` turns holding
 * `.user-message` or `.chat-assistant`, code blocks as a wrapper with a label and `button.copy-code-button` beside
 * `div.language-xxx > .cm-editor` (CodeMirror 6's DOM: one `.cm-line` per line, no newline text), and a textarea
 * composer whose value lives in the framework's state — here a REAL Vue 3 component (render function, `value` bound
 * and `input` events read, as Svelte's `bind:value` on the real site). `button#send-message-button` is disabled while
 * the state is empty; while a reply streams it is gone and an id-less round stop button (a square span, no svg) stands
 * in its place. `/` → `/c/<uuid>`.
 */
import { createApp, h, ref } from 'vue';
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    const lines = text.split('\n').map((line) => `<div class="cm-line">${line === '' ? '<br>' : escapeHtml(line)}</div>`);
    return (
      '<div class="relative my-2 flex flex-col rounded-xl border">' +
      `<div class="flex justify-between px-4 py-1 text-xs"><div class="p-1">${escapeHtml(label)}</div>` +
      '<div class="flex items-center gap-0.5"><button class="copy-code-button bg-none border-none p-1">Copy</button></div></div>' +
      `<div class="language-${escapeHtml(label || 'plaintext')} rounded-b-lg overflow-hidden"><div class="cm-editor ͼ1 ͼ2 ͼ4"><div class="cm-scroller">` +
      `<div class="cm-content" contenteditable="false" role="textbox" aria-readonly="true">${lines.join('')}</div>` +
      '</div></div></div></div>\n'
    );
  },
});

startFamilyPage({
  site: 'zai',
  title: 'Z.ai - Free AI Chatbot',
  conversationId: (pathname) => /^\/c\/([0-9a-f-]{36})$/.exec(pathname)?.[1] ?? null,
  newConversationPath: () => `/c/${crypto.randomUUID()}`,
  layout(body) {
    body.append(
      element(
        '<div class="app"><div id="messages-container" class="flex flex-col"><div class="h-full flex" id="replica-turns"></div></div>' +
          '<form class="flex gap-1.5 w-full" id="chat-form"><div class="flex-1 flex flex-col relative w-full rounded-3xl">' +
          '<div class="flex"><div class="flex-1" id="replica-editor-slot"></div></div>' +
          '<div class="flex justify-end"><div class="flex items-center" id="replica-control"></div></div></div></form></div>',
      ),
    );
    body.querySelector('#replica-turns')?.setAttribute('style', 'flex-direction:column');
    return {
      turns: body.querySelector('#replica-turns') as HTMLElement,
      editor: body.querySelector('#replica-editor-slot') as HTMLElement,
      control: body.querySelector('#replica-control') as HTMLElement,
    };
  },
  userTurn(turn) {
    return element(
      `<div class="flex flex-col justify-between px-5 mb-3 w-full message-${turn.id}" id="message-${turn.id}">` +
        `<div class="user-message chat-user w-full flex justify-end"><div class="rounded-3xl px-5 py-2 whitespace-pre-wrap">${escapeHtml(turn.text)}</div></div></div>`,
    );
  },
  assistantTurn(turn) {
    const root = element(
      `<div class="flex flex-col justify-between px-5 mb-3 w-full message-${turn.id}" id="message-${turn.id}">` +
        '<div class="chat-assistant markdown-prose w-full min-w-full"></div></div>',
    );
    return { root, answer: root.querySelector('.chat-assistant') as HTMLElement };
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    const button =
      state === 'streaming'
        ? element('<button type="button" class="bg-white rounded-full p-1.5"><span class="block size-4 bg-black rounded-sm"></span></button>')
        : element('<button id="send-message-button" type="submit" class="bg-black text-white rounded-full p-1.5"><svg width="16" height="16"></svg></button>');
    if (state === 'empty') (button as HTMLButtonElement).disabled = true;
    button.addEventListener('click', (event) => {
      event.preventDefault();
      if (state === 'streaming') actions.stop();
      else actions.send();
    });
    slot.replaceChildren(button);
  },
  mountComposer(slot, hooks) {
    const value = ref('');
    createApp({
      setup: () => () =>
        h('textarea', {
          id: 'chat-input',
          class: 'scrollbar-hidden bg-transparent w-full outline-hidden resize-none',
          placeholder: 'How can I help you today?',
          rows: 1,
          value: value.value,
          onInput: (event: Event) => {
            value.value = (event.target as HTMLTextAreaElement).value;
            hooks.changed();
          },
          onKeydown: (event: KeyboardEvent) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              hooks.enter();
            }
          },
        }),
    }).mount(slot);
    return {
      text: () => value.value,
      clear: () => {
        value.value = '';
        hooks.changed();
      },
    };
  },
});
