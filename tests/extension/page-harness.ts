import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { startPage, type PageBridge, type PageController } from '../../extension/content/page';
import type { Approval, ProgramItem, RunResponse, ToolListing } from '../../extension/companion/api-types';
import type { PagePush, RequestMap, RequestType } from '../../extension/messaging';
import { RunLedger, type KeyValueArea } from '../../extension/scanner/blocks';
import { defaultSiteSettings, type SiteSettings } from '../../extension/site-settings';
import { deepseek } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import type { DoctorProblem } from '../../extension/companion/badge';
import type { PageDeps } from '../../extension/content/page-context';

/**
 * The page tests' world inside happy-dom: a DeepSeek-like page (virtual-list rows, a React-like controlled textarea
 * whose send control is disabled while the state is empty and turns into a stop button while a reply streams), a
 * fake background that records what would reach the companion, and a shared ledger area.
 */

const nativeValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!;
export const STOP_ICON = '<div class="ds-icon"><svg viewBox="0 0 14 14"><rect x="2" y="2" width="10" height="10"></rect></svg></div>';
/**
 * The send control's icons as captured live on 2026-10-04 (code-index 70882088046): the stop square and the send
 * arrow are both one <path>, no <rect>.
 */
export const LIVE_STOP_ICON =
  '<div class="ds-button__icon ds-button__icon--last-child"><svg width="16" height="16" viewBox="0 0 16 16" fill="none"><path d="M2 4.88C2 3.68009 2 3.08013 2.30557 2.65954C2.40426 2.52371 2.52371 2.40426 2.65954 2.30557C3.08013 2 3.68009 2 4.88 2H11.12C12.3199 2 12.9199 2 13.3405 2.30557C13.4763 2.40426 13.5957 2.52371 13.6944 2.65954C14 3.08013 14 3.68009 14 4.88V11.12C14 12.3199 14 12.9199 13.6944 13.3405C13.5957 13.4763 13.4763 13.5957 13.3405 13.6944C12.9199 14 12.3199 14 11.12 14H4.88C3.68009 14 3.08013 14 2.65954 13.6944C2.52371 13.5957 2.40426 13.4763 2.30557 13.3405C2 12.9199 2 12.3199 2 11.12V4.88Z" fill="currentColor"></path></svg></div>';
export const LIVE_SEND_ICON =
  '<div class="ds-button__icon ds-button__icon--last-child"><svg width="16" height="16" viewBox="0 0 16 16" fill="none"><path d="M8.3125 0.980206C8.66767 1.05312 8.97902 1.2042 9.2627 1.43235C9.48724 1.613 9.73029 1.85795 9.97949 2.10716L14.707 6.8347L13.293 8.24876L9 3.95579V15.0417H7V3.95579L2.70703 8.24876L1.29297 6.8347L6.02051 2.10716C6.26971 1.85795 6.51277 1.613 6.7373 1.43235C6.97662 1.23988 7.28445 1.04404 7.6875 0.980206C7.8973 0.947029 8.1031 0.955183 8.3125 0.980206Z" fill="currentColor"></path></svg></div>';

/**
 * DeepSeek's module, reading what the page's composer holds besides text (the file chip `attach` draws, `.ds-file-chip`)
 * as a site module that knows how its site draws an attached file does. Such a module sees a file whatever the box
 * holds, and types a result in while a reply streams; DeepSeek's own, whose only tell is its send control with the box
 * empty, keeps a result to be sent out of the box until the reply ends.
 */
export const deepseekReadingItsComposer: Site = { ...deepseek, composerAttachment: (doc) => doc.querySelector('.ds-file-chip') };

export interface Page {
  list: HTMLElement;
  textarea: HTMLTextAreaElement;
  send: HTMLElement;
  submitted: string[];
  state(): string;
  type(text: string): void;
  setGenerating(on: boolean): void;
  /**
   * The person attaches a file to their next message (a chip in the composer, `null` takes it away): the send control
   * is enabled with the box empty, and a send takes the file along.
   */
  attach(name: string | null): void;
  /**
   * The site draws its composer anew (a re-render, a route change): a new textarea in the old one's place, holding
   * the framework's state; the old one is out of the page with whatever it held.
   */
  remountBox(): void;
}

