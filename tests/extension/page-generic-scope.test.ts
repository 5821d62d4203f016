import { afterEach, describe, expect, it } from 'vitest';
import { startPage, type PageBridge } from '../../extension/content/page';
import type { RequestMap, RequestType } from '../../extension/messaging';
import { RunLedger } from '../../extension/scanner/blocks';
import { defaultSiteSettings } from '../../extension/site-settings';
import { generic } from '../../extension/sites';
import { createApprovalStore } from '../../companion/approvals/store';
import { UNSAVED_CONVERSATION_PREFIX } from '../../shared/conversation-key';
import { READ, catchChipRoots, clickChip, memoryArea, until } from './page-harness';

/**
 * The generic adapter runs on any host the person enabled. Its conversation is the page's path, and every generic host
 * posts its runs as site `generic`: the companion's "Approve for this conversation" grant is keyed by (site,
 * conversation, tool, risk), the companion answers a repeated (site, conversation, message, text) with its earlier
 * run, and the run ledger is keyed by conversation. So a conversation must never be the same on two hosts.
 */

const roots = catchChipRoots();
const controllers: AbortController[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.abort();
  document.body.replaceChildren();
});

type RunReq = RequestMap['run']['request']['run'];

async function runOn(host: string, pathname: string, search = '', area = memoryArea()): Promise<RunReq> {
  document.body.innerHTML = '<article data-role="assistant"><pre><code class="language-mcp-request"></code></pre></article><textarea></textarea>';
  document.querySelector('code')!.textContent = READ;
  const runs: RunReq[] = [];
  const bridge: PageBridge = {
    async ask<T extends RequestType>(type: T, request: RequestMap[T]['request']): Promise<RequestMap[T]['response']> {
      if (type === 'run') {
        runs.push((request as RequestMap['run']['request']).run);
        return { runId: `run-${host}`, status: 'done', resultText: 'ok', auditId: 'a' } as RequestMap[T]['response'];
      }
      if (type === 'tools') return [] as RequestMap[T]['response'];
      throw new Error(`unexpected ${type}`);
    },
    onPush: () => () => undefined,
  };
  const controller = new AbortController();
  controllers.push(controller);
  const settings = { ...defaultSiteSettings(host), enabled: true, autoSubmit: false };
  const ctl = startPage(controller.signal, {
    site: generic,
    doc: document,
    location: { href: `https://${host}${pathname}${search}`, pathname },
    settings: () => settings,
    bridge,
    ledger: new RunLedger(area),
  });
  await until(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-state') === 'ready');
  clickChip(roots, document.querySelector('[data-chatbridge-chip]')!, 'run');
  await until(() => runs.length > 0);
  await ctl.flush();
  controller.abort();
  document.body.replaceChildren();
  return runs[0]!;
}

describe('the generic adapter: one conversation per host', () => {
  for (const pathname of ['/', '/chat']) {
    it(`two hosts at ${pathname} are two conversations (attack: another enabled site inherits "Approve for this conversation")`, async () => {
      const mine = await runOn('llm.home.arpa', pathname);
      const evil = await runOn('evil.example', pathname);
      expect(mine.context.site).toBe('generic');
      expect(evil.context.site).toBe('generic');
      expect(evil.context.conversationId).not.toBe(mine.context.conversationId);

      // What the companion does with it: the person approves fs.write "for this conversation" on their own chat page…
      const store = createApprovalStore({ ttlMs: 60_000 });
      const { approval } = store.create({
        runId: 'r1',
        site: mine.context.site,
        conversationId: mine.context.conversationId,
        tool: 'fs.write',
        risk: 'write',
        args: { path: 'a.txt' },
        preview: { title: 'write a.txt', paths: ['a.txt'] },
      });
      if (mine.context.conversationId.startsWith(UNSAVED_CONVERSATION_PREFIX)) {
        // at / the page has no conversation id: every chat there shares the key, so nothing is granted conversation-wide
        expect(() => store.decide(approval.id, 'approve-conversation', approval.argsHash)).toThrow(/no conversation id yet/);
        expect(store.hasGrant(mine.context.site, mine.context.conversationId, 'fs.write', 'write')).toBe(false);
        store.decide(approval.id, 'approve', approval.argsHash);
      } else {
        store.decide(approval.id, 'approve-conversation', approval.argsHash);
        expect(store.hasGrant(mine.context.site, mine.context.conversationId, 'fs.write', 'write')).toBe(true);
      }
      // …and the other enabled host's writes must still ask.
      expect(store.hasGrant(evil.context.site, evil.context.conversationId, 'fs.write', 'write')).toBe(false);
      store.close();
    });
  }
});

describe('the generic adapter: one conversation per address, its query included', () => {
  it('chats told apart only by their query (?chat=1, ?chat=2) are two conversations: a block run in one is not run in the other', async () => {
    const area = memoryArea();
    const one = await runOn('llm.home.arpa', '/chat', '?chat=1', area);
    const two = await runOn('llm.home.arpa', '/chat', '?chat=2', area);
    expect(two.context.conversationId).not.toBe(one.context.conversationId);

    // The same block in the same place of a third chat: its chip offers Run, not Re-run as for a block that ran.
    document.body.innerHTML = '<article data-role="assistant"><pre><code class="language-mcp-request"></code></pre></article><textarea></textarea>';
    document.querySelector('code')!.textContent = READ;
    const controller = new AbortController();
    controllers.push(controller);
    const settings = { ...defaultSiteSettings('llm.home.arpa'), enabled: true };
    startPage(controller.signal, {
      site: generic,
      doc: document,
      location: { href: 'https://llm.home.arpa/chat?chat=3', pathname: '/chat' },
      settings: () => settings,
      bridge: { ask: async () => [] as never, onPush: () => () => undefined },
      ledger: new RunLedger(area),
    });
    await until(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-state') === 'ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.querySelector('[data-chatbridge-chip]')!.getAttribute('data-chatbridge-actions')).toBe('run');
  });

  it('parameters that only say where the visit came from, and their order, do not make another conversation', () => {
    const at = (search: string): string | null => generic.conversationId({ pathname: '/chat', href: `https://llm.home.arpa/chat${search}` });
    expect(at('?chat=1&utm_source=news&fbclid=x')).toBe(at('?chat=1'));
    expect(at('?model=a&chat=1')).toBe(at('?chat=1&model=a'));
    expect(at('?chat=1')).not.toBe(at('?chat=2'));
    expect(at('?utm_source=news')).toBe('/chat');
    // A page that carries something else long in its address: a name of bounded length, still one per value.
    const long = (word: string): string | null => at(`?chat=${word.repeat(400)}`);
    expect(long('a')!.length).toBeLessThan(150);
    expect(long('a')).not.toBe(long('b'));
    // At / the query alone names the chat; a bare / is a chat with no id yet.
    expect(generic.conversationId({ pathname: '/', href: 'https://llm.home.arpa/?c=7' })).toBe('/?c=7');
    expect(generic.conversationId({ pathname: '/', href: 'https://llm.home.arpa/?utm_medium=mail' })).toBeNull();
    // A new chat set up by its address (the question to send, the model): no chat's name, so still a chat with no id.
    expect(generic.conversationId({ pathname: '/', href: `https://llm.home.arpa/?q=${'how do I '.repeat(40)}&models=llama3` })).toBeNull();
    expect(at('?chat=1&model=a')).toBe(at('?chat=1'));
  });
});
