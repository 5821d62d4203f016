import { blockKey, findBlocks } from '../../shared/protocols';
import { formatRuntimeFeedback } from '../../shared/results';
import type { Block } from '../../shared/protocols/types';
import type { Approval, RunResponse, WsEvent } from '../companion/api-types';
import { editorText, insertIntoEditor, isEditorEmpty } from '../inject/insert';
import { submitEditor } from '../inject/submit';
import { waitFor } from '../inject/wait';
import type { PagePush, RequestMap, RequestType } from '../messaging';
import {
  LoopGuard,
  SETTLE_MS,
  callSignature,
  canMove,
  combineResults,
  decideAutoRun,
  groupRuns,
  initialState,
  isFinishPlan,
  isReplyFinished,
  type BlockState,
  type MessageOrigin,
  type RunLedger,
  type RunUnit,
} from '../scanner/blocks';
import { observeMessages, type PageChanges } from '../scanner/observe';
import { locateBlock, mayHoldBlocks, serializeMessage, type SerializedMessage } from '../scanner/serialize';
import type { SiteSettings } from '../site-settings';
import { isMessageElement, type MessageRole, type Site } from '../sites/define-site';
import { createChip, type Chip, type ChipAction, type ChipApproval } from '../ui/chip';
import { createIndicator } from '../ui/indicator';
import { translator } from '../ui/i18n';
import { ProgramOutputBuffer } from './program-output';

/**
 * One chat page: scans messages as they change, keeps the state of every block, applies the auto-run rules, asks
 * the background to run blocks, and puts the results back into the chat. `startPage(signal, deps)` wires it all;
 * aborting the signal removes every listener, timer, observer and chip.
 */

export interface PageBridge {
  ask<T extends RequestType>(type: T, request: RequestMap[T]['request']): Promise<RequestMap[T]['response']>;
  onPush(listener: (push: PagePush) => void): () => void;
}

export interface PageDeps {
  site: Site;
  doc: Document;
  location: { href: string; pathname: string };
  settings: () => SiteSettings;
  bridge: PageBridge;
  ledger: RunLedger;
  loopGuard?: LoopGuard;
  now?: () => number;
  /** How long POST /v1/run may hold the answer before saying pending/running (the page then waits on events). */
  runAnswerWaitMs?: number;
}

export interface TrackedBlock {
  block: Block;
  index: number;
  key: string;
  state: BlockState;
  chip: Chip | null;
  anchor: Element | null;
  unreadable?: string | undefined;
  note?: string | undefined;
  preview?: string | undefined;
  approval?: (ChipApproval & { id: string; argsHash: string }) | undefined;
  runId?: string | undefined;
  ranBefore: boolean;
  reruns: number;
}

export interface MessageRecord {
  el: Element;
  role: MessageRole;
  /** Index among the messages when first seen (the message key of sites without ids). */
  position: number;
  origin: MessageOrigin;
  /** Appeared at the end of the conversation after the page was scanned: may become live. */
  candidate: boolean;
  firstSeenAt: number;
  lastChangeAt: number;
  grewAfterFirstSeen: boolean;
  /** The answer's text as last scanned (what tells a change); null before the first scan. */
  text: string | null;
  /** Its markdown, when it may hold blocks ('' when it cannot); null before the first scan. */
  markdown: string | null;
  blocks: TrackedBlock[];
  /** The markdown the reply's auto-run was decided on; a later change (regenerate, edit) decides again. */
  handledMarkdown: string | null;
}

export interface PageController {
  records(): MessageRecord[];
  conversationId(): string | null;
  /** Runs one scan + finish check now (tests; normally driven by the observer and a timer). */
  flush(): Promise<void>;
}

const TICK_MS = 100;
const URL_POLL_MS = 500;
const RUN_POLL_MS = 3_000;
const LONG_RUN_MS = 6 * 60 * 60_000;
const CANDIDATE_GRACE_MS = 2_000;
const CANDIDATE_MAX_MS = 30_000;
const SWITCH_GRACE_MS = 1_500;
const LEDGER_LOCK_WAIT_MS = 3_000;
const SCAN_EVERY_MS = 150;
const NOTHING_SERIALIZED: SerializedMessage = { markdown: '', segments: [] };

