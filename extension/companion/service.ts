import { browser, type Browser } from 'wxt/browser';
import { storage } from 'wxt/utils/storage';
import { companionToken, companionUrl, normalizeCompanionUrl } from '../settings';
import { DOCTOR_MESSAGE, doctorAnswerSchema, type DoctorMessage } from '../doctor/answer';
import { startSiteScripts } from '../site-access';
import {
  PAGE_PORT,
  isRequest,
  type ConnectionInfo,
  type PagePush,
  type RecentRun,
  type Reply,
  type Request,
  type RequestMap,
  type RequestType,
} from '../messaging';
import type { ProgramItem, RunRequest, RunResponse, WsEvent } from './api-types';
import { countApprovalsInto, createBadge, type BadgeApi, type DoctorProblem } from './badge';
import { RunOwners, StartedRuns, callerOf, eventForPages, pageMayAsk, runMismatch, subjectOf, type Caller } from './callers';
import { CompanionError, companionRefusal, createCompanionClient, pairingRefusal } from './client';
import { onCommand } from './commands';
import { defineKeptItem } from './kept-item';
import { startApprovalNotices } from './notices';
import { CompanionSocket, type ConnectionState } from './socket';

/**
 * The background's whole job: talk to the companion (HTTP + one ws) on behalf of pages and the popup. Nothing is
 * kept only in memory that matters after the service worker is stopped: the token and URL are in storage.local,
 * the connection state and recent runs in storage.session/local, and a restart simply reconnects.
 */

const connectionItem = storage.defineItem<ConnectionInfo | null>('session:connection', { fallback: null });
const recentRunsItem = storage.defineItem<RecentRun[]>('local:recent-runs', { fallback: [] });
/**
 * the site doctor's problem per tab (null: none now), kept across service worker restarts: every tab here has a badge
 * of its own, which the browser shows over the global one, so each is drawn again on every change
 */
const problemsItem = storage.defineItem<Record<string, DoctorProblem | null>>('session:doctor-problems', { fallback: {} });
/**
 * which chat page origins started which runs (callers.ts), kept across service worker restarts, and across a reload or
 * update of the extension and a browser restart: a page reloaded then still owes the chat a run's result, and reads
 * the run by this (kept-item.ts; storage.session, which those empty, only where IndexedDB cannot be had)
 */
const runOwnersItem = defineKeptItem<Record<string, string[]>>(
  'run-owners',
  storage.defineItem<Record<string, string[]>>('session:run-owners', { fallback: {} }),
);
/** the runs this browser's requests started, not another browser's (callers.ts StartedRuns), kept like the owners */
const startedRunsItem = defineKeptItem<string[]>('started-runs', storage.defineItem<string[]>('session:started-runs', { fallback: [] }));
const RECENT_RUNS = 50;
const KEEPALIVE_ALARM = 'chatbridge-keepalive';

/**
 * What a person's keyboard command and a click on a notification call. The background also puts them on its global
 * scope (entrypoints/background.ts): browser shortcuts cannot be pressed in headless Chromium, so the end-to-end suite
 * calls them there, and they can be tried from the service worker's console.
 */
export interface BackgroundHandlers {
  command(name: string): Promise<unknown>;
  notificationClicked(notificationId: string): void;
}

