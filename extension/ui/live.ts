import { browser } from 'wxt/browser';
import { useEffect, useState } from 'preact/hooks';
import type { Approval, ApprovalDecision, AuditItem, GrantItem, JournalItem, ProgramItem, WsEvent } from '../companion/api-types';
import { ask, PAGE_PORT, type ConnectionInfo, type PagePush, type RecentRun, type RequestMap, type RequestType } from '../messaging';
import { isRetry } from './connection-retry';
import { tn } from './i18n';

/**
 * What the popup and the side panel show from the companion, kept fresh: loaded through the background, then
 * refreshed when the background pushes an event (over the same port content scripts use) and every few seconds.
 * Program output arrives only as it is written, so a program started before the page opened shows what came since.
 */

export type LivePart = 'approvals' | 'grants' | 'programs' | 'runs' | 'journal' | 'audit';

export interface LiveState {
  connection: ConnectionInfo | null;
  approvals: Approval[];
  /** what "Approve for this conversation" granted, each to be taken back */
  grants: GrantItem[];
  programs: ProgramItem[];
  /** programs that ended while this page was open, newest first (ENDED_KEEP): their output stays to be read */
  ended: EndedProgram[];
  runs: RecentRun[];
  journal: JournalItem[];
  audit: AuditItem[];
  /** live output per program id (stdout and stderr interleaved as they came), the newest OUTPUT_KEEP characters */
  output: Record<string, string>;
  /** false until the first answer, so a view can keep the room for what is coming */
  loaded: boolean;
  /**
   * the lists read from the companion at least once since the page opened: until one is, it is empty because nothing
   * was read (the companion not running or not paired when the page opened), not because it holds nothing
   */
  read: LivePart[];
  error: string;
}

/** A program that ended, as the companion said when it did. */
export interface EndedProgram {
  program: ProgramItem;
  status: 'completed' | 'failure' | 'timeout' | 'terminated';
  returncode: number | null;
}

/** Each list and the field of the live state it is read into. */
const PARTS: ReadonlyArray<[LivePart, keyof LiveState]> = [
  ['approvals', 'approvals'],
  ['grants', 'grants'],
  ['programs', 'programs'],
  ['runs', 'runs'],
  ['journal', 'journal'],
  ['audit', 'audit'],
];

export const OUTPUT_KEEP = 64 * 1024;
export const ENDED_KEEP = 5;
export const AUDIT_LIMIT = 500;
const REFRESH_MS = 3_000;

/** How a live view reaches the background (the real one, or a test's). */
export interface LiveSource {
  ask<T extends RequestType>(type: T, request: RequestMap[T]['request']): Promise<RequestMap[T]['response']>;
  /** subscribe to the background's pushes; returns the unsubscribe */
  connect(onPush: (push: PagePush) => void): () => void;
}

export const browserSource: LiveSource = {
  ask,
  connect(onPush) {
    const port = browser.runtime.connect({ name: PAGE_PORT });
    port.onMessage.addListener((message: unknown) => onPush(message as PagePush));
    return () => port.disconnect();
  },
};

export interface Live {
  get(): LiveState;
  subscribe(listener: (state: LiveState) => void): () => void;
  refresh(): Promise<void>;
  decide(approval: Approval, decision: ApprovalDecision): Promise<void>;
  forgetGrant(grant: GrantItem): Promise<void>;
  undo(journalId: string): Promise<void>;
  stopProgram(programId: string): Promise<void>;
  pair(code: string, companionUrl: string): Promise<void>;
  unpair(): Promise<void>;
  close(): void;
}

