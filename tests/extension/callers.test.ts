// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { RunOwners, StartedRuns, callerOf, eventForPages, pageMayAsk, runMismatch, subjectOf } from '../../extension/companion/callers';
import type { RunRequest, WsEvent } from '../../extension/companion/api-types';

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const BASE = `chrome-extension://${ID}/`;

function runOn(site: string, url: string, conversationId = 'c1'): RunRequest {
  return { kind: 'mcp-request', text: '```mcp-request\n{}\n```', context: { site, url, conversationId, messageKey: 'm' } };
}

describe('who is asking the background', () => {
  it("tells the extension's pages (also in a tab) from a chat page's content script, and ignores other extensions", () => {
    expect(callerOf({ id: ID, url: `${BASE}popup.html` }, ID, BASE)).toEqual({ kind: 'extension' });
    // the side panel's page opened in a tab from a notice
    expect(callerOf({ id: ID, url: `${BASE}sidepanel.html#approval=a1`, tab: { id: 4 } }, ID, BASE)).toEqual({ kind: 'extension' });
    expect(callerOf({ id: ID, url: 'https://chatgpt.com/c/1', tab: { id: 4 } }, ID, BASE)).toEqual({ kind: 'page', origin: 'https://chatgpt.com' });
    expect(callerOf({ id: 'another-extension', url: `${BASE}popup.html` }, ID, BASE)).toBeNull();
    // a tab whose address is neither ours nor a web page's is not trusted as an extension page
    expect(callerOf({ id: ID, url: 'about:blank', tab: { id: 4 } }, ID, BASE)).toBeNull();
    expect(callerOf({ id: ID }, ID, BASE)).toEqual({ kind: 'extension' });
  });

  it('lets a content script make only the requests a chat page makes', () => {
    for (const type of ['run', 'get-run', 'approvals', 'decide', 'programs', 'stop-program', 'stop-run', 'tools', 'connection', 'doctor-problem'] as const) {
      expect(pageMayAsk(type)).toBe(true);
    }
    for (const type of ['pair', 'unpair', 'journal', 'undo', 'recent-runs', 'mcp-servers', 'audit', 'doctor'] as const) {
      expect(pageMayAsk(type)).toBe(false);
    }
  });

  it("refuses a run in another site's name or for another origin's address", () => {
    expect(runMismatch(runOn('chatgpt', 'https://chatgpt.com/c/1'), 'https://chatgpt.com')).toBeNull();
    expect(runMismatch(runOn('claude', 'https://chatgpt.com/c/1'), 'https://chatgpt.com')).toBe(
      'context.site "claude" is not the site of https://chatgpt.com (chatgpt)',
    );
    expect(runMismatch(runOn('chatgpt', 'https://claude.ai/chat/1'), 'https://chatgpt.com')).toBe(
      'context.url "https://claude.ai/chat/1" is not on the page that asked (https://chatgpt.com)',
    );
    // a host no site module knows runs as the generic adapter, and only as it
    expect(runMismatch(runOn('generic', 'https://chat.example/x', 'chat.example/x'), 'https://chat.example')).toBeNull();
    expect(runMismatch(runOn('generic', 'https://chat.example:8443/', 'new:chat.example:8443/'), 'https://chat.example:8443')).toBeNull();
    // another generic host's conversation (and what the person allowed in it)
    expect(runMismatch(runOn('generic', 'https://chat.example/x', 'other.example/x'), 'https://chat.example')).toBe(
      'context.conversationId "other.example/x" is not a conversation of chat.example (on a site the generic adapter runs, it starts with the host)',
    );
    expect(runMismatch(runOn('generic', 'https://chat.example/x', 'chat.example.evil/x'), 'https://chat.example')).toMatch(/is not a conversation of chat\.example/);
    expect(runMismatch(runOn('chatgpt', 'https://chat.example/x', 'chat.example/x'), 'https://chat.example')).toBe(
      'context.site "chatgpt" is not the site of https://chat.example (generic)',
    );
  });
});

