import { hashText, normalizeRaw, scanFences } from '../../shared/protocols';
import { prepareForRepair } from '../../shared/protocols/json';
import type { Block } from '../../shared/protocols/types';
import { holdsHidden } from '../../shared/reveal-hidden';
import { callSignature, decideAutoRun, type BlockState, type LoopGuard, type ReplyEnding, type SharedStop } from '../scanner/blocks';
import { isPositionKey } from '../sites/define-site';
import type { SiteSettings } from '../site-settings';
import type { RowAction } from '../ui/chip';
import { t, type MessageKey } from '../ui/i18n';
import type { Escape, MessageRecord, PageContext, StopMark, TrackedBlock } from './page-context';

/**
 * The page's decisions as pure functions of what the scan saw: whether a block at a place is still the same block,
 * whether a message that appeared is a live reply, how a finished reply ended (normally, stopped by the person, or
 * inside its last block), which of its blocks auto-run, and what a chip offers and says. No DOM, no storage, no timers: tests call them with plain objects.
 */

export const CANDIDATE_GRACE_MS = 2_000;
export const CANDIDATE_MAX_MS = 30_000;

/** A block nobody ran in this page yet: it follows its text while the text changes. */
export function isUnrun(state: BlockState): boolean {
  return state === 'writing' || state === 'ready' || state === 'unreadable';
}

/**
 * The block at a place stays the same block (and keeps its chip) while it is written — a site shows a fence that
 * is still streaming as a closed code block, so it looks complete on every token — and until it runs. Once it ran,
 * different text there is a different block.
 */
export function keepsBlock(old: Pick<TrackedBlock, 'block' | 'state'> | undefined, block: Block): boolean {
  if (!old || old.block.kind !== block.kind) return false;
  return old.block.raw === block.raw || !old.block.complete || isUnrun(old.state);
}

export interface CandidateView {
  /** Milliseconds since the message was first seen. */
  age: number;
  /** The site's "still generating" signal; undefined when the site has none. */
  generating: boolean | undefined;
  /** The message is the newest one on the page. */
  isLatest: boolean;
  /** How many scans found its text changed since it was first seen. */
  timesGrown: number;
  /** A reply to the last send was already found finished before this message grew. */
  answeredSinceSend: boolean;
  /** A message was sent in this conversation (by the person or by us) before the message was first seen. */
  followsSend: boolean;
}

/**
 * Without a site signal, how many scans must find a message's text grown before it counts as being written, once a
 * reply to the last send has already ended: a reply the model writes (a regenerate) grows on scan after scan; an old
 * one the site mounts again (an earlier branch switched back to, its row first and its text in the next render) grows
 * once. The first reply after a send needs one (a short reply may arrive whole between two scans).
 */
export const LIVE_GROWTHS_AFTER_ANSWER = 2;

/**
 * Whether a message that appeared at the end of the conversation is a live reply: seen while the site says a reply
 * is streaming and it is the newest message — or, without a site signal, seen growing after a send (once a reply to
 * that send ended, LIVE_GROWTHS_AFTER_ANSWER times). A virtual-list row re-mounted with old text does neither, nor
 * does a saved conversation the site renders in a moment after the page started (its rows first, their text in the
 * next render: growing, but after no send), nor an earlier branch the person switches back to after a send (its text
 * fills in once). Only the newest message can be a streaming reply; others (history loading in) stop being watched
 * ('drop').
 */
export function candidateVerdict(c: CandidateView): 'live' | 'drop' | 'wait' {
  if (c.age > CANDIDATE_MAX_MS || (c.generating !== undefined && !c.isLatest && c.age > CANDIDATE_GRACE_MS)) return 'drop';
  const growths = c.answeredSinceSend ? LIVE_GROWTHS_AFTER_ANSWER : 1;
  const grew = c.followsSend && c.timesGrown >= growths;
  const live = c.generating === true ? c.isLatest : c.generating === undefined && grew;
  return live ? 'live' : 'wait';
}

