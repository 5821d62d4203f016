import type { Block, BlockKind } from '../../shared/protocols/types';
import { runRequestSchema, type RunRequest } from '../companion/api-types';
import type { MessageRole } from '../sites/define-site';
import { t } from '../ui/i18n';

/**
 * The per-block state machine and the auto-run rules of DESIGN §6.2, as pure functions and small classes with their
 * storage passed in. The content script feeds them what it saw on the page; nothing here touches the DOM.
 */

export type BlockState =
  | 'writing'
  | 'ready'
  | 'queued'
  | 'running'
  | 'approval'
  | 'done'
  | 'failed'
  | 'unreadable';

/** Moves a block may make; anything else is a bug in the caller and is refused (the state stays). */
const TRANSITIONS: Record<BlockState, readonly BlockState[]> = {
  writing: ['writing', 'ready', 'unreadable', 'failed'],
  ready: ['queued', 'running', 'unreadable', 'failed', 'done'],
  queued: ['running', 'failed', 'ready'],
  running: ['approval', 'done', 'failed'],
  approval: ['running', 'done', 'failed'],
  done: ['queued', 'running', 'failed'],
  failed: ['queued', 'running'],
  unreadable: ['ready', 'unreadable'],
};

export function canMove(from: BlockState, to: BlockState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** The state a block shows when it is (re)seen on the page and has not been run in this page. */
export function initialState(block: Pick<Block, 'complete'>, unreadable: string | undefined): BlockState {
  if (!block.complete) return 'writing';
  if (unreadable) return 'unreadable';
  return 'ready';
}

// ------------------------------------------------------------------------------------------------ auto-run rules

/** Where a message came from: on the page when it loaded / the conversation was switched, or seen arriving. */
export type MessageOrigin = 'history' | 'live';

/**
 * How a finished reply ended. 'stopped': the person stopped it (the site's stop control, Escape). 'cut': it ended
 * while its last block was still being written (the block never closed, or its JSON stops short — the page shows an
 * unfinished fence as a closed code block, so "complete" on the page is not complete in the model's text). Neither
 * auto-runs nor auto-submits anything.
 */
export type ReplyEnding = 'normal' | 'stopped' | 'cut';

export type AutoRunRefusal =
  | 'site-disabled'
  | 'auto-run-off'
  | 'user-message'
  | 'history'
  | 'incomplete'
  | 'unreadable'
  | 'unfenced'
  | 'label-hidden'
  | 'unwrapped'
  | 'quoted'
  | 'hidden'
  | 'reply-stopped'
  | 'reply-cut'
  | 'reply-not-finished'
  | 'already-ran'
  | 'loop-guard';

export interface AutoRunInput {
  siteEnabled: boolean;
  autoRun: boolean;
  role: MessageRole;
  origin: MessageOrigin;
  complete: boolean;
  unreadable?: string | undefined;
  /** Found in paragraph text, not in a code block: the page may have changed its text (Block.unfenced). */
  unfenced?: boolean | undefined;
  /** In a code block whose page hid the label it was written with (Block.labelHidden): it may be an example. */
  labelHidden?: boolean | undefined;
  /** An `<invoke>` written without its `<function_calls>` (Block.unwrapped): not in the format's form. */
  unwrapped?: boolean | undefined;
  /** An Axon plan written wholly inside a block quote (Block.quoted): a quote is also how a plan is mentioned. */
  quoted?: boolean | undefined;
  /** Holds characters the page does not show, or shows out of order (shared/reveal-hidden.ts): check it first. */
  hidden?: boolean | undefined;
  /** How the reply ended (default 'normal'). */
  ending?: ReplyEnding | undefined;
  replyFinished: boolean;
  inLedger: boolean;
  loopGuard: LoopVerdict;
}

export type AutoRunDecision = { run: true } | { run: false; reason: AutoRunRefusal; detail?: string };

/** DESIGN §6.2, in the order a person would ask "why didn't it run?". */
export function decideAutoRun(input: AutoRunInput): AutoRunDecision {
  if (!input.siteEnabled) return { run: false, reason: 'site-disabled' };
  if (input.role !== 'assistant') return { run: false, reason: 'user-message' };
  if (input.origin !== 'live') return { run: false, reason: 'history' };
  if (!input.complete) return { run: false, reason: 'incomplete' };
  if (input.unreadable) return { run: false, reason: 'unreadable', detail: input.unreadable };
  if (input.unfenced) return { run: false, reason: 'unfenced' };
  if (input.labelHidden) return { run: false, reason: 'label-hidden' };
  if (input.unwrapped) return { run: false, reason: 'unwrapped' };
  if (input.quoted) return { run: false, reason: 'quoted' };
  if (input.hidden) return { run: false, reason: 'hidden' };
  if (input.ending === 'stopped') return { run: false, reason: 'reply-stopped' };
  if (input.ending === 'cut') return { run: false, reason: 'reply-cut' };
  if (!input.autoRun) return { run: false, reason: 'auto-run-off' };
  if (!input.replyFinished) return { run: false, reason: 'reply-not-finished' };
  if (input.inLedger) return { run: false, reason: 'already-ran' };
  if (!input.loopGuard.ok) return { run: false, reason: 'loop-guard', detail: input.loopGuard.reason };
  // A complete block the parser found faulty (`error`) still goes to the companion: its answer is the protocol's
  // error form, which is what lets the model correct itself.
  return { run: true };
}

// ------------------------------------------------------------------------------------------------ reply finished

export const STABLE_MS = 1500;
/**
 * A reply counts as finished as soon as the site's own signal says so: it said this reply was being generated and
 * now says it is not (ChatGPT's stop button, DeepSeek's send control showing stop, turning back into send). Without
 * that (a site with no signal, a reply too short to be seen generating, a message that is not the newest) it counts
 * as finished once its text sat still: SETTLE_MS with a signal that is off, STABLE_MS with none.
 *
 * Deciding on a text still a little short (a site whose last render lands after its signal) is safe: a cut-off
 * MODEL text never holds a complete block that differs from the final one (the truncation property of findBlocks),
 * and a reply whose text changes after the decision is decided again (a block that ran is in the ledger and never
 * runs twice). The page's rendering of it can: a site shows an unfinished fence as a closed code block — which is
 * why a reply that ended inside its last block (ReplyEnding 'cut') or was stopped never auto-runs.
 */
export const SETTLE_MS = 50;

export interface ReplyProgress {
  /** The site's "still generating" signal; undefined when the site has none. */
  generating: boolean | undefined;
  /** This message is the newest assistant message on the page (only it can still be streaming). */
  isLatest: boolean;
  /** The site's signal said this reply was being generated (it became live that way). */
  seenGenerating?: boolean;
  lastChangeAt: number;
  now: number;
}

export function isReplyFinished(p: ReplyProgress): boolean {
  const quietFor = p.now - p.lastChangeAt;
  if (!p.isLatest) return quietFor >= SETTLE_MS;
  if (p.generating === true) return false;
  if (p.generating === false) return p.seenGenerating === true || quietFor >= SETTLE_MS;
  return quietFor >= STABLE_MS;
}

// ------------------------------------------------------------------------------------------------ loop guard

export type LoopVerdict = { ok: true } | { ok: false; reason: string };

export const MAX_AUTO_CALLS = 20;
export const MAX_SAME_IN_ROW = 3;

interface GuardState {
  calls: number;
  last: string;
  sameInRow: number;
}

/**
 * Stops auto-run when a conversation runs away: more than MAX_AUTO_CALLS automatic calls without the person typing,
 * or the same call more than MAX_SAME_IN_ROW times in a row. Clicking Run is never limited; typing resets it.
 */
export class LoopGuard {
  private readonly state = new Map<string, GuardState>();

  constructor(private readonly limits = { maxAutoCalls: MAX_AUTO_CALLS, maxSameInRow: MAX_SAME_IN_ROW }) {}

  check(conversationId: string, signature: string): LoopVerdict {
    const s = this.state.get(conversationId);
    if (!s) return { ok: true };
    if (s.calls >= this.limits.maxAutoCalls) {
      return { ok: false, reason: t('note.loopCalls', [s.calls]) };
    }
    if (s.last === signature && s.sameInRow >= this.limits.maxSameInRow) {
      return { ok: false, reason: t('note.loopSame', [s.sameInRow]) };
    }
    return { ok: true };
  }

  record(conversationId: string, signature: string): void {
    const s = this.state.get(conversationId) ?? { calls: 0, last: '', sameInRow: 0 };
    s.calls += 1;
    s.sameInRow = s.last === signature ? s.sameInRow + 1 : 1;
    s.last = signature;
    this.state.set(conversationId, s);
  }

  personTyped(conversationId: string): void {
    this.state.delete(conversationId);
  }
}

/**
 * What makes two calls "the same": the tool and its arguments, in whichever format a call writes them (an
 * mcp-request's tools/call, a flycode-call, a `<function_calls>` of one call: a model that writes a call again in
 * another format asks for the same thing); else the payload without its request id (models renumber ids;
 * `<function_calls>` carry one `call_id` per call), else the raw text.
 */
export function callSignature(block: Pick<Block, 'kind' | 'raw' | 'payload'>): string {
  const call = toolCall(block);
  if (call) return `call:${stableJson(call)}`;
  const payload = block.payload;
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    const { id: _id, ...rest } = payload as Record<string, unknown>;
    void _id;
    if (block.kind === 'function-calls' && Array.isArray(rest.calls)) {
      rest.calls = rest.calls.map((call: unknown) => {
        const { callId: _callId, ...same } = call as Record<string, unknown>;
        return same;
      });
    }
    return `${block.kind}:${stableJson(rest)}`;
  }
  return `${block.kind}:${block.raw.replace(/\r\n/g, '\n').trim()}`;
}

