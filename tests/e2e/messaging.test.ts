/**
 * Trust between the background and the content scripts, with the real extension, companion and replicas. A chat
 * page's renderer can be taken over by the site's own scripts, and then it can send whatever our content script could
 * send: these tests send the background's messages from the content script's own world (its isolated world, reached
 * through the DevTools protocol) of one site's tab and check it gets nothing of another site's runs and none of the
 * requests only the popup, the side panel and the options page make.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SITE_HOSTS, auditRecords, createWorld, describeE2E, quietPeriod, setExtensionStorage, stream, waitForChipState } from './harness';
import type { World } from './harness';

function mcpRequest(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

interface ContentWorld {
  /** evaluates `expression` (its value awaited, returned as JSON) in the content script's isolated world */
  run<T>(expression: string): Promise<T>;
  close(): Promise<void>;
}

/** The content script's isolated world of `page`: the one whose origin is the extension's. */
async function contentWorld(world: World, page: Page): Promise<ContentWorld> {
  const cdp: CDPSession = await world.browser.context.newCDPSession(page);
  const contexts: Array<{ id: number; origin: string; auxData?: { type?: string } }> = [];
  cdp.on('Runtime.executionContextCreated', (event: { context: { id: number; origin: string; auxData?: { type?: string } } }) => {
    contexts.push(event.context);
  });
  await cdp.send('Runtime.enable');
  const extensionOrigin = `chrome-extension://${world.browser.extensionId}`;
  await expect.poll(() => contexts.some((c) => c.auxData?.type === 'isolated' && c.origin === extensionOrigin), { timeout: 10_000 }).toBe(true);
  const contextId = contexts.find((c) => c.auxData?.type === 'isolated' && c.origin === extensionOrigin)!.id;
  return {
    async run<T>(expression: string): Promise<T> {
      const answer = (await cdp.send('Runtime.evaluate', { expression, contextId, awaitPromise: true, returnByValue: true })) as {
        result: { value?: unknown };
        exceptionDetails?: { exception?: { description?: string } };
      };
      if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? 'evaluation failed');
      return answer.result.value as T;
    },
    close: () => cdp.detach(),
  };
}

/** A runtime message to the background from the content script's world, as `ask` sends it. */
/** The extension API in the popup's page. */
interface ExtensionGlobal {
  chrome: { runtime: { sendMessage(message: unknown): Promise<unknown> } };
}

function send(content: ContentWorld, message: Record<string, unknown>): Promise<{ ok: boolean; value?: unknown; error?: string }> {
  return content.run(`chrome.runtime.sendMessage(${JSON.stringify(message)})`);
}

/** Collects what the background pushes to a port of this world in `globalThis.__pushes`. */
const LISTEN = `(() => {
  globalThis.__pushes = [];
  const port = chrome.runtime.connect({ name: 'chatbridge-page' });
  port.onMessage.addListener((message) => globalThis.__pushes.push(message));
  return true;
})()`;