export function buildPage(icons: { stop?: string; send?: string } = {}): Page {
  const list = document.createElement('div');
  list.className = 'ds-virtual-list-items';
  let tracked = '';
  let state = '';
  let generating = false;
  let attached: HTMLElement | null = null;
  const send = document.createElement('div');
  send.setAttribute('role', 'button');
  const sync = (): void => {
    send.className = `ds-button ds-button--circle${state === '' && !attached && !generating ? ' ds-button--disabled' : ''}`;
    send.innerHTML = generating ? (icons.stop ?? STOP_ICON) : (icons.send ?? '<div class="ds-icon"><svg><path d="M7 16"></path></svg></div>');
  };
  const controlledTextarea = (): HTMLTextAreaElement => {
    const box = document.createElement('textarea');
    box.id = 'chat-input';
    Object.defineProperty(box, 'value', {
      configurable: true,
      get() {
        return nativeValue.get!.call(this);
      },
      set(v: string) {
        tracked = String(v);
        nativeValue.set!.call(this, v);
      },
    });
    box.addEventListener('input', () => {
      const actual = nativeValue.get!.call(box) as string;
      if (actual === tracked) return;
      tracked = actual;
      state = actual;
      sync();
    });
    return box;
  };
  let textarea = controlledTextarea();
  const submitted: string[] = [];
  send.addEventListener('click', () => {
    if (generating || (state === '' && !attached)) return;
    submitted.push(state);
    list.append(userRow(state));
    state = '';
    textarea.value = '';
    attached?.remove();
    attached = null;
    sync();
  });
  sync();
  const composer = document.createElement('div');
  composer.append(textarea, send);
  const attach = (name: string | null): void => {
    attached?.remove();
    attached = null;
    if (name !== null) {
      attached = document.createElement('div');
      attached.className = 'ds-file-chip';
      attached.textContent = name;
      composer.prepend(attached);
    }
    sync();
  };
  document.body.replaceChildren(list, composer);
  return {
    list,
    get textarea() {
      return textarea;
    },
    send,
    submitted,
    attach,
    remountBox() {
      const drawn = controlledTextarea();
      drawn.value = state;
      textarea.replaceWith(drawn);
      textarea = drawn;
    },
    state: () => state,
    type(text) {
      state = text;
      textarea.value = text;
      sync();
    },
    setGenerating(on) {
      generating = on;
      sync();
    },
  };
}

export function userRow(text: string): HTMLElement {
  const row = document.createElement('div');
  row.className = 'ds-message';
  const bubble = document.createElement('div');
  bubble.className = 'fbb737a4';
  bubble.textContent = text;
  row.append(bubble);
  return row;
}

export function assistantRow(): { row: HTMLElement; answer: HTMLElement } {
  const row = document.createElement('div');
  row.className = 'ds-message';
  const answer = document.createElement('div');
  answer.className = 'ds-markdown';
  row.append(answer);
  return { row, answer };
}

/** Renders the reply the way DeepSeek does: paragraphs and banner + bare <pre> code blocks. */
export function renderReply(answer: HTMLElement, parts: Array<string | { lang: string; code: string }>): void {
  answer.replaceChildren(
    ...parts.map((part) => {
      if (typeof part === 'string') {
        const p = document.createElement('p');
        p.className = 'ds-markdown-paragraph';
        p.textContent = part;
        return p;
      }
      const block = document.createElement('div');
      block.className = 'md-code-block';
      block.innerHTML = '<div class="md-code-block-banner-wrap"><span class="d813de27"></span><button>复制</button></div><pre></pre>';
      block.querySelector('.d813de27')!.textContent = part.lang;
      block.querySelector('pre')!.textContent = part.code;
      return block;
    }),
  );
}

/** A write that waits for approval, and the approval the companion lists for it. */
export const WRITE = '{"jsonrpc":"2.0","id":"call-009","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.txt","content":"hello"}}}';
export const APPROVAL: Approval = {
  id: 'ap-1',
  runId: 'run-1',
  site: 'deepseek',
  conversationId: '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8',
  tool: 'fs.write',
  risk: 'write',
  argsHash: 'a'.repeat(64),
  preview: { title: 'write a.txt', paths: ['/w/a.txt'], diff: '--- a.txt\n+++ a.txt\n@@\n+hello' },
  createdAt: new Date(0).toISOString(),
  expiresAt: new Date(0).toISOString(),
  state: 'pending',
};

/** An auto_coder plan (in a json code block, as the page shows it verbatim) starting one long program, and that program as the companion lists it while it runs. */
export const SERVE_PLAN =
  '#####--{"metadata":{"step_id":"s1","reason":"r","summary":""},"type":"operate","program_operations":[{"name":"serve","command":"npm run serve","set_timeout":600}]}--#####';