/** The one tool a JSON call calls and its arguments (none written: none), whichever format writes it; else null. */
function toolCall(block: Pick<Block, 'kind' | 'payload'>): { name: string; arguments: unknown } | null {
  const payload = block.payload as Record<string, unknown> | undefined;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  let name: unknown;
  let args: unknown;
  if (block.kind === 'mcp-request' && payload.method === 'tools/call' && payload.params && typeof payload.params === 'object') {
    ({ name, arguments: args } = payload.params as Record<string, unknown>);
  } else if (block.kind === 'flycode-call') {
    ({ tool: name, args } = payload);
  } else if (block.kind === 'function-calls' && Array.isArray(payload.calls) && payload.calls.length === 1) {
    ({ name, arguments: args } = payload.calls[0] as Record<string, unknown>);
  }
  return typeof name === 'string' ? { name, arguments: args ?? {} } : null;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

// ------------------------------------------------------------------------------------------------ runs of a reply

export interface RunUnit {
  kind: BlockKind;
  /** What is posted to the companion: one block's raw, or all Axon statements joined by a blank line. */
  text: string;
  /** Indexes (in the reply's block list) the unit covers, in order. */
  indexes: number[];
}

/**
 * Several blocks in one reply run in order; all Axon statements of one reply form ONE plan and are sent as one run
 * at the position of the first statement.
 */
export function groupRuns(blocks: ReadonlyArray<Pick<Block, 'kind' | 'raw'> & { index: number }>): RunUnit[] {
  const units: RunUnit[] = [];
  let axon: RunUnit | null = null;
  for (const block of blocks) {
    if (block.kind === 'axon') {
      if (!axon) {
        axon = { kind: 'axon', text: block.raw, indexes: [block.index] };
        units.push(axon);
      } else {
        axon.text += `\n\n${block.raw}`;
        axon.indexes.push(block.index);
      }
      continue;
    }
    units.push({ kind: block.kind, text: block.raw, indexes: [block.index] });
  }
  return units;
}

/** All results of one reply go back in ONE message, in block order; empty results (notifications) add nothing. */
export function combineResults(results: ReadonlyArray<string>): string {
  return results.map((r) => r.trim()).filter((r) => r !== '').join('\n\n');
}

/** auto_coder `finish` plans are shown as finished and answer nothing. */
export function isFinishPlan(block: Pick<Block, 'kind' | 'payload'>): boolean {
  return block.kind === 'autocoder' && (block.payload as { type?: unknown } | undefined)?.type === 'finish';
}

// ------------------------------------------------------------------------------------------------ ledger

/** The slice of chrome.storage.local the ledger needs, with its multi-key calls (tests pass a Map-backed one). */
export interface KeyValueArea {
  get(keys: string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string[]): Promise<void>;
}

export interface LedgerLimits {
  maxKeysPerConversation: number;
  maxConversations: number;
}

const INDEX_KEY = 'ledger:index';
const STOPPED_KEPT = 100;
/** Block keys whose run is kept once delivered (runOf): another tab needs it only while the reply is new. */
const RUNS_KEPT = 100;

/**
 * Which blocks have run, per conversation, so a block runs once ever — across reloads, tabs and browser restarts.
 * A key is written BEFORE the block is sent, so a crash mid-run can never run it twice. Pruned by count: the oldest
 * conversations and the oldest keys of a conversation go first. Each change is one read and one write of storage:
 * the claim sits between a reply finishing and its block being sent.
 */
export class RunLedger {
  constructor(
    private readonly area: KeyValueArea,
    private readonly limits: LedgerLimits = { maxKeysPerConversation: 1000, maxConversations: 300 },
    private readonly now: () => number = Date.now,
  ) {}

  /** Read-modify-write of one storage area; chained so two adds in one page never lose each other's keys. */
  private chain: Promise<unknown> = Promise.resolve();
  /** New chats of this page's tab that got their id since (stand-in name → id): see named. */
  private readonly aliases = new Map<string, string>();
  /** The last move of a new chat's records to its id: reads wait for it. */
  private moved: Promise<unknown> = Promise.resolve();

  /** The conversation a name stands for now (a new chat's stand-in name, once the chat has its id: the id). */
  private own(conversationId: string): string {
    return this.aliases.get(conversationId) ?? conversationId;
  }

  /**
   * A new chat of this tab got its id (`from`, its stand-in name, is now `to`): what the ledger keeps under the stand-in
   * — the keys that ran, the runs that still owe the chat a result, the run of each block, the Stops — moves to the id,
   * each block key renamed (`rekey`), so a reload under the id knows it; calls that still name the stand-in (work that
   * began before) reach the id from now on.
   */
  named(from: string, to: string, rekey: (key: string) => string): Promise<void> {
    if (from === to) return Promise.resolve();
    this.aliases.set(from, to);
    const move = this.serialize(async () => {
      const kinds = [conversationKey, pendingKey, runsKey, stoppedKey];
      const stored = await this.area.get([...kinds.flatMap((kind) => [kind(from), kind(to)]), INDEX_KEY]);
      const items: Record<string, unknown> = {};
      const ranFrom = stringList(stored[conversationKey(from)]).map(rekey);
      if (ranFrom.length > 0) {
        const ran = stringList(stored[conversationKey(to)]);
        for (const key of ranFrom) if (!ran.includes(key)) ran.push(key);
        items[conversationKey(to)] = ran.slice(-this.limits.maxKeysPerConversation);
        const index = numberRecord(stored[INDEX_KEY]);
        delete index[from];
        index[to] = this.now();
        items[INDEX_KEY] = index;
      }
      for (const kind of [pendingKey, runsKey]) {
        const moving = stored[kind(from)];
        if (!moving || typeof moving !== 'object') continue;
        const merged = { ...(stored[kind(to)] && typeof stored[kind(to)] === 'object' ? (stored[kind(to)] as Record<string, unknown>) : {}) };
        for (const [key, value] of Object.entries(moving as Record<string, unknown>)) merged[rekey(key)] = value;
        items[kind(to)] = merged;
      }
      const stopsFrom = sharedStops(stored[stoppedKey(from)]);
      if (stopsFrom.length > 0) {
        const stops = sharedStops(stored[stoppedKey(to)]);
        for (const stop of stopsFrom) if (!stops.some((s) => s.key === stop.key && s.at === stop.at)) stops.push(stop);
        items[stoppedKey(to)] = stops.slice(-STOPPED_KEPT).map(storedStop);
      }
      if (Object.keys(items).length === 0) return;
      await this.area.set(items);
      await this.area.remove(kinds.map((kind) => kind(from)));
    });
    this.moved = move.catch(() => undefined);
    return move;
  }

  /** Every key that ran in a conversation, in one read (a page scan asks for many blocks at once). */
  async ranKeys(conversationId: string): Promise<Set<string>> {
    await this.moved;
    const key = conversationKey(this.own(conversationId));
    return new Set(stringList((await this.area.get([key]))[key]));
  }

  /** What a claim reads, in one read of storage: the keys that ran and the Stops the person pressed (markStopped). */
  async claimView(conversationId: string): Promise<{ ran: Set<string>; stops: SharedStop[] }> {
    await this.moved;
    conversationId = this.own(conversationId);
    const ran = conversationKey(conversationId);
    const stopped = stoppedKey(conversationId);
    const stored = await this.area.get([ran, stopped]);
    return { ran: new Set(stringList(stored[ran])), stops: sharedStops(stored[stopped]) };
  }

  add(conversationId: string, newKeys: string[]): Promise<void> {
    const own = this.own(conversationId);
    return this.serialize(() => this.addNow(own, newKeys));
  }

  private async addNow(conversationId: string, newKeys: string[]): Promise<void> {
    const own = conversationKey(conversationId);
    const stored = await this.area.get([own, INDEX_KEY]);
    const keys = stringList(stored[own]);
    for (const key of newKeys) if (!keys.includes(key)) keys.push(key);
    const index = numberRecord(stored[INDEX_KEY]);
    index[conversationId] = this.now();
    const dropped = Object.entries(index)
      .sort(([, a], [, b]) => b - a)
      .slice(this.limits.maxConversations)
      .map(([id]) => id);
    for (const id of dropped) delete index[id];
    await this.area.set({ [own]: keys.slice(-this.limits.maxKeysPerConversation), [INDEX_KEY]: index });
    if (dropped.length > 0) await this.area.remove(dropped.flatMap((id) => [conversationKey(id), pendingKey(id), stoppedKey(id), runsKey(id)]));
  }

  /** Keys claimed that never ran after all (an auto-run reply's blocks the person's Stop kept from starting). */
  forget(conversationId: string, keys: string[]): Promise<void> {
    const id = this.own(conversationId);
    return this.serialize(async () => {
      const own = conversationKey(id);
      const stored = stringList((await this.area.get([own]))[own]);
      const kept = stored.filter((key) => !keys.includes(key));
      if (kept.length !== stored.length) await this.area.set({ [own]: kept });
    });
  }

  /**
   * The Stops the person pressed in a conversation, each with the reply's message key and when (the newest
   * STOPPED_KEPT): another tab of the conversation showing the same reply never runs it by itself nor sends a result
   * after it. The time tells the reply of a site without message ids (its position key may name another message in
   * another tab), and a reply the person had the model continue after the Stop. `text`: what the reply decided stopped
   * said, which tells it after a reload where its key is a position (page-decide.ts stoppedReplyText). `escape`: an
   * Escape, told as it is pressed (SharedStop.escape); the same Stop told again without it is one known to have stopped
   * the reply.
   */
  markStopped(conversationId: string, messageKey: string, at: number, text?: string, escape = false): Promise<void> {
    const id = this.own(conversationId);
    return this.serialize(async () => {
      const key = stoppedKey(id);
      const stops = sharedStops((await this.area.get([key]))[key]).filter((stop) => stop.key !== messageKey || stop.at !== at);
      const stop: SharedStop = text === undefined ? { key: messageKey, at } : { key: messageKey, at, text };
      if (escape) stop.escape = true;
      stops.push(stop);
      await this.area.set({ [key]: stops.slice(-STOPPED_KEPT).map(storedStop) });
    });
  }

  /** An Escape told as it was pressed that turned out not to stop its reply (the reply went on): no Stop after all. */
  forgetEscape(conversationId: string, messageKey: string, at: number): Promise<void> {
    const id = this.own(conversationId);
    return this.serialize(async () => {
      const key = stoppedKey(id);
      const stops = sharedStops((await this.area.get([key]))[key]);
      const kept = stops.filter((stop) => !(stop.escape && stop.key === messageKey && stop.at === at));
      if (kept.length !== stops.length) await this.area.set({ [key]: kept.map(storedStop) });
    });
  }

  /**
   * The person had the model continue a reply they stopped (its message key; `at`: when the site began writing it
   * again): its Stops from before then are kept (a result whose run began before one is still not sent), marked as
   * continued, so a page loaded later does not take the reply, written on since, for a stopped one.
   */
  markContinued(conversationId: string, messageKey: string, at: number): Promise<void> {
    const id = this.own(conversationId);
    return this.serialize(async () => {
      const key = stoppedKey(id);
      const stops = sharedStops((await this.area.get([key]))[key]);
      const continued = stops.map((stop) => (stop.key === messageKey && stop.at <= at && stop.continuedAt === undefined ? { ...stop, continuedAt: at } : stop));
      if (continued.some((stop, i) => stop !== stops[i])) await this.area.set({ [key]: continued.map(storedStop) });
    });
  }

  async stops(conversationId: string): Promise<SharedStop[]> {
    await this.moved;
    const key = stoppedKey(this.own(conversationId));
    return sharedStops((await this.area.get([key]))[key]);
  }

  /**
   * Runs started for blocks whose result has not reached the chat yet (block key → run). A page reloaded mid-run
   * picks these up and delivers the result of the SAME run — it never asks for the block to run again — and, for a
   * reply that was stopped or ended early, types it in without sending it, as the page before the reload would have.
   */
  async pendingRuns(conversationId: string): Promise<Record<string, PendingRun>> {
    await this.moved;
    return this.readPending(this.own(conversationId));
  }

  private async readPending(conversationId: string): Promise<Record<string, PendingRun>> {
    const key = pendingKey(conversationId);
    const value = (await this.area.get([key]))[key];
    const out: Record<string, PendingRun> = {};
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const run = pendingRunOf(v);
        if (run) out[k] = run;
      }
    }
    return out;
  }

  /**
   * `startedAt`: when the run began (Date.now), so a page that follows it after a reload counts the Stops since. The
   * run's id is also kept after its result reached the chat (runOf): another tab shows the run it did not start.
   */
  startedRun(conversationId: string, keys: string[], runId: string, ending: ReplyEnding = 'normal', startedAt?: number): Promise<void> {
    conversationId = this.own(conversationId);
    return this.serialize(async () => {
      await this.changePending(conversationId, (pending) => {
        for (const key of keys) pending[key] = startedAt === undefined ? { runId, ending } : { runId, ending, startedAt };
      });
      const own = runsKey(conversationId);
      const runs = stringRecord((await this.area.get([own]))[own]);
      for (const key of keys) {
        delete runs[key];
        runs[key] = runId;
      }
      const kept = Object.keys(runs).slice(-RUNS_KEPT);
      await this.area.set({ [own]: Object.fromEntries(kept.map((key) => [key, runs[key]!])) });
    });
  }

  /**
   * A unit's run request, owed to the chat from before it is posted: a page gone before the companion answered it (a
   * reload within the answer's wait) has no run id to follow, and finds the run by posting the same request again,
   * which the companion answers with the run it started for it (or starts, if the first never reached it). startedRun
   * puts the run's id in its place once the companion answered.
   */
  postingRun(conversationId: string, keys: string[], request: RunRequest, ending: ReplyEnding = 'normal', startedAt?: number): Promise<void> {
    return this.updatePending(conversationId, (pending) => {
      for (const key of keys) pending[key] = startedAt === undefined ? { posted: request, ending } : { posted: request, ending, startedAt };
    });
  }

  /** The run a block key was last run as (startedRun), if the ledger still knows it. */
  async runOf(conversationId: string, key: string): Promise<string | undefined> {
    await this.moved;
    const own = runsKey(this.own(conversationId));
    return stringRecord((await this.area.get([own]))[own])[key];
  }

  delivered(conversationId: string, keys: string[]): Promise<void> {
    return this.updatePending(conversationId, (pending) => {
      for (const key of keys) delete pending[key];
    });
  }

  private updatePending(conversationId: string, change: (pending: Record<string, PendingRun>) => void): Promise<void> {
    const own = this.own(conversationId);
    return this.serialize(() => this.changePending(own, change));
  }

  private async changePending(conversationId: string, change: (pending: Record<string, PendingRun>) => void): Promise<void> {
    const pending = await this.readPending(conversationId);
    change(pending);
    const keys = Object.keys(pending);
    if (keys.length === 0) await this.area.remove([pendingKey(conversationId)]);
    // Bounded like the ledger itself: the newest entries are kept.
    else await this.area.set({ [pendingKey(conversationId)]: Object.fromEntries(keys.slice(-this.limits.maxKeysPerConversation).map((k) => [k, storedPendingRun(pending[k]!)])) });
  }

  private serialize(change: () => Promise<void>): Promise<void> {
    const next = this.chain.then(change);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((k): k is string => typeof k === 'string') : [];
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

function numberRecord(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (typeof v === 'number') out[k] = v;
  }
  return out;
}

