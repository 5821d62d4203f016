import type { Block } from '../../shared/protocols/types';
import { callSignature, decideAutoRun, type BlockState, type LoopGuard } from '../scanner/blocks';
import type { SiteSettings } from '../site-settings';
import type { MessageKey } from '../ui/i18n';
import type { MessageRecord, TrackedBlock } from './page-context';

/**
 * The page's decisions as pure functions of what the scan saw: whether a block at a place is still the same block,
 * whether a message that appeared is a live reply, which blocks of a finished reply auto-run, and what a chip
 * offers and says. No DOM, no storage, no timers: tests call them with plain objects.
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
  grewAfterFirstSeen: boolean;
}

/**
 * Whether a message that appeared at the end of the conversation is a live reply: seen while the site says a reply
 * is streaming and it is the newest message — or, without a site signal, seen growing. A virtual-list row
 * re-mounted with old text does neither. Only the newest message can be a streaming reply; others (history
 * loading in) stop being watched ('drop').
 */
export function candidateVerdict(c: CandidateView): 'live' | 'drop' | 'wait' {
  if (c.age > CANDIDATE_MAX_MS || (c.generating !== undefined && !c.isLatest && c.age > CANDIDATE_GRACE_MS)) return 'drop';
  const live = c.generating === true ? c.isLatest : c.generating === undefined && c.grewAfterFirstSeen;
  return live ? 'live' : 'wait';
}

/** A live reply whose current markdown has not been decided yet (a later change — regenerate, edit — decides again). */
export function isUndecided(record: Pick<MessageRecord, 'origin' | 'markdown' | 'handledMarkdown'>): boolean {
  return record.origin === 'live' && record.markdown !== null && record.handledMarkdown !== record.markdown;
}

export interface ClaimInput {
  settings: Pick<SiteSettings, 'enabled' | 'autoRun'>;
  record: Pick<MessageRecord, 'role' | 'origin' | 'blocks'>;
  /** Keys the ledger says ran in this conversation. */
  ran: ReadonlySet<string>;
  guard: Pick<LoopGuard, 'check' | 'record'>;
  conversation: string;
}

export interface ClaimOutcome {
  /** The blocks that auto-run now, in order (each recorded with the loop guard). */
  run: TrackedBlock[];
  /** Blocks refused for a reason the chip says (loop guard, already ran). */
  refused: Array<{ tracked: TrackedBlock; note: string | undefined; ranBefore: boolean }>;
}

/** DESIGN §6.2 over the ready blocks of a finished reply. */
export function claimBlocks(input: ClaimInput): ClaimOutcome {
  const { settings, record, ran, guard, conversation } = input;
  const outcome: ClaimOutcome = { run: [], refused: [] };
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
      loopGuard: guard.check(conversation, signature),
    });
    if (decision.run) {
      outcome.run.push(tracked);
      guard.record(conversation, signature);
    } else if (decision.reason === 'loop-guard' || decision.reason === 'already-ran') {
      outcome.refused.push({
        tracked,
        note: decision.detail ?? (decision.reason === 'already-ran' ? 'already ran before' : undefined),
        ranBefore: decision.reason === 'already-ran' || tracked.ranBefore,
      });
    }
  }
  return outcome;
}

export interface ChipView {
  actions: Array<'run' | 'stop' | 'rerun'>;
  note: string | undefined;
}

/** What a block's chip offers, and the note that says why a ready block did not run by itself. */
export function chipView(
  record: Pick<MessageRecord, 'origin'>,
  tracked: Pick<TrackedBlock, 'state' | 'ranBefore' | 'note' | 'unreadable'>,
  autoRun: () => boolean,
  t: (key: MessageKey) => string,
): ChipView {
  const actions: ChipView['actions'] = [];
  if (tracked.state === 'ready') actions.push(tracked.ranBefore ? 'rerun' : 'run');
  if (tracked.state === 'running' || tracked.state === 'approval' || tracked.state === 'queued') actions.push('stop');
  if (tracked.state === 'done' || tracked.state === 'failed') actions.push('rerun');
  let note = tracked.note;
  if (!note && tracked.state === 'ready') {
    if (record.origin === 'history') note = t('note.history');
    else if (!autoRun()) note = t('note.autoRunOff');
  }
  if (tracked.state === 'unreadable') note = tracked.unreadable;
  return { actions, note };
}
