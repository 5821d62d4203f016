/**
 * A Claude-like page (extension/sites/claude.ts DOM contract, 2026): `[data-testid=user-message]` prompts,
 * `.font-claude-response` replies inside `div[data-is-streaming]`, answers in `.standard-markdown`, code blocks as
 * `div.group/copy` with a label, a Copy button and `pre.code-block__code > code.language-xxx`, and a REAL TipTap
 * (ProseMirror) composer in a fieldset. "Send message" is disabled while the editor is empty; "Stop response" takes
 * its place while a reply streams. `/` → `/chat/<uuid>` on the first send.
 */
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';
import { mountTipTap } from './tiptap';

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    const language = label === '' ? '' : ` class="language-${escapeHtml(label)}"`;
    return (
      '<div class="relative group/copy bg-bg-000/50 border-0.5 border-border-400 rounded-lg">' +
      `<div class="sticky opacity-0 group-hover/copy:opacity-100"><div class="text-text-500 font-small p-3.5 pb-0">${escapeHtml(label || 'text')}</div></div>` +
      '<div class="sticky opacity-0 group-hover/copy:opacity-100 top-2 py-2 h-12 w-0 float-right"><button class="inline-flex" type="button" aria-label="Copy to clipboard">Copy</button></div>' +
      `<div class="overflow-x-auto"><pre class="code-block__code !my-0 !rounded-lg !text-sm !leading-relaxed"><code${language}><span>${escapeHtml(text)}</span></code></pre></div>` +
      '</div>\n'
    );
  },
});

startFamilyPage({
  site: 'claude',
  title: 'Claude',
  conversationId: (pathname) => /^\/chat\/([0-9a-f-]{36})$/.exec(pathname)?.[1] ?? null,
  newConversationPath: () => `/chat/${crypto.randomUUID()}`,
  layout(body) {
    body.append(
      element(
        '<div class="flex min-h-screen w-full"><main class="flex-1"><div class="flex-1 flex flex-col gap-3 px-4" id="replica-turns"></div>' +
          '<div class="sticky bottom-0"><fieldset class="flex w-full min-w-0 flex-col"><div class="flex flex-col bg-bg-000 rounded-2xl">' +
          '<div class="relative"><div class="w-full overflow-y-auto break-words max-h-96" id="replica-editor-slot"></div></div>' +
          '<div class="flex gap-2.5 w-full items-center"><div class="flex-1"></div><div id="replica-control"></div></div>' +
          '</div></fieldset></div></main></div>',
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
      '<div data-test-render-count="1"><div class="mb-1 mt-1"><div class="group relative inline-flex gap-2 bg-bg-300 rounded-xl">' +
        `<div data-testid="user-message" class="font-large !font-user-message grid grid-cols-1 gap-2"><p class="whitespace-pre-wrap break-words">${escapeHtml(turn.text)}</p></div>` +
        '</div></div></div>',
    );
  },
  assistantTurn() {
    const root = element(
      '<div data-test-render-count="1"><div data-is-streaming="true" class="group relative pb-3"><div class="font-claude-response relative leading-[1.65rem]">' +
        '<div><div class="standard-markdown grid-cols-1 grid gap-2.5"></div></div>' +
        '</div><div class="flex items-center"><button type="button" aria-label="Copy" data-testid="action-bar-copy">Copy</button></div></div></div>',
    );
    return { root, answer: root.querySelector('.standard-markdown') as HTMLElement };
  },
  setTurnStreaming(root, streaming) {
    root.querySelector('[data-is-streaming]')?.setAttribute('data-is-streaming', String(streaming));
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    const button = document.createElement('button');
    button.type = 'button';
    if (state === 'streaming') {
      button.setAttribute('aria-label', 'Stop response');
      button.className = 'inline-flex items-center justify-center h-8 w-8 rounded-md';
      button.addEventListener('click', actions.stop);
    } else {
      button.setAttribute('aria-label', 'Send message');
      button.className = 'inline-flex items-center justify-center bg-accent-main-000 h-8 w-8 rounded-md';
      button.disabled = state === 'empty';
      button.addEventListener('click', actions.send);
    }
    slot.replaceChildren(button);
  },
  mountComposer(slot, hooks) {
    return mountTipTap(slot, hooks, {
      class: 'break-words max-w-[60ch]',
      'aria-label': 'Write your prompt to Claude',
      'aria-multiline': 'true',
      role: 'textbox',
      enterkeyhint: 'enter',
      translate: 'no',
    });
  },
});