/**
 * A Stop the person pressed in one tab of a conversation: the reply's message key, and when (Date.now); `continuedAt`
 * when the person had the model continue that reply since (markContinued).
 */
export interface SharedStop {
  key: string;
  at: number;
  continuedAt?: number;
  /** The stopped reply's text as decided (page-decide.ts stoppedReplyText), told where its key is a position. */
  text?: string;
  /**
   * An Escape, told as it was pressed, before its tab knew whether it stopped the reply (Escape also closes menus): it
   * did when the reply's last change came at most ESCAPE_CONFIRM_MS after it (page-decide.ts stoppedByPerson). Its tab
   * forgets it once the reply went on (forgetEscape), or tells it again without this once the reply is decided stopped.
   */
  escape?: true;
}

/** Stored Stops; a bare message key (kept before Stops had a time) still stops its own message, never a later writing. */
function sharedStops(value: unknown): SharedStop[] {
  if (!Array.isArray(value)) return [];
  const out: SharedStop[] = [];
  for (const item of value) {
    if (typeof item === 'string') out.push({ key: item, at: Number.NEGATIVE_INFINITY });
    else if (item && typeof item === 'object') {
      const { key, at, continuedAt, text, escape } = item as { key?: unknown; at?: unknown; continuedAt?: unknown; text?: unknown; escape?: unknown };
      if (typeof key !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) continue;
      const stop: SharedStop = { key, at };
      if (typeof continuedAt === 'number' && Number.isFinite(continuedAt)) stop.continuedAt = continuedAt;
      if (typeof text === 'string') stop.text = text;
      if (escape === true) stop.escape = true;
      out.push(stop);
    }
  }
  return out;
}