/** A live reply whose current markdown has not been decided yet (a later change — regenerate, edit — decides again). */
export function isUndecided(record: Pick<MessageRecord, 'origin' | 'markdown' | 'handledMarkdown'>): boolean {
  return record.origin === 'live' && record.markdown !== null && record.handledMarkdown !== record.markdown;
}

/**
 * A Stop pressed before the reply's row was drawn stops the message the page draws at most this long after it (what
 * the model wrote before the Stop reached it) — unless the person sent again meanwhile.
 */
export const STOP_BEFORE_ROW_MS = 5_000;

/** Escape also closes menus: it counts as a stop when the reply's last change came at most this long after it. */
export const ESCAPE_CONFIRM_MS = 3_000;
/** Escapes that stopped a reply, kept for the results of runs that began before them (the newest). */
const ESCAPES_KEPT = 20;

/** Whether the person stopped the reply: a click on the stop control always; Escape when the reply ended right after. */
export function stoppedByPerson(stop: StopMark | null, lastChangeAt: number): boolean {
  if (!stop) return false;
  return stop.by === 'control' || lastChangeAt <= stop.at + ESCAPE_CONFIRM_MS;
}

/**
 * Whether an Escape the person pressed stopped anything since `since`: one whose reply ended right after it did; one
 * whose reply went on being written did not (it closed a menu); one whose reply has not ended yet, while its changes
 * do not tell it went on, counts (a result is not sent on a guess).
 */
export function escapedSince(escapes: readonly Escape[], since: number): boolean {
  return escapes.some((escape) => escape.stop.at >= since && (escape.stopped ?? stoppedByPerson(escape.stop, escape.record.lastChangeAt)));
}

/** The reply an Escape was pressed on is decided: whether the Escape stopped it is known (one that did not is dropped). */
export function settleEscapes(escapes: Escape[], record: MessageRecord): void {
  for (const escape of escapes) if (escape.record === record && escape.stopped === null) escape.stopped = stoppedByPerson(escape.stop, record.lastChangeAt);
  const stopped = escapes.filter((escape) => escape.stopped !== false);
  escapes.splice(0, escapes.length, ...stopped.slice(-ESCAPES_KEPT));
}

/**
 * The kinds that are one JSON object in a fence, which a page may show closed before the model closed it. (An
 * auto_coder plan is complete only once the model wrote its `--#####`; an Axon statement has no JSON to tell by.)
 */
const JSON_FENCE_KINDS: ReadonlySet<Block['kind']> = new Set(['mcp-request', 'flycode-call']);

/**
 * Whether a complete-looking fenced block's JSON stops short — ends inside a string or before its closing bracket,
 * the parser's own test (it refuses to repair such text). Only blocks that failed to parse are looked at.
 */
export function jsonStopsShort(block: Pick<Block, 'kind' | 'raw' | 'payload' | 'error'>): boolean {
  if (block.payload !== undefined || block.error === undefined || !JSON_FENCE_KINDS.has(block.kind)) return false;
  const body = scanFences(block.raw)[0]?.content ?? '';
  return body.trim() !== '' && prepareForRepair(body).cutShort;
}

/**
 * The block a reply was still writing when it ended: its last block, with nothing after it, that never closed — or
 * that the page shows closed (sites close an unfinished fence for display) while its JSON stops short. A block
 * followed by more text was closed by the model, so a parse error there is the model's own (answered as usual).
 */
export function blockCutAtEnd(markdown: string, blocks: readonly Block[]): Block | null {
  let last: Block | undefined;
  for (const block of blocks) if (!last || block.end >= last.end) last = block;
  if (!last || /\S/.test(markdown.slice(last.end))) return null;
  if (!last.complete) return last;
  return jsonStopsShort(last) ? last : null;
}

export interface EndingInput {
  stop: StopMark | null;
  lastChangeAt: number;
  markdown: string;
  blocks: readonly Block[];
}

/**
 * How a finished reply ended, and the block it was still writing. A stopped or cut reply never auto-runs and never
 * auto-submits: "complete" on the page is not complete in the model's text once the reply ended abnormally.
 */
