import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import {
  SITES,
  STATIC_SITE_IDS,
  aistudio,
  copilot,
  doubao,
  grok,
  huggingchat,
  mistral,
  openrouter,
  perplexity,
  poe,
  siteById,
  siteForHost,
  t3chat,
  yuanbao,
  zai,
} from '../../extension/sites';
import { EDITOR_FAMILIES, type Site } from '../../extension/sites/define-site';
import { ENABLED_BY_DEFAULT } from '../../extension/site-settings';
import { answerBlocks, describeFixtures, describeRoundTrips, FIXTURE_DIR, idsReadingEverything, loadFixture, type Expectation, type FoundBlock } from './site-fixtures';

const ADDED: Site[] = [aistudio, grok, perplexity, copilot, mistral, doubao, yuanbao, zai, poe, huggingchat, openrouter, t3chat];

const call = (id: string): FoundBlock => ({ kind: 'mcp-request', language: 'mcp-request', id, partial: false });

const EXPECTED: Record<string, Expectation> = {
  'aistudio/2026-11-thinking-idle.html': {
    site: aistudio,
    pathname: '/prompts/1aB2cD3eF4gH5iJ6kL7mN8oP9',
    roles: ['user', 'assistant'],
    conversationId: '1aB2cD3eF4gH5iJ6kL7mN8oP9',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-101')],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'aistudio/2026-11-generating.html': {
    site: aistudio,
    pathname: '/prompts/new_chat',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'aistudio/2025-12-collapsed-code-idle.html': {
    site: aistudio,
    pathname: '/prompts/abcdefgh12345678',
    roles: ['user', 'assistant'],
    conversationId: 'abcdefgh12345678',
    generating: false,
    editorTag: 'TEXTAREA',
    // The collapsed panel's body is not in the page: its block is marked partial, never run.
    answerBlocks: [call('call-102'), { kind: 'mcp-request', language: 'mcp-request', id: undefined, partial: true }],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'grok/2026-11-thinking-idle.html': {
    site: grok,
    pathname: '/c/7c9e6679-7425-40de-944b-e07fc1f90ae7',
    roles: ['user', 'assistant'],
    conversationId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-201')],
    keys: ['r:u-0001', 'r:a-0002'],
    sendButton: 'enabled',
  },
  'grok/2026-11-generating.html': {
    site: grok,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  // A narrow window's code element carries the label's utility classes, and the toolbar is drawn after the code.
  'grok/2026-11-narrow-code-idle.html': {
    site: grok,
    pathname: '/c/1b4e28ba-2fa1-41d2-883f-0016d3cca427',
    roles: ['user', 'assistant'],
    conversationId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-203')],
    keys: ['r:u-0101', 'r:a-0102'],
    sendButton: 'enabled',
  },
  'grok/2025-08-textarea-idle.html': {
    site: grok,
    pathname: '/c/0f8fad5b-d9cb-469f-a165-70867728950e',
    roles: ['user', 'assistant'],
    conversationId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-202')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'perplexity/2026-11-idle.html': {
    site: perplexity,
    pathname: '/search/read-my-notes-Xy7Zq1AbCdEf2GhIjKlMnO',
    roles: ['user', 'assistant'],
    conversationId: 'read-my-notes-Xy7Zq1AbCdEf2GhIjKlMnO',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-301')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'perplexity/2026-11-generating.html': {
    site: perplexity,
    pathname: '/search/new',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  'copilot/2026-11-idle.html': {
    site: copilot,
    pathname: '/chats/p4QwErTy7UiOp1AsD',
    roles: ['user', 'assistant'],
    conversationId: 'p4QwErTy7UiOp1AsD',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-401')],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  // The block's wrapper holds its label and, two boxes down, its pre (no language class); a json example before it.
  'copilot/2026-11-scroll-box-idle.html': {
    site: copilot,
    pathname: '/chats/Lm3NbV8cXz1AsDfGh',
    roles: ['user', 'assistant'],
    conversationId: 'Lm3NbV8cXz1AsDfGh',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-402')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'copilot/2026-11-generating.html': {
    site: copilot,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  'mistral/2026-11-thinking-idle.html': {
    site: mistral,
    pathname: '/work/9b2d7a3c-1e4f-4a5b-8c6d-0e1f2a3b4c5d',
    roles: ['user', 'assistant'],
    conversationId: '9b2d7a3c-1e4f-4a5b-8c6d-0e1f2a3b4c5d',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-501')],
    keys: ['m:11111111-aaaa-4bbb-8ccc-000000000001', 'm:22222222-aaaa-4bbb-8ccc-000000000002'],
    sendButton: 'disabled',
  },
  // A highlighter that writes no language class: the label in the pre is the only hint; a python example before it.
  'mistral/2026-11-shiki-idle.html': {
    site: mistral,
    pathname: '/work/3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
    roles: ['user', 'assistant'],
    conversationId: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-502')],
    keys: ['m:55555555-aaaa-4bbb-8ccc-000000000005', 'm:66666666-aaaa-4bbb-8ccc-000000000006'],
    sendButton: 'disabled',
  },
  'mistral/2026-11-generating.html': {
    site: mistral,
    pathname: '/chat',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['m:33333333-aaaa-4bbb-8ccc-000000000003', 'm:44444444-aaaa-4bbb-8ccc-000000000004'],
    sendButton: 'disabled',
  },
  'mistral/2025-05-textarea-idle.html': {
    site: mistral,
    pathname: '/chat/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
    roles: ['user', 'assistant'],
    conversationId: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-502')],
    keys: ['m:u-0005', 'm:a-0006'],
    sendButton: 'enabled',
  },
  'doubao/2026-11-thinking-idle.html': {
    site: doubao,
    pathname: '/chat/38472910563',
    roles: ['user', 'assistant'],
    conversationId: '38472910563',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-601')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'doubao/2026-11-generating.html': {
    site: doubao,
    pathname: '/chat/local_1732400000',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'yuanbao/2026-11-thinking-idle.html': {
    site: yuanbao,
    pathname: '/chat/naQivTmsDa/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    roles: ['user', 'assistant'],
    conversationId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [call('call-701')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'yuanbao/2026-07-deepsearch-cot-idle.html': {
    site: yuanbao,
    pathname: '/chat/naQivTmsDa/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    roles: ['user', 'assistant'],
    conversationId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    generating: false,
    editorTag: 'DIV',
    // The deep-thinking section's block (fs.rm) is never read: only the answer's call.
    answerBlocks: [call('call-702')],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'yuanbao/2026-11-generating.html': {
    site: yuanbao,
    pathname: '/chat/naQivTmsDa',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'zai/2026-11-thinking-idle.html': {
    site: zai,
    pathname: '/c/3b1f9a2e-7c4d-4e5f-8a6b-9c0d1e2f3a4b',
    roles: ['user', 'assistant'],
    conversationId: '3b1f9a2e-7c4d-4e5f-8a6b-9c0d1e2f3a4b',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-801')],
    keys: ['m:aaaaaaaa-1111-4222-8333-444444444444', 'm:bbbbbbbb-1111-4222-8333-555555555555'],
    sendButton: 'disabled',
  },
  'zai/2026-11-generating.html': {
    site: zai,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    // CodeMirror left lines out (.cm-gap): whatever the text holds, the block is partial and never runs.
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: undefined, partial: true }],
    keys: ['m:cccccccc-1111-4222-8333-666666666666', 'm:dddddddd-1111-4222-8333-777777777777'],
    sendButton: 'absent',
  },
  'zai/2025-06-openwebui-pre-idle.html': {
    site: zai,
    pathname: '/c/4c2a0b3f-8d5e-4f60-9b7c-0d1e2f3a4b5c',
    roles: ['user', 'assistant'],
    conversationId: '4c2a0b3f-8d5e-4f60-9b7c-0d1e2f3a4b5c',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-802')],
    keys: ['m:eeeeeeee-1111-4222-8333-888888888888', 'm:ffffffff-1111-4222-8333-999999999999'],
    sendButton: 'enabled',
  },
  'poe/2026-11-idle.html': {
    site: poe,
    pathname: '/chat/2xk4p9q7r1s3t5v',
    roles: ['user', 'assistant'],
    conversationId: '2xk4p9q7r1s3t5v',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-901')],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'poe/2026-11-generating.html': {
    site: poe,
    pathname: '/Claude-Sonnet',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'huggingchat/2026-11-thinking-idle.html': {
    site: huggingchat,
    pathname: '/chat/conversation/66f1a2b3c4d5e6f7a8b9c0d1',
    roles: ['user', 'assistant'],
    conversationId: '66f1a2b3c4d5e6f7a8b9c0d1',
    generating: false,
    editorTag: 'TEXTAREA',
    // 2026 builds drop the language: the mcp-request block has no label, and its tools/list is offered with Run, never
    // run by itself (Site.labelHidden); the plan has markers.
    answerBlocks: [{ kind: 'mcp-request', language: '', id: 'call-1001', partial: false }, { kind: 'autocoder', language: '', id: undefined, partial: false }],
    keys: ['m:msg-user-01', 'm:msg-asst-02'],
    sendButton: 'disabled',
  },
  'huggingchat/2025-06-language-class-idle.html': {
    site: huggingchat,
    pathname: '/chat/conversation/aa11bb22cc33dd44',
    roles: ['user', 'assistant'],
    conversationId: 'aa11bb22cc33dd44',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-1002')],
    keys: ['m:u1', 'm:a2'],
    sendButton: 'enabled',
  },
  'huggingchat/2026-11-generating.html': {
    site: huggingchat,
    pathname: '/chat/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['m:u3', 'm:a4'],
    sendButton: 'disabled',
  },
  'openrouter/2026-11-thinking-idle.html': {
    site: openrouter,
    pathname: '/chat',
    href: 'https://openrouter.ai/chat?room=orc-1732400000-AbC123',
    roles: ['user', 'assistant', 'assistant'],
    conversationId: 'orc-1732400000-AbC123',
    // No stop button on the page: no signal (text stability decides), never a false "finished".
    generating: undefined,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-1101'), call('call-1102')],
    keys: ['p:0', 'p:1', 'p:2'],
    sendButton: 'disabled',
  },
  'openrouter/2026-11-generating.html': {
    site: openrouter,
    pathname: '/chat',
    href: 'https://openrouter.ai/chat',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  't3chat/2026-11-thinking-idle.html': {
    site: t3chat,
    pathname: '/chat/1f2e3d4c-5b6a-4789-8abc-def012345678',
    roles: ['user', 'assistant'],
    conversationId: '1f2e3d4c-5b6a-4789-8abc-def012345678',
    generating: undefined,
    editorTag: 'TEXTAREA',
    answerBlocks: [call('call-1201')],
    keys: ['m:m-user-1', 'm:m-asst-2'],
    sendButton: 'enabled',
  },
  't3chat/2026-11-generating.html': {
    site: t3chat,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['m:m-user-3', 'm:m-asst-4'],
    sendButton: 'disabled',
  },
};

describe('the added site modules against saved DOM fixtures', () => {
  it('every fixture of these sites has expectations, and every one of these sites has at least two', () => {
    const files = ADDED.flatMap((site) => readdirSync(join(FIXTURE_DIR, site.id)).map((f) => `${site.id}/${f}`));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const site of ADDED) {
      expect(SITES, site.id).toContain(site);
      expect(files.filter((f) => f.startsWith(`${site.id}/`)).length, site.id).toBeGreaterThanOrEqual(2);
    }
  });

  describeFixtures(EXPECTED);

  it('the reasoning decoys are real blocks when read whole (so "not found in the answer" proves something)', () => {
    for (const [file, want] of Object.entries(EXPECTED)) {
      if (!file.includes('thinking-idle')) continue;
      expect(idsReadingEverything(want.site, loadFixture(file)), file).toContain('think');
    }
  });
});

describe('T3 Chat: a reply in several parts', () => {
  it('reads the blocks of every .prose part of the answer (text, a tool card, more text), never the reasoning', () => {
    document.body.innerHTML =
      '<div data-message-id="m-asst-9"><div role="article" aria-label="Assistant message"><span class="sr-only">Assistant Reply: </span>' +
      '<div class="reasoning-block"><button>Reasoning</button><div class="prose"><pre><code class="language-mcp-request">' +
      '{"jsonrpc":"2.0","id":"think","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"/"}}}</code></pre></div></div>' +
      '<div class="prose"><p>First the file:</p><pre><code class="language-mcp-request">' +
      '{"jsonrpc":"2.0","id":"part-1","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.md"}}}</code></pre></div>' +
      '<div class="rounded border"><span>Searched the web</span><a href="#">3 results</a></div>' +
      '<div class="prose"><p>Then the folder:</p><pre><code class="language-mcp-request">' +
      '{"jsonrpc":"2.0","id":"part-2","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}</code></pre></div>' +
      '</div></div>';
    expect(answerBlocks(t3chat, document).map((b) => b.id)).toEqual(['part-1', 'part-2']);
  });
});

describe('Mistral Le Chat: the conversation in the address', () => {
  it('is the id after /work/ (where Le Chat keeps its conversations, as captured live in 2026) or /chat/ (before)', () => {
    expect(mistral.conversationId({ pathname: '/work/2089030e-15da-4c5d-b8d8-4d882f86f3b8' })).toBe('2089030e-15da-4c5d-b8d8-4d882f86f3b8');
    expect(mistral.conversationId({ pathname: '/chat/2089030e-15da-4c5d-b8d8-4d882f86f3b8' })).toBe('2089030e-15da-4c5d-b8d8-4d882f86f3b8');
    // Its New chat is /work: no conversation yet; nor is a path that merely holds the prefix.
    for (const pathname of ['/work', '/work/', '/chat', '/incognito', '/x/work/2089030e-15da-4c5d-b8d8-4d882f86f3b8']) {
      expect(mistral.conversationId({ pathname }), pathname).toBeNull();
    }
  });
});

describe("Grok: a project's chat in the address", () => {
  it('is the chat named in ?chat= of /project/<id> (as project chats are linked, 2026-06); the project alone is none', () => {
    const project = 'https://grok.com/project/e6c9ce77-4f86-4d94-b440-1062a78171c1';
    expect(grok.conversationId({ pathname: '/project/e6c9ce77-4f86-4d94-b440-1062a78171c1', href: `${project}?chat=5abdb89c-8b7d-4ec0-8839-c39f5a634f03` })).toBe(
      '5abdb89c-8b7d-4ec0-8839-c39f5a634f03',
    );
    expect(grok.conversationId({ pathname: '/project/e6c9ce77-4f86-4d94-b440-1062a78171c1', href: `${project}?chat=33f977da-4a3e-44b6-a6e4-599ae00d5c3e&rid=1` })).toBe(
      '33f977da-4a3e-44b6-a6e4-599ae00d5c3e',
    );
    // The project's page (its new chat, its sources) and a ?chat= on another page name no chat.
    expect(grok.conversationId({ pathname: '/project/e6c9ce77-4f86-4d94-b440-1062a78171c1', href: `${project}?tab=sources` })).toBeNull();
    expect(grok.conversationId({ pathname: '/project/e6c9ce77-4f86-4d94-b440-1062a78171c1', href: `${project}?chat=` })).toBeNull();
    expect(grok.conversationId({ pathname: '/imagine', href: 'https://grok.com/imagine?chat=5abdb89c-8b7d-4ec0-8839-c39f5a634f03' })).toBeNull();
    expect(grok.conversationId({ pathname: '/c/7c9e6679-7425-40de-944b-e07fc1f90ae7', href: 'https://grok.com/c/7c9e6679-7425-40de-944b-e07fc1f90ae7?rid=9' })).toBe(
      '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    );
  });
});

describe("Grok's stop control where the page is not in English", () => {
  /** The stop icon as a 2026-08 build draws it (CodeWebChat keys on it): a rounded square. */
  const ICON =
    '<svg width="24" height="24" viewBox="0 0 24 24"><path d="M4 9.2v5.6c0 1.116 0 1.673.11 2.134a4 4 0 0 0 2.956 2.956c.46.11 1.018.11 2.134.11h5.6c1.116 0 1.673 0 2.134-.11a4 4 0 0 0 2.956-2.956c.11-.46.11-1.018.11-2.134V9.2c0-1.116 0-1.673-.11-2.134a4 4 0 0 0-2.956-2.955C16.474 4 15.916 4 14.8 4H9.2c-1.116 0-1.673 0-2.134.11a4 4 0 0 0-2.955 2.956C4 7.526 4 8.084 4 9.2Z"></path></svg>';

  it('is the composer button showing the stop icon, whatever its label says, and says a reply is being written', () => {
    for (const label of ['モデルの応答を停止', 'Detener la respuesta del modelo']) {
      const doc = loadFixture('grok/2026-11-generating.html');
      const button = doc.querySelector('form button[aria-label="Stop model response"]')!;
      button.setAttribute('aria-label', label);
      button.innerHTML = ICON;
      expect(grok.stopControl(doc), label).toBe(button);
      expect(grok.isGenerating(doc), label).toBe(true);
    }
  });

  it('the same icon outside the composer is not the stop control', () => {
    const doc = loadFixture('grok/2026-11-generating.html');
    const button = doc.querySelector('form button[aria-label="Stop model response"]')!;
    button.setAttribute('aria-label', 'Arrêter');
    button.innerHTML = ICON;
    grok.messages(doc).at(-1)!.el.append(button);
    expect(grok.stopControl(doc)).toBeNull();
    expect(grok.isGenerating(doc)).toBe(false);
  });
});

describe('Yuanbao: a build whose reply carries no data-conv-outputting (CodeWebChat 2026-08 keys on the stop icon)', () => {
  /** The streaming page without the attribute, the send slot drawing the stop icon (a rect at x=7.71448) while it writes. */
  function streaming(): { slot: HTMLElement } {
    const doc = loadFixture('yuanbao/2026-11-generating.html');
    doc.querySelector('[data-conv-outputting]')!.removeAttribute('data-conv-outputting');
    const slot = doc.querySelector<HTMLElement>('[dt-button-id="send_btn"]')!;
    slot.innerHTML = '<svg width="24" height="24" viewBox="0 0 24 24"><rect x="7.71448" y="7.71448" width="8.57143" height="8.57143" rx="1.5"></rect></svg>';
    return { slot };
  }

  it('the stop icon says the reply is being written, and its control is the stop control, not a send control', () => {
    const { slot } = streaming();
    expect(yuanbao.isGenerating(document)).toBe(true);
    expect(yuanbao.stopControl(document)).toBe(slot);
    expect(yuanbao.isSendDisabled(yuanbao.sendButton(document)!)).toBe(true);
  });

  it('once the icon goes, the page gives no signal of its own again (text stability decides)', () => {
    const { slot } = streaming();
    slot.textContent = '发送';
    expect(yuanbao.isGenerating(document)).toBeUndefined();
    expect(yuanbao.stopControl(document)).toBeNull();
  });
});

describe('the site list', () => {
  it('every site states an editor family, its hosts are its own, and its pages are on its hosts', () => {
    const seen = new Set<string>();
    for (const site of SITES) {
      expect(EDITOR_FAMILIES, site.id).toContain(site.editorFamily);
      expect(site.editorFamily, site.id).not.toBe('unknown');
      for (const host of site.hosts) {
        expect(seen.has(host), `${host} served twice`).toBe(false);
        seen.add(host);
        expect(siteForHost(host)).toBe(site);
      }
      for (const pattern of site.matches) expect(site.hosts, pattern).toContain(new URL(pattern.replace('*', '')).host);
      expect(siteById(site.id)).toBe(site);
    }
  });

  it('every site module documents its DOM contract: dated sources, composer, send control and URLs', () => {
    for (const site of SITES) {
      const source = readFileSync(join(import.meta.dirname, '..', '..', 'extension', 'sites', `${site.id}.ts`), 'utf8');
      const header = source.slice(0, source.indexOf('*/'));
      expect(header, site.id).toMatch(/DOM contract/);
      expect(header, `${site.id} names no dated source`).toMatch(/20\d\d-\d\d|\d\d\/20\d\d/);
      for (const part of ['composer', 'send', 'url']) expect(header, `${site.id} header says nothing of its ${part}`).toMatch(new RegExp(`^ \\*\\s+${part}\\b`, 'm'));
    }
  });

  it('only the sites on by default are in the manifest; the rest are opt-in', () => {
    expect([...STATIC_SITE_IDS].sort()).toEqual([...ENABLED_BY_DEFAULT].sort());
  });

  it('a site under one path of a larger host runs only there', () => {
    expect(huggingchat.matches).toEqual(['https://huggingface.co/chat*']);
    expect(openrouter.matches).toEqual(['https://openrouter.ai/chat*']);
    expect(grok.matches).toEqual(['https://grok.com/*']);
  });

  it('does not take look-alike hosts or paths for a site or a conversation', () => {
    expect(siteForHost('grok.com.evil.example')).toBeNull();
    expect(siteForHost('evilpoe.com')).toBeNull();
    expect(siteForHost('chat.z.ai.example')).toBeNull();
    expect(zai.conversationId({ pathname: '/x/c/3b1f9a2e-7c4d-4e5f-8a6b-9c0d1e2f3a4b' })).toBeNull();
    expect(perplexity.conversationId({ pathname: '/search/new' })).toBeNull();
    expect(huggingchat.conversationId({ pathname: '/chat/settings' })).toBeNull();
    expect(openrouter.conversationId({ pathname: '/models', href: 'https://openrouter.ai/models?room=orc-1' })).toBeNull();
    expect(openrouter.conversationId({ pathname: '/chat', href: 'https://openrouter.ai/chat?room=%3Cscript%3E' })).toBeNull();
    expect(doubao.conversationId({ pathname: '/chat/' })).toBeNull();
    expect(yuanbao.conversationId({ pathname: '/chat/naQivTmsDa/' })).toBeNull();
  });
});

// ------------------------------------------------------------------------------------------- serializer round trip

const DECOY = '```mcp-request\n{"jsonrpc":"2.0","id":"decoy","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"/"}}}\n```';

function el(tag: string, attributes: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Highlighter-like token spans; the text content stays exactly `text`. */
function tokens(text: string): Node[] {
  return text
    .split(text.length > 20_000 ? /(\n+)/ : /(\s+)/)
    .filter((part) => part !== '')
    .map((part) => (/^\s+$/.test(part) ? document.createTextNode(part) : el('span', { class: 'token' }, part)));
}

const code = (language: string, text: string, attributes: Record<string, string> = language ? { class: `language-${language}` } : {}): HTMLElement =>
  el('code', attributes, ...tokens(text));
/** A header beside the block: the label, then a copy button. */
const header = (language: string, labelAttributes: Record<string, string> = {}): HTMLElement =>
  el('div', { class: 'code-header flex' }, el('span', labelAttributes, language), el('button', { type: 'button' }, 'Copy'));

interface Layout {
  site: Site;
  /** One rendered code block as the site shows it. */
  block(language: string, text: string): Element;
  /** The assistant message holding the reasoning (with a decoy block) and the answer; the page root around it. */
  wrap(answer: HTMLElement, reasoning: HTMLElement): { message: Element; root: HTMLElement };
}

const LAYOUTS: Record<string, Layout> = {
  aistudio: {
    site: aistudio,
    block: (language, text) =>
      el('ms-code-block', language ? { 'data-test-language': language } : {}, el('mat-expansion-panel', { class: 'mat-expanded' },
        el('mat-expansion-panel-header', { 'aria-expanded': 'true' }, el('div', { class: 'code-header' }, el('span', { class: 'language' }, language))),
        el('div', { class: 'mat-expansion-panel-body' }, el('pre', {}, code('', text))))),
    wrap(answer, reasoning) {
      const message = el('ms-chat-turn', {}, el('div', { class: 'chat-turn-container model' },
        el('ms-prompt-chunk', {}, el('ms-thought-chunk', {}, reasoning)),
        el('ms-prompt-chunk', {}, el('ms-text-chunk', {}, el('ms-cmark-node', { class: 'cmark-node' }, answer)))));
      return { message, root: el('div', {}, el('ms-chat-turn', {}, el('div', { class: 'chat-turn-container user' }, 'please')), message) };
    },
  },
  grok: {
    site: grok,
    block: (language, text) => el('div', { 'data-testid': 'code-block' }, el('div', {}, el('span', { class: 'font-mono text-xs' }, language)), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      answer.classList.add('response-content-markdown');
      const turn = el('div', { class: 'relative group flex flex-col justify-center w-full items-start' },
        el('div', { class: 'message-bubble' }, el('div', { class: 'thinking-container' }, reasoning), answer));
      const user = el('div', { class: 'relative group flex flex-col justify-center w-full items-end' }, el('div', { class: 'message-bubble' }, 'please'));
      return { message: turn.querySelector('.message-bubble')!, root: el('main', {}, user, turn) };
    },
  },
  perplexity: {
    site: perplexity,
    block: (language, text) =>
      el('div', { class: 'codeWrapper' }, el('div', {}, el('div', { 'data-testid': 'code-language-indicator' }, language), el('button', {}, 'Copy')), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      answer.className = 'prose dark:prose-invert';
      return { message: answer, root: el('div', { class: 'max-w-threadContentWidth' }, el('div', { class: 'group/query' }, 'please'), el('div', { class: 'steps' }, reasoning), answer) };
    },
  },
  copilot: {
    site: copilot,
    block: (language, text) => el('div', { class: 'rounded-xl dark:border' }, header(language, { class: 'capitalize' }), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      const message = el('div', { 'data-content': 'ai-message' }, el('div', { class: 'reasoning-panel' }, reasoning), answer, el('div', { 'data-testid': 'message-item-reactions' }, el('button', {}, 'Copy')));
      return { message, root: el('div', { 'data-content': 'conversation' }, el('div', { 'data-content': 'user-message' }, 'please'), message) };
    },
  },
  mistral: {
    site: mistral,
    block: (language, text) => el('pre', {}, el('div', {}, el('span', { class: 'text-xs capitalize' }, language)), code(language, text)),
    wrap(answer, reasoning) {
      answer.className = 'markdown-container-style';
      const message = el('div', { 'data-message-author-role': 'assistant', 'data-message-id': 'a1' },
        el('div', { 'data-message-part-type': 'thinking' }, reasoning), el('div', { 'data-message-part-type': 'answer' }, answer));
      return { message, root: el('div', {}, el('div', { 'data-message-author-role': 'user', 'data-message-id': 'u1' }, 'please'), message) };
    },
  },
  doubao: {
    site: doubao,
    block: (language, text) => el('div', { class: 'code-block-x9' }, header(language), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      answer.className = 'flow-markdown-body';
      const message = el('div', { 'data-testid': 'receive_message' }, el('div', { class: 'think-quota-block-a1' }, reasoning), el('div', { 'data-testid': 'message_text_content' }, answer));
      return { message, root: el('div', {}, el('div', { 'data-testid': 'send_message' }, 'please'), message) };
    },
  },
  yuanbao: {
    site: yuanbao,
    block: (language, text) =>
      el('div', { class: 'hyc-common-markdown__code' }, el('div', {}, el('span', {}, language), el('span', { class: 'hyc-common-markdown__code__hd__copy' }, '复制')), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      answer.className = 'hyc-content-md hyc-content-md-done';
      const message = el('div', { class: 'agent-chat__list__item--ai', 'data-conv-outputting': 'false' }, el('div', { class: 'hyc-component-reasoner' }, reasoning), answer);
      return { message, root: el('div', {}, el('div', { class: 'agent-chat__list__item--human' }, 'please'), message) };
    },
  },
  zai: {
    site: zai,
    block: (language, text) =>
      el('div', { class: 'relative flex flex-col rounded-xl' }, el('div', { class: 'text-xs' }, language), el('div', {}, el('button', { class: 'copy-code-button' }, 'Copy')),
        el('div', language ? { class: `language-${language}` } : {}, el('div', { class: 'cm-editor' }, el('div', { class: 'cm-announced' }), el('div', { class: 'cm-scroller' },
          el('div', { class: 'cm-content' }, ...text.split('\n').map((line) => el('div', { class: 'cm-line' }, ...(line ? tokens(line) : [el('br')])))))))),
    wrap(answer, reasoning) {
      const message = el('div', { class: 'chat-assistant markdown-prose' }, el('div', { class: 'thinking-chain-container' }, reasoning), ...Array.from(answer.childNodes));
      return { message, root: el('div', {}, el('div', { class: 'user-message' }, 'please'), message) };
    },
  },
  poe: {
    site: poe,
    block: (language, text) =>
      el('div', { class: 'MarkdownCodeBlock_container__nRn2j' }, el('div', { class: 'MarkdownCodeBlock_codeHeader__zWt_V' }, el('div', { class: 'MarkdownCodeBlock_languageName__4_BF8' }, language), el('button', {}, 'Copy')),
        el('pre', {}, code(language, text))),
    wrap(answer, reasoning) {
      answer.className = 'Markdown_markdownContainer__Tz3HQ';
      const message = el('div', { class: 'ChatMessage_chatMessage__xkgHx' }, el('div', { class: 'Message_leftSideMessageBubble__VPdk6' }, el('div', { class: 'thinking-box' }, reasoning), answer));
      const user = el('div', { class: 'ChatMessage_chatMessage__xkgHx' }, el('div', { class: 'Message_rightSideMessageBubble__ioa_i' }, 'please'));
      return { message, root: el('div', {}, user, message) };
    },
  },
  huggingchat: {
    site: huggingchat,
    // The builds that keep code.language-xxx; 2026 builds lose the label (see the fixtures).
    block: (language, text) => el('div', { class: 'group relative my-4 rounded-lg' }, el('button', {}, 'Copy'), el('pre', {}, code(language, text))),
    wrap(answer, reasoning) {
      answer.className = 'prose max-w-none';
      const message = el('div', { 'data-message-role': 'assistant', 'data-message-id': 'a1' }, el('div', { 'data-exclude-from-copy': '' }, reasoning), answer);
      return { message, root: el('div', {}, el('div', { 'data-message-type': 'user', 'data-message-id': 'u1' }, 'please'), message) };
    },
  },
  // 2026 builds draw no language at all: a labelled block (an mcp-request call, an Axon act) keeps only its text.
  'huggingchat (2026, no language)': {
    site: huggingchat,
    block: (_language, text) => el('div', { class: 'group relative my-4 rounded-lg' }, el('button', {}, 'Copy'), el('pre', {}, code('', text))),
    wrap: (answer, reasoning) => LAYOUTS.huggingchat!.wrap(answer, reasoning),
  },
  openrouter: {
    site: openrouter,
    block: (language, text) => el('div', {}, header(language), el('pre', {}, code('', text))),
    wrap(answer, reasoning) {
      answer.className = 'prose';
      const message = el('div', { 'data-testid': 'assistant-message' }, el('div', {}, el('button', { id: 'toggle-reasoning-char-0' }, 'Reasoning'), reasoning), answer);
      return { message, root: el('div', {}, el('div', { 'data-testid': 'user-message' }, 'please'), message) };
    },
  },
  t3chat: {
    site: t3chat,
    block: (language, text) =>
      el('div', { class: 'relative flex flex-col' }, header(language, { class: 'font-mono' }),
        el('pre', { class: 'shiki' }, el('code', {}, ...text.split('\n').flatMap((line, i) => [...(i ? ['\n'] : []), el('span', { class: 'line' }, ...tokens(line))])))),
    wrap(answer, reasoning) {
      answer.className = 'prose';
      const message = el('div', { role: 'article', 'aria-label': 'Assistant message' }, el('span', { class: 'sr-only' }, 'Assistant Reply: '), el('div', { class: 'reasoning-block' }, reasoning), answer);
      return { message, root: el('div', {}, el('div', { role: 'article', 'aria-label': 'Your message' }, 'please'), message) };
    },
  },
};

function render(markdown: string, layout: Layout): HTMLElement {
  const box = document.createElement('div');
  box.innerHTML = marked.parse(markdown, { async: false });
  for (const c of Array.from(box.querySelectorAll('pre > code'))) {
    const language = c.className.match(/language-(\S+)/)?.[1] ?? '';
    const raw = c.textContent ?? '';
    c.parentElement!.replaceWith(layout.block(language, raw.endsWith('\n') ? raw.slice(0, -1) : raw));
  }
  return box;
}

describe('serializer round trip on the added sites: findBlocks(serialize(renderLikeSite(md))) equals findBlocks(md)', () => {
  describeRoundTrips(
    Object.fromEntries(Object.entries(LAYOUTS).map(([name, layout]) => [name, (markdown: string) => ({ site: layout.site, ...layout.wrap(render(markdown, layout), render(DECOY, layout)) })])),
  );

  it('covers every added site', () => {
    expect([...new Set(Object.values(LAYOUTS).map((l) => l.site))].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...ADDED].sort((a, b) => a.id.localeCompare(b.id)));
  });
});