export function startCompanionService(signal: AbortSignal = new AbortController().signal): BackgroundHandlers {
  /** every port's caller: a chat page hears only of its own runs (callers.ts) */
  const ports = new Map<Browser.runtime.Port, Caller>();
  const extensionBase = browser.runtime.getURL('/');
  const callerFor = (sender: Browser.runtime.MessageSender | undefined): Caller | null =>
    sender ? callerOf(sender, browser.runtime.id, extensionBase) : null;
  const owners = new RunOwners((saved) => void runOwnersItem.setValue(saved).catch(() => undefined));
  // A restarted worker must know the runs its pages started before it answers them (a page polls its run).
  const ownersLoaded = runOwnersItem.getValue().then((saved) => owners.merge(saved), () => undefined);
  const started = new StartedRuns((saved) => void startedRunsItem.setValue(saved).catch(() => undefined));
  const startedLoaded = startedRunsItem.getValue().then((saved) => started.merge(saved), () => undefined);
  /** program id → its run, for output events (they name only the program) */
  const programRuns = new Map<string, { run: string; site: string; conversationId: string } | null>();
  const learnPrograms = (list: ProgramItem[]): ProgramItem[] => {
    for (const p of list) programRuns.set(p.id, { run: p.origin.runId, site: p.origin.site, conversationId: p.origin.conversationId });
    return list;
  };
  const client = createCompanionClient({ baseUrl: () => companionUrl.getValue(), token: () => companionToken.getValue() });
  // A worker just started connects at once (the end of this function): a page or the popup asking meanwhile is told
  // so, not "disconnected" (a chip told that refuses the person's click on Approve or Run).
  let info: ConnectionInfo = { state: 'connecting', companionUrl: '' };
  // Chrome MV3 has `action`; Firefox's MV2 build has `browserAction`.
  const actionApi = (browser.action ?? (browser as unknown as { browserAction?: BadgeApi }).browserAction) as BadgeApi | undefined;
  const badge = createBadge(actionApi ?? { setBadgeText: () => undefined, setBadgeBackgroundColor: () => undefined, setTitle: () => undefined });
  const notices = startApprovalNotices(signal);

  /**
   * The number of approvals waiting, asked again whenever one is created or decided and on (re)connection; asked while
   * a count is under way (many approvals at once), it counts once more after it.
   */
  const countApprovals = countApprovalsInto(badge, () => client.approvals(), (list) => notices.update(list));
  const setProblem = async (tabId: number, problem: DoctorProblem | null): Promise<void> => {
    badge.setProblem(tabId, problem);
    const stored = await problemsItem.getValue().catch(() => ({}) as Record<string, DoctorProblem | null>);
    stored[tabId] = problem;
    await problemsItem.setValue(stored).catch(() => undefined);
  };

  const push = (message: PagePush, hears: (caller: Caller) => boolean = () => true): void => {
    for (const [port, caller] of ports) {
      if (!hears(caller)) continue;
      try {
        port.postMessage(message);
      } catch {
        ports.delete(port);
      }
    }
  };

  /** Who hears an event: extension pages all of them, a chat page those of the runs it started. */
  const audienceOf = async (event: WsEvent): Promise<(caller: Caller) => boolean> => {
    if (event.type === 'program-exit') learnPrograms([event.program]);
    let subject = subjectOf(event);
    if (typeof subject === 'object' && 'program' in subject) {
      const programId = subject.program;
      // output of a program not seen yet: the companion's list says whose it is
      if (!programRuns.has(programId)) {
        await client.programs().then((list) => {
          learnPrograms(list);
          // a program of no run the list knows: asked once, then told to extension pages only
          if (!programRuns.has(programId)) programRuns.set(programId, null);
        }, () => undefined);
      }
      subject = programRuns.get(programId) ?? 'extension';
    }
    if (subject === 'extension') return (caller) => caller.kind === 'extension';
    if (subject === 'everyone') return () => true;
    const about = subject;
    await ownersLoaded;
    return (caller) => caller.kind === 'extension' || owners.hears(caller.origin, about);
  };
  /** events are told in the order they came, even when finding out who hears one takes a request */
  let telling: Promise<void> = Promise.resolve();

  const setConnection = async (state: ConnectionState, detail?: string): Promise<void> => {
    info = { ...info, state, companionUrl: await companionUrl.getValue(), ...(detail ? { detail } : {}) };
    if (!detail) delete info.detail;
    badge.setConnection(state);
    if (state === 'connected') {
      void countApprovals();
      void settleRecentRuns(client.getRun).catch((error: unknown) => console.warn('[chatbridge] reading the recent runs again failed', error));
    }
    // storage.session is missing in some Firefox builds; the state then lives only as long as this worker.
    await connectionItem.setValue(info).catch(() => undefined);
    push({ type: 'connection', connection: info });
  };

  const onEvent = (event: WsEvent): void => {
    if (event.type === 'run') void rememberRunUpdate(event.run);
    if (event.type === 'approval') void countApprovals();
    telling = telling
      .then(async () => {
        const hears = await audienceOf(event);
        const forPages = eventForPages(event);
        if (forPages === event) return push({ type: 'event', event }, hears);
        push({ type: 'event', event }, (caller) => caller.kind === 'extension');
        push({ type: 'event', event: forPages }, (caller) => caller.kind === 'page' && hears(caller));
      })
      .catch(() => undefined);
  };

  const socket = new CompanionSocket({
    baseUrl: () => companionUrl.getValue(),
    token: () => companionToken.getValue(),
    onEvent,
    onState: (state, detail) => void setConnection(state, detail),
  });

  /** A chat page may touch only the runs started on its origin; extension pages any. */
  const mustOwn = async (type: RequestType, caller: Caller, runId: string, of?: string): Promise<void> => {
    if (caller.kind === 'extension') return;
    await ownersLoaded;
    if (owners.owns(String(runId), caller.origin)) return;
    throw new NotThePagesRun(of ? `${type}: ${of} is not of a run started on ${caller.origin}` : `${type}: run ${runId} was not started on ${caller.origin}`);
  };
  const mustBeOfPage = (type: RequestType, caller: Caller, run: RunRequest): void => {
    if (caller.kind === 'extension') return;
    const mismatch = runMismatch(run, caller.origin);
    if (mismatch) throw new Error(`${type}: ${mismatch}`);
  };

  const handlers: {
    [T in RequestType]: (request: Request<T>, sender: Browser.runtime.MessageSender, caller: Caller) => Promise<RequestMap[T]['response']>;
  } = {
    connection: async () => {
      // A fresh worker knows nothing yet: it reports what it is doing now (connecting) rather than a stale copy.
      if (socket.state !== 'connected') void socket.start();
      return info;
    },
    pair: async ({ code, companionUrl: url }) => {
      // The address is stored with the token it paired for: a failed pairing leaves the one that worked.
      const base = url ? normalizeCompanionUrl(url) : undefined;
      // What went wrong is said in the person's words, with what to do next.
      const token = await client.pair(code, base).catch(async (error: unknown) => {
        throw new Error(pairingRefusal(error, base ?? (await companionUrl.getValue())));
      });
      if (base) await companionUrl.setValue(base);
      await companionToken.setValue(token);
      await socket.restart();
      return info;
    },
    unpair: async () => {
      // The companion forgets the token first: kept there, any copy of it (a backup, a synced profile) still works.
      await client.unpair().catch((error: unknown) => {
        // one it no longer takes (its data dir was reset) has nothing left to revoke
        if (!(error instanceof CompanionError && (error.code === 'UNAUTHORIZED' || error.code === 'NOT_PAIRED'))) throw error;
      });
      await companionToken.setValue('');
      await socket.restart();
      return info;
    },
    run: async ({ run, again }, sender, caller) => {
      mustBeOfPage('run', caller, run);
      // An approval this run asks for notifies only when its tab is not in front (notices.ts).
      if (sender.tab) notices.rememberTab(run.context.site, run.context.conversationId, sender.tab);
      await Promise.all([ownersLoaded, startedLoaded]);
      const answered = caller.kind === 'page' ? owners.asks(caller.origin, run.context.site, run.context.conversationId) : () => undefined;
      let result: RunResponse;
      try {
        result = started.answered(await client.run(run), again === true);
        if (caller.kind === 'page') owners.own(result.runId, caller.origin);
      } finally {
        answered();
      }
      // The popup's recent-runs list can wait; the page is waiting for this answer.
      void rememberRun(run, result).catch((error: unknown) => console.warn('[chatbridge] remembering a run failed', error));
      return result;
    },
    'get-run': async ({ runId }, _sender, caller) => {
      await mustOwn('get-run', caller, runId);
      return client.getRun(runId);
    },
    approvals: async (_request, _sender, caller) => {
      const list = await client.approvals();
      badge.setApprovals(list.filter((a) => a.state === 'pending').length);
      void notices.update(list);
      if (caller.kind === 'extension') return list;
      await ownersLoaded;
      return list.filter((a) => owners.owns(a.runId, caller.origin));
    },
    decide: async ({ id, decision, argsHash }, _sender, caller) => {
      if (caller.kind === 'page') {
        const approval = (await client.approvals()).find((a) => a.id === id);
        await mustOwn('decide', caller, approval?.runId ?? '', `approval ${id}`);
      }
      return client.decide(id, decision, argsHash);
    },
    grants: () => client.grants(),
    'forget-grant': ({ grant }) => client.forgetGrant(grant),
    journal: () => client.journal(),
    undo: ({ id }) => client.undo(id),
    programs: async (_request, _sender, caller) => {
      const list = learnPrograms(await client.programs());
      if (caller.kind === 'extension') return list;
      await ownersLoaded;
      return list.filter((p) => owners.owns(p.origin.runId, caller.origin));
    },
    'stop-program': async ({ id }, _sender, caller) => {
      if (caller.kind === 'page') {
        const program = learnPrograms(await client.programs()).find((p) => p.id === id);
        await mustOwn('stop-program', caller, program?.origin.runId ?? '', `program ${id}`);
      }
      return client.stopProgram(id);
    },
    'stop-run': async (request, _sender, caller) => {
      if ('runId' in request) {
        await mustOwn('stop-run', caller, request.runId);
        return client.stopRun(request.runId);
      }
      mustBeOfPage('stop-run', caller, request.run);
      return client.stopBlockRun(request.run);
    },
    'recent-runs': () => recentRunsItem.getValue(),
    tools: () => client.tools(),
    'mcp-servers': () => client.mcpServers(),
    audit: ({ limit }) => client.audit(Math.min(Math.max(1, Math.floor(Number(limit) || 50)), 10_000)),
    'doctor-problem': async ({ problem }, sender) => {
      if (sender.tab?.id === undefined) throw new Error('doctor-problem comes from a tab\'s content script');
      const valid = problem && typeof problem.code === 'string' && typeof problem.message === 'string';
      const page = sender.documentId;
      await setProblem(sender.tab.id, valid ? { code: problem.code, message: problem.message.slice(0, 300), ...(page ? { documentId: page } : {}) } : null);
      return null;
    },
    doctor: async ({ tabId, outline }) => {
      if (!Number.isInteger(tabId) || tabId < 0) throw new Error(`doctor: tabId ${JSON.stringify(tabId)} must be a tab's id (a whole number)`);
      const message: DoctorMessage = { type: DOCTOR_MESSAGE, outline: outline === true };
      // No content script in the tab (a page chatbridge does not run on) is an answer too: null.
      const reply: unknown = await browser.tabs.sendMessage(tabId, message).catch(() => null);
      if (reply === null || reply === undefined) return null;
      const parsed = doctorAnswerSchema.safeParse(reply);
      if (!parsed.success) throw new Error(`the page's doctor answer is malformed: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`);
      return parsed.data;
    },
  };

  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => {
    // Only our own pages and content scripts talk to the background; web pages cannot reach runtime.onMessage. A
    // content script shares its renderer with the chat site's scripts: it gets what its page needs (callers.ts).
    const caller = callerFor(sender);
    if (!caller || !isRequest(message)) return undefined;
    if (caller.kind === 'page' && !pageMayAsk(message.type)) {
      return Promise.resolve({ ok: false, error: `${message.type} is for the extension's own pages, not a chat page's content script` });
    }
    const handler = handlers[message.type] as (r: Request, s: Browser.runtime.MessageSender, c: Caller) => Promise<unknown>;
    return handler(message, sender, caller).then(
      (value): Reply<RequestType> => ({ ok: true, value }) as Reply<RequestType>,
      (error: unknown): Reply<RequestType> => ({
        ok: false,
        error: companionRefusal(error, message.type),
        ...(error instanceof CompanionError || error instanceof NotThePagesRun ? { code: error.code } : {}),
      }),
    );
  });

  browser.runtime.onConnect.addListener((port) => {
    const caller = callerFor(port.sender);
    if (port.name !== PAGE_PORT || !caller) return;
    ports.set(port, caller);
    port.onDisconnect.addListener(() => ports.delete(port));
    port.postMessage({ type: 'connection', connection: info } satisfies PagePush);
    if (socket.state !== 'connected') void socket.start();
  });

  // A stopped service worker loses its socket; the alarm wakes it to reconnect even with no page asking.
  void browser.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 });
  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name !== KEEPALIVE_ALARM) return;
    if (socket.state !== 'connected') void socket.start();
    else void countApprovals();
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    badge.forgetTab(tabId);
    void problemsItem.getValue().then((stored) => {
      if (!(tabId in stored)) return;
      delete stored[tabId];
      return problemsItem.setValue(stored);
    }).catch(() => undefined);
  });
  // A problem stays the tab's only as long as the page that found it: the browser takes the tab's badge away with the
  // page, but where no page of chatbridge loads next (a site it does not run on) none says the problem is over, and the
  // next global change (an approval, the connection) drew "!" there again. Once the tab has loaded, the page that
  // found it is asked for (Chrome: by its document's id; a page on the same document, a route change, answers).
  browser.tabs.onUpdated.addListener((tabId, change) => {
    const documentId = change.status === 'complete' ? badge.problemOf(tabId)?.documentId : undefined;
    if (documentId === undefined) return;
    const message: DoctorMessage = { type: DOCTOR_MESSAGE, outline: false };
    void browser.tabs
      .sendMessage(tabId, message, { documentId })
      // gone, the message has no one to go to
      .then(() => true, () => false)
      .then((there) => {
        // not a later page's problem, told meanwhile
        if (!there && badge.problemOf(tabId)?.documentId === documentId) return setProblem(tabId, null);
      });
  });
  // A restarted worker gets back the tabs' problems (the badge it draws for them depends on them).
  void problemsItem.getValue().then((stored) => {
    for (const [tabId, problem] of Object.entries(stored)) badge.setProblem(Number(tabId), problem);
  }).catch(() => undefined);
  companionToken.watch(() => void socket.restart());
  companionUrl.watch(() => void socket.restart());

  const onKeyboardCommand = (command: string): void => void onCommand(command);
  browser.commands?.onCommand.addListener(onKeyboardCommand);
  signal.addEventListener('abort', () => browser.commands?.onCommand.removeListener(onKeyboardCommand), { once: true });

  startSiteScripts();
  void socket.start();
  return { command: onCommand, notificationClicked: notices.clicked };
}

