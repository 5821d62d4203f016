import type { RequestType } from '../messaging';
import { generic, siteForHost } from '../sites';
import type { RunRequest, RunResponse, WsEvent } from './api-types';

/**
 * Who asks the background, and what each may ask and hear (pure). A chat page's renderer runs the site's scripts next
 * to our content script; a site that is compromised, or a renderer taken over, can send whatever the content script
 * could. So a content script gets what its own page needs: the runs started on its origin (the scheme and host of the
 * chat page), their approvals, programs and events. Pairing, the records, undo, the MCP servers and the site doctor
 * of other tabs are for the extension's own pages (popup, side panel, options).
 */

export type Caller = { kind: 'extension' } | { kind: 'page'; origin: string };

interface SenderLike {
  id?: string | undefined;
  url?: string | undefined;
  tab?: unknown;
}

/**
 * The caller behind a message or port, or null when it is none of ours. `extensionBase` is the extension's own address
 * (`runtime.getURL('/')`): its pages are extension pages even when shown in a tab (the side panel's page opened from a
 * notice, the popup opened as `popup.html#tab=<id>`).
 */
export function callerOf(sender: SenderLike, extensionId: string, extensionBase: string): Caller | null {
  if (sender.id !== extensionId) return null;
  const url = sender.url ?? '';
  if (url.startsWith(extensionBase)) return { kind: 'extension' };
  const origin = webOrigin(url);
  if (origin) return { kind: 'page', origin };
  return sender.tab ? null : { kind: 'extension' };
}

function webOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The requests a chat page's content script makes (content/page-*.ts); every other one is for extension pages. */
export const PAGE_REQUESTS: ReadonlySet<RequestType> = new Set<RequestType>([
  'connection', 'run', 'get-run', 'approvals', 'decide', 'programs', 'stop-program', 'stop-run', 'tools', 'doctor-problem',
]);

export function pageMayAsk(type: RequestType): boolean {
  return PAGE_REQUESTS.has(type);
}

/**
 * A run a page asks for must be of that page: its address on the page's origin, its site the one the content script
 * picks for that host (a known site's module, else the generic adapter), and on a generic host a conversation of that
 * host. Otherwise a page could run under another site's or host's name and use what the person allowed in that one's
 * conversations ("Approve for this conversation"). Returns the refusal, or null.
 */
export function runMismatch(run: RunRequest, origin: string): string | null {
  const context = (run as Partial<RunRequest>).context;
  if (!context || typeof context !== 'object') return 'a run needs its context';
  if (webOrigin(String(context.url)) !== origin) return `context.url ${JSON.stringify(context.url)} is not on the page that asked (${origin})`;
  const { host, hostname } = new URL(origin);
  const site = siteForHost(hostname)?.id ?? generic.id;
  if (context.site !== site) return `context.site ${JSON.stringify(context.site)} is not the site of ${origin} (${site})`;
  // Every host the generic adapter runs on is the one site "generic": its conversations are told apart by their host
  // (page-context.ts conversationKey), and a conversation of another host is what the person allowed there.
  const conversation = String(context.conversationId);
  if (site === generic.id && !conversation.startsWith(`${host}/`) && !conversation.startsWith(`new:${host}/`)) {
    return `context.conversationId ${JSON.stringify(conversation)} is not a conversation of ${host} (on a site the generic adapter runs, it starts with the host)`;
  }
  return null;
}

/**
 * What an event is about, for choosing who hears it: its run, or the site and conversation it belongs to; the changes
 * (journal) are for extension pages; an MCP server's new state for every page too (a page reads the tool names again,
 * content/page.ts), told to pages without its log file and last error (`eventForPages`).
 */
export type EventSubject =
  | { run: string; site?: string; conversationId?: string }
  | { program: string }
  | 'extension'
  | 'everyone';

export function subjectOf(event: WsEvent): EventSubject {
  switch (event.type) {
    case 'run':
      return { run: event.run.runId };
    case 'approval':
      return { run: event.approval.runId, site: event.approval.site, conversationId: event.approval.conversationId };
    case 'tool-progress':
      return { run: event.runId };
    case 'program-exit':
      return { run: event.program.origin.runId, site: event.program.origin.site, conversationId: event.program.origin.conversationId };
    case 'program-output':
    case 'output-dropped':
      return { program: event.programId };
    case 'journal':
      return 'extension';
    case 'mcp-server':
      return 'everyone';
  }
}

/** An event as a chat page hears it: what it does not need of the person's MCP servers left out. */
export function eventForPages(event: WsEvent): WsEvent {
  if (event.type !== 'mcp-server') return event;
  const { lastError: _lastError, problem: _problem, log: _log, ...server } = event.server;
  return { ...event, server: { ...server, notes: [] } };
}

const KEPT_RUNS = 1_000;