export function replyEnding(input: EndingInput): { ending: ReplyEnding; cut: Block | null } {
  const cut = blockCutAtEnd(input.markdown, input.blocks);
  if (stoppedByPerson(input.stop, input.lastChangeAt)) return { ending: 'stopped', cut };
  return { ending: cut ? 'cut' : 'normal', cut };
}

/**
 * The Stop another tab of the conversation told through the ledger that stopped this reply as it is being written
 * now, if one did: a Stop of its own message (by the site's id); one the other tab pressed before it drew the reply's
 * row, told under the person's message this reply was drawn after (by the site's id), when this page drew the row at
 * most STOP_BEFORE_ROW_MS after it (a reply regenerated later is another writing); or — where a key is a position,
 * which may name another message in another tab — any Stop pressed while this page saw the reply's turn (from the
 * person's message on, when it saw that arrive: a Stop pressed before the reply's row was drawn stops it too). A Stop
 * from before the person had the model continue the reply is not this writing's. An Escape (told as it was pressed)
 * stopped the reply only if the reply ended right after it, as this page saw it end.
 */
export function stoppedElsewhere(
  stops: readonly SharedStop[],
  messageKey: string,
  record: Pick<MessageRecord, 'turnSeenAt' | 'continuedAt' | 'firstSeenAt' | 'answers' | 'lastChangeAt'>,
): SharedStop | undefined {
  return stops.find((stop) => {
    if (stop.escape && !stoppedByPerson({ at: stop.at, by: 'escape' }, record.lastChangeAt)) return false;
    if (stop.key === messageKey && !isPositionKey(messageKey)) return stop.at >= (record.continuedAt ?? Number.NEGATIVE_INFINITY);
    if (!isPositionKey(stop.key) && !isPositionKey(messageKey)) {
      return stop.key === record.answers && record.continuedAt === null && record.firstSeenAt - stop.at <= STOP_BEFORE_ROW_MS;
    }
    return stop.at >= (record.continuedAt ?? record.turnSeenAt);
  });
}

/**
 * What a reply decided stopped said, as the ledger keeps it with the Stop where the reply's key is a position: a
 * reloaded page (or a virtual list that mounts other rows) may put another message at that position, so there the
 * reply is told by its text (page-scan.ts recallStop). Undefined where the key is the site's message id.
 */
export function stoppedReplyText(messageKey: string, markdown: string | null): string | undefined {
  return isPositionKey(messageKey) && markdown ? hashText(normalizeRaw(markdown)) : undefined;
}

/**
 * A reply decided (`markdown`, how it ended), kept under its message key (PageContext.decided) as the latest decision
 * and as one of the message's versions: a reply the site writes again in the same message (a regenerate) keeps its
 * earlier versions, which the site's arrows may show again.
 */
export function keepDecided(decided: PageContext['decided'], key: string, markdown: string, ending: ReplyEnding): void {
  const versions = decided.get(key)?.versions ?? new Map<string, ReplyEnding>();
  versions.delete(markdown);
  versions.set(markdown, ending);
  decided.set(key, { markdown, ending, versions });
}

/** A reply decided stopped: the blocks it holds now never auto-run, whatever is written after (heldByStop). */
export function holdStopped(held: Set<string>, record: Pick<MessageRecord, 'blocks'>): void {
  for (const tracked of record.blocks) held.add(tracked.key);
}

export interface ClaimInput {
  settings: Pick<SiteSettings, 'enabled' | 'autoRun'>;
  record: Pick<MessageRecord, 'role' | 'origin' | 'blocks' | 'ending'> & Partial<Pick<MessageRecord, 'unplacedReasoning' | 'choicePending'>>;
  /** Keys the ledger says ran in this conversation. */
  ran: ReadonlySet<string>;
  /** Block keys a reply held when the person stopped it (PageContext.heldByStop): they never auto-run. */
  held?: ReadonlySet<string>;
  guard: Pick<LoopGuard, 'check' | 'record'>;
  conversation: string;
}