export const SERVE_PROGRAM: ProgramItem = {
  id: 'p1',
  name: 'serve',
  command: 'npm run serve',
  cwd: '/w',
  origin: { runId: 'run-1', site: 'deepseek', conversationId: 'c' },
  status: 'running',
  startedAt: new Date(0).toISOString(),
};
export const READ = '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"README.md"}}}';
export const LIST = '{"jsonrpc":"2.0","id":"call-002","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}';

export function memoryArea(): KeyValueArea {
  const data = new Map<string, unknown>();
  return {
    get: async (keys) => Object.fromEntries(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))])),
    set: async (items) => {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
    remove: async (keys) => {
      for (const k of keys) data.delete(k);
    },
  };
}

/** A tab's sessionStorage: what it keeps across the tab's reloads; `duplicate` copies it as the browser does for a tab it duplicates. */
export function tabStorage(copied: Map<string, string> = new Map()): NonNullable<PageDeps['tabStorage']> & { duplicate(): NonNullable<PageDeps['tabStorage']> } {
  const items = new Map(copied);
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
    duplicate: () => tabStorage(items),
  };
}

/**
 * The browser's Web Locks for the pages of one origin, as every tab of a site sees them (happy-dom has none): exclusive
 * locks by name, each held until its callback's promise settles and handed to the next request waiting for it;
 * `ifAvailable`, a waiting request's `signal`, and `query`. `useWebLocks` puts them on navigator for one test.
 */
export interface WebLocks {
  request(name: string, ...args: unknown[]): Promise<unknown>;
  query(): Promise<{ held: Array<{ name: string; mode: 'exclusive' }>; pending: Array<{ name: string; mode: 'exclusive' }> }>;
  /**
   * Another tab's page goes on holding the locks held now (its page in this test stops, as the harness has one page
   * at a time; the browser's other tab keeps its own): they are let go when the returned function is called.
   */
  heldElsewhere(): () => void;
}

export function useWebLocks(): WebLocks {
  const held = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const letGo = (name: string): void => {
    const next = waiting.get(name)?.shift();
    if (next) next();
    else held.delete(name);
  };
  const locks: WebLocks = {
    async request(name, ...args) {
      const callback = args.pop() as (lock: { name: string; mode: 'exclusive' } | null) => unknown;
      const options = (args[0] ?? {}) as { ifAvailable?: boolean; signal?: AbortSignal };
      if (held.has(name)) {
        if (options.ifAvailable) return await callback(null);
        await new Promise<void>((resolve, reject) => {
          const queue = waiting.get(name) ?? [];
          waiting.set(name, queue);
          const granted = (): void => {
            options.signal?.removeEventListener('abort', aborted);
            resolve();
          };
          const aborted = (): void => {
            queue.splice(queue.indexOf(granted), 1);
            reject(options.signal?.reason ?? new DOMException('aborted', 'AbortError'));
          };
          if (options.signal?.aborted) return aborted();
          queue.push(granted);
          options.signal?.addEventListener('abort', aborted, { once: true });
        });
      } else held.add(name);
      try {
        return await callback({ name, mode: 'exclusive' });
      } finally {
        letGo(name);
      }
    },
    query: async () => ({
      held: [...held].map((name) => ({ name, mode: 'exclusive' as const })),
      pending: [...waiting].flatMap(([name, queue]) => queue.map(() => ({ name, mode: 'exclusive' as const }))),
    }),
    heldElsewhere() {
      const releases: Array<() => void> = [];
      for (const name of held) void locks.request(name, () => new Promise<void>((release) => releases.push(release)));
      return () => {
        for (const release of releases) release();
      };
    },
  };
  const before = Object.getOwnPropertyDescriptor(navigator, 'locks');
  Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
  onTestFinished(() => {
    if (before) Object.defineProperty(navigator, 'locks', before);
    else delete (navigator as { locks?: unknown }).locks;
  });
  return locks;
}

export interface Harness {
  page: Page;
  ctl: PageController;
  runs: Array<RequestMap['run']['request']['run']>;
  /** what Stop asked the background for: runs stopped by id or by request, programs stopped */
  stops: Array<{ type: 'stop-run' | 'stop-program'; request: unknown }>;
  settings: SiteSettings;
  settle(): Promise<void>;
  clock: { now: number };
  push(push: PagePush): void;
  navigate(pathname: string): void;
  /** what the page told the badge (`doctor-problem`), in order */
  problems: Array<DoctorProblem | null>;
  /**
   * Runs the site doctor's check `times` times, the page settling after each — for a page started with
   * `doctorChecks: 'manual'`, whose doctor then checks only when told: a test counts checks instead of waiting for them.
   */
  checkDoctor(times?: number): Promise<void>;
}

