import { blockKey, findBlocks, outlineBlocks, type Block, type InertReason } from '../../shared/protocols';
import { refusedOnlyForToolName } from '../../shared/protocols/tool-name-only';
import { initialState, isFinishPlan, type MessageOrigin } from '../scanner/blocks';
import type { PageChanges } from '../scanner/observe';
import { unplacedReasoningLabel } from '../scanner/reasoning';
import { locateBlock, mayHoldBlocks, serializeMessage, type SerializedMessage } from '../scanner/serialize';
import { isMessageElement, isPositionKey, type MessageRole, type Site } from '../sites/define-site';
import type { MessageKey } from '../ui/i18n';
import type { MessageRecord, PageContext, StopMark, TrackedBlock } from './page-context';
import { candidateVerdict, holdStopped, isUndecided, isUnrun, keepDecided, keepsBlock, STOP_BEFORE_ROW_MS, stoppedReplyText } from './page-decide';
import type { Show } from './page-show';

/**
 * Scanning: the page's messages become records, an assistant answer's markdown becomes tracked blocks (each with
 * its chip), and a message is told live or history — live when seen arriving while the site generates it, history
 * when it was on the page at load or rendered in right after a conversation switch (until the site writes it afresh
 * in its own message while the page watches: rewrittenInPlace).
 */

export const SWITCH_GRACE_MS = 1_500;
const NOTHING_SERIALIZED: SerializedMessage = { markdown: '', segments: [] };
/** Why the protocol leaves a block unrun (Block.inert), in the person's language. */
const INERT_REASONS: Record<InertReason, MessageKey> = {
  'later-plan': 'reason.laterPlan',
  'unlabelled-call': 'reason.unlabelledCall',
  'unlabelled-flycode-call': 'reason.unlabelledFlycodeCall',
};

export interface Scanner {
  track(el: Element, origin: MessageOrigin, candidate: boolean, position: number, role?: MessageRole | null): MessageRecord | null;
  /** `changedAt`: when the page changed the message (the observer's time; the scan may run a little later). */
  /**
   * `changedAt`: when the page changed the message (the observer's time; the scan may run a little later).
   * `chips: false` leaves putting the chips on the page to `placeChips` (the first scan does that as its own step).
   */
  scan(record: MessageRecord, changedAt?: number, chips?: boolean): void;
  /** Puts the record's blocks' chips after their blocks (again). */
  placeChips(record: MessageRecord): void;
  /** A reply being decided: its outlined blocks are read in full (parsed) from the markdown the last scan saw. */
  readInFull(record: MessageRecord): void;
  /**
   * A reply from before the page loaded (or the conversation was opened) that the person stopped, as the ledger keeps
   * it by the site's message id (in ctx.stops): stopped — its chips say so, and Run types a result in without sending
   * it. Whether it was marked now.
   */
  recallStop(record: MessageRecord): boolean;
  /** Candidates become live (or stop being watched) by the site's generating signal. */
  updateOrigins(): void;
  /** A route change to another conversation makes every record history; a new chat getting its id does not. */
  checkConversation(): void;
  /** The observer's batch: new messages tracked, changed ones scanned. */
  onChanges(changes: PageChanges): void;
}

/**
 * The site's "is generating" signal, read at most once per pass and only when a pass needs it: on a long page its
 * selector walks the whole document, which made every streamed token cost a walk of the page.
 */
export function generatingSignal(site: Site, doc: Document): () => boolean | undefined {
  let read = false;
  let value: boolean | undefined;
  return () => {
    if (!read) {
      value = site.isGenerating(doc);
      read = true;
    }
    return value;
  };
}

export interface ScannerHooks {
  liveChanged(changedAt: number): void;
  /**
   * Whether the site's "writing" signal works, as the replies after a send show it: false when the newest message
   * grew after a send, before any reply to it ended, while the site said nothing was being written, until it was no
   * longer watched — the module no longer finds the site's stop control, and nothing will auto-run (a reply drawn
   * after the send's reply ended came from no send of this tab: the conversation's other tab); true when a reply is
   * seen being written.
   */
  writingSignal(works: boolean): void;
  /**
   * A new chat got its id (the same conversation, not a switch; `standIn`: the name it had until then): what was kept
   * under that name moves to the id, and what was kept to this tab can be told.
   */
  chatNamed(standIn: string): void;
  /** The page shows another conversation than before (ctx.epoch moved on), or another new chat. */
  switched(): void;
}