export interface ClaimOutcome {
  /** The blocks that auto-run now, in order (each recorded with the loop guard). */
  run: TrackedBlock[];
  /** Blocks refused for a reason the chip says (loop guard, already ran, held by a Stop, the same call again). */
  refused: Array<{
    tracked: TrackedBlock;
    note: string | undefined;
    ranBefore: boolean;
    reason: 'loop-guard' | 'already-ran' | 'reply-stopped' | 'repeated' | 'unplaced-reasoning' | 'choice-pending';
  }>;
}

/** DESIGN §6.2 over the ready blocks of a finished reply. */
export function claimBlocks(input: ClaimInput): ClaimOutcome {
  const { settings, record, ran, held = new Set<string>(), guard, conversation } = input;
  const outcome: ClaimOutcome = { run: [], refused: [] };
  for (const [index, tracked] of record.blocks.entries()) {
    if (tracked.state !== 'ready') continue;
    // The site asks the person which of the candidate replies to keep: none is the reply yet. The chip says so while the
    // choice is pending (chipView) and the person's pick is decided again (page-scan.ts), so no note is kept here.
    if (record.choicePending) {
      outcome.refused.push({ tracked, note: undefined, ranBefore: tracked.ranBefore, reason: 'choice-pending' });
      continue;
    }
    // A reply whose reasoning the module cannot tell from its answer (scanner/reasoning.ts): any of its blocks may be
    // a call the model only drafted there.
    if (record.unplacedReasoning) {
      outcome.refused.push({ tracked, note: t('note.unplacedReasoning', [record.unplacedReasoning]), ranBefore: tracked.ranBefore, reason: 'unplaced-reasoning' });
      continue;
    }
    const signature = callSignature(tracked.block);
    // The same call right after itself in one reply was written before the first one's result could be seen: not a
    // retry (the loop guard counts those, across replies) but a call written twice. The first runs; the second waits
    // for Re-run, which runs it again for real. (Axon statements are one plan, run whole.) The first ran when it runs
    // now, ran before (another tab of the conversation ran it: here it is already-ran) or is itself such a copy.
    const previous = record.blocks[index - 1];
    const previousRan =
      previous !== undefined &&
      (outcome.run.includes(previous) || outcome.refused.some((r) => r.tracked === previous && (r.reason === 'already-ran' || r.reason === 'repeated')));
    if (previousRan && tracked.block.kind !== 'axon' && callSignature(previous.block) === signature) {
      outcome.refused.push({ tracked, note: t('note.repeatedInReply'), ranBefore: true, reason: 'repeated' });
      continue;
    }
    const decision = decideAutoRun({
      siteEnabled: settings.enabled,
      autoRun: settings.autoRun,
      role: record.role,
      origin: record.origin,
      complete: tracked.block.complete,
      unreadable: tracked.unreadable,
      unfenced: tracked.block.unfenced === true,
      labelHidden: tracked.block.labelHidden === true,
      unwrapped: tracked.block.unwrapped === true,
      quoted: tracked.block.quoted === true,
      hidden: holdsHidden(tracked.block.raw),
      ending: held.has(tracked.key) ? 'stopped' : record.ending,
      replyFinished: true,
      inLedger: ran.has(tracked.key),
      loopGuard: guard.check(conversation, signature),
    });
    if (decision.run) {
      outcome.run.push(tracked);
      guard.record(conversation, signature);
    } else if (decision.reason === 'reply-stopped' && record.ending !== 'stopped') {
      // A block from before the Stop in a reply the person had the model continue: its chip says why it waits.
      outcome.refused.push({ tracked, note: t('note.stopped'), ranBefore: tracked.ranBefore, reason: decision.reason });
    } else if (decision.reason === 'loop-guard' || decision.reason === 'already-ran') {
      outcome.refused.push({
        tracked,
        note: decision.detail ?? (decision.reason === 'already-ran' ? t('note.alreadyRan') : undefined),
        ranBefore: decision.reason === 'already-ran' || tracked.ranBefore,
        reason: decision.reason,
      });
    }
  }
  return outcome;
}