/** The largest delay a timer takes: a doctor started with it never checks by itself. */
const NEVER_MS = 2 ** 31 - 1;

/** Every page started by `start`; a test file aborts them after each test (`stopPages`). */
export const controllers: AbortController[] = [];

export function stopPages(): void {
  for (const c of controllers.splice(0)) c.abort();
}

export interface BridgeScript {
  /** POST /v1/run as the companion answers it; a promise that never settles is a companion that has not answered yet */
  respond?: (run: RequestMap['run']['request']['run'], n: number) => RunResponse | Promise<RunResponse>;
  approvals?: Approval[];
  programs?: ProgramItem[];
  /** GET /v1/tools as the companion answers it (the page reads the person's MCP servers' tool names from it) */
  tools?: ToolListing[];
  /** GET /v1/runs/<id> (default: the companion is not reachable) */
  getRun?: (runId: string) => RunResponse;
  /** every request the page makes, by type, as it is made */
  asked?: (type: RequestType) => void;
}

export function start(
  page: Page,
  options: {
    area?: KeyValueArea;
    settings?: Partial<SiteSettings>;
    pathname?: string;
    script?: BridgeScript;
    site?: Site;
    copy?: PageDeps['copy'];
    deliverWaitMs?: PageDeps['deliverWaitMs'];
    doctorCheckMs?: PageDeps['doctorCheckMs'];
    /** 'manual': the doctor checks only on `h.checkDoctor()` (and once as the page starts, as it always does) */
    doctorChecks?: 'manual';
    /** the page's address (default: a DeepSeek conversation at `pathname`) */
    href?: string;
    /** the first scan's slicing (default: the page's own budget and yield) */
    firstScan?: { sliceMs: number; yieldToPage: () => Promise<void> };
    /** the tab's sessionStorage (default: none — each page is a tab of its own; pass one to reload the same tab) */
    tabStorage?: PageDeps['tabStorage'];
  } = {},
): Harness {
  const runs: Harness['runs'] = [];
  const problems: Harness['problems'] = [];
  const stops: Harness['stops'] = [];
  const listeners: Array<(push: PagePush) => void> = [];
  const script = options.script ?? {};
  const clock = { now: 1_000_000 };
  const settings: SiteSettings = { ...defaultSiteSettings('deepseek'), autoRun: true, autoSubmit: true, ...options.settings };
  const bridge: PageBridge = {
    async ask<T extends RequestType>(type: T, request: RequestMap[T]['request']): Promise<RequestMap[T]['response']> {
      script.asked?.(type);
      if (type === 'run') {
        const run = (request as RequestMap['run']['request']).run;
        runs.push(run);
        if (script.respond) return (await script.respond(run, runs.length)) as RequestMap[T]['response'];
        return { runId: `run-${runs.length}`, status: 'done', resultText: `RESULT[${run.kind}:${runs.length}]`, auditId: 'a' } as RequestMap[T]['response'];
      }
      if (type === 'approvals') return (script.approvals ?? []) as RequestMap[T]['response'];
      if (type === 'programs') return (script.programs ?? []) as RequestMap[T]['response'];
      if (type === 'tools' && script.tools) return script.tools as RequestMap[T]['response'];
      if (type === 'get-run') {
        if (script.getRun) return script.getRun((request as RequestMap['get-run']['request']).runId) as RequestMap[T]['response'];
        throw new Error('companion not reachable');
      }
      if (type === 'doctor-problem') {
        problems.push((request as RequestMap['doctor-problem']['request']).problem);
        return null as RequestMap[T]['response'];
      }
      if (type === 'stop-run' || type === 'stop-program') {
        stops.push({ type, request });
        return undefined as RequestMap[T]['response'];
      }
      throw new Error(`unexpected ${type}`);
    },
    onPush: (listener: (push: PagePush) => void) => {
      listeners.push(listener);
      return () => undefined;
    },
  };
  const controller = new AbortController();
  controllers.push(controller);
  const pathname = options.pathname ?? '/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
  const location = { href: options.href ?? `https://chat.deepseek.com${pathname}`, pathname };
  // The doctor's check, caught as the page sets its timer (while the page starts, and only then).
  let doctorCheck: (() => void) | null = null;
  const setInterval = globalThis.setInterval;
  if (options.doctorChecks === 'manual') {
    globalThis.setInterval = ((handler: () => void, ms?: number) => {
      if (ms === NEVER_MS) doctorCheck = handler;
      return setInterval(handler, ms);
    }) as typeof globalThis.setInterval;
  }
  const manualDoctor = options.doctorChecks === 'manual' ? { doctorCheckMs: NEVER_MS } : {};
  let ctl: PageController;
  try {
    ctl = startPage(controller.signal, {
      site: options.site ?? deepseek,
      doc: document,
      location,
      settings: () => settings,
      bridge,
      ledger: new RunLedger(options.area ?? memoryArea()),
      now: () => clock.now,
      ...(options.copy ? { copy: options.copy } : {}),
      ...(options.deliverWaitMs ? { deliverWaitMs: options.deliverWaitMs } : {}),
      ...(options.doctorCheckMs ? { doctorCheckMs: options.doctorCheckMs } : {}),
      ...(options.tabStorage ? { tabStorage: options.tabStorage } : {}),
      ...(options.firstScan ? { firstScanSliceMs: options.firstScan.sliceMs, yieldToPage: options.firstScan.yieldToPage } : {}),
      ...manualDoctor,
    });
  } finally {
    globalThis.setInterval = setInterval;
  }
  const settle = async (): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ctl.flush();
  };
  return {
    page,
    ctl,
    problems,
    runs,
    stops,
    settings,
    clock,
    push: (p) => {
      for (const listener of listeners) listener(p);
    },
    navigate: (to) => {
      // an address on the page's own host, with its query when it has one
      const url = new URL(to, location.href);
      location.pathname = url.pathname;
      location.href = url.href;
    },
    settle,
    async checkDoctor(times = 1) {
      if (!doctorCheck) throw new Error("the page's doctor checks by its own timer: start it with doctorChecks: 'manual'");
      for (let i = 0; i < times; i++) {
        doctorCheck();
        await settle();
      }
    },
  };
}