export function createScanner(ctx: PageContext, show: Show, hooks: ScannerHooks): Scanner {
  const { site, doc, records, active, ledger, now } = ctx;

  const track: Scanner['track'] = (el, origin, candidate, position, role = site.roleOf(el)) => {
    if (!role) return null;
    const record: MessageRecord = {
      el,
      role,
      position,
      origin,
      candidate,
      seenGenerating: false,
      firstSeenAt: now(),
      turnSeenAt: now(),
      answers: null,
      lastChangeAt: now(),
      timesGrown: 0,
      text: null,
      markdown: null,
      serialized: null,
      outlined: false,
      unplacedReasoning: null,
      choicePending: false,
      candidates: new Set(),
      blocks: [],
      handledMarkdown: null,
      stop: null,
      continuedAt: null,
      ending: 'normal',
      idle: null,
      olderVersions: false,
    };
    records.set(el, record);
    shownAny = true;
    if (candidate && role === 'assistant') active.add(record);
    return record;
  };

  /**
   * Whether a message the page adds comes after every message it shows. Where the newest one's row is no longer in the
   * page (a virtual list the person scrolled up from the reply it streams unmounts it), after every message still shown:
   * the rows the list mounts above them are older turns, which taken for the newest became that reply, live, and their
   * blocks ran when it ended. With none shown (the list drawn anew) it is.
   */
  const atEnd = (el: Element): boolean => {
    const last = ctx.lastMessageEl;
    if (last?.isConnected) return (last.compareDocumentPosition(el) & 4) !== 0;
    for (const record of records.values()) {
      if (record.el !== el && record.el.isConnected && (record.el.compareDocumentPosition(el) & 4) === 0) return false;
    }
    return true;
  };

  // Whether a block ran before (its chip then offers Re-run): one ledger read for all the blocks a pass found.
  let ranChecks: Array<{ record: MessageRecord; tracked: TrackedBlock }> = [];
  const checkRanBefore = (record: MessageRecord, tracked: TrackedBlock): void => {
    if (ranChecks.length === 0) {
      const conv = ctx.conversationKey();
      queueMicrotask(() => {
        const batch = ranChecks;
        ranChecks = [];
        ledger
          .ranKeys(conv)
          .then(async (ran) => {
            for (const check of batch) {
              check.tracked.ranBefore = ran.has(check.tracked.key);
              show.render(check.record, check.tracked);
            }
            await showRuns(conv, batch.filter((check) => check.tracked.ranBefore));
          })
          .catch((error: unknown) => ctx.reportOnce('reading the run ledger failed', error));
      });
    }
    ranChecks.push({ record, tracked });
  };

  /**
   * Blocks the ledger says were claimed, as this page finds them (a reload, a row mounted again): one whose run the
   * ledger knows (RunLedger.runOf) and the companion still has shows that run as it ended, with its result; one claimed
   * with its reply whose turn never came before the page went away (no run, none owed) never ran, and offers Run — Re-run
   * said it had, and ran it anew where the companion would have answered a block it had run with that run. One the chat
   * is still owed is followed by resumeUndelivered.
   */
  const showRuns = async (conv: string, claimed: Array<{ record: MessageRecord; tracked: TrackedBlock }>): Promise<void> => {
    if (claimed.length === 0) return;
    const owed = await ledger.pendingRuns(conv);
    for (const { record, tracked } of claimed) {
      const key = tracked.key;
      if (owed[key] || ctx.signal.aborted) continue;
      const runId = await ledger.runOf(conv, key);
      if (tracked.key !== key || tracked.state !== 'ready') continue;
      if (runId === undefined) {
        tracked.ranBefore = false;
        show.render(record, tracked);
        continue;
      }
      const run = await ctx.bridge.ask('get-run', { runId }).catch(() => null);
      if (!run || (run.status !== 'done' && run.status !== 'error') || tracked.key !== key || tracked.state !== 'ready') continue;
      tracked.runId = runId;
      tracked.preview = run.resultText;
      show.setState(record, [tracked], run.status === 'error' ? 'failed' : 'done');
    }
  };

  /**
   * The first reply drawn after a Stop pressed before the reply's row was (ctx.stopBeforeReply): stopped — what the
   * model wrote before the Stop reached it — unless the person sent again since, or its row came too late to be that
   * reply. Only a reply takes it: the person's message the page draws again meanwhile (a new element for it: a virtual
   * list that mounts its rows anew) took it from the reply drawn after it, which then ran and was sent. A row that shows no
   * answer yet (DeepSeek tells a reply by its answer) takes it once it is known for a reply.
   */
  const takeStopBeforeReply = (record: MessageRecord): void => {
    const stopBefore = ctx.stopBeforeReply;
    if (!stopBefore || !record.candidate || record.role !== 'assistant') return;
    ctx.stopBeforeReply = null;
    if (!record.stop && ctx.lastSendAt <= stopBefore.at && record.firstSeenAt - stopBefore.at <= STOP_BEFORE_ROW_MS) record.stop = stopBefore;
  };

  const scannedBefore = new WeakSet<MessageRecord>();
  const scan: Scanner['scan'] = (record, changedAt = now(), chips = true) => {
    // A reply row can appear before its answer body does (DeepSeek tells roles apart by that body): ask again — once
    // it was scanned before (a record just tracked has its role from this very pass; asking again was a tenth of the
    // first scan on DeepSeek).
    if (record.role === 'user' && scannedBefore.has(record)) {
      record.role = site.roleOf(record.el) ?? 'user';
      takeStopBeforeReply(record);
    }
    scannedBefore.add(record);
    if (record.role !== 'assistant') return;
    if (record.candidate && record.origin !== 'live') active.add(record);
    // The site asks which of the candidate replies drawn in this message to keep: whatever the reply was decided on while
    // it asked ran nothing by itself (claimBlocks). The person's pick is the reply, decided then as any finished reply —
    // also when it shows the text read while the choice was pending (the first candidate), which no change would decide.
    const choices = site.pendingChoice?.(record.el) ?? null;
    for (const choice of choices ?? []) {
      const candidateText = choice.textContent ?? '';
      if (mayHoldBlocks(choice, candidateText, site)) record.candidates.add(serializeMessage(choice, site).markdown);
    }
    // The candidate left when the page took out the turn's reply (the newest candidate) as the person kept this one: the
    // turn's reply, decided as one that just ended — it was no newest message, so it was taken for one from before.
    const left = record.choicePending && choices === null && record.origin !== 'live' && atEnd(record.el) ? choiceLeftFor(record) : null;
    if (left) takeTurn(record, left, changedAt);
    const picked = record.choicePending && choices === null && record.origin === 'live';
    // the pick made here: no candidate drawn later is one
    if (picked) choiceGone = null;
    // A choice the site settles once a newer message is sent (the first candidate taken for the person) is no pick: that
    // reply was passed over, and its blocks wait for Run as they did.
    if (picked && record.handledMarkdown !== null && record.el === ctx.lastMessageEl) {
      record.handledMarkdown = null;
      record.lastChangeAt = changedAt;
      active.add(record);
    }
    record.choicePending = choices !== null;
    const answer = site.answerRoot(record.el);
    const text = answer?.textContent ?? '';
    const textBefore = record.text;
    if (rewrittenInPlace(record, text)) writtenAfresh(record, changedAt);
    // Replies that cannot hold a block (most of a long conversation, and most streaming tokens) are not serialized;
    // their text alone tells whether they changed.
    // A reply whose blocks were found last time is serialized without asking again (a reply streaming a block would
    // be asked on every rescan; if it no longer holds one, serializing finds that too).
    const serialized = answer && (record.blocks.length > 0 || mayHoldBlocks(answer, text, site)) ? serializeMessage(answer, site) : NOTHING_SERIALIZED;
    if (picked) {
      // The candidates not picked are versions of the reply that were never the reply: shown again (a page that keeps
      // them, hidden, and shows one back), they are not decided, and nothing in them runs by itself.
      const versions = ctx.decided.get(ctx.messageKeyOf(record))?.versions;
      for (const markdown of record.candidates) if (markdown !== serialized.markdown && versions && !versions.has(markdown)) versions.set(markdown, 'normal');
      record.candidates.clear();
    }
    if ((record.text !== null && text !== record.text) || (record.markdown !== null && serialized.markdown !== record.markdown)) record.timesGrown += 1;
    if (text !== record.text) {
      record.text = text;
      record.lastChangeAt = changedAt;
      if (record.origin === 'live') active.add(record);
    }
    if (serialized.markdown === record.markdown) {
      // Same markdown, maybe new elements (the site re-rendered the answer): follow the blocks to their new places.
      record.serialized = serialized;
      for (const tracked of record.blocks) {
        tracked.anchor = locateBlock(serialized, tracked.block.start, tracked.block.end).anchor;
        show.placeChip(record, tracked);
      }
      return;
    }
    record.markdown = serialized.markdown;
    record.serialized = serialized;
    record.lastChangeAt = changedAt;
    // A reply decided stopped that the site writes on while it is the newest message (the person pressed "Continue",
    // or a regenerate drawn in the same message) is a new writing, which the Stop before it does not stop; the blocks
    // the reply held at the Stop stay held (heldByStop). Without the site's writing signal a late render after the
    // Stop cannot be told from it: that reply stays stopped.
    if (record.ending === 'stopped' && record.handledMarkdown !== serialized.markdown && record.el === ctx.lastMessageEl && site.isGenerating(doc) === true) {
      record.stop = null;
      record.continuedAt = changedAt;
      const key = ctx.messageKeyOf(record);
      ctx.stops.delete(key);
      // A page loaded later recalls the Stops of the site's message ids (recallStop): this one is continued since.
      if (ctx.conversation !== null && !isPositionKey(key)) {
        void ctx.ledger.markContinued(ctx.conversationKey(), key, changedAt).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
      }
    }
    // A version of the reply decided before, shown again while the site writes nothing (its arrows over a reply it wrote
    // again in the same message): not decided again — what did not run then does not run now, and one the person
    // stopped stays stopped.
    const version =
      record.origin === 'live' && record.handledMarkdown !== null && record.handledMarkdown !== serialized.markdown
        ? ctx.decided.get(ctx.messageKeyOf(record))?.versions.get(serialized.markdown)
        : undefined;
    if (version !== undefined && site.isGenerating(doc) !== true) {
      record.handledMarkdown = serialized.markdown;
      record.ending = version;
    } else if (
      record.olderVersions &&
      version === undefined &&
      record.origin === 'live' &&
      record.handledMarkdown !== null &&
      record.handledMarkdown !== serialized.markdown &&
      !(textBefore !== null && text.startsWith(textBefore)) &&
      site.isGenerating(doc) !== true
    ) {
      // A reply written afresh after it was history (rewrittenInPlace) has versions the site wrote before this page: one
      // its arrows show while the site writes nothing, which is no version decided here and does not go on from what
      // the reply showed (a last token drawn after the site's signal does), is such a version — history: never decided,
      // its blocks wait for Run.
      record.handledMarkdown = serialized.markdown;
      record.ending = 'normal';
    }
    // A reply that changed after it was decided is decided again (its ending too): until then it ended normally.
    if (record.ending !== 'normal' && record.handledMarkdown !== serialized.markdown) record.ending = 'normal';
    if (record.origin === 'live') active.add(record);
    recallStop(record);
    // A live reply is being written until it is decided: its blocks are only outlined (kind, place, complete or
    // not) on each rescan, never parsed — that was most of a rescan's cost, paid every few streamed tokens. They are
    // read in full once, when the reply is decided (readInFull); nothing auto-runs before that, and a Run click
    // sends the block's text, which the companion parses anyway.
    placeBlocks(record, serialized, record.origin === 'live' && record.handledMarkdown !== serialized.markdown, chips);
    if (record.handledMarkdown === serialized.markdown && version === 'stopped') holdStopped(ctx.heldByStop, record);
  };

  /**
   * A reply from before this page that the site writes afresh in its own message while the page watches (a regenerate
   * drawn in place): the writing is new, seen arriving, and is live — its blocks may run once, like those of a reply
   * drawn in a new element. Told strictly, so that history never runs: the page saw the reply at rest as the newest
   * message (a reply still being written when the page came to it is not that), it is still the newest, in the same
   * conversation, the site says it is writing it, the person pressed no Stop since, and its text no longer starts with
   * what it showed at rest (a "Continue" writes on after it: still history).
   */
  const rewrittenInPlace = (record: MessageRecord, text: string): boolean => {
    const idle = record.idle;
    if (!idle || record.origin !== 'history' || text === record.text || record.el !== ctx.lastMessageEl) return false;
    if (idle.epoch !== ctx.epoch || idle.stops !== ctx.personStops || text.startsWith(idle.text)) return false;
    return site.isGenerating(doc) === true;
  };

  const writtenAfresh = (record: MessageRecord, changedAt: number): void => {
    const idle = record.idle!;
    record.idle = null;
    record.olderVersions = true;
    record.origin = 'live';
    record.candidate = true;
    record.seenGenerating = true;
    record.turnSeenAt = changedAt;
    // The version it showed at rest stays decided as it was (the site's arrows may show it again): nothing of it runs.
    keepDecided(ctx.decided, idle.key, idle.markdown, idle.ending);
    ctx.liveKeys.add(ctx.messageKeyOf(record));
    active.add(record);
    hooks.writingSignal(true);
  };

  const recallStop: Scanner['recallStop'] = (record) => {
    if (record.origin !== 'history' || record.role !== 'assistant' || record.ending !== 'normal' || record.markdown === null) return false;
    const key = ctx.messageKeyOf(record);
    // A position may name another message now: there the reply is told by what it said (hashed only when the ledger
    // keeps such a Stop: the first scan of a long conversation reads every reply here). One the person stopped here
    // while the site was still writing it (page.ts markStopped) is stopped whatever it shows after — once the site no
    // longer writes it (what it draws meanwhile is no "Continue").
    const stop = !record.candidate && record.stop?.by === 'control'
      ? site.isGenerating(doc) !== true ? record.stop : undefined
      : !isPositionKey(key)
        ? ctx.stops.get(key)
        : ctx.stoppedTexts.size > 0
          ? ctx.stoppedTexts.get(stoppedReplyText(key, record.markdown) ?? '')
          : undefined;
    if (!stop) return false;
    record.stop = stop;
    record.ending = 'stopped';
    record.handledMarkdown = record.markdown;
    return true;
  };

  const readInFull: Scanner['readInFull'] = (record) => {
    if (record.outlined && record.serialized) placeBlocks(record, record.serialized, false, true);
  };

  const placeChips: Scanner['placeChips'] = (record) => {
    for (const tracked of record.blocks) show.placeChip(record, tracked);
  };

  const placeBlocks = (record: MessageRecord, serialized: SerializedMessage, outline: boolean, chips: boolean): void => {
    record.outlined = outline;
    // Read when the blocks are (a reply decided, one shown as it was): a streaming reply's outline runs nothing.
    if (!outline) record.unplacedReasoning = unplacedReasoningLabel(record.el, serialized, site) ?? site.unplacedRegion?.(record.el) ?? null;
    const found = outline
      ? outlineBlocks(serialized.markdown)
      : findBlocks(serialized.markdown).map((block) => withKnownTools(block, ctx.externalTools));
    const messageKey = ctx.runKeyOf(record);
    const next: TrackedBlock[] = [];
    found.forEach((block, index) => {
      const old = record.blocks[index];
      const tracked: TrackedBlock = keepsBlock(old, block) && old
        ? old
        : { block, index, key: '', state: 'writing', chip: null, anchor: null, ranBefore: false, reruns: 0 };
      tracked.block = block;
      tracked.cut = undefined;
      const located = locateBlock(serialized, block.start, block.end);
      tracked.anchor = located.anchor;
      next.push(tracked);
      const key = blockKey({ site: site.id, conversationId: ctx.conversationKey(), messageKey, index, raw: block.raw });
      if (key !== tracked.key) {
        tracked.key = key;
        tracked.ranBefore = false;
        // A reply seen arriving is new; whether its blocks ran is read when it is claimed (claimRunnable).
        // So is one mounted again after it was decided (page-scan onChanges): the ledger says what ran then.
        if (block.complete && (record.origin !== 'live' || record.handledMarkdown === serialized.markdown)) checkRanBefore(record, tracked);
      }
      // a block the protocol says never runs (a second plan in one reply) is shown like one that cannot be read:
      // its reason, and no Run — its raw text alone would parse as a runnable block in the companion
      tracked.unreadable = located.unreadable ?? (block.inert && ctx.t(INERT_REASONS[block.inert]));
      if (isUnrun(tracked.state)) {
        tracked.state = initialState(block, tracked.unreadable);
        if (tracked.state === 'ready' && isFinishPlan(block)) {
          tracked.state = 'done';
          tracked.note = ctx.t('note.finished');
        }
      }
    });
    for (const dropped of record.blocks.slice(found.length)) dropped.chip?.remove();
    for (const old of record.blocks) if (!next.includes(old)) old.chip?.remove();
    // A stopped reply the site writes again (page-scan scan): a block it held at the Stop that the writing no longer
    // shows was taken back (a regenerate starts over); written again, it is the new writing's and may run once. One
    // the writing kept ("Continue" writes on after it) stays held.
    if (record.continuedAt !== null && serialized.markdown.trim() !== '') {
      for (const old of record.blocks) if (ctx.heldByStop.has(old.key) && !next.some((b) => b.key === old.key)) ctx.heldByStop.delete(old.key);
    }
    record.blocks = next;
    if (chips) placeChips(record);
  };

  const updateOrigins = (): void => {
    const isGenerating = generatingSignal(site, doc);
    const latest = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
    if (goneReply && (goneReply.epoch !== ctx.epoch || ctx.lastSendAt > goneReply.at)) goneReply = null;
    for (const record of active) {
      if (!record.candidate || record.origin === 'live' || record.role !== 'assistant') continue;
      if (goneReply) {
        const text = record.text ?? '';
        if (!(goneReply.words !== '' ? shownWords(text).startsWith(goneReply.words) : squashed(text).startsWith(goneReply.text))) continue;
        goneReply = null;
      }
      const view = {
        age: now() - record.firstSeenAt,
        generating: isGenerating(),
        isLatest: record === latest,
        timesGrown: record.timesGrown,
        followsSend: ctx.lastSendAt !== Number.NEGATIVE_INFINITY && ctx.lastSendAt <= record.firstSeenAt,
        answeredSinceSend: ctx.replyEndedAt > ctx.lastSendAt,
      };
      const verdict = candidateVerdict(view);
      if (verdict === 'drop') {
        active.delete(record);
        if (view.generating === false && view.isLatest && view.timesGrown > 0 && view.followsSend && !view.answeredSinceSend) hooks.writingSignal(false);
        continue;
      }
      if (verdict === 'live') {
        record.origin = 'live';
        record.seenGenerating = isGenerating() === true;
        if (record.seenGenerating) hooks.writingSignal(true);
        ctx.liveKeys.add(ctx.messageKeyOf(record));
        for (const tracked of record.blocks) show.render(record, tracked);
      }
    }
  };

  /** The person's newest message this page saw arrive in the new chat it shows (no conversation id yet). */
  let sentInNewChat: Element | null = null;

  /**
   * The page left the new chat it showed for another conversation, rather than the site giving the chat its id: the
   * person's last message in it, which this page saw them send, is no longer shown (a chat that got its id still shows
   * it, also when the site drew it again). A temporary chat never gets an id: opening an old conversation from it is a
   * switch, and what it still owes a result never lands there.
   */
  const leftNewChat = (): boolean => {
    if (!sentInNewChat || sentInNewChat.isConnected) return false;
    const said = sentInNewChat.textContent?.trim() ?? '';
    return !site.messages(doc).some((message) => message.role === 'user' && message.el.textContent?.trim() === said);
  };

  /** The page removed every message of the conversation it showed (a "New chat" that keeps its address). */
  let emptied = false;
  /** A message of the conversation the page is at was shown since this page came to it (set where it is tracked). */
  let shownAny = false;
  /** The page was emptied, and every message it shows since is one this page saw arrive (none is history). */
  const showsOnlySentHere = (): boolean => {
    if (!emptied) return false;
    const shown = [...records.values()].filter((record) => record.el.isConnected);
    return shown.length > 0 && shown.every((record) => record.origin === 'live' || record.candidate);
  };

  /**
   * Another new chat opened at the address of the one this page showed before it had an id (a second temporary chat,
   * or New chat pressed before the site named the first): the page was emptied of the chat the person sent in here,
   * and nothing is being written (a page that draws its list again while a reply streams is still that chat).
   */
  const newChatEmptied = (): boolean =>
    sentInNewChat !== null && !sentInNewChat.isConnected && site.messages(doc).length === 0 && site.isGenerating(doc) !== true;

  const checkConversation = (): void => {
    const id = site.conversationId(ctx.deps.location);
    if (id === ctx.conversation && (id !== null || !newChatEmptied())) return;
    // A new chat gets its id only once the first message is sent (sometimes before, sometimes after it renders):
    // same conversation, not a switch. Opening an old conversation from an empty new chat lands here too; its
    // history renders in without the site's generating signal, so it still never becomes live.
    if (ctx.conversation === null && !leftNewChat()) {
      sentInNewChat = null;
      emptied = false;
      const standIn = ctx.conversationKey();
      ctx.conversation = id;
      hooks.chatNamed(standIn);
      return;
    }
    // A page at an address that names a chat, where the person sent from this page before any message was shown (a
    // generic site's start page with settings in its query, /?send=never, that moves to /chat/<id>?send=never at the
    // first send), is a new chat too: the address it gets is that chat's. Nothing of it was tracked, so nothing moves
    // and nothing it owes is typed in elsewhere. Without that send it is another conversation opened before this one
    // rendered (its reply resuming is history); one that showed messages and then emptied is the case below.
    if (ctx.conversation !== null && id !== null && !shownAny && ctx.lastSendAt > Number.NEGATIVE_INFINITY) {
      ctx.conversation = id;
      return;
    }
    // A site whose "New chat" empties the page and keeps the last conversation's address until the first send
    // (Gemini): the page shows only what the person sent since, so the address it gets now is that new chat's. What the
    // last conversation still owes is not typed in here; the new chat's messages stay live, and its reply runs.
    const startedHere = ctx.conversation !== null && id !== null && showsOnlySentHere();
    ctx.conversation = id;
    sentInNewChat = null;
    emptied = false;
    if (!startedHere) shownAny = false;
    // Replies told by their text were the other conversation's: the same text here is another reply (recallStops reads
    // this conversation's once it is rendered in).
    ctx.stoppedTexts.clear();
    ctx.epoch += 1;
    hooks.switched();
    if (startedHere) return;
    // Another new chat opened in this tab: not the one this tab showed before it had its id.
    if (id === null) ctx.openNewChat();
    ctx.switchedAt = now();
    ctx.lastSendAt = Number.NEGATIVE_INFINITY;
    for (const record of records.values()) {
      record.origin = 'history';
      record.candidate = false;
      record.idle = null;
      for (const tracked of record.blocks) show.render(record, tracked);
    }
    active.clear();
  };

  /**
   * The newest reply, which the person stopped while it was written, as the page took its row out (onChanges): a list
   * that mounts that row anew while the site still shows its Stop draws the same reply as a new element. Keyed by
   * position, nothing else tells it is that reply — its new row's turn began after the Stop — and it ran and was sent.
   * Keyed by the site's id, a reply drawn as a placeholder until the model's first words (ChatGPT's
   * request-placeholder-…, keyed by its turn) is drawn anew under its own id: the Stop pressed on the placeholder is
   * that reply's, and it too ran and was sent.
   */
  let stoppedRow: { key: string; text: string; stop: StopMark; turnSeenAt: number; epoch: number } | null = null;

  /**
   * The reply being written when the page took its row out (a virtual list the person scrolled or jumped away from it),
   * by what it showed: until a row shows it again (or the person sends), a row the list mounts that shows something
   * else — or nothing yet — is not taken for it. With none of the rows it showed left, the list's first turns are the
   * newest in the page: taken for the reply, they were live, and their blocks ran when it ended. Told by its words
   * (shownWords), where it has any: the row drawn again may show its start finished otherwise (a table drawn from the rows
   * it showed as text, a link from its address) — told by its text, that reply never ran.
   */
  let goneReply: { text: string; words: string; epoch: number; at: number } | null = null;

  /**
   * The turn's reply as the page took it out while the site asked which of its candidates to keep (Site.pendingChoice)
   * and it was the newest message: the person kept another candidate (ChatGPT's comparison draws each in a message of
   * its own, the newest being the turn's reply), or the site draws the turn anew with the one kept. `keys`: the messages
   * whose choice was pending then. The one of them shown next as the newest message with no choice pending is the
   * person's pick, the turn's reply: decided as a reply that just ended, once (takeTurn). Kept to a message the
   * person had sent nothing after (a choice the site settles itself on a send is no pick).
   */
  let choiceGone: { keys: Set<string>; turnSeenAt: number; answers: string | null; stop: StopMark | null; seenGenerating: boolean; epoch: number; at: number } | null = null;

  /** The turn's reply gone with its choice pending, when `record` (the newest message) is one of its candidates. */
  const choiceLeftFor = (record: MessageRecord): NonNullable<typeof choiceGone> | null => {
    const gone = choiceGone;
    if (!gone || gone.epoch !== ctx.epoch || ctx.lastSendAt > gone.at) return null;
    return gone.keys.has(ctx.messageKeyOf(record)) ? gone : null;
  };

  const takeTurn = (record: MessageRecord, gone: NonNullable<typeof choiceGone>, changedAt: number): void => {
    choiceGone = null;
    ctx.lastMessageEl = record.el;
    record.origin = 'live';
    record.candidate = true;
    record.seenGenerating = gone.seenGenerating;
    record.turnSeenAt = gone.turnSeenAt;
    record.answers = gone.answers;
    record.stop = record.stop ?? gone.stop;
    // what it was decided on while the choice was pending (or as the candidate drawn anew) ran nothing: decided again
    record.handledMarkdown = null;
    record.ending = 'normal';
    record.lastChangeAt = changedAt;
    ctx.liveKeys.add(ctx.messageKeyOf(record));
    active.add(record);
    for (const tracked of record.blocks) show.render(record, tracked);
  };

  const onChanges = (changes: PageChanges): void => {
    checkConversation();
    if (changes.removed) {
      const reply = ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
      if (reply && !reply.el.isConnected && reply.role === 'assistant' && reply.choicePending && reply.origin === 'live') {
        const keys = new Set<string>();
        for (const record of records.values()) if (record.role === 'assistant' && record.choicePending) keys.add(ctx.messageKeyOf(record));
        const { turnSeenAt, answers, stop, seenGenerating } = reply;
        choiceGone = { keys, turnSeenAt, answers, stop, seenGenerating, epoch: ctx.epoch, at: now() };
      }
      for (const [el, record] of records) {
        if (el.isConnected) continue;
        const undecided = isUndecided(record) || (record.candidate && record.origin !== 'live');
        if (el === ctx.lastMessageEl && record.role === 'assistant' && record.stop && record.text !== null && undecided) {
          stoppedRow = { key: ctx.messageKeyOf(record), text: record.text, stop: record.stop, turnSeenAt: record.turnSeenAt, epoch: ctx.epoch };
        }
        if (el === ctx.lastMessageEl && record.role === 'assistant' && record.text?.trim() && undecided) goneReply = { text: squashed(record.text), words: shownWords(record.text), epoch: ctx.epoch, at: now() };
        for (const tracked of record.blocks) tracked.chip?.remove();
        records.delete(el);
        active.delete(record);
      }
      if (records.size === 0 && ctx.conversation !== null) emptied = true;
    }
    for (const el of changes.added) {
      if (records.has(el) || !el.isConnected || !isMessageElement(site, el)) continue;
      // Right after a conversation switch the new conversation is still rendering in: that is history too,
      // including a reply the site resumes streaming.
      const newest = atEnd(el);
      const candidate = newest && now() - ctx.switchedAt > SWITCH_GRACE_MS;
      const record = track(el, 'history', candidate, records.size);
      if (!record) continue;
      // A reply drawn right after the person's message this page saw arrive: its turn began with that message.
      const before = candidate && record.role === 'assistant' && ctx.lastMessageEl ? records.get(ctx.lastMessageEl) : undefined;
      if (before?.role === 'user' && (before.candidate || before.origin === 'live')) record.turnSeenAt = before.firstSeenAt;
      if (before?.role === 'user') record.answers = ctx.messageKeyOf(before);
      if (newest) ctx.lastMessageEl = el;
      if (candidate && record.role === 'user' && ctx.conversation === null) sentInNewChat = el;
      // The same message re-rendered as a new element keeps being live — when the site gives messages real ids;
      // a position key could belong to another message after a virtual list unmounted rows.
      const key = ctx.messageKeyOf(record);
      if (candidate && !isPositionKey(key) && ctx.liveKeys.has(key)) {
        record.origin = 'live';
        // …and a reply the person stopped stays stopped; one already decided is not decided again while it shows
        // the same text.
        record.stop = ctx.stops.get(key) ?? null;
        const decided = ctx.decided.get(key);
        if (decided) {
          record.handledMarkdown = decided.markdown;
          record.ending = decided.ending;
        }
      }
      if (candidate && record.role === 'user') choiceGone = null;
      // The turn drawn anew with the candidate the person kept (a new element, its id one whose choice was pending).
      if (candidate && record.role === 'assistant' && !isPositionKey(key) && (site.pendingChoice?.(el) ?? null) === null) {
        const gone = choiceLeftFor(record);
        if (gone) takeTurn(record, gone, changes.at);
      }
      // The stopped reply's row mounted anew at its place: still that reply (it shows what it showed, or more), stopped.
      // A reply written afresh there (the person had it written again) shows other text; one drawn after a message the
      // person sent or edited since is another reply. Keyed by the site's ids, the same key is the same reply (above):
      // another key there is the reply's own id in its placeholder's place.
      if (candidate && record.role === 'user') stoppedRow = null;
      if (stoppedRow && candidate && record.role === 'assistant') {
        const row = stoppedRow;
        stoppedRow = null;
        // (A row the page took out is keyed by its position: it is no longer where its id is read.)
        const sameReply = row.key === key || !isPositionKey(key);
        if (row.epoch === ctx.epoch && sameReply && ctx.lastSendAt <= row.stop.at && (site.answerRoot(el)?.textContent ?? '').startsWith(row.text)) {
          record.stop = row.stop;
          record.turnSeenAt = row.turnSeenAt;
        }
      }
      takeStopBeforeReply(record);
    }
    let liveChanged = false;
    for (const el of changes.changed) {
      const record = records.get(el);
      if (!record) continue;
      try {
        scan(record, changes.at);
      } catch (error) {
        ctx.reportOnce(`scanning a ${site.id} message failed`, error);
      }
      if (record.origin === 'live' || record.candidate) liveChanged = true;
    }
    updateOrigins();
    if (liveChanged) hooks.liveChanged(changes.at);
  };

  return { track, scan, placeChips, readInFull, recallStop, updateOrigins, checkConversation, onChanges };
}

/** Text with its whitespace made single spaces: a row drawn anew may lay out the same words otherwise. */
function squashed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A reply's letters and digits as it shows them, a link's address left out: what stays when a site finishes drawing a
 * construct it showed as text while it streamed (a table's `|` rows and `---` line, a link's `](address`, `**`, `#`, a
 * list's marks).
 */
function shownWords(text: string): string {
  return text.replace(/\]\([^)\s]*\)?/g, '').replace(/[^\p{L}\p{N}]+/gu, '');
}

/** A block refused only for naming a tool of the person's MCP servers is not faulty: the companion runs it. */
function withKnownTools(block: Block, external: ReadonlySet<string>): Block {
  if (external.size === 0 || !refusedOnlyForToolName(block.kind, block, (name) => external.has(name))) return block;
  const { error: _error, ...known } = block;
  return known;
}