/** A chat page asked about a run its origin did not start: a refusal that asking again does not change. */
class NotThePagesRun extends Error {
  readonly code = 'FORBIDDEN';
}

async function rememberRun(run: RunRequest, result: RunResponse): Promise<void> {
  const runs = await recentRunsItem.getValue();
  const entry: RecentRun = {
    runId: result.runId,
    status: result.status,
    kind: run.kind,
    ...(result.tool !== undefined ? { tool: result.tool } : {}),
    site: run.context.site,
    conversationId: run.context.conversationId,
    at: Date.now(),
    preview: run.text.slice(0, 160),
    url: run.context.url,
    ...resultOf(result),
  };
  await recentRunsItem.setValue([entry, ...runs.filter((r) => r.runId !== result.runId)].slice(0, RECENT_RUNS));
}

async function rememberRunUpdate(result: RunResponse): Promise<void> {
  const runs = await recentRunsItem.getValue();
  if (!runs.some((r) => r.runId === result.runId)) return;
  await recentRunsItem.setValue(
    runs.map((r) => (r.runId === result.runId ? { ...r, status: result.status, ...(result.tool !== undefined ? { tool: result.tool } : {}), ...resultOf(result) } : r)),
  );
}

/**
 * The recent runs still listed as waiting or running, asked for again once connected: how they ended while the socket
 * was down (the companion stopping ends them) came as no event, and the side panel said "waiting for approval" for good.
 * A run the companion no longer knows (its data directory was reset) is left as it was.
 */
async function settleRecentRuns(getRun: (runId: string) => Promise<RunResponse>): Promise<void> {
  const open = (await recentRunsItem.getValue()).filter((r) => r.status === 'pending' || r.status === 'running');
  for (const run of open) {
    const result = await getRun(run.runId).catch(() => undefined);
    if (result) await rememberRunUpdate(result);
  }
}

const RESULT_PREVIEW = 400;

function resultOf(result: RunResponse): Pick<RecentRun, 'result' | 'resultCut' | 'endedAt'> {
  const ended = result.status === 'done' || result.status === 'error';
  if (!ended) return { result: '' };
  const cut = result.resultText.length - RESULT_PREVIEW;
  return { result: result.resultText.slice(0, RESULT_PREVIEW), ...(cut > 0 ? { resultCut: cut } : {}), endedAt: Date.now() };
}

