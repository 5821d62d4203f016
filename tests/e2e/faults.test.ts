/**
 * Browser-side faults (issue 5 item 4), ChatGPT replica + built extension + real companion: the background service
 * worker stopped while a block waits for approval or while its program runs, the tab reloaded mid-run, and two tabs
 * of one conversation receiving the same reply. Each block must run exactly once (the companion's own audit log and
 * run records) and its result must land exactly once (what reached the pages' own submit handlers, all tabs summed).
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  auditRecords,
  chips,
  clickChipAction,
  clickStop,
  createWorld,
  describeE2E,
  fencedBody,
  openConversation,
  quietPeriod,
  serviceWorkerStopper,
  stopServiceWorker,
  stream,
  submitted,
  waitForChipNote,
  waitForChipState,
  waitForHeld,
  waitForSubmitted,
  type AuditEntry,
  type World,
} from './harness';

function mcpRequest(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

/** The JSON-RPC id and first text of the mcp-response in a submitted message. */
function responseOf(message: string): { id: unknown; text: unknown } {
  const body = fencedBody(message, 'mcp-response');
  if (body === null) throw new Error(`no mcp-response block in the submitted message:\n${message}`);
  const parsed = JSON.parse(body) as { id?: unknown; result?: { content?: Array<{ text?: unknown }> } };
  return { id: parsed.id, text: parsed.result?.content?.[0]?.text };
}

/** Audit records of one tool in one conversation that actually executed (an approval asked for is not a run). */
async function executions(world: World, conversationId: string, tool: string): Promise<AuditEntry[]> {
  return (await auditRecords(world)).filter((r) => r.conversationId === conversationId && r.tool === tool && r.outcome !== 'pending');
}


/** A program that takes `ms` and then prints `word` (an absolute path to node: no PATH lookups). */
function slowProgram(ms: number, word: string): Record<string, unknown> {
  return { command: process.execPath, args: ['-e', `setTimeout(() => console.log(${JSON.stringify(word)}), ${ms})`] };
}

/**
 * Reloads the extension as an update does (chrome://extensions' reload): its service worker and storage.session start
 * afresh, storage.local is kept, and the content scripts already in tabs are cut off from it. Waits until the new
 * service worker runs.
 */
async function reloadExtension(world: World): Promise<void> {
  type Info = { id: string; state: string };
  type DeveloperPrivate = { getExtensionsInfo(): Promise<Info[]>; reload(id: string, options: { failQuietly: boolean }): Promise<void> };
  type Management = { setEnabled(id: string, enabled: boolean): Promise<void> };
  const page = await world.browser.context.newPage();
  await page.goto('chrome://extensions');
  const before = world.browser.context.serviceWorkers();
  await page.evaluate(async (id) => {
    const { developerPrivate } = (globalThis as unknown as { chrome: { developerPrivate: DeveloperPrivate } }).chrome;
    await developerPrivate.reload(id, { failQuietly: true });
  }, world.browser.extensionId);
  // Headless Chromium leaves an extension loaded from the command line switched off after a reload: on again, as a
  // person's browser has it after an update.
  await expect
    .poll(
      () =>
        page.evaluate(async (id) => {
          const { developerPrivate, management } = (globalThis as unknown as { chrome: { developerPrivate: DeveloperPrivate; management: Management } }).chrome;
          const state = (await developerPrivate.getExtensionsInfo()).find((e) => e.id === id)?.state;
          if (state === 'DISABLED') await management.setEnabled(id, true);
          return state;
        }, world.browser.extensionId),
      { timeout: 15_000 },
    )
    .toBe('ENABLED');
  await expect.poll(() => world.browser.context.serviceWorkers().some((w) => !before.includes(w)), { timeout: 15_000 }).toBe(true);
  await page.close();
}

