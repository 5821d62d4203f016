import { moveBlockKey } from '../../shared/protocols';
import { problemFor } from '../doctor/report';
import { isEditorEmpty } from '../inject/insert';
import { pageWriting } from '../inject/submit';
import type { PagePush } from '../messaging';
import { isReplyFinished, SETTLE_MS, type BlockState } from '../scanner/blocks';
import { observeMessages } from '../scanner/observe';
import { runInSlices, yieldToPage } from '../scanner/slices';
import { createIndicator } from '../ui/indicator';
import { watchPageTheme } from '../ui/page-theme';
import { isPositionKey, type SiteMessage } from '../sites/define-site';
import { createPageContext, type MessageRecord, type PageController, type PageDeps, type StopMark } from './page-context';
import { holdStopped, isUndecided, keepDecided, replyEnding, settleEscapes, stoppedReplyText } from './page-decide';
import { createDeliverer } from './page-deliver';
import { createDispatcher } from './page-dispatch';
import { createPageDoctor } from './page-doctor';
import { createScanner, generatingSignal, SWITCH_GRACE_MS } from './page-scan';
import { createShow } from './page-show';
import { latestWaitingBlock } from './run-latest';
import { watchStops } from './page-stop';

export type { MessageRecord, PageBridge, PageController, PageDeps, StopMark, TrackedBlock } from './page-context';

/**
 * One chat page: scans messages as they change (page-scan.ts), decides what runs (page-decide.ts), runs blocks
 * through the background (page-dispatch.ts), puts the results into the chat (page-deliver.ts) and shows a chip
 * under each block (page-show.ts). `startPage(signal, deps)` wires them to the page's events and timers; aborting
 * the signal removes every listener, timer, observer and chip.
 */

/**
 * The fallback check for finished replies (the site's own signal and the settle timer decide them sooner); every
 * tick reads the address and the site's signal, which a streamed token should not pay for often.
 */
const TICK_MS = 200;
const URL_POLL_MS = 500;
const SCAN_EVERY_MS = 250;
/**
 * How often, at most, the site's writing signal is read to see the newest reply from before the page at rest: a signal
 * that stays on (Gemini's stop icon can) would otherwise be a walk of the page on every tick.
 */
const IDLE_CHECK_MS = 1_000;
/**
 * The first scan's slice budget. The longest slice may pass it by one message's scan (a fraction of a millisecond;
 * a few for a reply of many blocks, more while the machine is busy): 2 keeps it inside the 8 ms a frame can spare
 * (issue 13).
 */
const FIRST_SCAN_SLICE_MS = 2;
/** A block in one of these states owes the chat a result that has not come yet. */
const OWED_STATES: ReadonlySet<BlockState> = new Set<BlockState>(['queued', 'running', 'approval']);

