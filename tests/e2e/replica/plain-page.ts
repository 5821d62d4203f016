/**
 * A plain chat page with no site module of its own, for the generic adapter (extension/sites/generic.ts) and the site
 * doctor: `article[data-role=user|assistant]` turns, replies rendered as `pre > code.language-xxx`, and a composer
 * that is either a plain `textarea` or a plain `div[contenteditable]` with no editor library. `button[type=submit]`
 * ("Send") is disabled while the box is empty and turns into "Stop" while a reply streams.
 *
 * `?send=never` makes the page fight back: its send control never enables and Enter sends only when a person presses
 * it (a key event the page did not get from the keyboard is ignored, as some sites do), so a result typed in by the
 * extension cannot be sent by it — the site doctor's "inserted — press Enter".
 */
import { createSiteRenderer, escapeHtml } from './render';
import { element, startFamilyPage } from './shell';

const renderMarkdown = createSiteRenderer({
  codeBlock(text, label) {
    return `<pre class="code"><code${label ? ` class="language-${escapeHtml(label)}"` : ''}>${escapeHtml(text)}\n</code></pre>\n`;
  },
});

export function startPlainPage(site: 'plain' | 'editable'): void {
  const sendNever = new URLSearchParams(location.search).get('send') === 'never';
  startFamilyPage({
    site,
    title: site === 'plain' ? 'A plain chat (textarea)' : 'A plain chat (contenteditable)',
    conversationId: (pathname) => /^\/chat\/([0-9a-f-]{36})$/.exec(pathname)?.[1] ?? null,
    newConversationPath: () => `/chat/${crypto.randomUUID()}${location.search}`,
    layout(body) {
      body.append(
        element(
          '<div class="app"><main id="turns" class="thread"></main>' +
            '<form class="composer" id="composer-form"><div id="replica-editor-slot"></div><div id="replica-control"></div></form></div>',
        ),
      );
      body.querySelector('#composer-form')?.addEventListener('submit', (event) => event.preventDefault());
      return {
        turns: body.querySelector('#turns') as HTMLElement,
        editor: body.querySelector('#replica-editor-slot') as HTMLElement,
        control: body.querySelector('#replica-control') as HTMLElement,
      };
    },
    userTurn(turn) {
      return element(`<article data-role="user" class="turn"><div class="bubble">${escapeHtml(turn.text)}</div></article>`);
    },
    assistantTurn() {
      const root = element('<article data-role="assistant" class="turn"><div class="answer"></div></article>');
      return { root, answer: root.querySelector('.answer') as HTMLElement };
    },
    renderMarkdown,
    drawControl(slot, state, actions) {
      const button =
        state === 'streaming'
          ? element('<button type="button" aria-label="Stop">■</button>')
          : element('<button type="submit" aria-label="Send">➤</button>');
      if (state === 'empty' || (state === 'text' && sendNever)) (button as HTMLButtonElement).disabled = true;
      button.addEventListener('click', (event) => {
        event.preventDefault();
        if (state === 'streaming') actions.stop();
        else if (!sendNever) actions.send();
      });
      slot.replaceChildren(button);
    },
    mountComposer(slot, hooks) {
      const box =
        site === 'plain'
          ? (element('<textarea id="prompt" rows="2" aria-label="Message" placeholder="Ask anything"></textarea>') as HTMLTextAreaElement)
          : // Chat boxes keep the spaces typed into them (pre-wrap), as the editor libraries' boxes do.
            element('<div id="prompt" contenteditable="true" role="textbox" aria-label="Message" style="white-space:pre-wrap;min-height:36px"></div>');
      box.addEventListener('input', () => hooks.changed());
      box.addEventListener('keydown', (event) => {
        if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
        event.preventDefault();
        if (sendNever && !event.isTrusted) return;
        hooks.enter();
      });
      slot.replaceChildren(box);
      const text = (): string => (box instanceof HTMLTextAreaElement ? box.value : box.innerText.replace(/\n$/, ''));
      return {
        text,
        clear() {
          if (box instanceof HTMLTextAreaElement) box.value = '';
          else box.replaceChildren();
          hooks.changed();
        },
      };
    },
  });
}