export function startPage(signal: AbortSignal, deps: PageDeps): PageController {
  const { site, doc, bridge, ledger } = deps;
  const now = deps.now ?? Date.now;
  const loopGuard = deps.loopGuard ?? new LoopGuard();
  const t = translator();
  const records = new Map<Element, MessageRecord>();
  const liveKeys = new Set<string>();
  const outputs = new ProgramOutputBuffer();
  const runWaiters = new Map<string, Array<(run: RunResponse) => void>>();
  const reported = new Set<string>();
  let conversation = site.conversationId(deps.location);
  let switchedAt = Number.NEGATIVE_INFINITY;
  /** Bumped on every conversation switch (not when a new chat gets its id): results never cross it. */
  let epoch = 0;
  let lastMessageEl: Element | null = null;
  let deliveries: Promise<unknown> = Promise.resolve();
  let lastInserted: string | null = null;
  let pendingWork: Promise<unknown> = Promise.resolve();

  const indicator = createIndicator(doc);
  doc.body.appendChild(indicator.host);
  indicator.update('connecting');

  const reportOnce = (what: string, error: unknown): void => {
    const line = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    if (reported.has(line)) return;
    reported.add(line);
    console.warn(`[chatbridge] ${line}`);
  };

  const conversationKey = (): string => conversation ?? `new:${deps.location.pathname}`;

  // ------------------------------------------------------------------------------------------ scanning

  const messageKeyOf = (record: MessageRecord): string => site.messageKey(record.el, record.position);

  /** Records the timer looks at: candidates not yet known live or history, and live replies not yet handled. */
  const active = new Set<MessageRecord>();

  const track = (el: Element, origin: MessageOrigin, candidate: boolean, position: number, role = site.roleOf(el)): MessageRecord | null => {
    if (!role) return null;
    const record: MessageRecord = {
      el,
      role,
      position,
      origin,
      candidate,
      firstSeenAt: now(),
      lastChangeAt: now(),
      grewAfterFirstSeen: false,
      text: null,
      markdown: null,
      blocks: [],
      handledMarkdown: null,
    };
    records.set(el, record);
    if (candidate && role === 'assistant') active.add(record);
    return record;
  };

  const follows = (el: Element, reference: Element | null): boolean =>
    !reference || !reference.isConnected || (reference.compareDocumentPosition(el) & 4) !== 0;

  /** `changedAt`: when the page changed the message (the observer's time; the scan may run a little later). */
  const scan = (record: MessageRecord, changedAt = now()): void => {
    // A reply row can appear before its answer body does (DeepSeek tells roles apart by that body): ask again.
    if (record.role === 'user') record.role = site.roleOf(record.el) ?? 'user';
    if (record.role !== 'assistant') return;
    if (record.candidate && record.origin !== 'live') active.add(record);
    const answer = site.answerRoot(record.el);
    const text = answer?.textContent ?? '';
    // Replies that cannot hold a block (most of a long conversation, and most streaming tokens) are not serialized;
    // their text alone tells whether they changed.
    const serialized = answer && mayHoldBlocks(answer, text, site) ? serializeMessage(answer, site) : NOTHING_SERIALIZED;
    if (text !== record.text) {
      if (record.text !== null) record.grewAfterFirstSeen = true;
      record.text = text;
      record.lastChangeAt = changedAt;
      if (record.origin === 'live') active.add(record);
    }
    if (serialized.markdown === record.markdown) {
      // Same markdown, maybe new elements (the site re-rendered the answer): follow the blocks to their new places.
      for (const tracked of record.blocks) {
        tracked.anchor = locateBlock(serialized, tracked.block.start, tracked.block.end).anchor;
        placeChip(record, tracked);
      }
      return;
    }
    if (record.markdown !== null) record.grewAfterFirstSeen = true;
    record.markdown = serialized.markdown;
    record.lastChangeAt = changedAt;
    if (record.origin === 'live') active.add(record);
    const found = findBlocks(serialized.markdown);
    const messageKey = messageKeyOf(record);
    const next: TrackedBlock[] = [];
    found.forEach((block, index) => {
      const old = record.blocks[index];
      // The block at a place stays the same block (and keeps its chip) while it is written — a site shows a fence
      // that is still streaming as a closed code block, so it looks complete on every token — and until it runs.
      // Once it ran, different text there is a different block.
      const unrun = old?.state === 'writing' || old?.state === 'ready' || old?.state === 'unreadable';
      const keep = old && old.block.kind === block.kind && (old.block.raw === block.raw || !old.block.complete || unrun);
      const tracked: TrackedBlock = keep
        ? old
        : { block, index, key: '', state: 'writing', chip: null, anchor: null, ranBefore: false, reruns: 0 };
      tracked.block = block;
      const key = blockKey({ site: site.id, conversationId: conversationKey(), messageKey, index, raw: block.raw });
      if (key !== tracked.key) {
        tracked.key = key;
        tracked.ranBefore = false;
        // A reply seen arriving is new; whether its blocks ran is read when it is claimed (claimRunnable).
        if (block.complete && record.origin !== 'live') checkRanBefore(record, tracked);
      }
      const located = locateBlock(serialized, block.start, block.end);
      tracked.anchor = located.anchor;
      tracked.unreadable = located.codeSegments.find((s) => s.code?.partial)?.code?.partial;
      if (tracked.state === 'writing' || tracked.state === 'ready' || tracked.state === 'unreadable') {
        tracked.state = initialState(block, tracked.unreadable);
        if (tracked.state === 'ready' && isFinishPlan(block)) {
          tracked.state = 'done';
          tracked.note = t('note.finished');
        }
      }
      next.push(tracked);
    });
    for (const dropped of record.blocks.slice(found.length)) dropped.chip?.remove();
    for (const old of record.blocks) if (!next.includes(old)) old.chip?.remove();
    record.blocks = next;
    for (const tracked of next) placeChip(record, tracked);
  };

  // Whether a block ran before (its chip then offers Re-run): one ledger read for all the blocks a pass found.
  let ranChecks: Array<{ record: MessageRecord; tracked: TrackedBlock }> = [];
  const checkRanBefore = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (ranChecks.length === 0) {
      const conv = conversationKey();
      queueMicrotask(() => {
        const batch = ranChecks;
        ranChecks = [];
        ledger.ranKeys(conv).then(
          (ran) => {
            for (const check of batch) {
              check.tracked.ranBefore = ran.has(check.tracked.key);
              render(check.record, check.tracked);
            }
          },
          (error: unknown) => reportOnce('reading the run ledger failed', error),
        );
      });
    }
    ranChecks.push({ record, tracked });
  };

  /** Puts the block's chip after its element and shows its current state (a chip redraws only what changed). */
  const placeChip = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (!tracked.anchor) return;
    tracked.chip ??= createChip(doc, (action) => void onChipAction(record, tracked, action));
    render(record, tracked);
    const host = tracked.chip.host;
    if (tracked.anchor.nextSibling !== host) tracked.anchor.after(host);
  };

  const render = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (!tracked.chip) return;
    const actions: Array<'run' | 'stop' | 'rerun'> = [];
    if (tracked.state === 'ready') actions.push(tracked.ranBefore ? 'rerun' : 'run');
    if (tracked.state === 'running' || tracked.state === 'approval' || tracked.state === 'queued') actions.push('stop');
    if (tracked.state === 'done' || tracked.state === 'failed') actions.push('rerun');
    let note = tracked.note;
    if (!note && tracked.state === 'ready') {
      if (record.origin === 'history') note = t('note.history');
      else if (!deps.settings().autoRun) note = t('note.autoRunOff');
    }
    if (tracked.state === 'unreadable') note = tracked.unreadable;
    tracked.chip.host.setAttribute('data-chatbridge-key', tracked.key);
    tracked.chip.host.setAttribute('data-chatbridge-origin', record.origin);
    tracked.chip.update({
      kind: tracked.block.kind,
      state: tracked.state,
      actions,
      note,
      preview: tracked.preview,
      approval: tracked.approval,
    });
  };

  const setState = (record: MessageRecord, blocks: TrackedBlock[], state: BlockState, note?: string): void => {
    for (const tracked of blocks) {
      if (!canMove(tracked.state, state)) {
        reportOnce('block state machine', new Error(`a ${tracked.state} block cannot become ${state}`));
        continue;
      }
      tracked.state = state;
      tracked.note = note;
      render(record, tracked);
    }
  };

  // ------------------------------------------------------------------------------------------ live vs history

  /**
   * The site's "is generating" signal, read at most once per pass and only when a pass needs it: on a long page its
   * selector walks the whole document, which made every streamed token cost a walk of the page.
   */
  const generatingSignal = (): (() => boolean | undefined) => {
    let read = false;
    let value: boolean | undefined;
    return () => {
      if (!read) {
        value = site.isGenerating(doc);
        read = true;
      }
      return value;
    };
  };

  const updateOrigins = (): void => {
    const isGenerating = generatingSignal();
    const latest = lastMessageEl ? records.get(lastMessageEl) : undefined;
    for (const record of active) {
      if (!record.candidate || record.origin === 'live' || record.role !== 'assistant') continue;
      const generating = isGenerating();
      // Only the newest message can be a streaming reply; others (history loading in) stop being watched.
      const age = now() - record.firstSeenAt;
      if (age > CANDIDATE_MAX_MS || (generating !== undefined && record !== latest && age > CANDIDATE_GRACE_MS)) {
        active.delete(record);
        continue;
      }
      // Seen while the site says a reply is streaming and it is the newest message — or, without a site signal,
      // seen growing. A virtual-list row re-mounted with old text does neither.
      const live = generating === true ? record === latest : generating === undefined && record.grewAfterFirstSeen;
      if (live) {
        record.origin = 'live';
        liveKeys.add(messageKeyOf(record));
        for (const tracked of record.blocks) render(record, tracked);
      }
    }
  };

  const checkConversation = (): void => {
    const id = site.conversationId(deps.location);
    if (id === conversation) return;
    // A new chat gets its id only once the first message is sent (sometimes before, sometimes after it renders):
    // same conversation, not a switch. Opening an old conversation from an empty new chat lands here too; its
    // history renders in without the site's generating signal, so it still never becomes live.
    if (conversation === null) {
      conversation = id;
      return;
    }
    conversation = id;
    switchedAt = now();
    epoch += 1;
    for (const record of records.values()) {
      record.origin = 'history';
      record.candidate = false;
      for (const tracked of record.blocks) render(record, tracked);
    }
    active.clear();
  };

  const onChanges = (changes: PageChanges): void => {
    checkConversation();
    if (changes.removed) {
      for (const [el, record] of records) {
        if (el.isConnected) continue;
        for (const tracked of record.blocks) tracked.chip?.remove();
        records.delete(el);
        active.delete(record);
      }
    }
    for (const el of changes.added) {
      if (records.has(el) || !el.isConnected || !isMessageElement(site, el)) continue;
      // Right after a conversation switch the new conversation is still rendering in: that is history too,
      // including a reply the site resumes streaming.
      const atEnd = follows(el, lastMessageEl);
      const candidate = atEnd && now() - switchedAt > SWITCH_GRACE_MS;
      const record = track(el, 'history', candidate, records.size);
      if (!record) continue;
      if (atEnd) lastMessageEl = el;
      // The same message re-rendered as a new element keeps being live — when the site gives messages real ids;
      // a position key could belong to another message after a virtual list unmounted rows.
      const key = messageKeyOf(record);
      if (candidate && !key.startsWith('p:') && liveKeys.has(key)) record.origin = 'live';
    }
    let liveChanged = false;
    for (const el of changes.changed) {
      const record = records.get(el);
      if (!record) continue;
      try {
        scan(record, changes.at);
      } catch (error) {
        reportOnce(`scanning a ${site.id} message failed`, error);
      }
      if (record.origin === 'live' || record.candidate) liveChanged = true;
    }
    updateOrigins();
    if (liveChanged) tickWhenSettled(changes.at);
  };

  // A reply counts as finished SETTLE_MS after its last change; checking right then (and not on the next TICK_MS
  // tick) takes up to a tick off the time from a reply's last token to its result in the box. One timer per quiet
  // period, pushed back when it fires early, rather than re-armed on every token.
  let settleTimer: ReturnType<typeof setTimeout> | undefined;
  let settleDue = 0;
  const armSettle = (wait: number): void => {
    settleTimer = setTimeout(() => {
      const left = settleDue - now();
      if (left > 0) return armSettle(left);
      settleTimer = undefined;
      runTick();
    }, wait);
  };
  const tickWhenSettled = (changedAt: number): void => {
    settleDue = Math.max(settleDue, changedAt + SETTLE_MS + 1);
    if (settleTimer === undefined) armSettle(Math.max(0, settleDue - now()));
  };
  signal.addEventListener('abort', () => clearTimeout(settleTimer), { once: true });

  // ------------------------------------------------------------------------------------------ auto-run

  const undecided = (record: MessageRecord): boolean =>
    record.origin === 'live' && record.markdown !== null && record.handledMarkdown !== record.markdown;

  const tick = async (): Promise<void> => {
    checkConversation();
    updateOrigins();
    const isGenerating = generatingSignal();
    // Scans are spaced out while text streams. Before a reply can be decided (the site no longer says it is still
    // generating it), what the page changed since the last scan is read, so no reply is decided on older text.
    const streaming = (record: MessageRecord): boolean => lastMessageEl === record.el && isGenerating() === true;
    for (const record of active) {
      if (undecided(record) && !streaming(record)) {
        observer.flushNow();
        break;
      }
    }
    const latest = lastMessageEl ? records.get(lastMessageEl) : undefined;
    for (const record of Array.from(active)) {
      if (!undecided(record)) continue;
      if (!record.blocks.some((b) => b.block.complete)) continue;
      const finished = isReplyFinished({ generating: isGenerating(), isLatest: record === latest, lastChangeAt: record.lastChangeAt, now: now() });
      if (!finished) continue;
      record.handledMarkdown = record.markdown;
      active.delete(record);
      // Named marks (cheap, always on) let `npm run bench` split the time from last token to result in the box.
      performance.mark('chatbridge:reply-finished');
      await autoRunReply(record);
    }
  };

  const autoRunReply = async (record: MessageRecord): Promise<void> => {
    // Two tabs of one conversation see the same reply: the ledger check and the ledger write happen under one lock
    // shared by the site's tabs, so exactly one of them claims each block. The page can see that lock too; if it
    // holds it back, the claim goes ahead unlocked rather than never.
    const locks = globalThis.navigator?.locks;
    const runnable = locks
      ? await locks
          .request('chatbridge:ledger', { signal: AbortSignal.timeout(LEDGER_LOCK_WAIT_MS) }, () => claimRunnable(record))
          .catch((error: unknown) => {
            if (error instanceof DOMException && (error.name === 'AbortError' || error.name === 'TimeoutError')) return claimRunnable(record);
            throw error;
          })
      : await claimRunnable(record);
    performance.mark('chatbridge:run-claimed');
    // Not awaited: a result waiting for the person's draft must not hold up the next reply's checks.
    if (runnable.length > 0) void runReply(record, runnable, false).catch((error: unknown) => reportOnce('running a reply failed', error));
  };

  /** The reply's blocks that auto-run now, written to the ledger before anything is sent. */
  const claimRunnable = async (record: MessageRecord): Promise<TrackedBlock[]> => {
    const settings = deps.settings();
    const conv = conversationKey();
    const runnable: TrackedBlock[] = [];
    const ran = await ledger.ranKeys(conv);
    for (const tracked of record.blocks) {
      if (tracked.state !== 'ready') continue;
      const signature = callSignature(tracked.block);
      const decision = decideAutoRun({
        siteEnabled: settings.enabled,
        autoRun: settings.autoRun,
        role: record.role,
        origin: record.origin,
        complete: tracked.block.complete,
        unreadable: tracked.unreadable,
        replyFinished: true,
        inLedger: ran.has(tracked.key),
        loopGuard: loopGuard.check(conv, signature),
      });
      if (decision.run) {
        runnable.push(tracked);
        loopGuard.record(conv, signature);
      } else if (decision.reason === 'loop-guard' || decision.reason === 'already-ran') {
        tracked.note = decision.detail ?? (decision.reason === 'already-ran' ? 'already ran before' : undefined);
        if (decision.reason === 'already-ran') tracked.ranBefore = true;
        render(record, tracked);
      }
    }
    if (runnable.length === 0) return runnable;
    // Written before anything is sent: a reload or crash mid-run must never run these again.
    await ledger.add(conv, runnable.map((b) => b.key));
    return runnable;
  };

  // ------------------------------------------------------------------------------------------ running

  const runReply = async (record: MessageRecord, blocks: TrackedBlock[], rerun: boolean): Promise<void> => {
    const conv = conversationKey();
    const units = groupRuns(blocks.map((b) => ({ index: b.index, kind: b.block.kind, raw: b.block.raw })));
    setState(record, blocks, 'queued');
    const results: string[] = [];
    const startedIn = epoch;
    for (const unit of units) {
      const unitBlocks = unit.indexes.map((i) => record.blocks[i]).filter((b): b is TrackedBlock => !!b);
      const text = await runUnit(record, unit, unitBlocks, rerun, conv);
      if (text !== null) results.push(text);
    }
    const combined = combineResults(results);
    if (combined && startedIn === epoch) await deliver(record, blocks, combined);
    // Blocks still waiting for a decision deliver their real result later (runUnit); the rest are settled.
    if (startedIn === epoch) await settleDelivered(conv, blocks.filter((b) => b.state !== 'approval'));
  };

  /** The result of these blocks is in the chat: a reload no longer owes it, and this tab no longer owns the run. */
  const settleDelivered = async (conv: string, blocks: TrackedBlock[]): Promise<void> => {
    for (const b of blocks) if (b.runId) releaseRun(b.runId);
    if (blocks.length > 0) await ledger.delivered(conv, blocks.map((b) => b.key)).catch((error: unknown) => reportOnce('updating the run ledger failed', error));
  };

  // Web Locks are shared by every tab of the site's origin and let go when a tab goes away: the tab that started a
  // run holds its lock until the result is in the chat, so a reloaded or newly opened tab delivers a run's result
  // only when no live tab will.
  const ownedRuns = new Map<string, () => void>();
  const runLockName = (runId: string): string => `chatbridge:run:${runId}`;
  const ownRun = (runId: string): void => {
    const locks = globalThis.navigator?.locks;
    if (!locks || ownedRuns.has(runId)) return;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    ownedRuns.set(runId, release);
    void locks.request(runLockName(runId), () => held).catch(() => undefined);
  };
  const releaseRun = (runId: string): void => {
    ownedRuns.get(runId)?.();
    ownedRuns.delete(runId);
  };
  signal.addEventListener(
    'abort',
    () => {
      for (const release of ownedRuns.values()) release();
      ownedRuns.clear();
    },
    { once: true },
  );

  /**
   * After a reload (or in a new tab): runs this conversation started whose results never reached the chat are
   * followed to the end and delivered — the same run, looked up by its id, never a new one.
   */
  const resumeUndelivered = async (): Promise<void> => {
    const conv = conversationKey();
    const pending = await ledger.pendingRuns(conv);
    const byRun = new Map<string, { record: MessageRecord; blocks: TrackedBlock[] }>();
    for (const record of records.values()) {
      for (const tracked of record.blocks) {
        const runId = pending[tracked.key];
        if (!runId) continue;
        const entry = byRun.get(runId) ?? { record, blocks: [] };
        entry.blocks.push(tracked);
        byRun.set(runId, entry);
      }
    }
    for (const [runId, { record, blocks }] of byRun) {
      const follow = async (): Promise<void> => {
        if (signal.aborted) return;
        let run: RunResponse;
        try {
          run = await bridge.ask('get-run', { runId });
        } catch (error) {
          // The companion no longer knows the run (its records were cleared): nothing is owed any more.
          reportOnce('following a run after a reload failed', error);
          await ledger.delivered(conv, blocks.map((b) => b.key));
          return;
        }
        for (const b of blocks) b.runId = runId;
        setState(record, blocks, 'running');
        if (run.status === 'pending') await showApproval(record, blocks, run.pendingConfirmationId);
        const final = run.status === 'done' || run.status === 'error' ? run : await waitForRun(runId, LONG_RUN_MS);
        if (!final || signal.aborted) return;
        await deliver(record, blocks, finish(record, blocks, final));
        await ledger.delivered(conv, blocks.map((b) => b.key));
      };
      const locks = globalThis.navigator?.locks;
      if (!locks) void follow().catch((error: unknown) => reportOnce('following a run after a reload failed', error));
      else {
        void locks
          .request(runLockName(runId), { ifAvailable: true }, async (lock) => {
            if (lock) await follow(); // null: a live tab owns the run and delivers it
          })
          .catch((error: unknown) => reportOnce('following a run after a reload failed', error));
      }
    }
  };

  const runUnit = async (record: MessageRecord, unit: RunUnit, blocks: TrackedBlock[], rerun: boolean, conv: string): Promise<string | null> => {
    const settings = deps.settings();
    setState(record, blocks, 'running');
    let messageKey = messageKeyOf(record);
    if (rerun) {
      const first = blocks[0];
      if (first) first.reruns += 1;
      // The companion answers a repeated (message, text) with the earlier run; a re-run is a new request.
      messageKey = `${messageKey}#rerun-${first?.reruns ?? 1}-${now()}`;
    }
    let response: RunResponse;
    try {
      response = await bridge.ask('run', {
        run: {
          kind: unit.kind,
          text: unit.text,
          context: { site: site.id, url: deps.location.href, conversationId: conversationKey(), messageKey },
          waitMs: deps.runAnswerWaitMs ?? 1_000,
        },
      });
    } catch (error) {
      setState(record, blocks, 'failed', error instanceof Error ? error.message : String(error));
      return null;
    }
    performance.mark('chatbridge:run-answered');
    for (const b of blocks) b.runId = response.runId;
    ownRun(response.runId);
    // Until its result is in the chat, a reload of this tab owes it (resumeUndelivered).
    // Not awaited (the ledger orders its own writes): the result must not wait for storage.
    void ledger.startedRun(conv, blocks.map((b) => b.key), response.runId).catch((error: unknown) => reportOnce('updating the run ledger failed', error));
    if (response.status === 'done' || response.status === 'error') return finish(record, blocks, response);

    // auto_coder gets runtime feedback on the site's interval while its programs run — also once an approval
    // that held it is given; the loop only speaks when programs of this run have run past the interval.
    const stopFeedback = unit.kind === 'autocoder' ? startRuntimeFeedback(record, blocks, response.runId) : () => undefined;

    if (response.status === 'pending') {
      await showApproval(record, blocks, response.pendingConfirmationId);
      const final = await waitForRun(response.runId, settings.approvalWaitMs);
      if (final) {
        stopFeedback();
        return finish(record, blocks, final);
      }
      // Nobody decided in time: the pending answer goes to the chat now, the real result when decided.
      for (const b of blocks) b.note = t('note.pending');
      setState(record, blocks, 'approval', t('note.pending'));
      void waitForRun(response.runId, LONG_RUN_MS).then((late) => {
        stopFeedback();
        if (!late || signal.aborted) return;
        const text = finish(record, blocks, late);
        if (text) void deliver(record, blocks, text).then(() => settleDelivered(conv, blocks));
      });
      return response.resultText;
    }

    // running: a long program; the final result comes as a ws event (or from polling the run).
    const final = await waitForRun(response.runId, LONG_RUN_MS);
    stopFeedback();
    if (!final) {
      setState(record, blocks, 'failed', 'no result from the companion');
      return null;
    }
    return finish(record, blocks, final);
  };

  const finish = (record: MessageRecord, blocks: TrackedBlock[], run: RunResponse): string => {
    for (const b of blocks) {
      b.preview = run.resultText;
      b.approval = undefined;
      b.ranBefore = true;
    }
    setState(record, blocks, run.status === 'error' ? 'failed' : 'done');
    return run.resultText;
  };

  const showApproval = async (record: MessageRecord, blocks: TrackedBlock[], approvalId: string | undefined): Promise<void> => {
    let approval: Approval | undefined;
    try {
      approval = (await bridge.ask('approvals', {})).find((a) => a.id === approvalId);
    } catch (error) {
      reportOnce('reading approvals failed', error);
    }
    const view = approval ? toChipApproval(approval) : undefined;
    for (const b of blocks) b.approval = view;
    setState(record, blocks, 'approval');
  };

  const waitForRun = (runId: string, timeoutMs: number): Promise<RunResponse | null> =>
    new Promise((resolve) => {
      let done = false;
      const settle = (run: RunResponse | null): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        const list = runWaiters.get(runId)?.filter((w) => w !== onRun) ?? [];
        if (list.length) runWaiters.set(runId, list);
        else runWaiters.delete(runId);
        resolve(run);
      };
      const onRun = (run: RunResponse): void => {
        if (run.status === 'done' || run.status === 'error') settle(run);
      };
      runWaiters.set(runId, [...(runWaiters.get(runId) ?? []), onRun]);
      const timer = setTimeout(() => settle(null), timeoutMs);
      // Events can be missed while the socket reconnects; polling the run covers that.
      const poll = setInterval(() => {
        bridge.ask('get-run', { runId }).then(onRun, () => undefined);
      }, RUN_POLL_MS);
      signal.addEventListener('abort', () => settle(null), { once: true });
    });

  const startRuntimeFeedback = (record: MessageRecord, blocks: TrackedBlock[], runId: string): (() => void) => {
    let count = 0;
    const timer = setInterval(() => {
      void (async () => {
        const interval = deps.settings().feedbackIntervalMs;
        const programs = (await bridge.ask('programs', {})).filter(
          (p) => p.origin.runId === runId && p.status === 'running' && now() - Date.parse(p.startedAt) >= interval,
        );
        if (programs.length === 0) return;
        const report: Record<string, { name: string; runtime: number; stdout: string; stderr: string }> = {};
        for (const program of programs) {
          const fresh = outputs.take(program.id);
          const runtime = Math.round((now() - Date.parse(program.startedAt)) / 100) / 10;
          report[program.name] = { name: program.name, runtime, stdout: fresh?.stdout ?? '', stderr: fresh?.stderr ?? '' };
        }
        count += 1;
        const text = formatRuntimeFeedback({ type: 'program_runtime_feedback', request_id: `fb-${runId}-${count}`, programs: report });
        await deliver(record, blocks, text);
      })().catch((error: unknown) => reportOnce('runtime feedback failed', error));
    }, deps.settings().feedbackIntervalMs);
    return () => clearInterval(timer);
  };

  const onChipAction = async (record: MessageRecord, tracked: TrackedBlock, action: ChipAction): Promise<void> => {
    if (action === 'run' || action === 'rerun') {
      if (!tracked.block.complete || tracked.state === 'unreadable') return;
      // Clicking Run on one Axon statement runs the reply's whole plan: the statements only make sense together.
      const blocks =
        tracked.block.kind === 'axon'
          ? record.blocks.filter((b) => b.block.kind === 'axon' && b.block.complete && b.state !== 'unreadable')
          : [tracked];
      await ledger.add(conversationKey(), blocks.map((b) => b.key));
      await runReply(record, blocks, action === 'rerun' || tracked.ranBefore);
      return;
    }
    if (action === 'stop') {
      if (tracked.approval) await decide(record, tracked, 'deny');
      const runId = tracked.runId;
      if (!runId) return;
      try {
        const programs = (await bridge.ask('programs', {})).filter((p) => p.origin.runId === runId && p.status === 'running');
        for (const p of programs) await bridge.ask('stop-program', { id: p.id });
      } catch (error) {
        tracked.note = error instanceof Error ? error.message : String(error);
        render(record, tracked);
      }
      return;
    }
    await decide(record, tracked, action);
  };

  const decide = async (record: MessageRecord, tracked: TrackedBlock, decision: 'approve' | 'approve-conversation' | 'deny'): Promise<void> => {
    const approval = tracked.approval;
    if (!approval) return;
    try {
      await bridge.ask('decide', { id: approval.id, decision, argsHash: approval.argsHash });
      const group = record.blocks.filter((b) => b.approval?.id === approval.id);
      for (const b of group) b.approval = undefined;
      setState(record, group, 'running');
    } catch (error) {
      tracked.note = error instanceof Error ? error.message : String(error);
      render(record, tracked);
    }
  };

  // ------------------------------------------------------------------------------------------ delivering results

  const deliver = (record: MessageRecord, blocks: TrackedBlock[], text: string): Promise<void> => {
    const startedIn = epoch;
    const next = deliveries.then(() => (startedIn === epoch ? deliverNow(record, blocks, text) : undefined));
    deliveries = next.catch((error: unknown) => reportOnce('putting a result into the chat failed', error));
    return next;
  };

  const deliverNow = async (record: MessageRecord, blocks: TrackedBlock[], text: string): Promise<void> => {
    const note = (message: string): void => {
      for (const b of blocks) {
        b.note = message;
        render(record, b);
      }
    };
    const editor = await waitFor(() => site.editor(doc), { timeoutMs: 5_000, signal });
    if (!editor) {
      note('no chat box found on this page');
      return;
    }
    let append = false;
    // Never overwrite the person's draft: wait for the box to be empty (or ours), or append when told to.
    for (;;) {
      if (signal.aborted) return;
      const current = editorText(editor).trim();
      if (current === '' || (lastInserted !== null && current === lastInserted.trim())) break;
      if (deps.settings().draftPolicy === 'append') {
        append = true;
        break;
      }
      note(t('note.draft'));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const ours = !isEditorEmpty(editor) && !append;
    const inserted = await insertIntoEditor(editor, text);
    performance.mark('chatbridge:result-inserted');
    if (!inserted.ok) {
      setState(record, blocks, 'failed', inserted.reason);
      return;
    }
    lastInserted = ours && lastInserted ? `${lastInserted}\n\n${text}` : text;
    if (!deps.settings().autoSubmit || append) {
      note(t('note.inserted'));
      return;
    }
    // Wait for any reply still streaming before sending (the send control is the stop button meanwhile).
    await waitFor(() => site.isGenerating(doc) !== true, { timeoutMs: 120_000, signal });
    const sent = await submitEditor(site, doc, editor, { signal });
    if (sent.ok) {
      lastInserted = null;
      note(t('note.submitted'));
    } else note(sent.reason);
  };

  // ------------------------------------------------------------------------------------------ wiring

  const onPush = (push: PagePush): void => {
    if (push.type === 'connection') {
      indicator.update(push.connection.state, push.connection.detail);
      return;
    }
    onEvent(push.event);
  };

  const onEvent = (event: WsEvent): void => {
    if (event.type === 'run') {
      for (const waiter of runWaiters.get(event.run.runId) ?? []) waiter(event.run);
    } else if (event.type === 'program-output') {
      outputs.add(event);
    } else if (event.type === 'approval' && event.change === 'created') {
      for (const record of records.values()) {
        const blocks = record.blocks.filter((b) => b.runId === event.approval.runId && b.state === 'running');
        if (blocks.length === 0) continue;
        const view = toChipApproval(event.approval);
        for (const b of blocks) b.approval = view;
        setState(record, blocks, 'approval');
      }
    }
  };

  const unsubscribe = bridge.onPush(onPush);

  // Only a person's typing in the chat box resets the loop guard; our own inserts are not trusted events.
  doc.addEventListener(
    'keydown',
    (event) => {
      if (!event.isTrusted) return;
      const editor = site.editor(doc);
      if (editor && event.target instanceof Node && editor.contains(event.target)) loopGuard.personTyped(conversationKey());
    },
    { capture: true, signal },
  );

  // Everything on the page now is history. The named marks let `npm run bench` read the first scan's own time
  // (performance.getEntriesByName('chatbridge:first-scan') — the page and the content script share the timeline).
  performance.mark('chatbridge:first-scan:start');
  for (const [position, { el, role }] of site.messages(doc).entries()) {
    const record = track(el, 'history', false, position, role);
    if (record) {
      lastMessageEl = el;
      scan(record);
    }
  }
  performance.measure('chatbridge:first-scan', 'chatbridge:first-scan:start');
  void resumeUndelivered().catch((error: unknown) => reportOnce('following runs after a reload failed', error));

  // A reply streams a token every 10–50 ms; rescanning the changed message at most every SCAN_EVERY_MS (first change
  // at once, the rest batched) keeps the per-token cost a fraction of one message's scan. It costs no latency: before
  // a reply is decided, the tick reads whatever is still pending.
  let lastFlushAt = Number.NEGATIVE_INFINITY;
  const scheduleScan = (flush: () => void): void => {
    const wait = Math.max(0, lastFlushAt + SCAN_EVERY_MS - performance.now());
    setTimeout(() => {
      lastFlushAt = performance.now();
      flush();
    }, wait);
  };
  const observer = observeMessages({ root: doc.body, site, onChanges, signal, schedule: scheduleScan, now });
  const runTick = (): void => {
    pendingWork = pendingWork.then(tick).catch((error: unknown) => reportOnce('auto-run check failed', error));
  };
  const ticker = setInterval(runTick, TICK_MS);
  const urlPoll = setInterval(checkConversation, URL_POLL_MS);

  signal.addEventListener(
    'abort',
    () => {
      clearInterval(ticker);
      clearInterval(urlPoll);
      unsubscribe();
      indicator.host.remove();
      for (const record of records.values()) for (const tracked of record.blocks) tracked.chip?.remove();
      records.clear();
    },
    { once: true },
  );

  return {
    records: () => Array.from(records.values()),
    conversationId: () => conversation,
    async flush() {
      observer.flushNow();
      runTick();
      await pendingWork;
    },
  };
}

function toChipApproval(approval: Approval): ChipApproval & { id: string; argsHash: string } {
  return {
    id: approval.id,
    argsHash: approval.argsHash,
    tool: approval.tool,
    title: approval.preview.title,
    paths: approval.preview.paths,
    diff: approval.preview.diff,
    command: approval.preview.command,
    cwd: approval.preview.cwd,
  };
}