/** The connection as a page shows it: a try again while the companion is away is not shown (isRetry). */
function steady(before: ConnectionInfo | null, next: ConnectionInfo): ConnectionInfo {
  return before && isRetry(before.state, next.state) ? before : next;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createLive(source: LiveSource, parts: readonly LivePart[], options: { refreshMs?: number } = {}): Live {
  let state: LiveState = { connection: null, approvals: [], grants: [], programs: [], ended: [], runs: [], journal: [], audit: [], output: {}, loaded: false, read: [], error: '' };
  const listeners = new Set<(state: LiveState) => void>();
  const set = (patch: Partial<LiveState>): void => {
    state = { ...state, ...patch };
    for (const listener of listeners) listener(state);
  };
  const want = new Set(parts);

  const load = async <K extends keyof LiveState, T extends RequestType>(
    part: LivePart,
    key: K,
    type: T,
    request: RequestMap[T]['request'],
    shape: (value: RequestMap[T]['response']) => LiveState[K],
  ): Promise<Partial<LiveState>> => {
    if (!want.has(part)) return {};
    try {
      return { [key]: shape(await source.ask(type, request)) } as Partial<LiveState>;
    } catch {
      return {}; // the companion being away shows in the connection state; the last lists stay
    }
  };

  // The audit log is read from the companion's files: asked for again only once a run or a decision happened.
  let auditWanted = 1; // bumped by whatever may have added records
  let auditHave = 0;
  let refreshing: Promise<void> | null = null;
  /** the refresh asked for while one was under way: its lists may have been read before what it was asked for */
  let queued: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    if (refreshing) {
      queued ??= refreshing.then(() => {
        queued = null;
        return refresh();
      });
      return queued;
    }
    refreshing = (async () => {
      const wanted = auditWanted;
      let connection: ConnectionInfo;
      try {
        connection = await source.ask('connection', {});
      } catch (error) {
        set({ error: message(error), loaded: true });
        return;
      }
      const patches = await Promise.all([
        load('approvals', 'approvals', 'approvals', {}, (list) => list.filter((a) => a.state === 'pending')),
        load('grants', 'grants', 'grants', {}, (list) => list),
        load('programs', 'programs', 'programs', {}, (list) => list.filter((p) => p.status === 'running')),
        load('runs', 'runs', 'recent-runs', {}, (list) => list),
        load('journal', 'journal', 'journal', {}, (list) => list),
        auditHave !== wanted ? load('audit', 'audit', 'audit', { limit: AUDIT_LIMIT }, (list) => list) : {},
      ]);
      const got: Partial<LiveState> = Object.assign({}, ...patches);
      if ('audit' in got) auditHave = wanted;
      const read = PARTS.filter(([part, key]) => state.read.includes(part) || key in got).map(([part]) => part);
      set({ ...got, connection: steady(state.connection, connection), loaded: true, ...(read.length !== state.read.length ? { read } : {}) });
    })().finally(() => (refreshing = null));
    return refreshing;
  };

  const onEvent = (event: WsEvent): void => {
    if (event.type === 'program-output') {
      const before = state.output[event.programId] ?? '';
      const next = (before + event.chunk).slice(-OUTPUT_KEEP);
      set({ output: { ...state.output, [event.programId]: next } });
      return;
    }
    if (event.type === 'output-dropped') {
      const before = state.output[event.programId] ?? '';
      set({ output: { ...state.output, [event.programId]: `${before}\n[… ${tn('panel.outputDropped', event.dropped)} …]\n`.slice(-OUTPUT_KEEP) } });
      return;
    }
    if (event.type === 'program-exit') {
      // its card stays, with how it ended, instead of going with its output the moment it ends
      const { program, result } = event;
      const ended = [{ program, status: result.status, returncode: result.returncode }, ...state.ended.filter((e) => e.program.id !== program.id)];
      // the output of one no longer listed goes with it: each program ever run would keep up to OUTPUT_KEEP here
      const output = { ...state.output };
      for (const gone of ended.slice(ENDED_KEEP)) delete output[gone.program.id];
      set({ ended: ended.slice(0, ENDED_KEEP), output });
    }
    if (event.type === 'approval' || event.type === 'run' || event.type === 'journal' || event.type === 'program-exit') {
      auditWanted += 1;
      void refresh();
    }
  };
  const disconnect = source.connect((push) => {
    if (push.type === 'connection') set({ connection: steady(state.connection, push.connection) });
    else onEvent(push.event);
    if (push.type === 'connection' && push.connection.state === 'connected') {
      auditWanted += 1;
      void refresh();
    }
  });
  const timer = setInterval(() => void refresh(), options.refreshMs ?? REFRESH_MS);

  /** Runs a person's action, shows its error, then refreshes. */
  const act = async (action: () => Promise<unknown>): Promise<void> => {
    set({ error: '' });
    auditWanted += 1;
    try {
      await action();
    } catch (error) {
      set({ error: message(error) });
    }
    await refresh();
  };

  void refresh();
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh,
    decide: (approval, decision) => act(() => source.ask('decide', { id: approval.id, decision, argsHash: approval.argsHash })),
    forgetGrant: (grant) => act(() => source.ask('forget-grant', { grant })),
    undo: (id) => act(() => source.ask('undo', { id })),
    stopProgram: (id) => act(() => source.ask('stop-program', { id })),
    pair: (code, companionUrl) => act(() => source.ask('pair', { code, companionUrl })),
    unpair: () => act(() => source.ask('unpair', {})),
    close() {
      clearInterval(timer);
      disconnect();
      listeners.clear();
    },
  };
}

/**
 * The companion cannot be reached (its socket is down, or chatbridge is not paired): the approvals last read stay in
 * sight, but a decision would not reach it.
 */
export function companionAway(state: LiveState): boolean {
  const connection = state.connection?.state;
  return connection === 'disconnected' || connection === 'unpaired';
}

/** The live state as a Preact hook. */
export function useLive(live: Live): LiveState {
  const [state, setState] = useState(live.get());
  useEffect(() => live.subscribe(setState), [live]);
  return state;
}