describeE2E('the background and content scripts', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({
      sites: {
        chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 120_000 },
        deepseek: { enabled: true, autoRun: true, autoSubmit: true },
      },
    });
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it("another site's tab sees none of a run's events, approvals, programs or records, and cannot decide its approval", async () => {
    const other = await world.open('deepseek');
    const deepseek = await contentWorld(world, other);
    // everything the background pushes to the DeepSeek tab's port from now on
    await deepseek.run(LISTEN);

    const chat = await world.open('chatgpt');
    const target = path.join(world.root, 'approved-elsewhere.txt');
    await stream(chat, `Writing.\n\n${mcpRequest('call-901', 'fs.write', { path: target, mode: 'overwrite', content: 'from the ChatGPT tab\n' })}\n`);
    await waitForChipState(chat, 0, ['approval']);
    const [pending] = await world.companion.api<{ approvals: Array<{ id: string; runId: string; argsHash: string }> }>('GET', '/v1/approvals').then(
      (body) => body.approvals,
    );
    expect(pending).toBeDefined();

    // The ChatGPT tab's own content script still sees its approval.
    const chatgpt = await contentWorld(world, chat);
    await chatgpt.run(LISTEN);
    const own = await send(chatgpt, { type: 'approvals' });
    expect(own).toMatchObject({ ok: true });
    expect((own.value as Array<{ id: string }>).map((a) => a.id)).toEqual([pending!.id]);
    expect(await send(chatgpt, { type: 'get-run', runId: pending!.runId })).toMatchObject({ ok: true, value: { runId: pending!.runId } });

    // The DeepSeek tab: no approval of another site's run, no run, no decision (refused for good: FORBIDDEN, which a
    // page does not ask again).
    const theirs = await send(deepseek, { type: 'approvals' });
    expect(theirs).toEqual({ ok: true, value: [] });
    expect(await send(deepseek, { type: 'get-run', runId: pending!.runId })).toEqual({
      ok: false,
      error: `get-run: run ${pending!.runId} was not started on https://chat.deepseek.com`,
      code: 'FORBIDDEN',
    });
    expect(await send(deepseek, { type: 'decide', id: pending!.id, decision: 'approve', argsHash: pending!.argsHash })).toEqual({
      ok: false,
      error: `decide: approval ${pending!.id} is not of a run started on https://chat.deepseek.com`,
      code: 'FORBIDDEN',
    });
    expect(await send(deepseek, { type: 'stop-run', runId: pending!.runId })).toEqual({
      ok: false,
      error: `stop-run: run ${pending!.runId} was not started on https://chat.deepseek.com`,
      code: 'FORBIDDEN',
    });
    await quietPeriod(1_000);
    expect(await readFile(target, 'utf8').catch(() => null)).toBeNull();
    const pushes = await deepseek.run<Array<{ type: string; event?: { type: string } }>>('globalThis.__pushes');
    expect(pushes.filter((p) => p.type === 'event')).toEqual([]);
    expect(pushes.some((p) => p.type === 'connection')).toBe(true);

    // The person approves in the ChatGPT tab's chip (its content script asks): the file is written.
    expect(await send(chatgpt, { type: 'decide', id: pending!.id, decision: 'approve', argsHash: pending!.argsHash })).toMatchObject({ ok: true });
    await expect.poll(() => readFile(target, 'utf8').catch(() => null), { timeout: 15_000 }).toBe('from the ChatGPT tab\n');
    // the ChatGPT tab heard of its run's end; the DeepSeek tab of nothing
    await expect
      .poll(async () => (await chatgpt.run<Array<{ event?: { type: string; run?: { runId: string; status: string } } }>>('globalThis.__pushes')).some(
        (p) => p.event?.type === 'run' && p.event.run?.runId === pending!.runId && p.event.run.status === 'done',
      ), { timeout: 15_000 })
      .toBe(true);
    expect((await deepseek.run<Array<{ type: string }>>('globalThis.__pushes')).filter((p) => p.type === 'event')).toEqual([]);

    await chatgpt.close();
    await deepseek.close();
    await chat.close();
    await other.close();
  });

  it("a program's output reaches the tab whose run started it, not another site's; only that tab lists and stops it", async () => {
    const chat = await world.open('chatgpt', '/c/programs');
    const other = await world.open('deepseek');
    const chatgpt = await contentWorld(world, chat);
    const deepseek = await contentWorld(world, other);
    await chatgpt.run(LISTEN);
    await deepseek.run(LISTEN);
    const command = 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo tick $i; sleep 1; done';
    const request = { jsonrpc: '2.0', id: 'call-904', method: 'tools/call', params: { name: 'shell.exec', arguments: { command, cwd: world.root } } };
    const run = {
      kind: 'mcp-request',
      text: '```mcp-request\n' + JSON.stringify(request) + '\n```',
      context: { site: 'chatgpt', url: 'https://chatgpt.com/c/programs', conversationId: 'programs', messageKey: 'm-904' },
      waitMs: 0,
    };
    expect(await send(chatgpt, { type: 'run', run })).toMatchObject({ ok: true, value: { status: 'pending' } });
    const [approval] = (await send(chatgpt, { type: 'approvals' })).value as Array<{ id: string; argsHash: string; tool: string }>;
    expect(approval?.tool).toBe('shell.exec');
    expect(await send(chatgpt, { type: 'decide', id: approval!.id, decision: 'approve', argsHash: approval!.argsHash })).toMatchObject({ ok: true });

    type Push = { event?: { type: string; chunk?: string; programId?: string } };
    const output = async (content: ContentWorld): Promise<string> =>
      (await content.run<Push[]>('globalThis.__pushes')).map((p) => (p.event?.type === 'program-output' ? p.event.chunk : '')).join('');
    // each line once: the background holds one socket to the companion however many asked it to connect at once
    await expect.poll(() => output(chatgpt), { timeout: 30_000 }).toMatch(/^tick 1\ntick 2\n/);
    const programs = (await send(chatgpt, { type: 'programs' })).value as Array<{ id: string; status: string }>;
    const program = programs.find((p) => p.status === 'running');
    expect(program).toBeDefined();

    expect(await output(deepseek)).toBe('');
    expect((await deepseek.run<Push[]>('globalThis.__pushes')).filter((p) => p.event)).toEqual([]);
    expect(await send(deepseek, { type: 'programs' })).toEqual({ ok: true, value: [] });
    expect(await send(deepseek, { type: 'stop-program', id: program!.id })).toEqual({
      ok: false,
      error: `stop-program: program ${program!.id} is not of a run started on https://chat.deepseek.com`,
      code: 'FORBIDDEN',
    });
    expect(await send(chatgpt, { type: 'stop-program', id: program!.id })).toMatchObject({ ok: true });
    await expect
      .poll(async () => ((await send(chatgpt, { type: 'programs' })).value as Array<{ id: string; status: string }>).find((p) => p.id === program!.id)?.status, {
        timeout: 15_000,
      })
      .not.toBe('running');
    await chatgpt.close();
    await deepseek.close();
    await chat.close();
    await other.close();
  });

  it('a content script cannot pair, unpair, read the records or ask for another tab; extension pages can', async () => {
    const chat = await world.open('deepseek');
    const content = await contentWorld(world, chat);
    const pageOnly = `is for the extension's own pages, not a chat page's content script`;
    for (const message of [
      { type: 'pair', code: '123456', companionUrl: 'http://127.0.0.1:1' },
      { type: 'unpair' },
      { type: 'journal' },
      { type: 'undo', id: 'j1' },
      { type: 'recent-runs' },
      { type: 'mcp-servers' },
      { type: 'audit', limit: 10 },
      { type: 'doctor', tabId: 1 },
    ]) {
      expect(await send(content, message)).toEqual({ ok: false, error: `${message.type} ${pageOnly}` });
    }
    // a run in another site's name (and so under what the person allowed in that site's conversations)
    const block = mcpRequest('call-902', 'fs.ls', { path: world.root });
    const elsewhere = { kind: 'mcp-request', text: block, context: { site: 'chatgpt', url: 'https://chatgpt.com/c/1', conversationId: '1', messageKey: 'm' } };
    expect(await send(content, { type: 'run', run: elsewhere })).toEqual({
      ok: false,
      error: 'run: context.url "https://chatgpt.com/c/1" is not on the page that asked (https://chat.deepseek.com)',
    });
    const renamed = { ...elsewhere, context: { ...elsewhere.context, url: 'https://chat.deepseek.com/a/chat/s/1' } };
    expect(await send(content, { type: 'run', run: renamed })).toEqual({
      ok: false,
      error: 'run: context.site "chatgpt" is not the site of https://chat.deepseek.com (deepseek)',
    });
    expect(await send(content, { type: 'stop-run', run: renamed })).toMatchObject({ ok: false, error: expect.stringContaining('stop-run: context.site "chatgpt"') });
    const listings = async (): Promise<number> => (await auditRecords(world)).filter((r) => r.tool === 'fs.ls').length;
    expect(await listings()).toBe(0);
    // its own site's run is answered
    const own = { ...renamed, context: { ...renamed.context, site: 'deepseek' } };
    expect(await send(content, { type: 'run', run: own })).toMatchObject({ ok: true, value: { status: 'done' } });
    expect(await listings()).toBe(1);
    // what a page needs still answers
    expect(await send(content, { type: 'connection' })).toMatchObject({ ok: true, value: { state: 'connected' } });
    expect(await send(content, { type: 'tools' })).toMatchObject({ ok: true });

    const popup = await world.popup();
    const fromPopup = await popup.evaluate(() => (globalThis as unknown as ExtensionGlobal).chrome.runtime.sendMessage({ type: 'recent-runs' }));
    expect(fromPopup).toMatchObject({ ok: true });
    expect(await popup.evaluate(() => (globalThis as unknown as ExtensionGlobal).chrome.runtime.sendMessage({ type: 'audit', limit: 10 }))).toMatchObject({ ok: true });
    await popup.close();
    await content.close();
    await chat.close();
  });
});

