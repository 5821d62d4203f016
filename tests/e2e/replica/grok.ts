/**
 * A Grok-like page (extension/sites/grok.ts DOM contract, 2026): turns as `div.relative.group.flex.flex-col` rows,
 * `.items-end` for the person and `.items-start` (id="response-<id>") for Grok, each with a `.message-bubble`; the
 * answer in `.response-content-markdown`; code blocks as `[data-testid=code-block]` with a `.font-mono.text-xs` label,
 * a Copy button and `pre > code`; a REAL TipTap composer in the form. `button[type=submit][aria-label=Submit]` is
 * disabled while the editor is empty; "Stop model response" takes its place while a reply streams. `/` → `/c/<uuid>`.
 */
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';
import { mountTipTap } from './tiptap';

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    return (
      '<div data-testid="code-block" class="relative not-prose"><div class="flex flex-row px-4 py-2 h-10 items-center rounded-t-xl">' +
      `<span class="font-mono text-xs">${escapeHtml(label)}</span><div class="flex flex-row gap-2 ml-auto"><button aria-label="Copy" class="h-8">Copy</button></div></div>` +
      `<div class="shiki not-prose"><pre class="shiki"><code><span class="line">${escapeHtml(text)}</span></code></pre></div></div>\n`
    );
  },
});

const TURN = 'relative group flex flex-col justify-center w-full max-w-[var(--content-max-width)] pb-0.5';

startFamilyPage({
  site: 'grok',
  title: 'Grok',
  conversationId: (pathname) => /^\/c\/([0-9a-f-]{36})$/.exec(pathname)?.[1] ?? null,
  newConversationPath: () => `/c/${crypto.randomUUID()}`,
  layout(body) {
    body.append(
      element(
        '<div class="flex w-full h-full"><main class="h-dvh flex-grow"><div class="flex flex-col items-center w-full" id="replica-turns"></div>' +
          '<form class="bottom-0 w-full"><div class="query-bar flex gap-2"><div class="relative z-10 flex-1" id="replica-editor-slot"></div>' +
          '<div class="flex items-end" id="replica-control"></div></div></form></main></div>',
      ),
    );
    // The form's own submit would leave the page; the app sends from its handler instead.
    body.querySelector('form')?.addEventListener('submit', (event) => event.preventDefault());
    return {
      turns: body.querySelector('#replica-turns') as HTMLElement,
      editor: body.querySelector('#replica-editor-slot') as HTMLElement,
      control: body.querySelector('#replica-control') as HTMLElement,
    };
  },
  userTurn(turn) {
    return element(
      `<div class="${TURN} items-end"><div class="message-bubble relative rounded-3xl bg-surface-l1 px-4 py-2.5">` +
        `<span class="whitespace-pre-wrap">${escapeHtml(turn.text)}</span></div>` +
        `<div class="action-buttons flex"><button aria-label="Edit">Edit</button></div></div>`,
    );
  },
  assistantTurn(turn) {
    const root = element(
      `<div class="${TURN} items-start" id="response-${turn.id}"><div class="message-bubble relative w-full max-w-none">` +
        '<div class="response-content-markdown markdown [&amp;_a:not(.not-prose)]:text-current"></div></div>' +
        '<div class="action-buttons flex"><button aria-label="Copy">Copy</button><button aria-label="Regenerate">Regenerate</button></div></div>',
    );
    return { root, answer: root.querySelector('.response-content-markdown') as HTMLElement };
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    const button =
      state === 'streaming'
        ? element('<button type="button" aria-label="Stop model response" class="h-10 w-10 rounded-full"><div class="size-3 bg-current rounded-sm"></div></button>')
        : element('<button type="submit" aria-label="Submit" class="group flex h-10 w-10 rounded-full"><svg width="20" height="20"></svg></button>');
    if (state === 'empty') (button as HTMLButtonElement).disabled = true;
    button.addEventListener('click', state === 'streaming' ? actions.stop : actions.send);
    slot.replaceChildren(button);
  },
  mountComposer(slot, hooks) {
    return mountTipTap(slot, hooks, { class: 'w-full px-2 pt-5 mb-5', 'aria-label': 'Ask Grok anything', translate: 'no' });
  },
});
