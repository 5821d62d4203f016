/**
 * The end-to-end world: the built extension in real Chromium, the replica chat pages on their real hostnames over
 * HTTPS, and the real companion as a child process on a temp workspace.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { ReplicaSite, ReplicaTurn, StreamOptions } from './replica/api';
import { conversationPath } from './replica/api';
import { startReplicaServer } from './replica/server';
import type { ReplicaServer } from './replica/server';
import { STATIC_SITE_IDS } from '../../extension/sites';
import { extensionBuildIsCurrent } from '../../companion/extension-build';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Where a test's picture goes: the README's folder (docs/screenshots) under `npm run screenshots`, a temporary folder
 * otherwise — so `npm test` still takes every picture (a view that cannot be drawn fails) but never rewrites the
 * committed ones with another machine's fonts.
 */
export function screenshotPath(name: string): string {
  const dir = process.env.CHATBRIDGE_SCREENSHOTS === 'docs' ? path.join(REPO, 'docs', 'screenshots') : path.join(os.tmpdir(), 'chatbridge-screenshots');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
export const CHROMIUM = process.env.CHATBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
export const EXTENSION_DIR = path.join(REPO, 'dist', 'chrome-mv3');
/**
 * The same build with every https host already granted (`wxt build --mode granted`): opt-in sites' content scripts are
 * registered at run time once their permission is granted, and a test cannot click through the browser's prompt.
 */
export const GRANTED_EXTENSION_DIR = path.join(REPO, 'dist', 'chrome-mv3-granted');
export const SITE_HOSTS: Record<ReplicaSite, string> = {
  chatgpt: 'chatgpt.com',
  deepseek: 'chat.deepseek.com',
  claude: 'claude.ai',
  gemini: 'gemini.google.com',
  kimi: 'www.kimi.com',
  zai: 'chat.z.ai',
  grok: 'grok.com',
  perplexity: 'www.perplexity.ai',
  plain: 'textarea.chat.example',
  editable: 'editable.chat.example',
};

// ------------------------------------------------------------------------------------------- availability

const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent) {
  const message = `e2e: Chromium not found at ${CHROMIUM} (apt-get install -y chromium)`;
  // CI must run these; on a laptop without Chromium they are skipped, loudly.
  const ci = (process.env.CI ?? '').trim().toLowerCase();
  if (ci !== '' && ci !== '0' && ci !== 'false') throw new Error(`${message} — required when CI is set`);
  console.warn(`\n!!! ${message}: the end-to-end suite is SKIPPED !!!\n`);
}

/** `describe` that runs only where Chromium exists (and fails at import under CI when it does not). */
export const describeE2E = describe.skipIf(!chromiumPresent);

// ------------------------------------------------------------------------------------------- extension build

const builds = new Map<string, Promise<void>>();

/**
 * Builds the extension with `npx wxt build` when its output is missing or older than its sources; `granted` is the
 * build with every https host granted (GRANTED_EXTENSION_DIR).
 */
export function ensureExtensionBuilt(variant: 'default' | 'granted' = 'default'): Promise<void> {
  const outDir = variant === 'granted' ? GRANTED_EXTENSION_DIR : EXTENSION_DIR;
  const existing = builds.get(variant);
  if (existing) return existing;
  const build = withBuildLock(async () => {
    const manifest = path.join(outDir, 'manifest.json');
    if (extensionBuildIsCurrent(REPO, outDir)) return;
    const args = ['wxt', 'build', ...(variant === 'granted' ? ['--mode', 'granted'] : [])];
    const { code, output } = await runCommand('npx', args, REPO);
    if (code !== 0 || !existsSync(manifest)) throw new Error(`npx ${args.join(' ')} failed (exit ${code}):\n${output}`);
  });
  builds.set(variant, build);
  return build;
}

/** A lock older than this was left by a run that was killed mid-build. */
const STALE_BUILD_LOCK_MS = 10 * 60_000;

/**
 * Runs `build` while no other test process builds the extension: e2e files run two at a time, each in its own process,
 * and two `wxt build`s at once write the same output and `.wxt` folders. The lock is a folder made atomically beside
 * the system's temp files, named after this checkout.
 */