describe('who hears of a run', () => {
  it('the origins that started it; while a run request waits, what the companion says of its conversation', () => {
    const saved: Array<Record<string, string[]>> = [];
    const owners = new RunOwners((value) => saved.push(value));
    owners.own('r1', 'https://chatgpt.com');
    expect(owners.owns('r1', 'https://chatgpt.com')).toBe(true);
    expect(owners.owns('r1', 'https://chat.deepseek.com')).toBe(false);
    expect(saved.at(-1)).toEqual({ r1: ['https://chatgpt.com'] });

    // an approval created before POST /v1/run answered
    const answered = owners.asks('https://chatgpt.com', 'chatgpt', 'c1');
    expect(owners.hears('https://chat.deepseek.com', { run: 'r2', site: 'chatgpt', conversationId: 'c1' })).toBe(false);
    expect(owners.hears('https://chatgpt.com', { run: 'r2', site: 'chatgpt', conversationId: 'c2' })).toBe(false);
    expect(owners.hears('https://chatgpt.com', { run: 'r2', site: 'chatgpt', conversationId: 'c1' })).toBe(true);
    answered();
    expect(owners.owns('r2', 'https://chatgpt.com')).toBe(true);
    expect(owners.hears('https://chatgpt.com', { run: 'r3', site: 'chatgpt', conversationId: 'c1' })).toBe(false);

    // a restarted worker gets back what was saved
    const restarted = new RunOwners();
    restarted.merge(saved.at(-1)!);
    expect(restarted.owns('r2', 'https://chatgpt.com')).toBe(true);
  });

  it('keeps the newest thousand runs', () => {
    const owners = new RunOwners();
    for (let i = 0; i <= 1_000; i++) owners.own(`r${i}`, 'https://chatgpt.com');
    expect(owners.owns('r0', 'https://chatgpt.com')).toBe(false);
    expect(owners.owns('r1', 'https://chatgpt.com')).toBe(true);
    expect(owners.owns('r1000', 'https://chatgpt.com')).toBe(true);
  });

  it("names each event's run; the journal is for extension pages; pages hear an MCP server's state, not its log or error", () => {
    const journal = { type: 'journal', entry: { id: 'j', time: '', label: '', paths: [], state: 'applied' } } as WsEvent;
    expect(subjectOf(journal)).toBe('extension');
    expect(eventForPages(journal)).toBe(journal);
    const server: WsEvent = {
      type: 'mcp-server',
      server: { name: 'files', transport: 'stdio', state: 'error', tools: 0, lastError: 'spawn /home/me/bin/x ENOENT', problem: { code: 'exited', starting: false, stderr: 'token abc' }, restarts: 2, log: '/home/me/.chatbridge/logs/files.log', notes: ['n'] },
    };
    expect(subjectOf(server)).toBe('everyone');
    expect(eventForPages(server)).toEqual({ type: 'mcp-server', server: { name: 'files', transport: 'stdio', state: 'error', tools: 0, restarts: 2, notes: [] } });
    expect(subjectOf({ type: 'tool-progress', runId: 'r9', tool: 't', progress: 1 })).toEqual({ run: 'r9' });
    expect(subjectOf({ type: 'program-output', programId: 'p1', name: 'n', stream: 'stdout', chunk: 'x', offset: 0 })).toEqual({ program: 'p1' });
  });
});

describe('which runs this browser started', () => {
  const answer = (runId: string, reused?: boolean) => ({ runId, status: 'done' as const, resultText: 'R', auditId: 'a', ...(reused ? { reused } : {}) });

  it("a block posted again after a reload is answered as this browser's run when its first request started it, and as another's when that one's came first", () => {
    let saved: string[] = [];
    const started = new StartedRuns((list) => (saved = list));
    expect(started.answered(answer('run-mine'))).toEqual(answer('run-mine'));
    // posted again (the page went away before the first answer): the companion says reused, the run is this browser's
    expect(started.answered(answer('run-mine', true), true)).toEqual(answer('run-mine'));
    // any other request hears the companion's word
    expect(started.answered(answer('run-mine', true))).toEqual(answer('run-mine', true));
    // another browser or profile posted this block first
    expect(started.answered(answer('run-theirs', true), true)).toEqual(answer('run-theirs', true));
    expect(saved).toEqual(['run-mine']);
    // a restarted worker knows them again
    const restarted = new StartedRuns();
    restarted.merge(saved);
    expect(restarted.answered(answer('run-mine', true), true)).toEqual(answer('run-mine'));
  });

  it("a block posted again after the worker stopped before the first answer is this browser's run when the companion says its token started it", () => {
    let saved: string[] = [];
    // a worker that never heard the first answer: the companion's word is all there is
    const started = new StartedRuns((list) => (saved = list));
    expect(started.answered({ ...answer('run-unheard', true), startedByYou: true }, true)).toEqual(answer('run-unheard'));
    expect(saved).toEqual(['run-unheard']);
    expect(started.answered({ ...answer('run-theirs', true), startedByYou: false }, true)).toEqual({ ...answer('run-theirs', true), startedByYou: false });
    // a first request that is not a repost hears the companion's word as it is
    expect(started.answered({ ...answer('run-other', true), startedByYou: true })).toEqual({ ...answer('run-other', true), startedByYou: true });
  });
});