export interface ChipView {
  actions: RowAction[];
  note: string | undefined;
}

/**
 * What a block's chip offers, and the note that says why a ready block did not run by itself — or, in a reply that
 * ended inside it, why it never will be complete.
 */
export function chipView(
  record: Pick<MessageRecord, 'origin' | 'ending'> & Partial<Pick<MessageRecord, 'unplacedReasoning' | 'choicePending'>>,
  tracked: Pick<TrackedBlock, 'state' | 'ranBefore' | 'note' | 'unreadable' | 'cut'> & Partial<Pick<TrackedBlock, 'offered'>> & { block: Pick<Block, 'unfenced' | 'labelHidden' | 'unwrapped' | 'quoted' | 'raw'> },
  autoRun: () => boolean,
  t: (key: MessageKey, substitutions?: Array<string | number>) => string,
): ChipView {
  const actions: ChipView['actions'] = [];
  if (tracked.state === 'ready') actions.push(tracked.ranBefore ? 'rerun' : 'run');
  if (tracked.state === 'running' || tracked.state === 'approval' || tracked.state === 'queued') actions.push('stop');
  if ((tracked.state === 'done' || tracked.state === 'failed') && tracked.offered !== undefined) actions.push('insert', 'copy');
  if (tracked.state === 'done' || tracked.state === 'failed') actions.push('rerun');
  let note = tracked.note;
  if (!note && tracked.state === 'ready') {
    // The block's own reason first (it holds in history too), then the reply's, then the site's.
    if (tracked.block.unfenced) note = t('note.unfenced');
    else if (tracked.block.labelHidden) note = t('note.labelHidden');
    else if (tracked.block.unwrapped) note = t('note.unwrapped');
    else if (tracked.block.quoted) note = t('note.quoted');
    else if (holdsHidden(tracked.block.raw)) note = t('note.hidden');
    else if (record.choicePending) note = t('note.choicePending');
    else if (record.unplacedReasoning) note = t('note.unplacedReasoning', [record.unplacedReasoning]);
    else if (tracked.cut) note = t(record.ending === 'stopped' ? 'note.stoppedInBlock' : 'note.endedInBlock');
    else if (record.ending === 'stopped') note = t('note.stopped');
    else if (record.origin === 'history') note = t('note.history');
    else if (record.ending === 'cut') note = t('note.endedEarly');
    else if (!autoRun()) note = t('note.autoRunOff');
  }
  if (!note && tracked.state === 'writing' && record.ending !== 'normal') {
    note = t(record.ending === 'stopped' ? 'note.stoppedIncomplete' : 'note.endedIncomplete');
  }
  if (tracked.state === 'unreadable') note = tracked.unreadable;
  return { actions, note };
}

/** A block key without its message part, for messages keyed by position (`p:`); null for keys of real message ids. */
export function positionFreeKey(key: string): string | null {
  const parts = key.split('|');
  if (parts.length < 5 || !isPositionKey(parts[parts.length - 3] ?? '')) return null;
  return [...parts.slice(0, -3), ...parts.slice(-2)].join('|');
}

/**
 * The block of `key` as the page shows it now: the one with that key, or — a site without message ids keys a message
 * by its position, which a virtual list that mounts other rows shifts — the newest one with the rest of that key
 * (site, conversation, index in the message, text). Null when the page shows it nowhere: the person edited their
 * message or had the reply written again, and another branch is shown in its place (or a virtual list unmounted it).
 */
export function shownBlock(records: Iterable<MessageRecord>, key: string): { record: MessageRecord; tracked: TrackedBlock } | null {
  const loose = positionFreeKey(key);
  let found: { record: MessageRecord; tracked: TrackedBlock } | null = null;
  for (const record of records) {
    if (!record.el.isConnected) continue;
    for (const tracked of record.blocks) {
      if (tracked.key === key) return { record, tracked };
      if (loose === null || positionFreeKey(tracked.key) !== loose) continue;
      if (!found || (found.record.el.compareDocumentPosition(record.el) & 4) !== 0) found = { record, tracked };
    }
  }
  return found;
}