export function startPage(signal: AbortSignal, deps: PageDeps): PageController {
  const ctx = createPageContext(signal, deps);
  const { site, doc, bridge, records, active, now } = ctx;
  let pendingWork: Promise<unknown> = Promise.resolve();

  // Worded now: a page cut off from its extension reaches the browser's i18n no more (cutOff), nor can its chips draw.
  const cutOffNote = ctx.t('note.extensionReloaded');

  const indicator = createIndicator(doc);
  doc.body.appendChild(indicator.host);
  indicator.update('connecting');

  // The chips follow the page's light or dark theme as the person switches it.
  ctx.theme = watchPageTheme(signal, doc, (theme) => {
    ctx.theme = theme;
    for (const record of records.values()) for (const tracked of record.blocks) tracked.chip?.host.setAttribute('data-chatbridge-theme', theme);
  });

  const show = createShow(ctx, (record, tracked, action) => void dispatcher.onChipAction(record, tracked, action));
  const doctor = createPageDoctor(ctx);
  const deliverer = createDeliverer(ctx, show, doctor);
  const dispatcher = createDispatcher(ctx, show, deliverer);
  const scanner = createScanner(ctx, show, {
    liveChanged: (changedAt) => tickWhenSettled(changedAt),
    switched: () => deliverer.leftConversation(),
    writingSignal: (works) => doctor.setProblem('no-writing-signal', works ? null : problemFor('no-writing-signal')),
    chatNamed: (standIn) => {
      // The blocks' keys name the conversation: what ran in the chat before it had its id, and the runs that still owe
      // it a result, are the id's now — for this page and, in the ledger, for a reload under the id.
      const named = ctx.conversationKey();
      const rekey = (key: string): string => moveBlockKey(key, site.id, standIn, named);
      for (const record of records.values()) for (const tracked of record.blocks) tracked.key = rekey(tracked.key);
      const held = [...ctx.heldByStop].map(rekey);
      ctx.heldByStop.clear();
      for (const key of held) ctx.heldByStop.add(key);
      void ctx.ledger.named(standIn, named, rekey).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
      // The Stops pressed in the chat before it had its id, kept to this tab until then, are told under it now: a
      // reload recalls them (recallStop), and another tab that opens the chat knows them. A reply already decided
      // stopped is told with what it said, where its key is a position: a reload knows it by that alone.
      for (const [key, stop] of ctx.stops) {
        if (stop.by !== 'control' || stop.at < ctx.switchedAt) continue;
        const decided = ctx.decided.get(key);
        ctx.shareStop(key, stop.at, decided?.ending === 'stopped' ? stoppedReplyText(key, decided.markdown) : undefined);
      }
    },
  });

  // The person's MCP servers' tool names, so a block calling one is not taken for an unknown tool: read when the
  // page starts, when the companion connects, and when a server's state changes (its tools may have).
  const readExternalTools = (): void => {
    bridge.ask('tools', {}).then(
      (tools) => {
        ctx.externalTools = new Set(tools.flatMap((tool) => (tool.server === undefined ? [] : [tool.name])));
      },
      () => undefined, // not connected yet: read again when it is
    );
  };
  readExternalTools();

  const onPush = (push: PagePush): void => {
    if (push.type === 'connection') {
      indicator.update(push.connection.state, push.connection.detail);
      if (push.connection.state === 'connected') readExternalTools();
      dispatcher.onConnection(push.connection);
      return;
    }
    if (push.event.type === 'mcp-server') readExternalTools();
    dispatcher.onEvent(push.event);
  };
  const unsubscribe = bridge.onPush(onPush);

  // Only a person's typing in the chat box resets the loop guard; our own inserts are not trusted events. Enter there
  // (no Shift) is the person sending, as is a press of the send control while it is no Stop (page-stop.ts) — but not
  // while the page writes a reply: a site sends nothing then (Claude drops the Enter until its turn stops streaming), and
  // taken for a send it undid a Stop pressed before the reply's row was drawn, whose reply then ran and was sent.
  doc.addEventListener(
    'keydown',
    (event) => {
      if (!event.isTrusted) return;
      const editor = site.editor(doc);
      if (!editor || !(event.target instanceof Node) || !editor.contains(event.target)) return;
      ctx.loopGuard.personTyped(ctx.conversationKey());
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !isEditorEmpty(editor) && !pageWriting(site, doc)) ctx.lastSendAt = now();
    },
    { capture: true, signal },
  );

  // Replies the person stopped before this page (or before the conversation was opened), by the site's own message ids,
  // or where a key is a position (which may name another message now) by what the reply said: still stopped here
  // (page-scan.ts recallStop).
  const recallStops = async (): Promise<void> => {
    if (ctx.conversation === null) return;
    const epoch = ctx.epoch;
    const stops = await ctx.ledger.stops(ctx.conversationKey());
    if (epoch !== ctx.epoch || signal.aborted) return;
    for (const stop of stops) {
      // A reply continued after its Stop was written on since: no longer a stopped one.
      if (stop.continuedAt !== undefined) continue;
      if (!isPositionKey(stop.key)) {
        if (!ctx.stops.has(stop.key)) ctx.stops.set(stop.key, { at: stop.at, by: 'control' });
      } else if (stop.text !== undefined && !ctx.stoppedTexts.has(stop.text)) ctx.stoppedTexts.set(stop.text, { at: stop.at, by: 'control' });
    }
    for (const record of records.values()) if (scanner.recallStop(record)) for (const tracked of record.blocks) show.render(record, tracked);
  };
  // The person stopped the reply being generated (the newest message, while it is not decided yet): it never auto-runs
  // nor auto-submits (page-decide.ts replyEnding). A click counts as the person's Stop at once (ctx.personStops); so
  // does an Escape whose reply cannot tell whether it stopped it (page-context.ts escapes).
  const markStopped = (by: StopMark['by']): void => {
    // What the page drew before the Stop is read first: scans are spaced out while the page changes (scheduleScan), so
    // the person's message just sent, or the reply's row, may still wait for theirs — the Stop then went to the reply
    // before them, decided long ago, and the reply drawn next ran and was sent.
    if (firstScanDone) observer.flushNow();
    if (by === 'control') ctx.personStops += 1;
    const latest = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
    const follows = latest && (latest.candidate || latest.origin === 'live') && !(latest.markdown !== null && latest.handledMarkdown === latest.markdown);
    if (!latest || !follows) {
      // A reply this page does not follow (being written since before a reload, or when the conversation was opened)
      // is live in a tab that saw it arrive: a click on the stop control is told there all the same, and so is an
      // Escape, which that tab judges by when the reply ended there.
      if (by === 'escape') ctx.personStops += 1;
      // A reply this page saw arrive and decided while it was still being written (its text sat still for a moment) is
      // the one stopped: written on after the Stop (what the model wrote before the Stop reached it), it is decided
      // again, stopped. In a chat without an id yet there is no ledger to tell this tab so (stoppedElsewhere), and the
      // blocks drawn after the Stop ran by themselves.
      if (latest?.role === 'assistant' && latest.origin === 'live' && latest.stop?.by !== 'control') latest.stop = { at: now(), by };
      // A reply from before this page (or the conversation was opened) that the site is still writing, stopped here by a
      // click: nothing of it runs by itself (it is history), and it is stopped — Run types its result in without sending
      // it, and once the site no longer writes it its chips say so (the tick). Taken for an ordinary reply from earlier,
      // its result was sent.
      else if (by === 'control' && latest?.role === 'assistant' && latest.origin === 'history' && !latest.candidate && !latest.stop) {
        latest.stop = { at: now(), by };
      }
      ctx.shareStop(latest ? ctx.messageKeyOf(latest) : '', now(), undefined, by === 'escape');
      return;
    }
    if (latest.stop?.by === 'control') return;
    latest.stop = { at: now(), by };
    // No reply drawn yet (the newest message is the person's): the Stop is for the reply the page draws next.
    if (latest.role !== 'assistant') ctx.stopBeforeReply = latest.stop;
    if (by === 'escape') {
      if (latest.role === 'assistant') ctx.escapes.push({ stop: latest.stop, record: latest, stopped: null });
      else ctx.personStops += 1;
    }
    const key = ctx.messageKeyOf(latest);
    ctx.stops.set(key, latest.stop);
    // Told to the conversation's other tabs at once: a click on the stop control stops the reply for good; an Escape
    // is judged there by when the reply ended, and forgotten here once the reply went on after it (told again as a
    // Stop once the reply is decided stopped). Told only once the reply was decided here, it came too late for a tab
    // that decided the reply first.
    if (by === 'escape' && latest.role === 'assistant') ctx.escapesTold.add(latest.stop.at);
    ctx.shareStop(key, latest.stop.at, undefined, by === 'escape');
  };
  watchStops(signal, {
    site,
    doc,
    onStop: markStopped,
    onSend: () => {
      ctx.lastSendAt = now();
    },
  });

  // Everything on the page now is history. It is scanned in slices of at most FIRST_SCAN_SLICE_MS of main thread with
  // the page's turn between them (a 1000-message conversation is a few dozen milliseconds of work: one long task
  // would freeze the page while it opens). The observer starts first, so nothing the page changes meanwhile is lost;
  // its batches wait until the first scan is done (a message changed before its turn is simply read as it is then,
  // and read again by the batch). Named measures let `npm run bench` read each slice and the whole
  // (performance.getEntriesByName — the page and the content script share the timeline).
  let firstScanDone = false;
  let lastFlushAt = Number.NEGATIVE_INFINITY;
  const scheduleScan = (flush: () => void): void => {
    // A reply streams a token every 10–50 ms; rescanning the changed message at most every SCAN_EVERY_MS (first
    // change at once, the rest batched) keeps the per-token cost a fraction of one message's scan. It costs no
    // latency: before a reply is decided, the tick reads whatever is still pending.
    const later = (): void => {
      const wait = Math.max(0, lastFlushAt + SCAN_EVERY_MS - performance.now());
      setTimeout(() => {
        lastFlushAt = performance.now();
        flush();
      }, wait);
    };
    if (firstScanDone) later();
    else void firstScan.then(later);
  };
  // The site's own "finished" signal: its generating control changes outside the messages. Checked only then, and
  // only while a live reply waits to be decided. The decision follows in a microtask, before the page's next render
  // (on a long conversation that render alone is tens of milliseconds), and the tick reads the reply from the page
  // again then, so a framework that commits the last token in a later microtask of the same task is still read;
  // anything drawn later decides the reply again (see isReplyFinished).
  let signalCheck = false;
  const onOutside = (): void => {
    if (signalCheck || !firstScanDone) return;
    let waiting = false;
    for (const record of active) if ((waiting = record.seenGenerating && isUndecided(record))) break;
    if (!waiting || site.isGenerating(doc) !== false) return;
    signalCheck = true;
    queueMicrotask(() => {
      signalCheck = false;
      runTick();
    });
  };
  // The live reply being written (the newest message, not decided yet): the observer's cheap path.
  const streamingMessage = (): Element | null => {
    const latest = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
    return latest && isUndecided(latest) ? latest.el : null;
  };
  const observer = observeMessages({
    root: doc.body,
    site,
    onChanges: scanner.onChanges,
    signal,
    schedule: scheduleScan,
    now,
    onOutside,
    streaming: streamingMessage,
  });

  const scanStart = performance.now();
  // A message with blocks is two steps: its scan, then its chips (the first chip made on a page is the costliest
  // step of the whole scan), each in whichever slice it falls.
  type FirstScanStep = { message: SiteMessage; position: number } | { chipsOf: MessageRecord };
  const steps: FirstScanStep[] = site.messages(doc).map((message, position) => ({ message, position }));
  // The blocks' keys name the conversation: a new chat's are read once the page knows the chat's name.
  const scanSlices = () =>
    runInSlices(
      steps,
      (step, index) => {
        if ('chipsOf' in step) {
          if (records.get(step.chipsOf.el) === step.chipsOf) scanner.placeChips(step.chipsOf);
          return;
        }
        const { message: { el, role }, position } = step;
        // The page may have taken a message out since the list was read (its removal reaches the observer's batch).
        if (!el.isConnected || records.has(el)) return;
        const record = scanner.track(el, 'history', false, position, role);
        if (!record) return;
        ctx.lastMessageEl = el;
        try {
          scanner.scan(record, now(), false);
        } catch (error) {
          ctx.reportOnce(`scanning a ${site.id} message failed`, error);
        }
        if (record.blocks.length > 0) steps.splice(index + 1, 0, { chipsOf: record });
      },
      {
        budgetMs: deps.firstScanSliceMs ?? FIRST_SCAN_SLICE_MS,
        clock: () => performance.now(),
        yieldToPage: deps.yieldToPage ?? yieldToPage,
        signal,
        onSlice: (start, end) => performance.measure('chatbridge:first-scan:slice', { start, end }),
      },
    );
  const firstScan = (ctx.newChatNamed ? ctx.newChatNamed.then(scanSlices) : scanSlices()).then(
    () => {
      firstScanDone = true;
      performance.measure('chatbridge:first-scan', { start: scanStart, end: performance.now() });
      if (signal.aborted) return;
      void recallStops().catch((error: unknown) => ctx.reportOnce('reading the run ledger failed', error));
      // The conversation's newest reply says at once whether this page draws code as the module knows it: a redesign
      // is named when the conversation opens, not at the next reply.
      const newest = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
      if (newest) doctor.replyShown(newest);
      void dispatcher.resumeUndelivered().catch((error: unknown) => ctx.reportOnce('following runs after a reload failed', error));
    },
    (error: unknown) => {
      firstScanDone = true;
      ctx.reportOnce('scanning the page failed', error);
    },
  );
  // Nothing is decided before the page's history is known.
  pendingWork = firstScan;

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

  /** When the tick last read the writing signal for the newest reply from before the page (IDLE_CHECK_MS). */
  let idleCheckedAt = Number.NEGATIVE_INFINITY;
  /** The conversation (epoch) whose owed runs were last followed: the first scan's, then each one switched to. */
  let resumedEpoch = ctx.epoch;
  /** Replies without blocks the doctor already looked at, by the markdown it saw (a later change is looked at again). */
  const doctorSeen = new WeakMap<MessageRecord, string | null>();
  /** Decides the live replies that finished: how each ended, then its runnable blocks auto-run. */
  const tick = async (): Promise<void> => {
    scanner.checkConversation();
    // Back in a conversation (or in another one) once the site rendered it in: runs it still owes a result — ended
    // while the person was elsewhere — are delivered now, as after a reload.
    if (resumedEpoch !== ctx.epoch && now() - ctx.switchedAt > SWITCH_GRACE_MS) {
      resumedEpoch = ctx.epoch;
      void recallStops().catch((error: unknown) => ctx.reportOnce('reading the run ledger failed', error));
      void dispatcher.resumeUndelivered().catch((error: unknown) => ctx.reportOnce('following runs after a conversation switch failed', error));
    }
    scanner.updateOrigins();
    // Results kept for a branch the page showed no longer, once it shows it again.
    dispatcher.deliverKept();
    const isGenerating = generatingSignal(site, doc);
    // Scans are spaced out while text streams. Before a reply can be decided (the site no longer says it is still
    // generating it), what the page changed since the last scan is read, so no reply is decided on older text.
    const streaming = (record: MessageRecord): boolean => ctx.lastMessageEl === record.el && isGenerating() === true;
    for (const record of active) {
      if (isUndecided(record) && !streaming(record)) {
        observer.flushNow();
        break;
      }
    }
    const latest = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
    // The newest reply, from before this page, that the person stopped here while the site wrote it (markStopped), once
    // the site no longer writes it: stopped, as its chips say.
    if (latest?.origin === 'history' && latest.stop?.by === 'control' && latest.ending === 'normal' && !latest.candidate && isGenerating() !== true) {
      if (scanner.recallStop(latest)) for (const tracked of latest.blocks) show.render(latest, tracked);
    }
    // The newest reply, from before this page, at rest: as it is now, to tell the site writing it afresh in its own
    // message (page-scan.ts rewrittenInPlace). The signal is read only while that is not known yet, and not every tick.
    if (
      latest?.origin === 'history' &&
      latest.role === 'assistant' &&
      latest.text !== null &&
      (latest.idle === null || latest.idle.text !== latest.text || latest.idle.epoch !== ctx.epoch || latest.idle.stops !== ctx.personStops) &&
      now() - ctx.switchedAt > SWITCH_GRACE_MS &&
      now() - idleCheckedAt >= IDLE_CHECK_MS
    ) {
      idleCheckedAt = now();
      if (isGenerating() === false) {
        latest.idle = { text: latest.text, markdown: latest.markdown ?? '', key: ctx.messageKeyOf(latest), ending: latest.ending, epoch: ctx.epoch, stops: ctx.personStops };
      }
    }
    for (const record of Array.from(active)) {
      if (!isUndecided(record)) continue;
      if (record.blocks.length === 0 && doctorSeen.get(record) === record.markdown) continue;
      const finished = isReplyFinished({
        generating: isGenerating(),
        isLatest: record === latest,
        seenGenerating: record.seenGenerating,
        lastChangeAt: record.lastChangeAt,
        now: now(),
      });
      if (!finished) continue;
      ctx.replyEndedAt = now();
      // Read once more from the page as it is now: a site may draw its last token just after its signal.
      scanner.scan(record);
      if (record.blocks.length === 0) {
        // Nothing to run; the doctor still looks at its code (pre elements this site's module does not recognize).
        doctorSeen.set(record, record.markdown);
        doctor.replyFinished(record);
        continue;
      }
      // Until now its blocks were only outlined: read them in full, once, from the text just read.
      scanner.readInFull(record);
      doctor.replyFinished(record);
      record.handledMarkdown = record.markdown;
      active.delete(record);
      // Named marks (cheap, always on) let `npm run bench` split the time from last token to result in the box.
      performance.mark('chatbridge:reply-finished');
      const end = replyEnding({ stop: record.stop, lastChangeAt: record.lastChangeAt, markdown: record.markdown ?? '', blocks: record.blocks.map((b) => b.block) });
      record.ending = end.ending;
      // The Escapes pressed on it that it went on after closed a menu: told as pressed, they are no Stop after all.
      const judged = ctx.escapes.filter((escape) => escape.record === record && escape.stopped === null);
      settleEscapes(ctx.escapes, record);
      for (const escape of judged) {
        if (escape.stopped !== false) continue;
        if (ctx.conversation !== null) {
          void ctx.ledger.forgetEscape(ctx.conversationKey(), ctx.messageKeyOf(record), escape.stop.at).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
        }
      }
      keepDecided(ctx.decided, ctx.messageKeyOf(record), record.markdown ?? '', end.ending);
      // Decided stopped: the same reply mounted again later is stopped whatever its new element's timing says.
      if (end.ending === 'stopped') {
        const at = record.stop?.at ?? now();
        ctx.stops.set(ctx.messageKeyOf(record), { at, by: 'control' });
        holdStopped(ctx.heldByStop, record);
        // Told under the reply's own key also after a click: a Stop pressed before the reply's row was drawn was told
        // under the person's message, which a reload does not recall for the reply (the ledger keeps a Stop once). Where
        // the key is a position, with what the reply said: a reload recalls it by that.
        ctx.shareStop(ctx.messageKeyOf(record), at, stoppedReplyText(ctx.messageKeyOf(record), record.markdown));
      }
      if (end.ending !== 'normal') {
        for (const tracked of record.blocks) {
          tracked.cut = tracked.block === end.cut && tracked.block.complete;
          show.render(record, tracked);
        }
      }
      await dispatcher.autoRunReply(record);
    }
  };
  const runTick = (): void => {
    pendingWork = pendingWork.then(tick).catch((error: unknown) => ctx.reportOnce('auto-run check failed', error));
  };
  const ticker = setInterval(runTick, TICK_MS);
  const urlPoll = setInterval(scanner.checkConversation, URL_POLL_MS);

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
    conversationId: () => ctx.conversation,
    doctor: () => doctor.state(),
    async flush() {
      await firstScan;
      observer.flushNow();
      runTick();
      await pendingWork;
    },
    cutOff() {
      for (const record of records.values()) {
        for (const tracked of record.blocks) {
          if (!tracked.chip?.host.isConnected || !OWED_STATES.has(tracked.state)) continue;
          tracked.chip.host.after(cutOffNotice(doc, cutOffNote));
        }
      }
    },
    async runLatest() {
      observer.flushNow();
      const waiting = latestWaitingBlock(records.values());
      if (!waiting) return { ok: false, error: `no block is waiting for Run on this ${site.name} page` };
      const { record, tracked } = waiting;
      tracked.chip?.host.scrollIntoView({ block: 'nearest' });
      void dispatcher.onChipAction(record, tracked, 'run').catch((error: unknown) => ctx.reportOnce('running the latest block failed', error));
      return { ok: true, kind: tracked.block.kind, key: tracked.key };
    },
  };
}

/**
 * What stays under a block whose result the chat is still owed when the page is cut off from its extension (cutOff):
 * words only, no button (nothing could answer it), left in the page after the page stopped. A chip cannot be drawn
 * then: it words itself through the browser's i18n, which a cut-off script reaches no more.
 */
function cutOffNotice(doc: Document, note: string): HTMLElement {
  const host = doc.createElement('div');
  host.setAttribute('data-chatbridge-cut-off', '');
  host.setAttribute('data-chatbridge-note', note);
  host.setAttribute('role', 'status');
  const root = host.attachShadow({ mode: 'closed' });
  const words = doc.createElement('div');
  words.style.cssText = 'font:12px/1.4 system-ui,sans-serif;margin:4px 0;padding:4px 8px;border-radius:6px;color:#fff;background:#9a6700;width:fit-content;max-width:72ch';
  words.textContent = note;
  root.append(words);
  return host;
}
