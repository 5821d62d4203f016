/**
 * The few extension APIs site-access.ts uses, kept in memory: storage.local (with change events), permissions (the
 * person's answer to a prompt is set by the test), scripting (registrations and injections are recorded) and
 * tabs.query. Imported first, it stands in as `chrome` before 'wxt/browser' is evaluated.
 */

type Listener = (...args: never[]) => void;

class FakeEvent<L extends Listener> {
  readonly listeners = new Set<L>();
  addListener(listener: L): void {
    this.listeners.add(listener);
  }
  removeListener(listener: L): void {
    this.listeners.delete(listener);
  }
  hasListener(listener: L): boolean {
    return this.listeners.has(listener);
  }
  emit(...args: Parameters<L>): void {
    for (const listener of this.listeners) listener(...args);
  }
}

type Changes = Record<string, { oldValue?: unknown; newValue?: unknown }>;
const data = new Map<string, unknown>();
const areaChanged = new FakeEvent<(changes: Changes) => void>();
const storageChanged = new FakeEvent<(changes: Changes, area: string) => void>();

function keysOf(keys: unknown): string[] {
  if (keys === undefined || keys === null) return [...data.keys()];
  if (typeof keys === 'string') return [keys];
  if (Array.isArray(keys)) return keys as string[];
  return Object.keys(keys as object);
}

function changed(changes: Changes): void {
  if (Object.keys(changes).length === 0) return;
  areaChanged.emit(changes);
  storageChanged.emit(changes, 'local');
}

export interface PromptAnswer {
  /** What the person answers to the next permission prompt; 'never' leaves it open (a popup closed by Firefox). */
  next: boolean | 'never';
}

export const fake = {
  granted: new Set<string>(),
  prompt: { next: true } as PromptAnswer,
  prompts: [] as string[][],
  registered: new Map<string, { id: string; matches: string[]; js: string[] }>(),
  injected: [] as Array<{ tabId: number; files: string[] }>,
  tabs: [] as Array<{ id: number; url: string; started: boolean }>,
  data,
  permissionAdded: new FakeEvent<(p: { origins?: string[] }) => void>(),
  permissionRemoved: new FakeEvent<(p: { origins?: string[] }) => void>(),
  reset(): void {
    data.clear();
    this.granted.clear();
    this.prompt.next = true;
    this.prompts.length = 0;
    this.registered.clear();
    this.injected.length = 0;
    this.tabs.length = 0;
  },
};

function matchesPattern(url: string, pattern: string): boolean {
  const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  return regex.test(url);
}

const api = {
  runtime: { id: 'chatbridge-test', getURL: (path: string) => `chrome-extension://chatbridge-test/${path}` },
  storage: {
    onChanged: storageChanged,
    local: {
      onChanged: areaChanged,
      async get(keys?: unknown): Promise<Record<string, unknown>> {
        const out: Record<string, unknown> = {};
        for (const key of keysOf(keys)) if (data.has(key)) out[key] = structuredClone(data.get(key));
        return out;
      },
      async set(items: Record<string, unknown>): Promise<void> {
        const changes: Changes = {};
        for (const [key, value] of Object.entries(items)) {
          changes[key] = { oldValue: data.get(key), newValue: structuredClone(value) };
          data.set(key, structuredClone(value));
        }
        changed(changes);
      },
      async remove(keys: string | string[]): Promise<void> {
        const changes: Changes = {};
        for (const key of keysOf(keys)) {
          if (!data.has(key)) continue;
          changes[key] = { oldValue: data.get(key) };
          data.delete(key);
        }
        changed(changes);
      },
      async clear(): Promise<void> {
        await this.remove([...data.keys()]);
      },
    },
  },
  permissions: {
    onAdded: fake.permissionAdded,
    onRemoved: fake.permissionRemoved,
    async contains({ origins = [] }: { origins?: string[] }): Promise<boolean> {
      return origins.every((o) => fake.granted.has(o));
    },
    request({ origins = [] }: { origins?: string[] }): Promise<boolean> {
      fake.prompts.push(origins);
      const answer = fake.prompt.next;
      if (answer === 'never') return new Promise<boolean>(() => undefined);
      if (answer) {
        for (const o of origins) fake.granted.add(o);
        fake.permissionAdded.emit({ origins });
      }
      return Promise.resolve(answer);
    },
    async remove({ origins = [] }: { origins?: string[] }): Promise<boolean> {
      for (const o of origins) fake.granted.delete(o);
      fake.permissionRemoved.emit({ origins });
      return true;
    },
  },
  scripting: {
    async registerContentScripts(scripts: Array<{ id: string; matches: string[]; js: string[] }>): Promise<void> {
      for (const s of scripts) if (fake.registered.has(s.id)) throw new Error(`Duplicate script ID '${s.id}'`);
      for (const s of scripts) fake.registered.set(s.id, { id: s.id, matches: s.matches, js: s.js });
    },
    async unregisterContentScripts({ ids }: { ids: string[] }): Promise<void> {
      for (const id of ids) fake.registered.delete(id);
    },
    async getRegisteredContentScripts(): Promise<Array<{ id: string; matches: string[]; js: string[] }>> {
      return [...fake.registered.values()];
    },
    async executeScript(options: { target: { tabId: number }; files?: string[]; func?: unknown }): Promise<Array<{ result: unknown }>> {
      const tab = fake.tabs.find((t) => t.id === options.target.tabId)!;
      if (options.func) return [{ result: tab.started }];
      fake.injected.push({ tabId: tab.id, files: options.files ?? [] });
      tab.started = true;
      return [{ result: undefined }];
    },
  },
  tabs: {
    async query({ url }: { url?: string[] }): Promise<Array<{ id: number; url: string }>> {
      return fake.tabs.filter((t) => (url ?? []).some((p) => matchesPattern(t.url, p))).map(({ id, url: u }) => ({ id, url: u }));
    },
  },
};

(globalThis as Record<string, unknown>).chrome = api;