/** A Stop as stored: a bare key's time (kept before Stops had one) is not a number JSON can hold, so it stays bare. */
function storedStop(stop: SharedStop): string | SharedStop {
  return Number.isFinite(stop.at) ? stop : stop.key;
}

/**
 * A run the chat still owes a result, how the reply it was run for ended, and when it began (when known): its id, or
 * while the companion had not answered it yet, the request that was posted (RunLedger.postingRun).
 */
export type PendingRun = ({ runId: string; posted?: undefined } | { runId?: undefined; posted: RunRequest }) & {
  ending: ReplyEnding;
  startedAt?: number;
};

const ENDINGS: ReadonlySet<string> = new Set<ReplyEnding>(['normal', 'stopped', 'cut']);

/** Stored as its run id when that is all there is to it (as before endings were kept), else as a record. */
function storedPendingRun(run: PendingRun): string | PendingRun {
  return run.runId !== undefined && run.ending === 'normal' && run.startedAt === undefined ? run.runId : run;
}

function pendingRunOf(value: unknown): PendingRun | null {
  if (typeof value === 'string') return { runId: value, ending: 'normal' };
  if (!value || typeof value !== 'object') return null;
  const { runId, posted, ending, startedAt } = value as { runId?: unknown; posted?: unknown; ending?: unknown; startedAt?: unknown };
  if (typeof ending !== 'string' || !ENDINGS.has(ending)) return null;
  let run: PendingRun;
  if (typeof runId === 'string') run = { runId, ending: ending as ReplyEnding };
  else {
    const request = runRequestSchema.safeParse(posted);
    if (!request.success) return null;
    run = { posted: request.data, ending: ending as ReplyEnding };
  }
  if (typeof startedAt === 'number' && Number.isFinite(startedAt)) run.startedAt = startedAt;
  return run;
}

function conversationKey(conversationId: string): string {
  return `ledger:c:${conversationId}`;
}

function stoppedKey(conversationId: string): string {
  return `ledger:s:${conversationId}`;
}

function runsKey(conversationId: string): string {
  return `ledger:u:${conversationId}`;
}

function pendingKey(conversationId: string): string {
  return `ledger:r:${conversationId}`;
}
