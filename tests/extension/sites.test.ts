import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { SITES, chatgpt, deepseek, generic, siteForHost } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { renderLikeSite } from './render-like-site';
import { replyCodeProblem } from '../../extension/doctor/reply-code';
import { MCP_SITE, SITE_IDS } from '../../shared/site-ids';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'sites');

interface Expectation {
  site: Site;
  pathname: string;
  roles: Array<'user' | 'assistant'>;
  conversationId: string | null;
  generating: boolean;
  editorTag: string;
  /** The block payloads found in assistant answers, in page order (the reasoning's blocks must not be here). */
  answerBlocks: Array<{ kind: string; language: string; id: unknown }>;
  keys: string[];
  sendButton: 'enabled' | 'disabled' | 'absent';
}

const EXPECTED: Record<string, Expectation> = {
  'chatgpt/2026-07-codemirror-generating.html': {
    site: chatgpt,
    pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70',
    roles: ['user', 'assistant'],
    conversationId: '6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70',
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-002' }],
    keys: ['m:0b9e1d2a-1111-4a2b-8c3d-000000000001', 'm:5c2d7e8f-2222-4b3c-9d4e-000000000002'],
    sendButton: 'absent',
  },
  'chatgpt/2025-09-hljs-idle.html': {
    site: chatgpt,
    pathname: '/g/g-p-abc123-project/c/0f1e2d3c-5b6a-4798-8a9b-0c1d2e3f4a5b',
    roles: ['user', 'assistant', 'assistant'],
    conversationId: '0f1e2d3c-5b6a-4798-8a9b-0c1d2e3f4a5b',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'flycode-call', language: 'flycode-call', id: 'call-001' }],
    // The placeholder id is not a key: the turn id stands in until the real id arrives.
    keys: ['m:aaa11111-0000-4000-8000-000000000001', 'm:bbb22222-0000-4000-8000-000000000002', 't:t3'],
    sendButton: 'enabled',
  },
  'chatgpt/2026-10-search-unit-idle.html': {
    site: chatgpt,
    pathname: '/c/77aa88bb-1c2d-4e3f-8a9b-cdef01234567',
    roles: ['user', 'assistant'],
    conversationId: '77aa88bb-1c2d-4e3f-8a9b-cdef01234567',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 7 }],
    // The turn key with the role: both messages sit in one keyed turn.
    keys: ['k:k-1:user', 'k:k-1:assistant'],
    sendButton: 'absent',
  },
  'deepseek/2026-10-thinking-idle.html': {
    site: deepseek,
    pathname: '/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    roles: ['user', 'assistant'],
    conversationId: '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-001' }],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'deepseek/2026-11-attachment-idle.html': {
    site: deepseek,
    pathname: '/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    roles: ['user', 'assistant'],
    conversationId: '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    // The send control is enabled with the box empty (a file waits to be sent), yet it shows the send arrow: nothing
    // is written.
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-003' }],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'deepseek/2026-10-generating.html': {
    site: deepseek,
    pathname: '/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    roles: ['user', 'assistant'],
    conversationId: '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'deepseek/2026-10-connecting.html': {
    site: deepseek,
    pathname: '/',
    roles: ['user'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0'],
    sendButton: 'enabled',
  },
};

function load(file: string): Document {
  document.open();
  document.write(readFileSync(join(DIR, file), 'utf8'));
  document.close();
  return document;
}

