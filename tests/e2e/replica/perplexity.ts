/**
 * A Perplexity-like page (extension/sites/perplexity.ts DOM contract, 2026): turns in `.max-w-threadContentWidth`, the
 * question in `div.group/query`, the answer's markdown in `.prose` (inside `[id^=markdown-content-]`), code blocks as
 * `.codeWrapper` with a `[data-testid=code-language-indicator]` label and `pre > code`, and a REAL Lexical rich-text
 * composer `div#ask-input` (text written into its DOM directly is reverted by Lexical). The submit button is disabled
 * while Lexical's state is empty; "Stop" (`stop-generating-response-button`) takes its place while an answer streams.
 * `/` → `/search/<slug>`.
 */
import { registerRichText } from '@lexical/rich-text';
import { mountLexical } from './lexical';
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    return (
      '<div class="codeWrapper relative rounded-lg"><div class="flex items-center justify-between px-3 py-1">' +
      `<div data-testid="code-language-indicator" class="text-xs">${escapeHtml(label)}</div><button aria-label="Copy code" class="p-1">Copy</button></div>` +
      `<pre class="not-prose"><code${label === '' ? '' : ` class="language-${escapeHtml(label)}"`}>${escapeHtml(text)}</code></pre></div>\n`
    );
  },
});

const slug = (): string => `replica-${crypto.randomUUID()}`;

startFamilyPage({
  site: 'perplexity',
  title: 'Perplexity',
  conversationId: (pathname) => {
    const id = /^\/search\/([A-Za-z0-9._-]{4,200})$/.exec(pathname)?.[1];
    return id !== undefined && id !== 'new' ? id : null;
  },
  newConversationPath: () => `/search/${slug()}`,
  layout(body) {
    body.append(
      element(
        '<div class="flex h-full"><main class="grow"><div class="flex flex-col" id="replica-turns"></div>' +
          '<div class="bottom-0 w-full"><div class="rounded-2xl border flex gap-2"><div class="flex-1" id="replica-editor-slot"></div>' +
          '<div class="flex items-end" id="replica-control"></div></div></div></main></div>',
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
      '<div class="max-w-threadContentWidth mx-auto"><div class="group/query relative"><h1 class="break-words">' +
        `<span class="select-text whitespace-pre-line">${escapeHtml(turn.text)}</span></h1></div></div>`,
    );
  },
  assistantTurn(turn) {
    const root = element(
      '<div class="max-w-threadContentWidth mx-auto"><div class="relative">' +
        `<div id="markdown-content-${turn.id}" class="gap-y-md"><div class="prose dark:prose-invert inline leading-normal break-words"></div></div>` +
        '<div class="flex gap-1 mt-2"><button aria-label="Copy">Copy</button><button aria-label="Rewrite">Rewrite</button></div></div></div>',
    );
    return { root, answer: root.querySelector('.prose') as HTMLElement };
  },
  renderMarkdown,
  drawControl(slot, state, actions) {
    const button =
      state === 'streaming'
        ? element('<button type="button" data-testid="stop-generating-response-button" aria-label="Stop" class="rounded-full h-8 w-8"><div class="size-3 bg-current"></div></button>')
        : element('<button type="button" data-testid="submit-button" aria-label="Submit" class="rounded-full h-8 w-8"><svg width="16" height="16"></svg></button>');
    if (state === 'empty') (button as HTMLButtonElement).disabled = true;
    button.addEventListener('click', state === 'streaming' ? actions.stop : actions.send);
    slot.replaceChildren(button);
  },
  mountComposer(slot, hooks) {
    const root = element('<div id="ask-input" contenteditable="true" role="textbox" spellcheck="true" aria-placeholder="Ask anything…" class="overflow-auto max-h-[45vh] outline-none"></div>');
    slot.append(root);
    return mountLexical(root, hooks, 'ask-input', registerRichText);
  },
});
