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
import type { RunRequest, RunResponse, WsEvent } from './api-types';
import { createBadge, type BadgeApi, type DoctorProblem } from './badge';
import { CompanionError, createCompanionClient } from './client';
import { onCommand } from './commands';
import { startApprovalNotices } from './notices';
import { CompanionSocket, type ConnectionState } from './socket';

/**
 * The background's whole job: talk to the companion (HTTP + one ws) on behalf of pages and the popup. Nothing is
 * kept only in memory that matters after the service worker is stopped: the token and URL are in storage.local,
 * the connection state and recent runs in storage.session/local, and a restart simply reconnects.
 */

const connectionItem = storage.defineItem<ConnectionInfo | null>('session:connection', { fallback: null });
const recentRunsItem = storage.defineItem<RecentRun[]>('local:recent-runs', { fallback: [] });
/** the site doctor's problem per tab, kept across service worker restarts (the badge of those tabs depends on it) */
const problemsItem = storage.defineItem<Record<string, DoctorProblem>>('session:doctor-problems', { fallback: {} });
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
  const ports = new Set<Browser.runtime.Port>();
  const client = createCompanionClient({ baseUrl: () => companionUrl.getValue(), token: () => companionToken.getValue() });
  let info: ConnectionInfo = { state: 'disconnected', companionUrl: '' };
  // Chrome MV3 has `action`; Firefox's MV2 build has `browserAction`.
  const actionApi = (browser.action ?? (browser as unknown as { browserAction?: BadgeApi }).browserAction) as BadgeApi | undefined;
  const badge = createBadge(actionApi ?? { setBadgeText: () => undefined, setBadgeBackgroundColor: () => undefined, setTitle: () => undefined });
  const notices = startApprovalNotices(signal);

  /** The number of approvals waiting, asked again whenever one is created or decided and on (re)connection. */
  let counting: Promise<void> | null = null;
  const countApprovals = (): Promise<void> => {
    counting ??= client
      .approvals()
      .then((list) => {
        badge.setApprovals(list.filter((a) => a.state === 'pending').length);
        return notices.update(list);
      })
      .catch(() => undefined)
      .finally(() => (counting = null));
    return counting;
  };
  const setProblem = async (tabId: number, problem: DoctorProblem | null): Promise<void> => {
    badge.setProblem(tabId, problem);
    const stored = await problemsItem.getValue().catch(() => ({}) as Record<string, DoctorProblem>);
    if (problem) stored[tabId] = problem;
    else delete stored[tabId];
    await problemsItem.setValue(stored).catch(() => undefined);
  };

  const push = (message: PagePush): void => {
    for (const port of ports) {
      try {
        port.postMessage(message);
      } catch {
        ports.delete(port);
      }
    }
  };

  const setConnection = async (state: ConnectionState, detail?: string): Promise<void> => {
    info = { ...info, state, companionUrl: await companionUrl.getValue(), ...(detail ? { detail } : {}) };
    if (!detail) delete info.detail;
    badge.setConnection(state);
    if (state === 'connected') void countApprovals();
    // storage.session is missing in some Firefox builds; the state then lives only as long as this worker.
    await connectionItem.setValue(info).catch(() => undefined);
    push({ type: 'connection', connection: info });
  };

  const onEvent = (event: WsEvent): void => {
    if (event.type === 'run') void rememberRunUpdate(event.run);
    if (event.type === 'approval') void countApprovals();
    push({ type: 'event', event });
  };

  const socket = new CompanionSocket({
    baseUrl: () => companionUrl.getValue(),
    token: () => companionToken.getValue(),
    onEvent,
    onState: (state, detail) => void setConnection(state, detail),
  });

  const handlers: {
    [T in RequestType]: (request: Request<T>, sender: Browser.runtime.MessageSender) => Promise<RequestMap[T]['response']>;
  } = {
    connection: async () => {
      // A fresh worker knows nothing yet: it reports what it is doing now (connecting) rather than a stale copy.
      if (socket.state !== 'connected') void socket.start();
      return info;
    },
    pair: async ({ code, companionUrl: url }) => {
      if (url) await companionUrl.setValue(normalizeCompanionUrl(url));
      const token = await client.pair(code);
      await companionToken.setValue(token);
      await socket.restart();
      return info;
    },
    unpair: async () => {
      await companionToken.setValue('');
      await socket.restart();
      return info;
    },
    run: async ({ run }, sender) => {
      // An approval this run asks for notifies only when its tab is not in front (notices.ts).
      if (sender.tab) notices.rememberTab(run.context.site, run.context.conversationId, sender.tab);
      const result = await client.run(run);
      // The popup's recent-runs list can wait; the page is waiting for this answer.
      void rememberRun(run, result).catch((error: unknown) => console.warn('[chatbridge] remembering a run failed', error));
      return result;
    },
    'get-run': ({ runId }) => client.getRun(runId),
    approvals: async () => {
      const list = await client.approvals();
      badge.setApprovals(list.filter((a) => a.state === 'pending').length);
      void notices.update(list);
      return list;
    },
    decide: ({ id, decision, argsHash }) => client.decide(id, decision, argsHash),
    journal: () => client.journal(),
    undo: ({ id }) => client.undo(id),
    programs: () => client.programs(),
    'stop-program': ({ id }) => client.stopProgram(id),
    'stop-run': (request) => ('runId' in request ? client.stopRun(request.runId) : client.stopBlockRun(request.run)),
    'recent-runs': () => recentRunsItem.getValue(),
    tools: () => client.tools(),
    'mcp-servers': () => client.mcpServers(),
    audit: ({ limit }) => client.audit(Math.min(Math.max(1, Math.floor(Number(limit) || 50)), 10_000)),
    'doctor-problem': async ({ problem }, sender) => {
      if (sender.tab?.id === undefined) throw new Error('doctor-problem comes from a tab\'s content script');
      const valid = problem && typeof problem.code === 'string' && typeof problem.message === 'string';
      await setProblem(sender.tab.id, valid ? { code: problem.code, message: problem.message.slice(0, 300) } : null);
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
    // Only our own pages and content scripts talk to the background; web pages cannot reach runtime.onMessage.
    if (sender.id !== browser.runtime.id || !isRequest(message)) return undefined;
    const handler = handlers[message.type] as (r: Request, s: Browser.runtime.MessageSender) => Promise<unknown>;
    return handler(message, sender).then(
      (value): Reply<RequestType> => ({ ok: true, value }) as Reply<RequestType>,
      (error: unknown): Reply<RequestType> => ({ ok: false, error: describeError(error) }),
    );
  });

  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== PAGE_PORT || port.sender?.id !== browser.runtime.id) return;
    ports.add(port);
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

async function rememberRun(run: RunRequest, result: RunResponse): Promise<void> {
  const runs = await recentRunsItem.getValue();
  const entry: RecentRun = {
    runId: result.runId,
    status: result.status,
    kind: run.kind,
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
  await recentRunsItem.setValue(runs.map((r) => (r.runId === result.runId ? { ...r, status: result.status, ...resultOf(result) } : r)));
}

const RESULT_PREVIEW = 400;

function resultOf(result: RunResponse): Pick<RecentRun, 'result' | 'endedAt'> {
  const ended = result.status === 'done' || result.status === 'error';
  return { result: ended ? result.resultText.slice(0, RESULT_PREVIEW) : '', ...(ended ? { endedAt: Date.now() } : {}) };
}

function describeError(error: unknown): string {
  if (error instanceof CompanionError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