describe('site modules against saved DOM fixtures', () => {
  it('every first-class fixture file has expectations and every site has fixtures', () => {
    // the other sites' fixtures are checked in sites-more.test.ts
    const firstClass = new Set(['chatgpt', 'deepseek']);
    const all = readdirSync(DIR).flatMap((site) => readdirSync(join(DIR, site)).map((f) => `${site}/${f}`));
    const files = all.filter((f) => firstClass.has(f.split('/')[0] ?? ''));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const site of SITES) expect(all.some((f) => f.startsWith(`${site.id}/`)), site.id).toBe(true);
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    describe(file, () => {
      it('finds the messages with their roles and stable keys', () => {
        const doc = load(file);
        const messages = want.site.messages(doc);
        expect(messages.map((m) => m.role)).toEqual(want.roles);
        expect(messages.map((m, i) => want.site.messageKey(m.el, i))).toEqual(want.keys);
      });

      it('reads blocks from answers only, never from reasoning or user messages', () => {
        const doc = load(file);
        const found: Array<{ kind: string; language: string; id: unknown }> = [];
        for (const message of want.site.messages(doc)) {
          if (message.role !== 'assistant') continue;
          const answer = want.site.answerRoot(message.el);
          if (!answer) continue;
          const serialized = serializeMessage(answer, want.site);
          for (const block of findBlocks(serialized.markdown)) {
            const language = serialized.segments.find((s) => s.code && s.start <= block.start && s.end >= block.end)?.code?.language ?? '';
            found.push({ kind: block.kind, language, id: (block.payload as { id?: unknown } | undefined)?.id });
          }
        }
        expect(found).toEqual(want.answerBlocks);
      });

      it('finds the editor, the send control and the generating state', () => {
        const doc = load(file);
        expect(want.site.editor(doc)?.tagName).toBe(want.editorTag);
        expect(want.site.isGenerating(doc)).toBe(want.generating);
        const send = want.site.sendButton(doc);
        const state = !send ? 'absent' : want.site.isSendDisabled(send) ? 'disabled' : 'enabled';
        expect(state).toBe(want.sendButton);
      });

      it('reads the conversation id from the URL', () => {
        expect(want.site.conversationId({ pathname: want.pathname })).toBe(want.conversationId);
      });

      it('finds the stop control the person clicks while a reply is generated, and none otherwise', () => {
        const doc = load(file);
        const stop = want.site.stopControl(doc);
        expect(stop !== null).toBe(want.generating === true);
        if (stop) expect(stop.closest('[data-message-author-role], .ds-message, .ds-markdown')).toBeNull();
      });
    });
  }

  it("every module's id is a site id the companion takes in a config's per-site overrides, and there is none other but mcp", () => {
    expect([...[...SITES, generic].map((site) => site.id), MCP_SITE].sort()).toEqual([...SITE_IDS].sort());
  });

  it('picks the site by exact host', () => {
    expect(siteForHost('chatgpt.com')).toBe(chatgpt);
    expect(siteForHost('chat.openai.com')).toBe(chatgpt);
    expect(siteForHost('chat.deepseek.com')).toBe(deepseek);
    expect(siteForHost('evil-chatgpt.com')).toBeNull();
    expect(siteForHost('chat.deepseek.com.evil.example')).toBeNull();
  });

  it('does not take a path that merely contains /c/ as a conversation', () => {
    expect(chatgpt.conversationId({ pathname: '/' })).toBeNull();
    expect(chatgpt.conversationId({ pathname: '/c/' })).toBeNull();
    expect(deepseek.conversationId({ pathname: '/x/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8' })).toBeNull();
  });

  it('ChatGPT, 09–11/2026 layout: a message keeps its key when the history above it is unmounted or reloaded', () => {
    // The unit key repeats from turn to turn ("fallback-turn-0:…", as captured); the message ids and turn keys do not.
    const turn = (key: string, ids: [string, string] | null) => {
      const attr = (id: string) => (ids ? ` data-chatgpt-search-message-ids="${id}"` : '');
      return `<div data-turn-key="${key}">
        <div data-chatgpt-search-unit-key="fallback-turn-0:0:user"${attr(ids?.[0] ?? '')}><div class="whitespace-pre-wrap">q ${key}</div></div>
        <div data-chatgpt-search-unit-key="fallback-turn-0:2:assistant"${attr(ids?.[1] ?? '')}><div data-markdown-text-style="assistant-message"><p>a ${key}</p></div></div>
      </div>`;
    };
    const keysOf = () => chatgpt.messages(document).map((m, i) => chatgpt.messageKey(m.el, i));
    for (const withIds of [true, false]) {
      const ids = (n: number): [string, string] | null => (withIds ? [`u-${n} u-${n}b`, `a-${n}`] : null);
      document.body.innerHTML = turn('t-1', ids(1)) + turn('t-2', ids(2)) + turn('t-3', ids(3));
      const whole = keysOf();
      expect(new Set(whole).size, `${withIds}`).toBe(6);
      // A virtualised history unmounts the first turn: the others keep their keys, and no key names another message.
      document.querySelector('[data-turn-key="t-1"]')!.remove();
      expect(keysOf()).toEqual(whole.slice(2));
    }
    expect(keysOf()).toEqual(['k:t-2:user', 'k:t-2:assistant', 'k:t-3:user', 'k:t-3:assistant']);
    document.body.innerHTML = turn('t-1', ['u-1 u-1b', 'a-1']);
    expect(keysOf()).toEqual(['m:u-1', 'm:a-1']);
  });

  it("ChatGPT, 09–11/2026 layout: the person's unit keyed only for the page's search is the person's message", () => {
    // As captured on 2026-09-28: the reply's unit carries both keys, the person's only data-content-search-unit-key.
    document.body.innerHTML = `<div data-content-search-turn-key="fallback-turn-3">
      <div data-content-search-unit-key="fallback-turn-3:0:user"><div data-user-message-bubble="true">read it</div><button aria-label="Copy message"></button></div>
      <div data-content-search-unit-key="fallback-turn-3:2:assistant" data-chatgpt-search-unit-key="fallback-turn-3:2:assistant" data-chatgpt-search-message-ids="a-9">
        <h4 class="sr-only" data-conversation-role="assistant">ChatGPT said:</h4>
        <div data-chatgpt-selection-message-id="a-9"><div data-markdown-text-style="assistant-message"><p>Done.</p></div></div>
      </div>
    </div>`;
    const messages = chatgpt.messages(document);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[0]!.el.textContent).toContain('read it');
    expect(chatgpt.answerRoot(messages[1]!.el)?.textContent).toBe('Done.');
    expect(messages.map((m, i) => chatgpt.messageKey(m.el, i))).toEqual(['p:0', 'm:a-9']);
  });

  it('ChatGPT, 2026-10 build: code blocks without a pre, the composer beside a reply\'s writing block, and its Send button', () => {
    // As captured on 2026-09 and 2026-10-01: a fenced block is a div holding its label and a bare code element; a
    // reply's writing block is a ProseMirror editor drawn before the composer; the send button is named only "Send".
    const call = '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a  b.txt"}}}';
    document.body.innerHTML = `<main><div data-turn-key="t1">
      <div data-chatgpt-search-unit-key="fallback-turn-0:0:user" data-chatgpt-search-message-ids="u1"><div class="whitespace-pre-wrap">hi</div></div>
      <div data-chatgpt-search-unit-key="fallback-turn-0:2:assistant" data-chatgpt-search-message-ids="a1">
        <div data-chatgpt-selection-message-id="a1"><div data-markdown-text-style="assistant-message"><p>Here:</p>
          <div class="CodeBlock-x"><div data-markdown-copy="code-block" data-theme="light">
            <div data-markdown-copy="exclude"><div class="truncate">mcp-request</div><button aria-label="Copy"></button></div>
            <div><code class="whitespace-pre! block"></code></div></div></div>
          <div data-oai-writing-block-surface="" data-testid="chatgpt-writing-block"><header><button aria-label="Copy"></button></header>
            <div class="writing-block-editor"><div class="ProseMirror" contenteditable="true" aria-label="Start writing"><p>draft</p></div></div></div>
        </div></div>
      </div></div>
      <form><div data-composer-input-variant="default"><div contenteditable="true" class="ProseMirror" data-composer-markdown="" aria-label="Ask ChatGPT"><p>x</p></div></div>
      <button aria-label="Send">send</button></form></main>`;
    document.querySelector('code')!.textContent = call;
    const reply = chatgpt.messages(document).find((m) => m.role === 'assistant')!;
    const answer = chatgpt.answerRoot(reply.el)!;
    const serialized = serializeMessage(answer, chatgpt);
    const blocks = findBlocks(serialized.markdown);
    expect(blocks.map((b) => b.kind)).toEqual(['mcp-request']);
    expect(serialized.markdown).toContain(call);
    expect(replyCodeProblem(chatgpt, reply.el, [])).toBeNull();
    expect(chatgpt.editor(document)?.getAttribute('aria-label')).toBe('Ask ChatGPT');
    expect(chatgpt.sendButton(document)?.textContent).toBe('send');
    // Only beside the composer: another page's "Send" button is no send control.
    document.querySelector('form')!.before(Object.assign(document.createElement('button'), { textContent: 'share' }));
    document.querySelector('form button')!.remove();
    document.querySelector('main > button')!.setAttribute('aria-label', 'Send');
    expect(chatgpt.sendButton(document)).toBeNull();
  });

  it('ChatGPT, 09–11/2026 layout: a reply of two messages (a search, then the answer) is read whole', () => {
    // The unit lists both message ids and draws each message's body in its own selection wrapper: the call is in the
    // second body, after the words the first message wrote before its search.
    const call = '{"jsonrpc":"2.0","id":"second","method":"tools/list","params":{}}';
    document.body.innerHTML = `<main><div data-turn-key="t1">
      <div data-chatgpt-search-unit-key="fallback-turn-0:0:user" data-chatgpt-search-message-ids="u1"><div class="whitespace-pre-wrap">list the tools</div></div>
      <div data-chatgpt-search-unit-key="fallback-turn-0:2:assistant" data-chatgpt-search-message-ids="a1 a2">
        <h4 class="sr-only">ChatGPT said:</h4>
        <div data-chatgpt-selection-message-id="a1"><div data-markdown-text-style="assistant-message"><p>Let me look that up.</p></div></div>
        <div><button>Searched 2 sites</button></div>
        <div data-chatgpt-selection-message-id="a2"><div data-markdown-text-style="assistant-message"><p>Here:</p>
          <pre><div><span>mcp-request</span><button aria-label="Copy"></button></div><code>${call}</code></pre></div></div>
      </div></div>
      <form data-chatgpt-composer=""><div class="ProseMirror" contenteditable="true"><p><br></p></div></form></main>`;
    for (const layout of ['search unit', 'message role']) {
      if (layout === 'message role') {
        // The same reply in the earlier layouts' markup: one assistant message holding two .markdown bodies.
        const unit = document.querySelector('[data-chatgpt-search-unit-key$=":assistant"]')!;
        unit.removeAttribute('data-chatgpt-search-unit-key');
        unit.setAttribute('data-message-author-role', 'assistant');
        for (const body of Array.from(unit.querySelectorAll('[data-markdown-text-style]'))) {
          body.removeAttribute('data-markdown-text-style');
          body.className = 'markdown prose';
        }
      }
      const reply = chatgpt.messages(document).find((m) => m.role === 'assistant')!;
      const answer = chatgpt.answerRoot(reply.el)!;
      const serialized = serializeMessage(answer, chatgpt);
      expect(findBlocks(serialized.markdown).map((b) => (b.payload as { id?: unknown } | undefined)?.id), layout).toEqual(['second']);
      expect(serialized.markdown, layout).toContain('Let me look that up.');
      expect(serialized.markdown, layout).not.toContain('ChatGPT said');
      expect(replyCodeProblem(chatgpt, reply.el, []), layout).toBeNull();
    }
  });

  it('ChatGPT: a reasoning panel rendered inside the message, with a markdown body of its own, is not the answer', () => {
    for (const layout of ['chatgpt-codemirror', 'chatgpt-hljs'] as const) {
      const { message, root } = renderLikeSite('Here:\n\n```mcp-request\n{"jsonrpc":"2.0","id":"answer","method":"tools/list"}\n```\n', layout);
      document.body.replaceChildren(root);
      // The panel the turn holds beside the message, moved into the message above the answer, its body a .markdown.
      const panel = root.querySelector('[data-testid="reasoning-summary"]')!;
      const body = document.createElement('div');
      body.className = 'markdown prose dark:prose-invert w-full break-words light';
      body.append(...Array.from(panel.childNodes));
      panel.replaceChildren(body);
      message.prepend(panel);
      // The decoy is a real block where it stands: read whole, the panel's body runs `fs.rm /`.
      const decoy = findBlocks(serializeMessage(body, { ...chatgpt, skipSelector: '[data-chatbridge-chip]' }).markdown);
      expect(decoy.map((b) => (b.payload as { id?: unknown } | undefined)?.id)).toEqual(['decoy']);
      const answer = chatgpt.answerRoot(message)!;
      const ids = findBlocks(serializeMessage(answer, chatgpt).markdown).map((b) => (b.payload as { id?: unknown } | undefined)?.id);
      expect(ids, layout).toEqual(['answer']);
    }
  });

  it('the generic adapter reads code blocks and the last editor', () => {
    document.body.innerHTML =
      '<div data-role="user"><pre><code class="language-mcp-request">{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n</code></pre></div>' +
      '<div data-role="assistant"><p>ok</p><pre><code class="language-mcp-request">{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n</code></pre></div>' +
      '<textarea></textarea><div contenteditable="true"></div>';
    const messages = generic.messages(document);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const answer = generic.answerRoot(messages[1]!.el)!;
    const blocks = findBlocks(serializeMessage(answer, generic).markdown);
    expect(blocks.map((b) => (b.payload as { id: number }).id)).toEqual([2]);
    expect(generic.editor(document)?.tagName).toBe('DIV');
    expect(generic.isGenerating(document)).toBeUndefined();
  });
});

describe('every site module: an edit box inside a message is never the chat box', () => {
  for (const site of SITES.filter((s) => s.hosts.length > 0)) {
    it(site.id, () => {
      let checked = 0;
      for (const file of readdirSync(join(DIR, site.id))) {
        document.open();
        document.write(readFileSync(join(DIR, site.id, file), 'utf8'));
        document.close();
        const composer = site.editor(document);
        const first = site.messages(document)[0];
        if (!composer || !first) continue;
        // The page as saved: its chat box is outside every message.
        expect(composer.closest(site.messageSelector), file).toBeNull();
        // Editing an earlier message mounts a box inside that message (a textarea, filled with the message), and a
        // redesign can rename the chat box so only a module's broad fallback (`textarea`, `form textarea`) finds a box.
        const form = document.createElement('form');
        const editBox = document.createElement('textarea');
        editBox.value = 'the earlier question';
        form.append(editBox);
        first.el.append(form);
        expect(site.editor(document), file).toBe(composer);
        // The chat box renamed past what the module knows: the module may find no box (the doctor names it), never
        // the edit box.
        composer.replaceWith(document.createElement('div'));
        expect(site.editor(document), `${file}, chat box renamed`).not.toBe(editBox);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