async function withBuildLock(build: () => Promise<void>): Promise<void> {
  const lock = path.join(os.tmpdir(), `chatbridge-e2e-build-${createHash('sha256').update(REPO).digest('hex').slice(0, 12)}`);
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (since > STALE_BUILD_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else await delay(250);
    }
  }
  try {
    await build();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

function runCommand(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

// ------------------------------------------------------------------------------------------- companion

export interface Companion {
  readonly port: number;
  readonly token: string;
  /** The workspace root the companion serves. */
  readonly root: string;
  readonly home: string;
  /** Everything the process printed (for failure messages). */
  output(): string;
  /** How the last stop() went: did SIGTERM alone end the process within STOP_GRACE_MS? */
  lastStop(): StopRecord | null;
  /** Authenticated JSON request to the companion's HTTP API. */
  api<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
  /** Starts it again on the same port, home and token. */
  restart(): Promise<void>;
}

export interface StopRecord {
  exitedOnSigterm: boolean;
  ms: number;
}

export const STOP_GRACE_MS = 5_000;

export async function startCompanion(options: { root: string; home: string; token: string; config?: Record<string, unknown> }): Promise<Companion> {
  let child: ChildProcess | null = null;
  if (options.config !== undefined) {
    // <home>/config.json is what `chatbridge start` loads without --config
    await mkdir(options.home, { recursive: true });
    await writeFile(path.join(options.home, 'config.json'), JSON.stringify(options.config, null, 2));
  }
  let port = 0;
  let log = '';

  const launch = async (wantedPort: number): Promise<void> => {
    const logStart = log.length;
    // node with tsx's loader, not the tsx CLI: the CLI is a parent process that exits on SIGTERM while its child
    // may live on, so signals go straight to the companion itself here.
    const proc = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        path.join(REPO, 'companion', 'main.ts'),
        // the harness builds the extension itself, at the same time: a second build would wipe dist/ under it
        'start', '--root', options.root, '--port', String(wantedPort), '--token', options.token, '--no-build',
      ],
      {
        cwd: options.root,
        env: { ...process.env, CHATBRIDGE_HOME: options.home, CHATBRIDGE_TOKEN: options.token, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    let exited = false;
    proc.on('exit', () => (exited = true));
    proc.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`companion exited before listening:\n${log}`);
      const printed = /(?:port\D{0,20}|127\.0\.0\.1:)(\d{2,5})\b/i.exec(log.slice(logStart))?.[1];
      const runtime = readRuntimePort(options.home);
      const candidate = Number(printed ?? runtime ?? 0);
      if (candidate > 0 && (await statusOk(candidate))) {
        port = candidate;
        return;
      }
      await delay(150);
    }
    throw new Error(`companion did not answer /v1/status within 60 s:\n${log}`);
  };

  let lastStop: StopRecord | null = null;
  const stop = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (proc === null || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const started = Date.now();
    let forced = false;
    proc.kill('SIGTERM');
    // A companion that does not exit on SIGTERM is recorded (tests assert on it) and then killed.
    const timer = setTimeout(() => {
      forced = true;
      proc.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    lastStop = { exitedOnSigterm: !forced, ms: Date.now() - started };
  };

  await launch(0);
  return {
    get port() {
      return port;
    },
    token: options.token,
    root: options.root,
    home: options.home,
    output: () => log,
    lastStop: () => lastStop,
    async api<T>(method: string, route: string, body?: unknown): Promise<T> {
      const response = await fetch(`http://127.0.0.1:${port}${route}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    },
    stop,
    async restart() {
      await stop();
      await launch(port);
    },
  };
}

function readRuntimePort(home: string): number | null {
  try {
    const runtime = JSON.parse(readFileSync(path.join(home, 'companion.json'), 'utf8')) as { port?: unknown };
    return typeof runtime.port === 'number' ? runtime.port : null;
  } catch {
    return null;
  }
}

async function statusOk(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/v1/status`);
    return response.ok;
  } catch {
    return false;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ------------------------------------------------------------------------------------------- browser

export interface Browser {
  context: BrowserContext;
  extensionId: string;
  serviceWorker(): Promise<Worker>;
  close(): Promise<void>;
}

export async function launchBrowser(options: {
  replicaPort: number;
  userDataDir: string;
  /** Load the built extension (default true); the replica self-test runs the pages without it. */
  extension?: boolean;
  /** Which build to load (default EXTENSION_DIR). */
  extensionDir?: string;
  /** The browser's UI language (`zh-CN`): the extension's words follow it (default: the machine's). */
  lang?: string;
}): Promise<Browser> {
  const withExtension = options.extension !== false;
  const extensionDir = options.extensionDir ?? EXTENSION_DIR;
  const map = Object.values(SITE_HOSTS)
    .map((host) => `MAP ${host} 127.0.0.1:${options.replicaPort}`)
    .join(',');
  const context = await chromium.launchPersistentContext(options.userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreHTTPSErrors: true,
    viewport: { width: 1100, height: 900 },
    ...(options.lang ? { locale: options.lang, env: { ...process.env, LANGUAGE: options.lang.replace('-', '_') } } : {}),
    args: [
      ...(options.lang ? [`--lang=${options.lang}`] : []),
      ...(withExtension ? [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`] : []),
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      `--host-resolver-rules=${map}`,
      '--ignore-certificate-errors',
    ],
  });
  const serviceWorker = async (): Promise<Worker> =>
    context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
  const extensionId = withExtension ? new URL((await serviceWorker()).url()).host : '';
  return { context, extensionId, serviceWorker, close: () => context.close() };
}

// ------------------------------------------------------------------------------------------- the world

export interface SiteSettings {
  enabled?: boolean;
  autoRun?: boolean;
  autoSubmit?: boolean;
  approvalWaitMs?: number;
  feedbackIntervalMs?: number;
  draftPolicy?: 'wait' | 'append';
}

export interface World {
  browser: Browser;
  companion: Companion;
  replicas: ReplicaServer;
  /** The workspace root (realpath'd) the companion serves. */
  root: string;
  /** Opens a replica page (optionally at a path) and waits for its test API. */
  open(site: ReplicaSite, pathname?: string, page?: Page): Promise<Page>;
  /** Opens the extension's popup page. */
  popup(): Promise<Page>;
  dispose(): Promise<void>;
}

export interface WorldOptions {
  /** Write the token and the companion's port into the extension's storage (default true). */
  paired?: boolean;
  sites?: Partial<Record<ReplicaSite, SiteSettings>>;
  /** The companion's config file (e.g. `mcpServers`); the workspace root is given on the command line as always. */
  companionConfig?: Record<string, unknown>;
  /** Load the build with every https host granted (opt-in sites, `enableSite`); default false. */
  granted?: boolean;
  /** The browser's UI language, which the extension's words follow (`zh-CN`); default the machine's. */
  lang?: string;
}

export async function createWorld(options: WorldOptions = {}): Promise<World> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'chatbridge-e2e-'));
  const root = path.join(scratch, 'workspace');
  await mkdir(root);
  const realRoot = await realpath(root);
  await mkdir(path.join(scratch, 'tls'));
  const cleanups: Array<() => Promise<void>> = [() => rm(scratch, { recursive: true, force: true })];
  try {
    const [built, replicasStarted, companionStarted] = await Promise.allSettled([
      ensureExtensionBuilt(options.granted === true ? 'granted' : 'default'),
      startReplicaServer(path.join(scratch, 'tls')),
      startCompanion({
        root: realRoot,
        home: path.join(scratch, 'home'),
        token: `e2e-${randomBytes(16).toString('hex')}`,
        ...(options.companionConfig ? { config: options.companionConfig } : {}),
      }),
    ]);
    // Whatever did start is cleaned up even when another part failed.
    if (replicasStarted.status === 'fulfilled') cleanups.unshift(() => replicasStarted.value.close());
    if (companionStarted.status === 'fulfilled') cleanups.unshift(() => companionStarted.value.stop());
    for (const outcome of [built, replicasStarted, companionStarted]) if (outcome.status === 'rejected') throw outcome.reason;
    const replicas = (replicasStarted as PromiseFulfilledResult<ReplicaServer>).value;
    const companion = (companionStarted as PromiseFulfilledResult<Companion>).value;
    const browser = await launchBrowser({
      replicaPort: replicas.port,
      userDataDir: path.join(scratch, 'profile'),
      ...(options.granted === true ? { extensionDir: GRANTED_EXTENSION_DIR } : {}),
      ...(options.lang ? { lang: options.lang } : {}),
    });
    cleanups.unshift(() => browser.close());
    const world: World = {
      browser,
      companion,
      replicas,
      root: realRoot,
      async open(site, pathname = '/', reuse) {
        const page = reuse ?? (await browser.context.newPage());
        await page.goto(`https://${SITE_HOSTS[site]}${pathname}`);
        await page.waitForFunction(() => window.__replica !== undefined);
        return page;
      },
      async popup() {
        const page = await browser.context.newPage();
        await page.goto(`chrome-extension://${browser.extensionId}/popup.html`);
        return page;
      },
      async dispose() {
        for (const cleanup of cleanups) await cleanup().catch(() => undefined);
      },
    };
    for (const [site, settings] of Object.entries(options.sites ?? {})) {
      await setSiteSettings(world, site as ReplicaSite, settings);
    }
    if (options.paired !== false) {
      await pairThroughStorage(world);
      await waitForConnection(world, 'connected');
    }
    return world;
  } catch (error) {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    throw error;
  }
}

// ------------------------------------------------------------------------------------------- extension storage
// extension/settings.ts: one storage.local item per setting — `companion.url`, `companion.token`,
// `site.<id>.<setting>`. These helpers write them through the extension's own page (the popup), the same storage a
// person's pairing and toggles change.

/** The slice of the extension API the storage helpers use inside the extension's page. */
interface ExtensionGlobal {
  chrome: {
    storage: {
      local: {
        get(key: string | string[] | null): Promise<Record<string, unknown>>;
        set(items: Record<string, unknown>): Promise<void>;
      };
    };
  };
}

export async function setExtensionStorage(world: World, items: Record<string, unknown>): Promise<void> {
  const page = await world.popup();
  await page.evaluate(async (items) => {
    const { chrome } = globalThis as unknown as ExtensionGlobal;
    await chrome.storage.local.set(items);
  }, items);
  await page.close();
}

export async function getExtensionStorage(world: World, keys: string[] | null = null): Promise<Record<string, unknown>> {
  const page = await world.popup();
  const items = await page.evaluate(async (keys) => {
    const { chrome } = globalThis as unknown as ExtensionGlobal;
    return chrome.storage.local.get(keys);
  }, keys);
  await page.close();
  return items;
}

/** Stores the companion's URL and the preset token: the state a successful pairing leaves behind. */
export function pairThroughStorage(world: World): Promise<void> {
  return setExtensionStorage(world, {
    'companion.url': `http://127.0.0.1:${world.companion.port}`,
    'companion.token': world.companion.token,
  });
}

/** Waits until the popup (#connection[data-state], extension/ui/README.md) shows `state`. */
export async function waitForConnection(world: World, state: string, timeoutMs = 30_000): Promise<void> {
  const page = await world.popup();
  try {
    await page.waitForSelector(`#connection[data-state="${state}"]`, { timeout: timeoutMs });
  } catch (error) {
    const shown = await page.locator('#connection').textContent().catch(() => null);
    throw new Error(`the extension never showed "${state}" (popup says ${JSON.stringify(shown)})\n${world.companion.output()}`, { cause: error });
  } finally {
    await page.close();
  }
}

export function setSiteSettings(world: World, site: string, settings: SiteSettings): Promise<void> {
  const items: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(settings)) items[`site.${site}.${name}`] = value;
  return setExtensionStorage(world, items);
}

/**
 * Turns an opt-in site on as the popup's one click does once its host permission is granted (a world created with
 * `granted: true`): its `enabled` setting goes to storage, and the background registers the site's content script
 * (`chatbridge-site-<id>`) — this waits for that registration.
 */
export async function enableSite(world: World, siteId: string): Promise<void> {
  await setExtensionStorage(world, { [`site.${siteId}.enabled`]: true });
  // A site on by default is in the manifest's content script: nothing is registered at run time.
  if (STATIC_SITE_IDS.includes(siteId)) return;
  const worker = await world.browser.serviceWorker();
  const id = `chatbridge-site-${siteId}`;
  const deadline = Date.now() + 15_000;
  let registered: string[] = [];
  while (Date.now() < deadline) {
    registered = await worker.evaluate(async () => {
      const { chrome } = globalThis as unknown as { chrome: { scripting: { getRegisteredContentScripts(): Promise<Array<{ id: string }>> } } };
      return (await chrome.scripting.getRegisteredContentScripts()).map((script) => script.id);
    });
    if (registered.includes(id)) return;
    await delay(100);
  }
  throw new Error(`the background never registered ${id} (registered: ${registered.join(', ') || 'none'})`);
}

// ------------------------------------------------------------------------------------------- page helpers

export function stream(page: Page, markdown: string, options: StreamOptions = {}): Promise<void> {
  return page.evaluate(({ markdown, options }) => window.__replica.stream(markdown, options), { markdown, options });
}

/** The site's stop control while a reply streams: ChatGPT's stop button; DeepSeek's send control showing stop. */
export const STOP_CONTROL: Record<ReplicaSite, string> = {
  chatgpt: 'button[data-testid="stop-button"]',
  deepseek: 'div[role="button"].ds-button--circle',
  claude: 'button[aria-label="Stop response"]',
  gemini: 'button[aria-label="Stop response"]',
  kimi: '.send-button-container.stop',
  zai: '#chat-form button.rounded-full:not([id])',
  grok: 'button[aria-label="Stop model response"]',
  perplexity: 'button[data-testid="stop-generating-response-button"]',
  plain: 'button[aria-label="Stop"]',
  editable: 'button[aria-label="Stop"]',
};

/** Waits until a stream started with `holdAt` pauses there (still generating). */
export async function waitForHeld(page: Page, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(() => window.__replica.isHeld(), undefined, { timeout: timeoutMs });
}

/** The person presses the site's Stop: a real mouse click (trusted input) on the page's own stop control. */
export async function clickStop(page: Page, site: ReplicaSite): Promise<void> {
  await page.locator(STOP_CONTROL[site]).click();
}

export function submitted(page: Page): Promise<string[]> {
  return page.evaluate(() => [...window.__replica.submitted]);
}

/** Waits until the page's own submit handler has received `count` messages; returns them all. */
export async function waitForSubmitted(page: Page, count: number, timeoutMs = 30_000): Promise<string[]> {
  await page.waitForFunction((n) => window.__replica.submitted.length >= n, count, { timeout: timeoutMs }).catch(async (error: unknown) => {
    const [sent, box, seen] = await Promise.all([submitted(page), composerText(page), chips(page)]).catch(() => [[], '', []]);
    throw new Error(
      `the page's submit handler got ${sent.length} of ${count} messages within ${timeoutMs} ms\n` +
        `submitted: ${JSON.stringify(sent).slice(0, 1500)}\ncomposer: ${JSON.stringify(box).slice(0, 1500)}\nchips: ${JSON.stringify(seen)}`,
      { cause: error },
    );
  });
  return submitted(page);
}

/** Waits until some submitted message contains `text`; returns all submitted messages. */
export async function waitForSubmittedContaining(page: Page, text: string, timeoutMs = 30_000): Promise<string[]> {
  await page.waitForFunction((t) => window.__replica.submitted.some((m) => m.includes(t)), text, { timeout: timeoutMs }).catch(async (error: unknown) => {
    const [sent, box, seen] = await Promise.all([submitted(page), composerText(page), chips(page)]).catch(() => [[], '', []]);
    throw new Error(
      `no submitted message contains ${JSON.stringify(text)} within ${timeoutMs} ms\n` +
        `submitted: ${JSON.stringify(sent).slice(0, 3000)}\ncomposer: ${JSON.stringify(box).slice(0, 1500)}\nchips: ${JSON.stringify(seen)}`,
      { cause: error },
    );
  });
  return submitted(page);
}

export function composerText(page: Page): Promise<string> {
  return page.evaluate(() => window.__replica.composerText());
}

/** Stores a conversation in the page's "backend" and opens it, so its turns are history at load. */
export async function openConversation(world: World, site: ReplicaSite, id: string, turns: ReplicaTurn[], page?: Page): Promise<Page> {
  const opened = await world.open(site, '/', page);
  await opened.evaluate(({ id, turns }) => window.__replica.saveConversation(id, turns), { id, turns });
  const conversation = await world.open(site, conversationPath(site, id), opened);
  await firstScanDone(conversation);
  return conversation;
}

/**
 * Waits until the content script has read the page as it opened (its `chatbridge:first-scan` measure), as a person's
 * reply always comes after that: a reply streamed before it would be history, never run. On a loaded machine the
 * script can start late. A page where the extension does not run goes on after the wait.
 */
export async function firstScanDone(page: Page, timeoutMs = 5_000): Promise<void> {
  await page
    .waitForFunction(() => performance.getEntriesByName('chatbridge:first-scan').length > 0, undefined, { timeout: timeoutMs })
    .catch(() => undefined);
}

// ------------------------------------------------------------------------------------------- chips
// extension/ui/README.md: each chip's host element carries data-chatbridge-* attributes (state, kind); its
// shadow root is closed, so buttons are clicked at their documented positions with real (trusted) mouse input.

export interface ChipInfo {
  state: string;
  kind: string;
  attributes: Record<string, string>;
}

export function chips(page: Page): Promise<ChipInfo[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-chatbridge-chip]')].map((el) => {
      const attributes: Record<string, string> = {};
      for (const attr of [...el.attributes]) if (attr.name.startsWith('data-chatbridge')) attributes[attr.name] = attr.value;
      return {
        state: el.getAttribute('data-chatbridge-state') ?? '',
        kind: el.getAttribute('data-chatbridge-kind') ?? '',
        attributes,
      };
    }),
  );
}

/** Waits until chip number `index` shows a note matching `pattern`. */
export async function waitForChipNote(page: Page, index: number, pattern: RegExp, timeoutMs = 30_000): Promise<ChipInfo> {
  await page.waitForFunction(
    ({ index, source, flags }) => {
      const note = document.querySelectorAll('[data-chatbridge-chip]')[index]?.getAttribute('data-chatbridge-note') ?? '';
      return new RegExp(source, flags).test(note);
    },
    { index, source: pattern.source, flags: pattern.flags },
    { timeout: timeoutMs },
  ).catch(async (error: unknown) => {
    const seen = await chips(page).catch(() => []);
    throw new Error(`chip ${index} never showed a note matching ${pattern} within ${timeoutMs} ms; chips now: ${JSON.stringify(seen)}`, { cause: error });
  });
  const all = await chips(page);
  return all[index] as ChipInfo;
}

/** Waits until chip number `index` (document order) is in one of `states`. */
export async function waitForChipState(page: Page, index: number, states: string[], timeoutMs = 30_000): Promise<ChipInfo> {
  await page.waitForFunction(
    ({ index, states }) => {
      const chip = document.querySelectorAll('[data-chatbridge-chip]')[index];
      return chip !== undefined && states.includes(chip.getAttribute('data-chatbridge-state') ?? '');
    },
    { index, states },
    { timeout: timeoutMs },
  ).catch(async (error: unknown) => {
    const seen = await chips(page).catch(() => []);
    throw new Error(`chip ${index} never reached ${states.join('/')} within ${timeoutMs} ms; chips now: ${JSON.stringify(seen)}`, { cause: error });
  });
  const all = await chips(page);
  return all[index] as ChipInfo;
}

/**
 * Clicks a button inside chip `index` with a real mouse click (trusted input through the browser). The closed shadow
 * root hides the buttons, so the click lands on the box the chip publishes for that action on its host element
 * (`data-chatbridge-buttons`: [{action, x, y, w, h}] relative to the host — extension/ui/README.md).
 */
export async function clickChipAction(page: Page, index: number, action: string): Promise<void> {
  await page.evaluate((index) => {
    document.querySelectorAll<HTMLElement>('[data-chatbridge-chip]')[index]?.scrollIntoView({ block: 'center' });
  }, index);
  // A person sees the card before clicking it: an approval counts only on a chip the browser has reported seen whole
  // (IntersectionObserver v2, reported at most every 100 ms), which a click straight after a scroll may come before.
  if (action.startsWith('approve')) await page.waitForTimeout(300);
  await page.waitForFunction(
    ({ index, action }) => {
      const chip = document.querySelectorAll('[data-chatbridge-chip]')[index];
      const boxes = JSON.parse(chip?.getAttribute('data-chatbridge-buttons') ?? '[]') as Array<{ action: string; w: number }>;
      return boxes.some((box) => box.action === action && box.w > 0);
    },
    { index, action },
    { timeout: 10_000 },
  ).catch(async () => {
    const seen = await chips(page);
    throw new Error(`chip ${index} shows no "${action}" button; chips: ${JSON.stringify(seen)}`);
  });
  const point = await page.evaluate(
    ({ index, action }) => {
      const chip = document.querySelectorAll<HTMLElement>('[data-chatbridge-chip]')[index];
      if (!chip) return null;
      const boxes = JSON.parse(chip.getAttribute('data-chatbridge-buttons') ?? '[]') as Array<{ action: string; x: number; y: number; w: number; h: number }>;
      const box = boxes.find((b) => b.action === action);
      if (!box) return null;
      const rect = chip.getBoundingClientRect();
      return { x: rect.left + box.x + box.w / 2, y: rect.top + box.y + box.h / 2 };
    },
    { index, action },
  );
  if (point === null) throw new Error(`chip ${index} lost its "${action}" button before the click`);
  await page.mouse.click(point.x, point.y);
}

export async function readWorkspaceFile(world: World, relative: string): Promise<string | null> {
  try {
    return await readFile(path.join(world.root, relative), 'utf8');
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------------- companion records

export interface AuditEntry {
  auditId: string;
  runId: string;
  site: string;
  conversationId: string;
  kind: string;
  tool: string;
  paths: string[];
  outcome: string;
  decision: string;
}

/** Every call the companion audited so far (its own record of what ran). */
export async function auditRecords(world: World): Promise<AuditEntry[]> {
  const body = await world.companion.api<unknown>('GET', '/v1/audit?limit=1000');
  if (Array.isArray(body)) return body as AuditEntry[];
  const wrapped = body as { records?: unknown; entries?: unknown; audit?: unknown };
  const list = wrapped.records ?? wrapped.entries ?? wrapped.audit;
  if (!Array.isArray(list)) throw new Error(`GET /v1/audit answered an unexpected shape: ${JSON.stringify(body).slice(0, 300)}`);
  return list as AuditEntry[];
}

/** The exact text the companion produced for the run an audit record belongs to. */
export async function resultTextOf(world: World, runId: string): Promise<string> {
  const run = await world.companion.api<{ resultText: string; status: string }>('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  return run.resultText;
}

/** The body of the first ```<label> fenced block in `text` (null when there is none). */
export function fencedBody(text: string, label: string): string | null {
  const match = new RegExp('(`{3,}|~{3,})' + label.replace(/[-]/g, '\\-') + '[^\\n]*\\n([\\s\\S]*?)\\n\\1').exec(text);
  return match?.[2] ?? null;
}

/**
 * Waits `ms` and returns — for "nothing happens" assertions. Each use sits next to a positive control in the same
 * test (something that does run afterwards), so a dead extension cannot pass it.
 */
export function quietPeriod(ms = 4_000): Promise<void> {
  return delay(ms);
}

/**
 * Stops every service worker through the DevTools protocol of one of the extension's own pages (the options page
 * does not talk to the background, so only the chat page can wake the worker again), and waits until it is down.
 */
export async function stopServiceWorker(world: World): Promise<void> {
  await (await serviceWorkerStopper(world))();
}

/** The same, made ready beforehand: the stop it returns comes within a moment (before an answer due in a second). */
export async function serviceWorkerStopper(world: World): Promise<() => Promise<void>> {
  const options = await world.browser.context.newPage();
  await options.goto(`chrome-extension://${world.browser.extensionId}/options.html`);
  const cdp = await world.browser.context.newCDPSession(options);
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (event: { versions: Array<{ runningStatus: string }> }) => {
    for (const version of event.versions) statuses.push(version.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  return async () => {
    await cdp.send('ServiceWorker.stopAllWorkers');
    await expect.poll(() => statuses.includes('stopped'), { timeout: 10_000 }).toBe(true);
    await cdp.detach();
    await options.close();
  };
}
