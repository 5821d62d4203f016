/**
 * Notifications and the keyboard command with the real extension, companion and ChatGPT replica. Headless Chromium
 * cannot press browser shortcuts nor click a system notification, so the test calls the same handlers the browser
 * calls (`chatbridge.command`, `chatbridge.notificationClicked` on the service worker's global scope); everything
 * after them is real: the content script picks and runs the block, the notification is in
 * `chrome.notifications.getAll()`, the click opens the side panel's page on the approval.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditRecords, createWorld, describeE2E, quietPeriod, readWorkspaceFile, setSiteSettings, stream, waitForChipState, waitForSubmitted } from './harness';
import type { World } from './harness';

interface WorkerGlobal {
  chatbridge: { command(name: string): Promise<unknown>; notificationClicked(id: string): void };
  chrome: { notifications: { getAll(): Promise<Record<string, boolean>> } };
}

async function worker(world: World): Promise<Worker> {
  return world.browser.serviceWorker();
}

function command(world: World, name: string): Promise<unknown> {
  return worker(world).then((w) => w.evaluate((name) => (globalThis as unknown as WorkerGlobal).chatbridge.command(name), name));
}

async function notices(world: World): Promise<string[]> {
  const w = await worker(world);
  return w.evaluate(async () => Object.keys(await (globalThis as unknown as WorkerGlobal).chrome.notifications.getAll()));
}

function mcpRequest(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

describeE2E('notifications and the keyboard command', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ sites: { chatgpt: { enabled: true, autoRun: false, autoSubmit: true, approvalWaitMs: 120_000 } } });
    await writeFile(path.join(world.root, 'notes.txt'), 'hello from the workspace\n');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('the command runs the latest block waiting for Run in the active tab, once; elsewhere it says why not', async () => {
    const chat = await world.open('chatgpt');
    const notes = path.join(world.root, 'notes.txt');
    await stream(chat, `Two reads.\n\n${mcpRequest('call-601', 'fs.read', { path: notes })}\n\nand\n\n${mcpRequest('call-602', 'fs.ls', { path: world.root })}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 1, ['ready']);
    await quietPeriod(1_000);
    expect(await auditRecords(world)).toEqual([]); // auto-run is off: nothing ran by itself
    await chat.bringToFront();

    expect(await command(world, 'run-latest-block')).toMatchObject({ ok: true, kind: 'mcp-request' });
    const [message] = await waitForSubmitted(chat, 1);
    expect(message).toContain('"id":"call-602"');
    await waitForChipState(chat, 1, ['done']);
    expect((await waitForChipState(chat, 0, ['ready'])).state).toBe('ready');
    expect((await auditRecords(world)).map((r) => r.tool)).toEqual(['fs.ls']);

    // The next press runs the block above it; then nothing is left waiting.
    expect(await command(world, 'run-latest-block')).toMatchObject({ ok: true });
    await waitForSubmitted(chat, 2);
    await waitForChipState(chat, 0, ['done']);
    expect(await command(world, 'run-latest-block')).toEqual({ ok: false, error: 'no block is waiting for Run on this ChatGPT page' });
    expect(await command(world, 'no-such-command')).toBeNull();
    expect(await auditRecords(world)).toHaveLength(2);

    // A tab where chatbridge does not run.
    const other = await world.browser.context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    expect(await command(world, 'run-latest-block')).toEqual({ ok: false, error: 'chatbridge does not run on the active tab' });
    await other.close();
    await chat.close();
  });

  it('an approval whose tab is in front shows only its chip: no notification', async () => {
    await setSiteSettings(world, 'chatgpt', { autoRun: true });
    const chat = await world.open('chatgpt');
    await chat.bringToFront();
    await stream(chat, `In front.\n\n${mcpRequest('call-605', 'fs.write', { path: path.join(world.root, 'front.txt'), mode: 'overwrite', content: 'x\n' })}\n`, {
      replaceAtEnd: false,
    });
    await waitForChipState(chat, 0, ['approval']);
    const [approval] = await world.companion.api<{ approvals: Array<{ id: string; argsHash: string }> }>('GET', '/v1/approvals').then((r) => r.approvals);
    await quietPeriod(2_000);
    expect(await notices(world)).toEqual([]);
    await world.companion.api('POST', `/v1/approvals/${approval!.id}`, { decision: 'deny', argsHash: approval!.argsHash });
    await waitForChipState(chat, 0, ['failed', 'done']);
    await chat.close();
  });

  it('an approval waiting while its tab is behind another notifies once; a click opens the side panel on it; deciding clears it', async () => {
    await setSiteSettings(world, 'chatgpt', { autoRun: true });
    const chat = await world.open('chatgpt');
    const other = await world.browser.context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    await stream(chat, `Saving.\n\n${mcpRequest('call-603', 'fs.write', { path: path.join(world.root, 'saved.txt'), mode: 'overwrite', content: 'saved\n' })}\n`, {
      replaceAtEnd: false,
    });
    await waitForChipState(chat, 0, ['approval']);
    const [approval] = await world.companion.api<{ approvals: Array<{ id: string }> }>('GET', '/v1/approvals').then((r) => r.approvals);
    const id = `chatbridge-approval:${approval!.id}`;
    await expect.poll(() => notices(world), { timeout: 30_000 }).toEqual([id]);

    // The click: with no user gesture here Chrome refuses to open the side panel, so its page opens in a tab instead.
    const opened = world.browser.context.waitForEvent('page', { timeout: 30_000 });
    await worker(world).then((w) => w.evaluate((id) => (globalThis as unknown as WorkerGlobal).chatbridge.notificationClicked(id), id));
    const panel: Page = await opened;
    await panel.waitForURL(/sidepanel\.html#approval=/);
    expect(new URL(panel.url()).hash).toBe(`#approval=${approval!.id}`);
    const card = panel.locator(`[data-approval="${approval!.id}"]`);
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect.poll(() => notices(world), { timeout: 10_000 }).toEqual([]);

    await card.locator('[data-decision="approve"]').click();
    await waitForSubmitted(chat, 1);
    expect(await readWorkspaceFile(world, 'saved.txt')).toBe('saved\n');
    // Decided: it never notifies again.
    await quietPeriod(2_000);
    expect(await notices(world)).toEqual([]);
    await panel.close();
    await other.close();
    await chat.close();
  });

  it('an approval decided elsewhere takes its notification away', async () => {
    const chat = await world.open('chatgpt');
    const other = await world.browser.context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    await stream(chat, `Once more.\n\n${mcpRequest('call-604', 'fs.write', { path: path.join(world.root, 'denied.txt'), mode: 'overwrite', content: 'no\n' })}\n`, {
      replaceAtEnd: false,
    });
    await waitForChipState(chat, 0, ['approval']);
    const [approval] = await world.companion.api<{ approvals: Array<{ id: string; argsHash: string }> }>('GET', '/v1/approvals').then((r) => r.approvals);
    await expect.poll(() => notices(world), { timeout: 30_000 }).toEqual([`chatbridge-approval:${approval!.id}`]);
    await world.companion.api('POST', `/v1/approvals/${approval!.id}`, { decision: 'deny', argsHash: approval!.argsHash });
    await expect.poll(() => notices(world), { timeout: 30_000 }).toEqual([]);
    await waitForChipState(chat, 0, ['failed', 'done']);
    expect(await readWorkspaceFile(world, 'denied.txt')).toBeNull();
    await other.close();
    await chat.close();
  });
});
