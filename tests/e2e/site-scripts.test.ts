/**
 * Run-time content scripts in the real browser: only ChatGPT and DeepSeek are in the manifest; a host the person
 * enabled gets the content script registered by the background, in the tab already open there and in new ones, and
 * loses it when disabled; an opt-in site switched on without its permission gets nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXTENSION_DIR, delay, describeE2E, ensureExtensionBuilt, launchBrowser, type Browser } from './harness';

type Registration = { id: string; matches: string[] };
/** The few extension APIs these checks call from the service worker. */
type Chrome = {
  storage: { local: { set(items: Record<string, unknown>): Promise<void> } };
  tabs: { query(query: object): Promise<Array<{ id?: number; url?: string }>> };
  scripting: {
    getRegisteredContentScripts(): Promise<Registration[]>;
    executeScript(options: { target: { tabId: number }; func: () => unknown }): Promise<Array<{ result?: unknown }>>;
  };
};

async function registrations(worker: Worker): Promise<Registration[]> {
  return worker.evaluate(() => (globalThis as unknown as { chrome: Chrome }).chrome.scripting.getRegisteredContentScripts());
}

/** Whether chatbridge's content script runs in the tab showing `url` (its flag, read in the extension's world). */
async function scriptRunsAt(worker: Worker, url: string): Promise<boolean> {
  return worker.evaluate(async (target) => {
    const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;
    const tab = (await chrome.tabs.query({})).find((t) => t.url === target);
    if (tab?.id === undefined) throw new Error(`no tab at ${target}`);
    const [probe] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => (globalThis as Record<string, unknown>).chatbridgeContentStarted === true });
    return probe?.result === true;
  }, url);
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await delay(100);
  }
}

describeE2E('content scripts registered at run time', () => {
  let browser: Browser;
  let server: http.Server;
  let origin = '';
  let userDataDir = '';

  beforeAll(async () => {
    await ensureExtensionBuilt();
    server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>a plain page</p><textarea></textarea>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    userDataDir = mkdtempSync(path.join(tmpdir(), 'chatbridge-scripts-'));
    // No replica is needed here; the host mapping points nowhere in use.
    browser = await launchBrowser({ replicaPort: 9, userDataDir });
  });

  afterAll(async () => {
    await browser?.close();
    server?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('the manifest names only the sites on by default', () => {
    const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'manifest.json'), 'utf8')) as { content_scripts: Array<{ matches: string[] }> };
    expect(manifest.content_scripts.flatMap((c) => c.matches).sort()).toEqual(['https://chat.deepseek.com/*', 'https://chat.openai.com/*', 'https://chatgpt.com/*', 'https://claude.ai/*', 'https://gemini.google.com/*']);
  });

  it('an enabled host gets the script in its open tab and in new tabs, and loses the registration when removed', async () => {
    const worker = await browser.serviceWorker();
    const open = await browser.context.newPage();
    await open.goto(`${origin}/open-before`);
    expect(await scriptRunsAt(worker, `${origin}/open-before`)).toBe(false);

    const host = new URL(origin).host;
    await worker.evaluate((h) => (globalThis as unknown as { chrome: Chrome }).chrome.storage.local.set({ 'generic.hosts': [h] }), host);
    const registered = await waitFor(() => registrations(worker), (r) => r.length > 0, 'the registration');
    expect(registered.map((r) => ({ id: r.id, matches: r.matches }))).toEqual([{ id: 'chatbridge-generic', matches: [`${origin}/*`] }]);
    await waitFor(() => scriptRunsAt(worker, `${origin}/open-before`), (runs) => runs, 'the script in the tab open before');

    const fresh = await browser.context.newPage();
    await fresh.goto(`${origin}/opened-after`);
    await waitFor(() => scriptRunsAt(worker, `${origin}/opened-after`), (runs) => runs, 'the script in a new tab');

    await worker.evaluate(() => (globalThis as unknown as { chrome: Chrome }).chrome.storage.local.set({ 'generic.hosts': [] }));
    await waitFor(() => registrations(worker), (r) => r.length === 0, 'the unregistration');
    const later = await browser.context.newPage();
    await later.goto(`${origin}/opened-later`);
    await delay(500);
    expect(await scriptRunsAt(worker, `${origin}/opened-later`)).toBe(false);
  });

  it('an opt-in site switched on without its permission registers nothing', async () => {
    const worker = await browser.serviceWorker();
    await worker.evaluate(() => (globalThis as unknown as { chrome: Chrome }).chrome.storage.local.set({ 'site.kimi.enabled': true, 'site.grok.enabled': true }));
    await delay(1_000);
    expect(await registrations(worker)).toEqual([]);
  });
});