/**
 * Which page origins started which runs. A run belongs to the origins whose page asked for it (the same block posted
 * from two tabs of one site is one run); while a page's run request waits for its answer, what the companion says of
 * that site and conversation (an approval, a program started) belongs to it too, so nothing of it is lost before the
 * run's id is known.
 */
export class RunOwners {
  private readonly owners = new Map<string, Set<string>>();
  private readonly asking = new Map<string, number>();

  constructor(private readonly onChange: (saved: Record<string, string[]>) => void = () => undefined) {}

  /** What a restarted worker saved before (storage.session); what it learnt since stays. */
  merge(saved: Record<string, string[]>): void {
    for (const [runId, origins] of Object.entries(saved)) {
      if (!Array.isArray(origins)) continue;
      const known = this.owners.get(runId) ?? new Set<string>();
      for (const origin of origins) if (typeof origin === 'string') known.add(origin);
      this.owners.set(runId, known);
    }
    this.trim();
  }

  own(runId: string, origin: string): void {
    const origins = this.owners.get(runId) ?? new Set<string>();
    if (origins.has(origin)) return;
    origins.add(origin);
    this.owners.delete(runId); // newest last, so the oldest go first
    this.owners.set(runId, origins);
    this.trim();
  }

  private trim(): void {
    for (const oldest of this.owners.keys()) {
      if (this.owners.size <= KEPT_RUNS) break;
      this.owners.delete(oldest);
    }
    this.onChange(this.saved());
  }

  owns(runId: string, origin: string): boolean {
    return this.owners.get(runId)?.has(origin) === true;
  }

  /** A run request of `origin` for this site and conversation is waiting for its answer; call the result when it has. */
  asks(origin: string, site: string, conversationId: string): () => void {
    const key = askKey(origin, site, conversationId);
    this.asking.set(key, (this.asking.get(key) ?? 0) + 1);
    return () => {
      const left = (this.asking.get(key) ?? 1) - 1;
      if (left > 0) this.asking.set(key, left);
      else this.asking.delete(key);
    };
  }

  /** Whether `origin` hears of this run (and, when it is what its waiting request asked for, owns it from now on). */
  hears(origin: string, subject: { run: string; site?: string; conversationId?: string }): boolean {
    if (this.owns(subject.run, origin)) return true;
    if (subject.site === undefined || subject.conversationId === undefined) return false;
    if (!this.asking.has(askKey(origin, subject.site, subject.conversationId))) return false;
    this.own(subject.run, origin);
    return true;
  }

  saved(): Record<string, string[]> {
    return Object.fromEntries([...this.owners].map(([runId, origins]) => [runId, [...origins]]));
  }
}

/**
 * The runs this browser's requests started, as against those the companion answered as another's (`reused`: the same
 * block posted first from another browser or profile paired with it, which puts the result into the chat). A page
 * that posts a block again because it went away before the first answer came (a reload, content/page-dispatch.ts
 * followPosted) or because the service worker stopped before it answered is answered `reused` for the run its own
 * first request started: that run is this browser's to deliver. The companion says so (`startedByYou`: the repost
 * came with the token the first request did), which holds where this worker never heard the first answer; the runs
 * kept here say so too for a run started before this browser was paired again (a new token).
 */
export class StartedRuns {
  private readonly started = new Set<string>();

  constructor(private readonly onChange: (saved: string[]) => void = () => undefined) {}

  /** What a restarted worker saved before; what it learnt since stays. */
  merge(saved: string[]): void {
    if (!Array.isArray(saved)) return;
    const learnt = [...this.started];
    this.started.clear();
    for (const runId of [...saved, ...learnt]) if (typeof runId === 'string') this.started.add(runId);
    this.trim();
  }

  /**
   * The companion's answer to a run request of this browser's, as its page reads it. `again`: the page posts the block
   * again (it went away before the first answer, or the worker stopped before giving it), and hears `reused` only when
   * another browser started the run; any other request hears it as the companion says it.
   */
  answered(result: RunResponse, again = false): RunResponse {
    if (result.reused !== true) {
      this.started.delete(result.runId);
      this.started.add(result.runId);
      this.trim();
      this.onChange([...this.started]);
      return result;
    }
    if (!again || (result.startedByYou !== true && !this.started.has(result.runId))) return result;
    const { reused: _reused, startedByYou: _startedByYou, ...own } = result;
    this.started.delete(result.runId);
    this.started.add(result.runId);
    this.trim();
    this.onChange([...this.started]);
    return own;
  }

  private trim(): void {
    for (const oldest of this.started) {
      if (this.started.size <= KEPT_RUNS) break;
      this.started.delete(oldest);
    }
  }
}

function askKey(origin: string, site: string, conversationId: string): string {
  return `${origin}\0${site}\0${conversationId}`;
}