describeE2E('browser-side faults: every block runs once and its result lands once', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ sites: { chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 60_000 } } });
    await writeFile(path.join(world.root, 'notes.txt'), 'fault notes\n');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  /** A fresh conversation with one earlier exchange, open in a new tab. */
  async function conversation(): Promise<{ id: string; page: Page }> {
    const id = randomUUID();
    const page = await openConversation(world, 'chatgpt', id, [
      { role: 'user', text: 'Please help with the workspace.' },
      { role: 'assistant', text: 'Sure, tell me what to do.' },
    ], await world.browser.context.newPage());
    return { id, page };
  }

  it('service worker stopped while a write waits for approval: the click still writes once, the result lands once', async () => {
    const { id, page } = await conversation();
    const target = path.join(world.root, 'sw-approval.txt');
    await stream(page, `Writing.\n\n${mcpRequest('call-f01', 'fs.write', { path: target, mode: 'overwrite', content: 'after the worker stopped\n' })}\n`, { replaceAtEnd: false });
    await waitForChipState(page, 0, ['approval']);

    await stopServiceWorker(world);
    await clickChipAction(page, 0, 'approve');

    const [message] = await waitForSubmitted(page, 1);
    expect(responseOf(message ?? '')).toEqual({ id: 'call-f01', text: 'WRITE_SUCCESS' });
    expect(await readFile(target, 'utf8')).toBe('after the worker stopped\n');
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'fs.write')).toHaveLength(1);
    await page.close();
  });

  it('service worker stopped while an approved program runs: it runs once and its result lands once', async () => {
    const { id, page } = await conversation();
    await stream(page, `Running it.\n\n${mcpRequest('call-f02', 'process.run', slowProgram(2_500, 'slow-sw-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    await waitForChipState(page, 0, ['running']);

    await stopServiceWorker(world);

    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f02');
    expect(message).toContain('slow-sw-done');
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await page.close();
  });

  it('tab reloaded while an approved program runs: nothing runs again and the result lands once after the reload', async () => {
    const { id, page } = await conversation();
    await stream(page, `Running it.\n\n${mcpRequest('call-f03', 'process.run', slowProgram(2_500, 'slow-reload-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    await waitForChipState(page, 0, ['running']);

    // The page's own record of what it sent is per load: the reload starts it empty, so the sum below is exact.
    expect(await submitted(page)).toEqual([]);
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);

    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f03');
    expect(message).toContain('slow-reload-done');
    // A second reload after the result landed delivers and runs nothing.
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);
    await quietPeriod(3_500);
    expect(await submitted(page)).toEqual([]);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await page.close();
  });

  it('tab reloaded before the companion first answered a run (its write waits for approval): the reloaded tab shows that run, and approved it writes once and lands once', async () => {
    const { id, page } = await conversation();
    const target = path.join(world.root, 'reload-unanswered.txt');
    await stream(page, `Writing.\n\n${mcpRequest('call-f03b', 'fs.write', { path: target, mode: 'overwrite', content: 'written once\n' })}\n`, { replaceAtEnd: false });
    // The companion asks for the approval at once and answers the page a second later: reloaded in between, the page
    // never heard the run's id.
    const approvalWaits = async (): Promise<boolean> =>
      (await world.companion.api<{ approvals: Array<{ conversationId: string; state: string }> }>('GET', '/v1/approvals')).approvals.some(
        (a) => a.conversationId === id && a.state === 'pending',
      );
    await expect.poll(approvalWaits, { timeout: 15_000, interval: 25 }).toBe(true);
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);

    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '')).toEqual({ id: 'call-f03b', text: 'WRITE_SUCCESS' });
    expect(await readFile(target, 'utf8')).toBe('written once\n');
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'fs.write')).toHaveLength(1);
    await page.close();
  });

  it('service worker stopped before the companion first answered a run (its write waits for approval): approved, it writes once and lands once', async () => {
    const { id, page } = await conversation();
    const target = path.join(world.root, 'sw-unanswered.txt');
    const stopWorker = await serviceWorkerStopper(world);
    await page.bringToFront();
    await stream(page, `Writing.\n\n${mcpRequest('call-f03c', 'fs.write', { path: target, mode: 'overwrite', content: 'written once\n' })}\n`, { replaceAtEnd: false });
    // The companion asks for the approval at once and answers a second later: the worker stopped in between never
    // hears the run's id, and the page posts the block again, which the companion says this browser's token started.
    const approvalWaits = async (): Promise<boolean> =>
      (await world.companion.api<{ approvals: Array<{ conversationId: string; state: string }> }>('GET', '/v1/approvals')).approvals.some(
        (a) => a.conversationId === id && a.state === 'pending',
      );
    await expect.poll(approvalWaits, { timeout: 15_000, interval: 25 }).toBe(true);
    await stopWorker();

    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '')).toEqual({ id: 'call-f03c', text: 'WRITE_SUCCESS' });
    expect(await readFile(target, 'utf8')).toBe('written once\n');
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'fs.write')).toHaveLength(1);
    await page.close();
  });

  it('the conversation opened in a second tab while a program runs, then the first tab closed: the result lands once, in the second', async () => {
    const { id, page: first } = await conversation();
    await stream(first, `Running it.\n\n${mcpRequest('call-f05', 'process.run', slowProgram(4_000, 'slow-second-tab-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(first, 0, ['approval']);
    await clickChipAction(first, 0, 'approve');
    await waitForChipState(first, 0, ['running']);

    const second = await world.open('chatgpt', new URL(first.url()).pathname);
    await waitForChipState(second, 0, ['ready']);
    expect(await submitted(first)).toEqual([]);
    await first.close();

    const [message] = await waitForSubmitted(second, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f05');
    expect(message).toContain('slow-second-tab-done');
    await quietPeriod(3_500);
    expect(await submitted(second)).toHaveLength(1);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await second.close();
  });

  it('the conversation opened in a second tab while a program runs, the first tab kept: the result lands once, in the first', async () => {
    const { id, page: first } = await conversation();
    await stream(first, `Running it.\n\n${mcpRequest('call-f06', 'process.run', slowProgram(3_000, 'slow-both-tabs-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(first, 0, ['approval']);
    await clickChipAction(first, 0, 'approve');
    await waitForChipState(first, 0, ['running']);
    const second = await world.open('chatgpt', new URL(first.url()).pathname);
    await waitForChipState(second, 0, ['ready']);

    const [message] = await waitForSubmitted(first, 1, 30_000);
    expect(message).toContain('slow-both-tabs-done');
    await quietPeriod(3_500);
    expect(await submitted(first)).toHaveLength(1);
    expect(await submitted(second)).toEqual([]);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await second.close();
    await first.close();
  });

  it('two tabs of one conversation receive the same reply: the block runs once and its result lands in one tab', async () => {
    const { id, page: first } = await conversation();
    const second = await world.open('chatgpt', new URL(first.url()).pathname);
    const notes = path.join(world.root, 'notes.txt');
    const reply = `Reading.\n\n${mcpRequest('call-f04', 'fs.read', { path: notes })}\n`;
    // The site pushes one reply (one message id) to both open tabs at once.
    const messageId = randomUUID();
    await Promise.all([
      stream(first, reply, { replaceAtEnd: false, messageId }),
      stream(second, reply, { replaceAtEnd: false, messageId }),
    ]);

    const landedCount = async (): Promise<number> => (await submitted(first)).length + (await submitted(second)).length;
    await expect.poll(landedCount, { timeout: 30_000 }).toBeGreaterThan(0);
    await quietPeriod(3_500);
    const landed = [...(await submitted(first)), ...(await submitted(second))];
    expect(landed.map((m) => responseOf(m))).toEqual([{ id: 'call-f04', text: 'fault notes\n' }]);
    expect(await executions(world, id, 'fs.read')).toHaveLength(1);
    await second.close();
    await first.close();
  });

  it('two tabs of one conversation receive the same reply, and the tab that runs it is closed while its program runs: the result lands once, in the other', async () => {
    const { id, page: first } = await conversation();
    const second = await world.open('chatgpt', new URL(first.url()).pathname);
    const reply = `Running it.\n\n${mcpRequest('call-f08', 'process.run', slowProgram(1_500, 'slow-other-tab-done'))}\n`;
    // The site pushes one reply (one message id) to both open tabs; the first tab's copy ends first, so it claims the
    // block and the second follows its run.
    const messageId = randomUUID();
    await stream(first, reply, { replaceAtEnd: false, messageId });
    await waitForChipState(first, 0, ['approval']);
    await stream(second, reply, { replaceAtEnd: false, messageId });
    await waitForChipState(second, 0, ['approval']);
    const [owner, other] = [first, second];
    await clickChipAction(owner, 0, 'approve');
    await waitForChipState(owner, 0, ['running']);
    await owner.close();

    const [message] = await waitForSubmitted(other, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f08');
    expect(message).toContain('slow-other-tab-done');
    await quietPeriod(1_500);
    expect(await submitted(other)).toHaveLength(1);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await other.close();
  });

  it('two tabs of one conversation receive the same reply and the person stops it in one: neither tab runs or sends anything', async () => {
    const { id, page: first } = await conversation();
    const second = await world.open('chatgpt', new URL(first.url()).pathname);
    const notes = path.join(world.root, 'notes.txt');
    const reply = `Reading.\n\n${mcpRequest('call-f07', 'fs.read', { path: notes })}\n\nWhile that runs, here is a long explanation of what comes next.\n`;
    const messageId = randomUUID();
    const streams = Promise.all([
      stream(first, reply, { replaceAtEnd: false, messageId, holdAt: 'a long explanation' }),
      stream(second, reply, { replaceAtEnd: false, messageId, holdAt: 'a long explanation' }),
    ]);
    await Promise.all([waitForHeld(first), waitForHeld(second)]);
    // The person presses Stop in the first tab; the site ends the reply in the other tab too.
    await clickStop(first, 'chatgpt');
    await second.evaluate(() => window.__replica.stop());
    await streams;
    await waitForChipNote(first, 0, /^reply stopped: /);
    await quietPeriod(3_500);
    expect([...(await submitted(first)), ...(await submitted(second))]).toEqual([]);
    expect(await executions(world, id, 'fs.read')).toEqual([]);
    await second.close();
    await first.close();
  });

  it('the person goes to another conversation while a program runs and comes back after it ended: the result lands once, in its own', async () => {
    const { id, page } = await conversation();
    await stream(page, `Running it.\n\n${mcpRequest('call-f08', 'process.run', slowProgram(2_500, 'slow-switch-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    await waitForChipState(page, 0, ['running']);

    const other = randomUUID();
    await page.evaluate(({ other }) => window.__replica.saveConversation(other, [{ role: 'user', text: 'Something else.' }, { role: 'assistant', text: 'Sure.' }]), { other });
    await page.evaluate((other) => window.__replica.switchConversation(other), other);
    // The program ends while the person is there: nothing lands in that conversation.
    await quietPeriod(5_000);
    expect(await submitted(page)).toEqual([]);

    await page.evaluate((back) => window.__replica.switchConversation(back), id);
    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f08');
    expect(message).toContain('slow-switch-done');
    expect(await page.evaluate(() => window.__replica.conversationId())).toBe(id);
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    await page.close();
  });

  // Last in this world: the extension reloaded here is the one the later tests would use.
  it('the extension reloaded (an update) while an approved program runs: the cut-off tab says to reload and acts no more; reloaded, it runs nothing again and gets the result once', async () => {
    const { id, page } = await conversation();
    await stream(page, `Running it.\n\n${mcpRequest('call-f09', 'process.run', slowProgram(2_500, 'slow-extension-reload-done'))}\n`, { replaceAtEnd: false });
    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    await waitForChipState(page, 0, ['running']);

    await reloadExtension(world);
    // The content script in the tab is cut off from the new extension: under the block a notice says to reload the
    // page for the result, in place of a chip whose buttons nothing would answer, and the script acts no more — a
    // reply that comes now gets no chip.
    const notices = (): Promise<string[]> =>
      page.evaluate(() => [...document.querySelectorAll('[data-chatbridge-cut-off]')].map((el) => el.getAttribute('data-chatbridge-note') ?? ''));
    await expect.poll(notices, { timeout: 10_000 }).toEqual([expect.stringMatching(/reload the page to get its result/)]);
    expect(await chips(page)).toEqual([]);
    await stream(page, `Reading.\n\n${mcpRequest('call-f10', 'fs.read', { path: path.join(world.root, 'notes.txt') })}\n`, { replaceAtEnd: false });
    await quietPeriod(2_000);
    expect(await chips(page)).toEqual([]);
    expect(await submitted(page)).toEqual([]);
    // The result reaches the chat once the tab is reloaded, from the run the companion kept.
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);

    const [message] = await waitForSubmitted(page, 1, 30_000);
    expect(responseOf(message ?? '').id).toBe('call-f09');
    expect(message).toContain('slow-extension-reload-done');
    await quietPeriod(3_500);
    expect(await submitted(page)).toHaveLength(1);
    expect(await executions(world, id, 'process.run')).toHaveLength(1);
    expect(await executions(world, id, 'fs.read')).toEqual([]);
    await page.close();
  });
});
