import { grantsConversationWide } from '../../shared/conversation-key';
import { hashText } from '../../shared/protocols/key';
import { formatRuntimeFeedback } from '../../shared/results';
import type { Approval, RunRequest, RunResponse, WsEvent } from '../companion/api-types';
import { BackgroundRefusal, type ConnectionInfo } from '../messaging';
import { combineResults, groupRuns, type PendingRun, type ReplyEnding, type RunUnit, type SharedStop } from '../scanner/blocks';
import { isPositionKey } from '../sites/define-site';
import type { ChipAction, ChipApproval } from '../ui/chip';
import type { MessageKey } from '../ui/i18n';
import { connectionTip } from '../ui/indicator';
import { approvalTitle, approvalWarning } from '../ui/preview-words';
import type { MessageRecord, PageContext, StopsMark, TrackedBlock } from './page-context';
import { claimBlocks, holdStopped, keepDecided, shownBlock, stoppedElsewhere, stoppedReplyText } from './page-decide';
import type { Deliverer } from './page-deliver';
import type { Show } from './page-show';
import { ProgramOutputBuffer } from './program-output';

/**
 * Running blocks through the background: claiming a finished reply's blocks in the ledger, posting them to the
 * companion, following pending and long runs (approvals, ws events, polling), runtime feedback for auto_coder
 * programs, chip clicks, and after a reload the runs whose results never reached the chat.
 */

export interface Dispatcher {
  /** Claims the finished reply's runnable blocks (one tab of a conversation wins) and runs them. */
  autoRunReply(record: MessageRecord): Promise<void>;
  onChipAction(record: MessageRecord, tracked: TrackedBlock, action: ChipAction): Promise<void>;
  onEvent(event: WsEvent): void;
  /** The background's connection to the companion changed (connected once paired again: owed runs are asked for again). */
  onConnection(connection: ConnectionInfo): void;
  /** Runs this conversation started whose results never reached the chat: followed to the end and delivered. */
  resumeUndelivered(): Promise<void>;
  /** Results kept for blocks the page no longer showed (another branch in their place): delivered once it shows them again. */
  deliverKept(): void;
}

/**
 * What comes of a reply's run after its message: results it does not hold yet go in after it (`after`), each block
 * owing one (`owed`); like the message, they count the person's Stops from when the run began (`stopsBefore`, in every tab) — a
 * result decided after the approval wait, runtime feedback: after a Stop they are typed in, never sent — and never
 * cross into another conversation the person went to since (`epoch`): a late result stays owed to its own.
 */
interface LaterResults {
  /** the reply's blocks run by themselves (claimed as it finished), not by a click on Run */
  auto: boolean;
  epoch: number;
  stopsBefore: StopsMark;
  after: Promise<void>;
  owed: Set<TrackedBlock>;
}

/**
 * A result kept for blocks the page no longer showed when it came (the person edited their message or had the reply
 * written again, and another branch is shown in its place): the ledger still owes it; it is delivered once the page
 * shows those blocks again (the branch switched back to), in this conversation (`epoch`).
 */
interface KeptResult {
  epoch: number;
  conv: string;
  keys: string[];
  text: string;
  stopsBefore: StopsMark;
  ending: ReplyEnding;
}

/** A run the chat is owed a result of: the blocks it ran (their keys as the ledger keeps them), how their reply ended, when it began. */
interface OwedRun {
  record: MessageRecord;
  blocks: TrackedBlock[];
  keys: string[];
  ending: ReplyEnding;
  startedAt: number | undefined;
}

const RUN_POLL_MS = 3_000;
/**
 * How long a page whose browser is not paired (or whose token the companion refuses) waits before asking about an owed
 * run again, unless the background says it is connected sooner (it does once paired again).
 */
const UNPAIRED_POLL_MS = 60_000;
const LONG_RUN_MS = 6 * 60 * 60_000;
const LEDGER_LOCK_WAIT_MS = 3_000;
/** How often, and how many times, a tab looks in the ledger for the run another tab started for a block. */
const RUN_ID_POLL_MS = 250;
const RUN_ID_TRIES = 20;