/** Streams a reply into the page token by token, like the site does, then ends the generation. */
export async function streamReply(h: Harness, parts: Array<string | { lang: string; code: string }>): Promise<HTMLElement> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  const full = parts.map((p) => (typeof p === 'string' ? p : `${p.lang}\n${p.code}`)).join('\n');
  for (let cut = 8; cut < full.length; cut += Math.ceil(full.length / 6)) {
    let left = cut;
    const partial = parts
      .map((p) => {
        if (left <= 0) return null;
        if (typeof p === 'string') {
          const piece = p.slice(0, left);
          left -= p.length;
          return piece;
        }
        const piece = { lang: p.lang, code: p.code.slice(0, Math.max(0, left - p.lang.length)) };
        left -= p.lang.length + p.code.length;
        return piece;
      })
      .filter((p): p is string | { lang: string; code: string } => p !== null);
    renderReply(answer, partial);
    h.clock.now += 50;
    await h.settle();
  }
  renderReply(answer, parts);
  h.clock.now += 50;
  await h.settle();
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  return row;
}

/** A reply with two blocks (`first`, then a listing) streams in and ends; its first block's run starts. */
export async function twoBlocks(h: Harness, first = READ): Promise<void> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  renderReply(answer, ['First this.', { lang: 'mcp-request', code: first }, 'Then the folder.', { lang: 'mcp-request', code: LIST }]);
  h.clock.now += 50;
  await h.settle();
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  await until(() => h.runs.length === 1);
}

export const chipStates = (root: ParentNode = document): string[] =>
  Array.from(root.querySelectorAll('[data-chatbridge-chip]'), (c) => c.getAttribute('data-chatbridge-state') ?? '');

export async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The chips' shadow roots are closed; only our own code reaches them. A test file calls this at its top level to
 * catch them as they are made, to press a chip's buttons with a click the chip takes as the person's.
 */
export function catchChipRoots(): Map<Element, ShadowRoot> {
  const roots = new Map<Element, ShadowRoot>();
  const attachShadow = Element.prototype.attachShadow;
  beforeAll(() => {
    Element.prototype.attachShadow = function (init) {
      const root = attachShadow.call(this, init);
      roots.set(this, root);
      return root;
    };
  });
  afterAll(() => {
    Element.prototype.attachShadow = attachShadow;
  });
  return roots;
}

/** An event as the browser makes it for a person's input (happy-dom leaves isTrusted unset). */
export function trusted<E extends Event>(event: E): E {
  Object.defineProperty(event, 'isTrusted', { value: true });
  return event;
}

/** A trusted click on one of a chip's buttons. */
export function clickChip(roots: Map<Element, ShadowRoot>, chip: Element | undefined, action: string): void {
  const button = chip ? roots.get(chip)?.querySelector(`button[data-action="${action}"]`) : null;
  if (!button) throw new Error(`the chip shows no ${action} button`);
  button.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true, composed: true })));
}