describeE2E('two hosts of the generic adapter', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ granted: true });
    await setExtensionStorage(world, { 'generic.hosts': [SITE_HOSTS.plain, SITE_HOSTS.editable] });
  }, 180_000);
  afterAll(async () => {
    await world?.dispose();
  });

  it("a page on one host cannot run in a conversation of another, where the person approved for the conversation", async () => {
    const editablePage = await world.open('editable', '/chat/1');
    const editable = await contentWorld(world, editablePage);
    const plainPage = await world.open('plain', '/chat/2');
    const plain = await contentWorld(world, plainPage);
    const write = (file: string): string => mcpRequest('call-903', 'fs.write', { path: path.join(world.root, file), mode: 'overwrite', content: 'x\n' });
    const conversation = `${SITE_HOSTS.editable}/chat/1`;
    const context = { site: 'generic', url: `https://${SITE_HOSTS.editable}/chat/1`, conversationId: conversation, messageKey: 'p:1' };

    // The person approves a write for the whole conversation on the editable host.
    const asked = await send(editable, { type: 'run', run: { kind: 'mcp-request', text: write('one.txt'), context, waitMs: 0 } });
    expect(asked).toMatchObject({ ok: true, value: { status: 'pending' } });
    const [approval] = (await send(editable, { type: 'approvals' })).value as Array<{ id: string; argsHash: string }>;
    expect(await send(editable, { type: 'decide', id: approval!.id, decision: 'approve-conversation', argsHash: approval!.argsHash })).toMatchObject({ ok: true });
    await expect.poll(() => readFile(path.join(world.root, 'one.txt'), 'utf8').catch(() => null), { timeout: 15_000 }).toBe('x\n');

    // The other host's page, in that conversation's name: refused, nothing written.
    const borrowed = { ...context, url: `https://${SITE_HOSTS.plain}/chat/2` };
    expect(await send(plain, { type: 'run', run: { kind: 'mcp-request', text: write('two.txt'), context: borrowed, waitMs: 0 } })).toEqual({
      ok: false,
      error: `run: context.conversationId "${conversation}" is not a conversation of ${SITE_HOSTS.plain} (on a site the generic adapter runs, it starts with the host)`,
    });
    await quietPeriod(1_000);
    expect(await readFile(path.join(world.root, 'two.txt'), 'utf8').catch(() => null)).toBeNull();
    // the grant still covers its own host's conversation
    expect(await send(editable, { type: 'run', run: { kind: 'mcp-request', text: write('three.txt'), context, waitMs: 5_000 } })).toMatchObject({
      ok: true,
      value: { status: 'done' },
    });
    await plain.close();
    await editable.close();
  });
});