export function createDispatcher(ctx: PageContext, show: Show, deliverer: Deliverer): Dispatcher {
  const { site, deps, bridge, ledger, signal, now, t, loopGuard } = ctx;
  const { setState, render } = show;
  const { deliver } = deliverer;
  const outputs = new ProgramOutputBuffer();
  const runWaiters = new Map<string, Array<(run: RunResponse) => void>>();
  /** blocks whose POST /v1/run has not answered yet, with the request (Stop finds the run by it) */
  const unanswered = new WeakMap<TrackedBlock, RunRequest>();
  /** Runs this page started (another tab's runs are shown in a chip; these are not another tab's). */
  const startedHere = new Set<string>();
  /**
   * Blocks the person pressed Stop on in a reply's run: while they waited for their turn (state 'queued'), ran, or
   * waited for approval. The blocks after them in the run are not started by themselves.
   */
  const stoppedOnChip = new WeakSet<TrackedBlock>();

  const autoRunReply = async (record: MessageRecord): Promise<void> => {
    if (!record.blocks.some((b) => b.state === 'ready')) return;
    // The person's Stops count from the reply's decision: the claim may wait for another tab's hold on the ledger.
    const stopsBefore = ctx.stopsMark();
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
    if (runnable.length > 0) void runReply(record, runnable, false, stopsBefore).catch((error: unknown) => ctx.reportOnce('running a reply failed', error));
  };

  /** The reply's blocks that auto-run now, written to the ledger before anything is sent. */
  const claimRunnable = async (record: MessageRecord): Promise<TrackedBlock[]> => {
    const settings = deps.settings();
    const conv = ctx.conversationKey();
    // one read of storage between a reply finishing and its blocks being sent
    const { ran, stops } = await ledger.claimView(conv);
    // The person stopped this very reply in another tab of the conversation: here it is stopped too.
    const stop = record.ending === 'normal' ? stoppedElsewhere(stops, ctx.messageKeyOf(record), record) : undefined;
    if (stop) {
      markStoppedElsewhere(record, stop);
      return [];
    }
    const outcome = claimBlocks({ settings, record, ran, held: ctx.heldByStop, guard: loopGuard, conversation: conv });
    for (const refused of outcome.refused) {
      refused.tracked.note = refused.note;
      refused.tracked.ranBefore = refused.ranBefore;
      render(record, refused.tracked);
      // Another tab of the conversation claimed it as this reply finished: its run is shown here as it goes.
      if (refused.reason === 'already-ran') void showRunElsewhere(record, refused.tracked).catch((error: unknown) => ctx.reportOnce('following a run of another tab failed', error));
    }
    if (outcome.run.length === 0) return outcome.run;
    // Written before anything is sent: a reload or crash mid-run must never run these again.
    await ledger.add(conv, outcome.run.map((b) => b.key));
    return outcome.run;
  };

  /**
   * A block of this live reply that another tab of the conversation claimed: its chip follows that tab's run (its
   * approval card, Stop, result) and this tab puts nothing into the chat — that tab does. The other tab writes the
   * run's id once the companion answered it, so it is looked for a few times.
   */
  const showRunElsewhere = async (record: MessageRecord, tracked: TrackedBlock): Promise<void> => {
    // A chat without an id yet is this tab's only: no other tab runs its blocks.
    if (ctx.conversation === null) return;
    const conv = ctx.conversationKey();
    const startedIn = ctx.epoch;
    let runId: string | undefined;
    for (let tries = 0; !runId && tries < RUN_ID_TRIES; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, RUN_ID_POLL_MS));
      if (signal.aborted || startedIn !== ctx.epoch || tracked.state !== 'ready') return;
      runId = await ledger.runOf(conv, tracked.key);
    }
    // This tab's own earlier run (a reply regenerated with the same block): it already ran, here.
    if (!runId || startedHere.has(runId)) return;
    // Owed to the chat until that tab delivers it: should it be closed first, this tab delivers it.
    const owed = (await ledger.pendingRuns(conv))[tracked.key];
    if (owed?.runId === runId) {
      followOwed(conv, startedIn, runId, { record, blocks: [tracked], keys: [tracked.key], ending: owed.ending, startedAt: owed.startedAt }, true);
    }
    const run = await bridge.ask('get-run', { runId });
    if (signal.aborted || startedIn !== ctx.epoch || tracked.state !== 'ready' || followedHere.has(runId)) return;
    tracked.runId = runId;
    setState(record, [tracked], 'running', t('note.ranElsewhere'));
    if (run.status === 'pending') await showApproval(record, [tracked], run.pendingConfirmationId);
    const final = run.status === 'done' || run.status === 'error' ? run : await waitForRun(runId, LONG_RUN_MS);
    if (signal.aborted || followedHere.has(runId)) return;
    if (!final) return void (lostRuns.has(runId) && showLost(record, [tracked]));
    finish(record, [tracked], final);
    show.note(record, [tracked], t('note.ranElsewhere'));
  };

  const markStoppedElsewhere = (record: MessageRecord, stop: SharedStop): void => {
    const key = ctx.messageKeyOf(record);
    record.stop = { at: now(), by: 'control' };
    // Told under the person's message (the other tab had not drawn the reply's row yet): told under the reply's own
    // id too, which a reload recalls (page.ts recallStops); where the key is a position, with what the reply said.
    const text = stoppedReplyText(key, record.markdown);
    if ((stop.key !== key && !isPositionKey(key)) || (text !== undefined && stop.text !== text)) ctx.shareStop(key, stop.at, text);
    record.ending = 'stopped';
    ctx.stops.set(key, record.stop);
    keepDecided(ctx.decided, key, record.markdown ?? '', 'stopped');
    holdStopped(ctx.heldByStop, record);
    for (const tracked of record.blocks) render(record, tracked);
  };

  /**
   * `auto`: the person's Stops as of the reply's decision, when the blocks auto-run (claimed when the reply finished);
   * undefined for a Run click.
   */
  const runReply = async (record: MessageRecord, blocks: TrackedBlock[], rerun: boolean, auto?: StopsMark): Promise<void> => {
    const conv = ctx.conversationKey();
    const units = groupRuns(blocks.map((b) => ({ index: b.index, kind: b.block.kind, raw: b.block.raw })));
    const stopsBefore = auto ?? ctx.stopsMark();
    // A result kept on the chip from an earlier run is not this run's.
    for (const b of blocks) b.offered = undefined;
    setState(record, blocks, 'queued');
    const results: string[] = [];
    const notStarted = new Set<TrackedBlock>();
    const startedIn = ctx.epoch;
    // A block whose approval wait ran out answers "pending" in this reply's message and owes its real result: that
    // goes in after this message, however soon it is decided — never before the pending answer it replaces.
    let replyDelivered!: () => void;
    const reply: LaterResults = { auto: auto !== undefined, epoch: startedIn, stopsBefore, after: new Promise<void>((resolve) => (replyDelivered = resolve)), owed: new Set() };
    try {
      for (const [n, unit] of units.entries()) {
        const unitBlocks = unit.indexes.map((i) => record.blocks[i]).filter((b): b is TrackedBlock => !!b);
        // The person pressed Stop (here or in another tab) while an earlier block of the reply ran: the blocks whose
        // turn had not come are not started by themselves — their chips offer Run. The first starts right after the
        // claim, which read the other tabs' Stops, unless the person pressed Stop here since the reply was decided. So
        // are a block whose own chip's Stop was pressed while it waited and those after it, and those after a block whose
        // chip's Stop was pressed while it ran or waited for approval.
        const stoppedBefore = auto !== undefined && (n > 0 ? await ctx.stoppedSince(stopsBefore) : ctx.stoppedHereSince(stopsBefore));
        // The page stopped (chatbridge switched off on the site, the tab going away) while an earlier block ran: nothing
        // more is posted. Auto-run turned off for the site meanwhile: the blocks whose turn had not come do not run by
        // themselves — their chips say auto-run is off and offer Run. Read per block, not once at the claim: a reply's
        // run can take minutes (an approval, a long program), and the person may turn it off to stop just that.
        const settings = deps.settings();
        if (signal.aborted || (auto !== undefined && (!settings.enabled || !settings.autoRun))) {
          if (!signal.aborted) setState(record, unitBlocks, 'ready');
          for (const b of unitBlocks) notStarted.add(b);
          continue;
        }
        if (blocks.some((b) => stoppedOnChip.has(b) && b.index <= Math.max(...unit.indexes)) || stoppedBefore) {
          setState(record, unitBlocks, 'ready', t('note.notStartedAfterStop'));
          for (const b of unitBlocks) notStarted.add(b);
          continue;
        }
        const text = await runUnit(record, unit, unitBlocks, rerun, conv, reply);
        // A block cut off when its reply ended ran by hand as it stands: the chip shows the companion's answer, the
        // chat gets nothing (the model never finished writing it).
        if (text !== null && unitBlocks.some((b) => b.cut)) {
          for (const b of unitBlocks) {
            b.note = t('note.cutNotDelivered');
            render(record, b);
          }
          continue;
        }
        if (text !== null) results.push(text);
      }
      // Claimed as the reply finished, they never ran: the ledger does not keep them as run (a reload offered Re-run).
      if (notStarted.size > 0) {
        void ledger.forget(conv, [...notStarted].map((b) => b.key)).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
      }
      const combined = combineResults(results);
      const delivering = blocks.filter((b) => !notStarted.has(b));
      const delivered = combined && startedIn === ctx.epoch ? await deliver(record, delivering, combined, stopsBefore) : true;
      // Neither the box nor the clipboard took it: kept on the chips (Insert, Copy) and owed still — this tab holds the run
      // until the person takes it, and a reload follows it again.
      // Blocks that still owe their real result deliver it later (runUnit); the rest are settled — unless another
      // branch was shown in their place: the result is kept for them.
      // (A page stopped meanwhile — the site turned off — delivered nothing: the next page of the conversation owes it.)
      if (delivered === 'offered') return;
      if (!delivered) keep(conv, record, delivering, combined, stopsBefore);
      else if (startedIn === ctx.epoch && !signal.aborted) await settleDelivered(conv, blocks.filter((b) => !reply.owed.has(b)));
      // The person went to another conversation: the result is owed to this one, followed when it is open again (in
      // this tab or another), which this tab's hold on the run must not keep waiting.
      else if (startedIn !== ctx.epoch) letGo(blocks.filter((b) => !reply.owed.has(b)));
    } finally {
      replyDelivered();
    }
  };

  const kept: KeptResult[] = [];
  /**
   * A result whose blocks the page no longer shows: owed to them still (the ledger keeps the run), delivered here once
   * they are shown again (deliverKept); this tab lets go of the run, so another tab that shows them delivers it.
   */
  const keep = (conv: string, record: MessageRecord, blocks: TrackedBlock[], text: string, stopsBefore: StopsMark, keys = blocks.map((b) => b.key)): void => {
    kept.push({ epoch: ctx.epoch, conv, keys, text, stopsBefore, ending: record.ending });
    letGo(blocks);
  };

  const deliverKept = (): void => {
    for (const entry of [...kept]) {
      // Another conversation is shown: the ledger still owes the result, followed when that one is open again.
      if (entry.epoch !== ctx.epoch) {
        kept.splice(kept.indexOf(entry), 1);
        continue;
      }
      const found = entry.keys.map((key) => shownBlock(ctx.records.values(), key));
      if (found.some((f) => f === null)) continue;
      kept.splice(kept.indexOf(entry), 1);
      const record = found[0]!.record;
      const blocks = found.map((f) => f!.tracked);
      // Typed in, never sent: the person came back to look at this branch, which a send would go on with.
      if (record.ending === 'normal') record.ending = entry.ending;
      void deliver(record, blocks, entry.text, entry.stopsBefore, { send: false })
        .then((delivered) => (delivered === true ? ledger.delivered(entry.conv, entry.keys) : delivered === false ? void kept.push(entry) : undefined))
        .catch((error: unknown) => ctx.reportOnce('putting a result into the chat failed', error));
    }
  };

  /** The result of these blocks is in the chat: a reload no longer owes it, and this tab no longer owns the run. */
  const settleDelivered = async (conv: string, blocks: TrackedBlock[]): Promise<void> => {
    // The ledger first: another tab waiting for the run's lock reads it as soon as the lock is let go.
    if (blocks.length > 0) await ledger.delivered(conv, blocks.map((b) => b.key)).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
    letGo(blocks);
  };

  // Web Locks are shared by every tab of the site's origin and let go when a tab goes away: the tab that started a
  // run holds its lock until the result is in the chat, so a reloaded or newly opened tab delivers a run's result
  // only when no live tab will — and does when that tab is closed before the run ends.
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
  /**
   * A Web Lock held until the returned function is called or the page stops; resolves once it is granted (at once where
   * there are none).
   */
  const holdLock = (name: string): Promise<() => void> => {
    const locks = globalThis.navigator?.locks;
    if (!locks) return Promise.resolve(() => undefined);
    return new Promise((granted) => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      signal.addEventListener('abort', () => release(), { once: true });
      locks.request(name, { signal }, () => (granted(release), held)).catch(() => granted(() => undefined));
    });
  };
  const letGo = (blocks: TrackedBlock[]): void => {
    for (const b of blocks) if (b.runId) releaseRun(b.runId);
  };
  /** Runs this tab follows after a reload or a conversation switch (a second resume does not follow one twice). */
  const following = new Set<string>();
  signal.addEventListener(
    'abort',
    () => {
      for (const release of ownedRuns.values()) release();
      ownedRuns.clear();
    },
    { once: true },
  );

  const resumeUndelivered = async (): Promise<void> => {
    const conv = ctx.conversationKey();
    // Followed for as long as the run takes: a result that ends after the person went to another conversation stays
    // owed to its own (delivered when that one is open next), never typed into the other.
    const startedIn = ctx.epoch;
    const pending = await ledger.pendingRuns(conv);
    const byRun = new Map<string, OwedRun>();
    /** runs whose request the companion had not answered when the page that posted it went away, by that request */
    const byPost = new Map<string, OwedRun & { posted: RunRequest }>();
    const add = ({ runId, posted, ending, startedAt }: PendingRun, record: MessageRecord, tracked: TrackedBlock, key: string): void => {
      const entry = runId !== undefined ? (byRun.get(runId) ?? { record, blocks: [], keys: [], ending, startedAt }) : (byPost.get(postLockName(posted)) ?? { record, blocks: [], keys: [], ending, startedAt, posted });
      entry.blocks.push(tracked);
      entry.keys.push(key);
      if (runId !== undefined) byRun.set(runId, entry);
      else byPost.set(postLockName(posted), { ...entry, posted });
    };
    const unmatched = new Map(Object.entries(pending));
    for (const record of ctx.records.values()) {
      for (const tracked of record.blocks) {
        const run = pending[tracked.key];
        if (!run) continue;
        add(run, record, tracked, tracked.key);
        unmatched.delete(tracked.key);
      }
    }
    // A site without message ids keys a message by its position among the messages in the page; a virtual list that
    // mounts other rows after the reload shifts it. Such a block is found again by the rest of its key (site,
    // conversation, index in the message, text), the newest one on the page first.
    for (const [key, run] of unmatched) {
      const found = shownBlock(ctx.records.values(), key);
      if (found) add(run, found.record, found.tracked, key);
    }
    for (const [runId, owed] of byRun) followOwed(conv, startedIn, runId, owed);
    for (const owed of byPost.values()) followPosted(conv, startedIn, owed);
  };

  /**
   * A run the chat is owed whose request the companion had not answered when the page that posted it went away: once
   * no live tab waits for that answer (the request's lock), posted again — the companion answers a block it has with the
   * same run, and starts one whose first request never reached it — and then followed and delivered like any other.
   */
  const followPosted = (conv: string, startedIn: number, owed: OwedRun & { posted: RunRequest }): void => {
    const { record, blocks, keys, ending, startedAt, posted } = owed;
    const postAgain = async (): Promise<void> => {
      const pending = await ledger.pendingRuns(conv);
      const now = keys.map((key) => pending[key]);
      // The tab that posted it had its answer meanwhile: the run is followed by its id (that tab delivers it while it lives).
      const answered = now.find((run) => run?.runId !== undefined)?.runId;
      if (answered !== undefined) return followOwed(conv, startedIn, answered, { record, blocks, keys, ending, startedAt });
      if (!now.some((run) => run?.posted !== undefined) || signal.aborted || startedIn !== ctx.epoch) return;
      setState(record, blocks, 'running');
      const response = await askWhenReachable(() => bridge.ask('run', { run: posted, again: true }), record, blocks, refusesRunAgain);
      if (response === null) return;
      if ('refused' in response) {
        await ledger.delivered(conv, keys);
        setState(record, blocks, 'failed', response.refused.message);
        return;
      }
      // Its first request came second: another browser or profile paired with the companion had posted the block (the
      // background reads a run this browser started as its own), and that one types the result in.
      if (response.reused === true) {
        await ledger.delivered(conv, keys);
        for (const b of blocks) b.runId = response.runId;
        return showRunOfAnotherBrowser(record, blocks, response);
      }
      await ledger.startedRun(conv, keys, response.runId, ending, startedAt);
      followOwed(conv, startedIn, response.runId, { record, blocks, keys, ending, startedAt }, false, response);
    };
    const report = (error: unknown): void => {
      if (!signal.aborted) ctx.reportOnce('following a run after a reload failed', error);
    };
    const locks = globalThis.navigator?.locks;
    if (!locks) return void postAgain().catch(report);
    void locks.request(postLockName(posted), { signal }, postAgain).catch(report);
  };

  /** Runs this tab took over from the tab that started them (showRunElsewhere: its chip no longer says so). */
  const followedHere = new Set<string>();

  /**
   * Follows a run the chat is owed to its end and delivers it here — once the tab that owns it, if one does, lets go:
   * it does once the result is in the chat (and the ledger says so), or when it is closed first; then what the ledger
   * still owes is this tab's to deliver. `startedIn`: the conversation (epoch) it is owed to.
   */
  const followOwed = (conv: string, startedIn: number, runId: string, owed: OwedRun, ownerMayLive = false, answer?: RunResponse): void => {
    const { record, blocks, keys, ending, startedAt } = owed;
    const follow = async (): Promise<void> => {
      if (signal.aborted || following.has(runId)) return;
      following.add(runId);
      followedHere.add(runId);
      try {
        await followNow();
      } finally {
        following.delete(runId);
      }
    };
    const followNow = async (): Promise<void> => {
      // Stops since the run began count, also those before the reload (the ledger keeps them with their time).
      const stopsBefore = { ...ctx.stopsMark(), ...(startedAt !== undefined ? { at: startedAt } : {}) };
      for (const b of blocks) b.runId = runId;
      setState(record, blocks, 'running');
      const run = answer ?? (await askWhenReachable(() => bridge.ask('get-run', { runId }), record, blocks));
      if (run === null) return;
      if ('refused' in run) {
        // The companion no longer knows the run (its records were cleared), or it is not this page's to read: nothing
        // is owed any more, and the chip says the result is lost rather than offering Run as if it never ran.
        ctx.reportOnce('following a run after a reload failed', run.refused);
        await markLost(conv, record, blocks, keys);
        return;
      }
      if (run.status === 'pending') await showApproval(record, blocks, run.pendingConfirmationId);
      const final = run.status === 'done' || run.status === 'error' ? run : await waitForRun(runId, LONG_RUN_MS);
      if (signal.aborted) return;
      if (!final) return void (lostRuns.has(runId) && (await markLost(conv, record, blocks, keys)));
      const text = finish(record, blocks, final);
      if (startedIn !== ctx.epoch) return;
      // Run for a reply that was stopped or ended early (Run on its chip): typed in, not sent, as before the reload.
      if (record.ending === 'normal') record.ending = ending;
      const delivered = await deliver(record, blocks, text, stopsBefore);
      if (delivered === false) keep(conv, record, blocks, text, stopsBefore, keys);
      else if (delivered === true && startedIn === ctx.epoch) await ledger.delivered(conv, keys);
    };
    const locks = globalThis.navigator?.locks;
    // Without the lock there is no telling whether the tab that started the run still delivers it: followed at once
    // only where that tab is gone (a reload).
    if (!locks) {
      if (!ownerMayLive) void follow().catch((error: unknown) => ctx.reportOnce('following a run after a reload failed', error));
      return;
    }
    // Queued behind the tab that owns the run, if one does: it lets go once the result is in the chat (and the ledger
    // says so) or when it is closed first, and then this tab follows what is still owed.
    void locks
      .request(runLockName(runId), { signal }, async () => {
        const still = await ledger.pendingRuns(conv);
        if (keys.some((key) => still[key]?.runId === runId)) await follow();
      })
      .catch((error: unknown) => {
        if (!signal.aborted) ctx.reportOnce('following a run after a reload failed', error);
      });
  };

  /** Resolved when the background says it is connected again (a person paired again), each time it does. */
  let connected: { promise: Promise<void>; resolve: () => void } = newSignalPromise();
  const onConnection = (connection: ConnectionInfo): void => {
    if (connection.state === 'disconnected' || connection.state === 'unpaired') show.setAway(connectionTip(connection.state, connection.detail));
    if (connection.state !== 'connected') return;
    show.setAway(null);
    connected.resolve();
    connected = newSignalPromise();
    void catchUp();
  };

  /**
   * The companion reachable again: what it says now of every run a chip shows waiting or running, heard of at once
   * (heardRun), not at the next poll — an approval decided or expired meanwhile no longer waits on its chip, and a
   * run that ended meanwhile shows how. A run it no longer has is found by the poll (waitForRun: lostRuns).
   */
  const catchUp = async (): Promise<void> => {
    const runIds = new Set<string>();
    for (const record of ctx.records.values()) {
      for (const b of record.blocks) if (b.runId && (b.state === 'approval' || b.state === 'running')) runIds.add(b.runId);
    }
    for (const runId of runIds) {
      if (signal.aborted) return;
      const run = await bridge.ask('get-run', { runId }).catch(() => null);
      if (run) heardRun(run);
    }
  };

  /**
   * What the companion answers about an owed run (`ask`: reading it, or posting its block again), asked again every
   * RUN_POLL_MS for as long as the answer cannot be had (the companion stopped or restarting, the background between
   * two service workers): a result owed to the chat is not given up because nothing answered at the moment the page
   * looked. A browser that is not paired (or whose token the companion no longer takes) is told so on the chip, and asks
   * again once the background is connected (paired again) — or after UNPAIRED_POLL_MS. A refusal that asking again
   * does not change (`final`; reading: the companion has no such run, or it is not this page's) is returned as it is;
   * null once the page stopped.
   */
  const askWhenReachable = async (
    ask: () => Promise<RunResponse>,
    record: MessageRecord,
    blocks: TrackedBlock[],
    final: (refusal: BackgroundRefusal) => boolean = (refusal) => refusal.code === 'NOT_FOUND' || refusal.code === 'FORBIDDEN',
  ): Promise<RunResponse | { refused: BackgroundRefusal } | null> => {
    let told = false;
    for (;;) {
      let waitFor = RUN_POLL_MS;
      try {
        const answer = await ask();
        if (told) {
          for (const b of blocks) b.note = undefined;
          for (const b of blocks) render(record, b);
        }
        return answer;
      } catch (error) {
        if (error instanceof BackgroundRefusal && (error.code === 'NOT_PAIRED' || error.code === 'UNAUTHORIZED')) {
          told = true;
          show.note(record, blocks, t('note.owedUnpaired', [error.message]));
          waitFor = UNPAIRED_POLL_MS;
        } else if (error instanceof BackgroundRefusal && final(error)) return { refused: error };
        else ctx.reportOnce('following a run after a reload failed', error);
      }
      if (signal.aborted) return null;
      const paired = connected.promise;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitFor);
        const done = (): void => (clearTimeout(timer), resolve());
        if (waitFor === UNPAIRED_POLL_MS) void paired.then(done);
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) return null;
    }
  };

  const runUnit = async (
    record: MessageRecord,
    unit: RunUnit,
    blocks: TrackedBlock[],
    rerun: boolean,
    conv: string,
    reply: LaterResults,
  ): Promise<string | null> => {
    const settings = deps.settings();
    setState(record, blocks, 'running');
    let messageKey = ctx.runKeyOf(record);
    if (rerun) {
      const first = blocks[0];
      if (first) first.reruns += 1;
      // The companion answers a repeated (message, text) with the earlier run; a re-run is a new request.
      messageKey = `${messageKey}#rerun-${first?.reruns ?? 1}-${now()}`;
    }
    let response: RunResponse;
    const run: RunRequest = {
      kind: unit.kind,
      text: unit.text,
      context: { site: site.id, url: deps.location.href, conversationId: ctx.conversationKey(), messageKey },
      waitMs: deps.runAnswerWaitMs ?? 1_000,
    };
    // until the companion answers, Stop finds the run by this request (POST /v1/runs/stop)
    for (const b of blocks) unanswered.set(b, run);
    const keys = blocks.map((b) => b.key);
    // Owed to the chat from before it is posted: a page gone before the companion answers (a reload within the answer's
    // wait) has no run id to follow, and finds the run by posting this request again (resumeUndelivered). This tab
    // holds the request's lock until the run's id is in the ledger, so no other tab posts it again meanwhile.
    const letGoOfPost = await holdLock(postLockName(run));
    await ledger.postingRun(conv, keys, run, record.ending, reply.stopsBefore.at).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
    /** the first request went unanswered (the background stopped) and this answer is to the same request posted again */
    let answeredAgain = false;
    try {
      response = await bridge.ask('run', { run });
    } catch (error) {
      // The background stopped before it answered (its service worker was stopped mid-request; what the background or
      // the companion refuses is a BackgroundRefusal): the companion may have started the run all the same, so the
      // request is posted again once the background answers — the companion answers it with the run it has, or starts it.
      const again = !(error instanceof BackgroundRefusal) && !signal.aborted ? await askWhenReachable(() => bridge.ask('run', { run, again: true }), record, blocks, refusesRunAgain) : null;
      if (again === null || 'refused' in again) {
        // Refused: nothing is owed that a reload could post again — the chip says it failed.
        await ledger.delivered(conv, keys).catch((failed: unknown) => ctx.reportOnce('updating the run ledger failed', failed));
        letGoOfPost();
        const failure = again === null ? error : again.refused;
        setState(record, blocks, 'failed', failure instanceof Error ? failure.message : String(failure));
        return null;
      }
      response = again;
      answeredAgain = true;
    } finally {
      for (const b of blocks) unanswered.delete(b);
    }
    performance.mark('chatbridge:run-answered');
    for (const b of blocks) b.runId = response.runId;
    // The companion had this very block from another browser or profile paired with it, which the site streamed the
    // reply to as well (this profile's tabs share the ledger and never post a block twice): that one puts the result
    // into the chat. Here the chip follows the run, and nothing is typed in or owed — the chat would get it twice.
    // A request posted again because the background never gave the first answer hears `reused` only for that browser's
    // run: the companion tells the background whether this browser's token started it (callers.ts StartedRuns), and one
    // it did is this page's to deliver. A run whose starter the companion does not know (logged before it kept them)
    // may be either's: followed, its chip says so.
    if (reply.auto && response.reused === true && !startedHere.has(response.runId)) {
      await ledger.delivered(conv, keys).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
      letGoOfPost();
      const unknown = answeredAgain && response.startedByYou === undefined;
      await showRunOfAnotherBrowser(record, blocks, response, unknown ? ['note.unansweredRun', 'note.unansweredRunEnded'] : undefined);
      return null;
    }
    startedHere.add(response.runId);
    ownRun(response.runId);
    // Until its result is in the chat, a reload of this tab owes it (resumeUndelivered).
    // Not awaited (the ledger orders its own writes): the result must not wait for storage.
    // The request's lock is let go once the run's id is in the ledger, after this tab asked for the run's own lock.
    void ledger
      .startedRun(conv, keys, response.runId, record.ending, reply.stopsBefore.at)
      .catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error))
      .finally(letGoOfPost);
    if (response.status === 'done' || response.status === 'error') return finish(record, blocks, response);

    // auto_coder gets runtime feedback on the site's interval while its programs run — also once an approval
    // that held it is given; the loop only speaks when programs of this run have run past the interval.
    const stopFeedback = unit.kind === 'autocoder' ? startRuntimeFeedback(record, blocks, response.runId, reply) : () => undefined;

    if (response.status === 'pending') {
      await showApproval(record, blocks, response.pendingConfirmationId);
      const final = await waitForRun(response.runId, settings.approvalWaitMs);
      if (final) {
        stopFeedback();
        return finish(record, blocks, final);
      }
      if (lostRuns.has(response.runId)) {
        stopFeedback();
        showLost(record, blocks);
        return null;
      }
      // Nobody decided in time: the pending answer goes to the chat now, the real result when decided.
      for (const b of blocks) b.note = t('note.pending');
      for (const b of blocks) reply.owed.add(b);
      setState(record, blocks, 'approval', t('note.pending'));
      void waitForRun(response.runId, LONG_RUN_MS).then(async (late) => {
        stopFeedback();
        if (signal.aborted) return;
        if (!late) return void (lostRuns.has(response.runId) && markLost(conv, record, blocks));
        const text = finish(record, blocks, late);
        await reply.after;
        if (text && ctx.epoch === reply.epoch) {
          void deliver(record, blocks, text, reply.stopsBefore).then((delivered) =>
            delivered === true ? settleDelivered(conv, blocks) : delivered === false ? keep(conv, record, blocks, text, reply.stopsBefore) : undefined,
          );
        }
        else if (ctx.epoch !== reply.epoch) letGo(blocks);
      });
      return response.resultText;
    }

    // running: a long program; the final result comes as a ws event (or from polling the run).
    const final = await waitForRun(response.runId, LONG_RUN_MS);
    stopFeedback();
    if (!final) {
      if (lostRuns.has(response.runId)) showLost(record, blocks);
      else setState(record, blocks, 'failed', 'no result from the companion');
      return null;
    }
    return finish(record, blocks, final);
  };

  /**
   * A run another browser or profile paired with the companion started for these blocks: followed on the chip, typed
   * in there. Nothing here tells whether that browser is still open to do so (another browser's tabs share no lock or
   * ledger with this one): once the run ends the chip says where its result is, should that one have been closed first.
   */
  const showRunOfAnotherBrowser = async (
    record: MessageRecord,
    blocks: TrackedBlock[],
    response: RunResponse,
    [whileRunning, ended]: [MessageKey, MessageKey] = ['note.ranInAnotherBrowser', 'note.ranInAnotherBrowserEnded'],
  ): Promise<void> => {
    show.note(record, blocks, t(whileRunning));
    if (response.status === 'pending') await showApproval(record, blocks, response.pendingConfirmationId);
    const final = response.status === 'done' || response.status === 'error' ? response : await waitForRun(response.runId, LONG_RUN_MS);
    if (signal.aborted) return;
    if (final) {
      finish(record, blocks, final);
      show.note(record, blocks, t(ended));
    } else if (lostRuns.has(response.runId)) showLost(record, blocks);
  };

  /**
   * The companion no longer has the run, or will not show it to this page (it restarted while the run, a read it held
   * only in memory, went on; its records were cleared): the chip says its result cannot be had, rather than running on
   * for hours or offering Run as if it never ran.
   */
  const showLost = (record: MessageRecord, blocks: TrackedBlock[]): void => {
    for (const b of blocks) {
      b.ranBefore = true;
      b.approval = undefined;
      b.progress = undefined;
    }
    setState(record, blocks, 'failed', t('note.runUnknown'));
  };
  /** …and the chat is owed nothing of it any more. */
  const markLost = async (conv: string, record: MessageRecord, blocks: TrackedBlock[], keys = blocks.map((b) => b.key)): Promise<void> => {
    showLost(record, blocks);
    await ledger.delivered(conv, keys).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
    letGo(blocks);
  };

  const finish = (record: MessageRecord, blocks: TrackedBlock[], run: RunResponse): string => {
    for (const b of blocks) {
      b.progress = undefined;
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
      ctx.reportOnce('reading approvals failed', error);
    }
    const view = approval ? toChipApproval(approval) : undefined;
    for (const b of blocks) b.approval = view;
    setState(record, blocks, 'approval');
  };

  /**
   * What the companion says of a run now (its ws event, a poll, a read once it is reachable again). A run that ended
   * settles whoever waits for it. One that goes on while its chips show an approval, or that waits for an approval
   * other than the one they show (or none), is looked at again in the companion's list of waiting approvals
   * (followApproval): a poll's answer may be older than the approval event it crossed.
   */
  const heardRun = (run: RunResponse): void => {
    if (run.status === 'done' || run.status === 'error') {
      for (const waiter of runWaiters.get(run.runId) ?? []) waiter(run);
      return;
    }
    const shown = [...ctx.records.values()].flatMap((record) => record.blocks.filter((b) => b.runId === run.runId));
    const stale =
      run.status === 'running'
        ? shown.some((b) => b.state === 'approval')
        : shown.some((b) => (b.state === 'approval' || b.state === 'running') && b.approval?.id !== run.pendingConfirmationId);
    if (stale) void followApproval(run.runId).catch((error: unknown) => ctx.reportOnce('reading approvals failed', error));
  };

  /**
   * The chips of a run show the approval the companion has waiting for it, or none: one decided elsewhere (the side
   * panel, another browser) or while this page heard nothing runs on, its card gone; one the run waits for now (a
   * plan's next action, or one created while the page heard nothing) is shown.
   */
  const followApproval = async (runId: string): Promise<void> => {
    const waiting = (await bridge.ask('approvals', {})).find((a) => a.runId === runId);
    for (const record of ctx.records.values()) {
      const blocks = record.blocks.filter((b) => b.runId === runId && (b.state === 'approval' || b.state === 'running'));
      if (waiting) {
        if (blocks.every((b) => b.state === 'approval' && b.approval?.id === waiting.id)) continue;
        const view = toChipApproval(waiting);
        for (const b of blocks) b.approval = view;
        setState(record, blocks, 'approval');
        continue;
      }
      const decided = blocks.filter((b) => b.state === 'approval');
      if (decided.length === 0) continue;
      for (const b of decided) b.approval = undefined;
      setState(record, decided, 'running');
    }
  };

  /** Runs the companion answered, while they were waited for, that it no longer has (waitForRun then resolves null). */
  const lostRuns = new Set<string>();
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
      // The companion no longer having the run (or not for this page) is an answer too: it never ends now.
      const poll = setInterval(() => {
        bridge.ask('get-run', { runId }).then(heardRun, (error: unknown) => {
          if (!(error instanceof BackgroundRefusal && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))) return;
          lostRuns.add(runId);
          settle(null);
        });
      }, RUN_POLL_MS);
      signal.addEventListener('abort', () => settle(null), { once: true });
    });

  const startRuntimeFeedback = (record: MessageRecord, blocks: TrackedBlock[], runId: string, reply: LaterResults): (() => void) => {
    let count = 0;
    // The person pressing Stop since the run began (on the reply to a feedback, or any other; in this tab or another
    // of the conversation) ends the feedback: nothing is sent after a Stop. The programs go on; their final result is
    // typed in, not sent. So does going to another conversation: its chat box is not this run's.
    const timer = setInterval(() => {
      void (async () => {
        if (ctx.epoch !== reply.epoch || (await ctx.stoppedSince(reply.stopsBefore))) {
          clearInterval(timer);
          return;
        }
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
        await deliver(record, blocks, text, reply.stopsBefore);
      })().catch((error: unknown) => ctx.reportOnce('runtime feedback failed', error));
    }, deps.settings().feedbackIntervalMs);
    return () => clearInterval(timer);
  };

  const onChipAction = async (record: MessageRecord, tracked: TrackedBlock, action: ChipAction): Promise<void> => {
    if (action === 'insert' || action === 'copy') {
      const taken = await deliverer.takeOffered(record, tracked, action);
      if (taken) await settleDelivered(ctx.conversationKey(), taken);
      return;
    }
    if (action === 'run' || action === 'rerun') {
      if (!tracked.block.complete || tracked.state === 'unreadable') return;
      // Clicking Run on one Axon statement runs the reply's whole plan: the statements only make sense together.
      const blocks =
        tracked.block.kind === 'axon'
          ? record.blocks.filter((b) => b.block.kind === 'axon' && b.block.complete && b.state !== 'unreadable')
          : [tracked];
      // A Stop pressed on it while it waited in an earlier run is not this run's.
      for (const b of blocks) stoppedOnChip.delete(b);
      await ledger.add(ctx.conversationKey(), blocks.map((b) => b.key));
      await runReply(record, blocks, action === 'rerun' || tracked.ranBefore);
      return;
    }
    if (action === 'stop') {
      // Not started yet, it is not started when the block before it in the reply's run ends; started, the blocks after
      // it are not (the Stop of a block is no go-ahead for the rest of its reply). Marked before the deny below: the
      // run ends as soon as it is denied.
      if (tracked.state === 'queued' || tracked.state === 'running' || tracked.state === 'approval') stoppedOnChip.add(tracked);
      if (tracked.approval) await decide(record, tracked, 'deny');
      const runId = tracked.runId;
      const pendingRun = unanswered.get(tracked);
      if (tracked.state === 'queued' && !pendingRun) return;
      try {
        if (!runId) {
          // the companion has not answered POST /v1/run yet: stop the run of this very request
          if (pendingRun) await bridge.ask('stop-run', { run: pendingRun }).catch(() => undefined);
          return;
        }
        // the run's signal: a call to the person's MCP server is cancelled on the server (answered CANCELLED);
        // NOT_FOUND when it already ended
        await bridge.ask('stop-run', { runId }).catch(() => undefined);
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

  const onEvent = (event: WsEvent): void => {
    if (event.type === 'run') {
      heardRun(event.run);
    } else if (event.type === 'program-output') {
      outputs.add(event);
    } else if (event.type === 'tool-progress') {
      for (const record of ctx.records.values()) {
        for (const b of record.blocks) {
          if (b.runId !== event.runId || b.state !== 'running') continue;
          b.progress = { progress: event.progress, total: event.total, message: event.message };
          render(record, b);
        }
      }
    } else if (event.type === 'approval' && event.change === 'created') {
      for (const record of ctx.records.values()) {
        const blocks = record.blocks.filter((b) => b.runId === event.approval.runId && b.state === 'running');
        if (blocks.length === 0) continue;
        const view = toChipApproval(event.approval);
        for (const b of blocks) b.approval = view;
        setState(record, blocks, 'approval');
      }
    }
  };

  return { autoRunReply, onChipAction, onEvent, onConnection, resumeUndelivered, deliverKept };
}

/**
 * The lock a tab holds from before it posts a run request until the run's id is in the ledger: named by the block the
 * request runs (as the companion keys it), the same in every tab whatever the block's key there.
 */
function postLockName(run: RunRequest): string {
  const { site, conversationId, messageKey } = run.context;
  return `chatbridge:post:${hashText(JSON.stringify([run.kind, site, conversationId, messageKey, run.text]))}`;
}

/** Posting a block again: only a companion not reachable now is asked again; what it or the background refuses is final. */
function refusesRunAgain(refusal: BackgroundRefusal): boolean {
  return refusal.code !== 'UNREACHABLE';
}

function newSignalPromise(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

function toChipApproval(approval: Approval): ChipApproval & { id: string; argsHash: string } {
  return {
    id: approval.id,
    argsHash: approval.argsHash,
    tool: approval.tool,
    warning: approvalWarning(approval.preview),
    title: approvalTitle(approval.preview),
    paths: approval.preview.paths,
    diff: approval.preview.diff,
    command: approval.preview.command,
    cwd: approval.preview.cwd,
    runs: approval.preview.runs,
    unpinned: approval.preview.unpinned,
    arguments: approval.preview.heading?.kind === 'mcp',
    actions: approval.preview.actions,
    conversationWide: grantsConversationWide(approval.conversationId),
  };
}
