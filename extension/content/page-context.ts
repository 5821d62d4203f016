import { UNSAVED_CONVERSATION_PREFIX } from '../../shared/conversation-key';
import type { Block } from '../../shared/protocols/types';
import type { RequestMap, RequestType, PagePush } from '../messaging';
import { LoopGuard, type BlockState, type MessageOrigin, type ReplyEnding, type RunLedger } from '../scanner/blocks';
import type { SerializedMessage } from '../scanner/serialize';
import type { SiteSettings } from '../site-settings';
import { isPositionKey, type MessageRole, type Site } from '../sites/define-site';
import { hashText } from '../../shared/protocols';
import type { DoctorPageState } from '../doctor/report';
import type { Chip, ChipApproval, ChipProgress } from '../ui/chip';
import { t, type MessageKey } from '../ui/i18n';
import type { PageTheme } from '../ui/page-theme';
import { escapedSince } from './page-decide';
import type { RunLatestReply } from './run-latest';

/**
 * What the parts of one chat page share: the page's dependencies, the records of the messages it tracks and the
 * conversation it is in. The parts follow the data: page-scan.ts (messages → records and blocks, live or history),
 * page-decide.ts (pure rules: what runs, what a chip offers), page-dispatch.ts (runs through the background),
 * page-deliver.ts (results into the chat box), page-show.ts (chips); page.ts wires them to the page's events.
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
  /** Puts a result the chat box would not take on the clipboard (default: the async clipboard API). */
  copy?: (text: string) => Promise<void>;
  /**
   * How long a result waits for the chat box to appear, for the reply being written to end, and for the send control
   * (tests shorten them).
   */
  deliverWaitMs?: { editor?: number; writing?: number; sendButton?: number; verify?: number };
  /** How often the site doctor looks at the page (default every second; tests shorten it). */
  doctorCheckMs?: number;
  /** The first scan's slice budget in milliseconds (tests make it 0: one message per slice). */
  firstScanSliceMs?: number;
  /** How a first-scan slice gives the page its turn (default: scanner/slices.ts yieldToPage). */
  yieldToPage?: () => Promise<void>;
  /**
   * The tab's own storage (sessionStorage: kept across the tab's reloads, not seen by its other tabs), where the name
   * of the new chat it shows is kept (newChatName). Without it each page names its new chat afresh.
   */
  tabStorage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | undefined;
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
  /** the latest progress its running call reported (tool-progress events) */
  progress?: ChipProgress | undefined;
  ranBefore: boolean;
  reruns: number;
  /**
   * The reply ended while this block was being written and its JSON stops short (the page closed the fence for
   * display): Run still sends it as it stands, its answer is not put into the chat. Set when the reply is decided.
   */
  cut?: boolean | undefined;
  /**
   * The block's result, which neither the chat box nor the clipboard took (no box on the page, the window not focused):
   * the ledger still owes it, and the chip offers Insert and Copy for it — also after a reload, which follows the run
   * again (page-dispatch.ts resumeUndelivered).
   */
  offered?: string | undefined;
}

/** The person stopped a reply while it was generated: when, and how (a click on the stop control, or Escape). */
export interface StopMark {
  at: number;
  by: 'control' | 'escape';
}

/**
 * An Escape the person pressed while a reply this page follows was being written, and whether it stopped that reply:
 * null until the reply ends (page-decide.ts escapedSince).
 */
export interface Escape {
  stop: StopMark;
  record: MessageRecord;
  stopped: boolean | null;
}

export interface MessageRecord {
  el: Element;
  role: MessageRole;
  /** Index among the messages when first seen (the message key of sites without ids). */
  position: number;
  origin: MessageOrigin;
  /** Appeared at the end of the conversation after the page was scanned: may become live. */
  candidate: boolean;
  /** The site's "generating" signal was on while this was the newest message (its turning off finishes it). */
  seenGenerating: boolean;
  firstSeenAt: number;
  /**
   * Since when this page saw the reply's turn: when the person's message it answers arrived, when the page saw that
   * (the site may show its stop control from the send on, before the reply's row); else firstSeenAt.
   */
  turnSeenAt: number;
  /**
   * The message key of the person's message this reply was drawn right after, at the end of the conversation (null
   * when the page did not see it so): a Stop another tab told under it, pressed before that tab drew the reply's row,
   * is this reply's (page-decide.ts stoppedElsewhere).
   */
  answers: string | null;
  lastChangeAt: number;
  /** How many scans found its text changed since it was first seen (a reply being written: many; one mounted: one). */
  timesGrown: number;
  /** The answer's text as last scanned (what tells a change); null before the first scan. */
  text: string | null;
  /** Its markdown, when it may hold blocks ('' when it cannot); null before the first scan. */
  markdown: string | null;
  /** What the last scan serialized (the blocks' places in the page); null before the first scan. */
  serialized: SerializedMessage | null;
  /** Its blocks are outlines (kind, place, complete or not), not read yet: a live reply until it is decided. */
  outlined: boolean;
  blocks: TrackedBlock[];
  /**
   * The label of a reasoning section the site module did not place, whose code is read as answer (scanner/reasoning.ts,
   * a redesign renamed what the module knows it by): none of the reply's blocks runs by itself. null when none.
   */
  unplacedReasoning: string | null;
  /**
   * The site asks the person which of the candidate replies drawn in this message to keep (Site.pendingChoice), as the
   * last scan saw it: none of its blocks runs by itself; the person's pick is decided as any finished reply.
   */
  choicePending: boolean;
  /** The markdown of each candidate reply seen while the choice was pending: those not picked never run (page-scan.ts). */
  candidates: Set<string>;
  /** The markdown the reply's auto-run was decided on; a later change (regenerate, edit) decides again. */
  handledMarkdown: string | null;
  /** The person stopped this reply (kept for the element's life: a stopped reply stays stopped, until continued). */
  stop: StopMark | null;
  /**
   * When the site began writing this reply again after the person stopped it ("Continue", a regenerate drawn in the
   * same message); null when it never did. A Stop from before it is not this writing's.
   */
  continuedAt: number | null;
  /** How the reply ended, set when it is decided ('normal' until then and after any later change). */
  ending: ReplyEnding;
  /**
   * A reply from before this page (history) as the page last saw it while it was the newest message and the site wrote
   * nothing: what tells the site writing it afresh in its own message (a regenerate drawn in place), which makes it live
   * (page-scan.ts rewrittenInPlace). null for live replies and until the page saw it so.
   */
  idle: IdleReply | null;
  /**
   * It was history until the site wrote it afresh in its own message: the message also holds versions written before
   * this page, which the site's arrows may show again (page-scan.ts scan).
   */
  olderVersions: boolean;
}

/** A history reply at rest as the newest message (MessageRecord.idle). */
export interface IdleReply {
  text: string;
  markdown: string;
  /** Its message key then (a site may give the new writing another id) and how it had ended (a Stop recalled). */
  key: string;
  ending: ReplyEnding;
  /** The conversation shown then (ctx.epoch), and the person's Stops counted by then (ctx.personStops). */
  epoch: number;
  stops: number;
}

/**
 * The person's Stops as of a moment (when a run or a delivery began): how many this page counted, and the time, for
 * the Stops other tabs of the conversation tell through the ledger. A Stop since then means nothing is sent.
 */
export interface StopsMark {
  count: number;
  at: number;
}

export interface PageController {
  records(): MessageRecord[];
  conversationId(): string | null;
  /** What the site doctor knows of this page beyond its DOM (the last insert/submit, its problems). */
  doctor(): DoctorPageState;
  /** Runs one scan + finish check now (tests; normally driven by the observer and a timer). */
  flush(): Promise<void>;
  /** The keyboard command: runs the latest block waiting for Run (run-latest.ts), as a click on its Run would. */
  runLatest(): Promise<RunLatestReply>;
  /**
   * The extension was reloaded or updated under this page: its content script reaches it no more (every request throws
   * "Extension context invalidated"). Under each block the chat is still owed a result of (a run going on, an
   * approval waiting) a notice says so, with no button that could no longer work, and stays when the page is stopped
   * right after; the page's reload brings the result (the ledger owes it) and runs nothing again.
   */
  cutOff(): void;
}

export interface PageContext {
  readonly signal: AbortSignal;
  readonly deps: PageDeps;
  readonly site: Site;
  readonly doc: Document;
  readonly bridge: PageBridge;
  readonly ledger: RunLedger;
  readonly now: () => number;
  readonly loopGuard: LoopGuard;
  readonly t: (key: MessageKey, substitutions?: Array<string | number>) => string;
  readonly records: Map<Element, MessageRecord>;
  /** Records the timer looks at: candidates not yet known live or history, and live replies not yet handled. */
  readonly active: Set<MessageRecord>;
  /** Message keys seen live: the same message re-rendered as a new element stays live. */
  readonly liveKeys: Set<string>;
  /**
   * Message keys of replies the person stopped: the same reply mounted again as a new element (a virtual list, the
   * site's branch arrows) is still stopped — it never auto-runs nor auto-submits.
   */
  readonly stops: Map<string, StopMark>;
  /**
   * Replies the person stopped before this page (or before the conversation was opened) whose key is a position, by
   * what they said (page-decide.ts stoppedReplyText): a position may name another message now.
   */
  readonly stoppedTexts: Map<string, StopMark>;
  /**
   * Message keys of replies decided in this page, with the markdown decided on and how the reply ended: the same
   * reply mounted again with that markdown is not decided again (what did not auto-run then — auto-run off, the loop
   * guard, a stop — does not run now). `versions`: each markdown decided for the message and how it ended (a reply
   * the site wrote again in the same message: an earlier version its arrows show again is not decided again either;
   * page-decide.ts keepDecided).
   */
  readonly decided: Map<string, { markdown: string; ending: ReplyEnding; versions: Map<string, ReplyEnding> }>;
  /**
   * Block keys of replies decided stopped: a block the reply held when the person stopped it never auto-runs, also
   * once the person has the model continue the reply (what it writes after that may run, once).
   */
  readonly heldByStop: Set<string>;
  conversation: string | null;
  /**
   * The new chat this page shows while `conversation` is null: the address it was opened at and its name
   * (newChatName). Another tab's new chat, or this tab's next one, is another conversation, with its own runs in the
   * ledger; the same chat once the site gave it its id (its address changed) is the one that was opened here.
   */
  newChat: string;
  /**
   * Settles once this page knows the name of the new chat it started in (null: known at once): a name kept in the
   * tab's storage that a live page goes by is the other tab's (holdNewChatName).
   */
  readonly newChatNamed: Promise<void> | null;
  /** Another new chat opened in this tab: named afresh, and the name held as this page's (holdNewChatName). */
  openNewChat(): void;
  switchedAt: number;
  /** Bumped on every conversation switch (not when a new chat gets its id): results never cross it. */
  epoch: number;
  /**
   * Bumped each time the person stops a reply (page-stop.ts; an Escape on a reply this page follows is in `escapes`): a
   * result whose run or delivery began before a stop is typed in and never sent — whichever reply the stop was for (a
   * turn written as several messages, a late result).
   */
  personStops: number;
  /**
   * Escapes pressed on a reply this page follows, which count as Stops for results (stoppedSince) only when they
   * stopped it: Escape also closes menus, and a reply written on after it was not stopped. personStops counts the
   * other Stops (a click on the stop control; an Escape with no reply of this page to tell by).
   */
  readonly escapes: Escape[];
  /**
   * When the Escapes in `escapes` were pressed, as told to the conversation's other tabs at once (SharedStop.escape):
   * this tab judges them by `escapes`, not by what the ledger keeps of them.
   */
  readonly escapesTold: Set<number>;
  /**
   * A Stop pressed while the newest message was still the person's own (the site shows its stop control from the
   * send on, before the reply's row is drawn): the reply drawn right after it is stopped (page-scan.ts).
   */
  stopBeforeReply: StopMark | null;
  /** The person's Stops as of now (StopsMark). */
  stopsMark(): StopsMark;
  /** Whether the person pressed Stop since `mark`, in this tab or another of the conversation (the ledger). */
  stoppedSince(mark: StopsMark): Promise<boolean>;
  /** Whether the person pressed Stop in this tab since `mark` (what stoppedSince knows without reading the ledger). */
  stoppedHereSince(mark: StopsMark): boolean;
  /**
   * When a message was last sent in this conversation: the person's Enter in the chat box or click on the send
   * control, or our own auto-submit. On a site that never says it is writing, only a reply that appears after a send
   * can be live — a saved conversation the site renders in after the page started grows too (page-decide.ts).
   */
  lastSendAt: number;
  /**
   * When a live reply was last found finished. On a site without the signal, a message that appears after a reply to
   * the last send already ended (a regenerate, or an earlier branch switched back to) must be seen being written.
   */
  replyEndedAt: number;
  /** The newest message element at the end of the conversation (only it can be a streaming reply). */
  lastMessageEl: Element | null;
  /** The person's MCP servers' tools (`<server>.<tool>`) as the companion lists them: not unknown tools here. */
  externalTools: ReadonlySet<string>;
  /** Light or dark, as the page shows itself now (page.ts follows it): the chips are drawn to match. */
  theme: PageTheme;
  /** Logs each distinct error once: one failing message or block never stops the page. */
  reportOnce(what: string, error: unknown): void;
  /** The conversation id, or a stand-in for a new chat that has none yet. */
  conversationKey(): string;
  /**
   * Tells the conversation's other tabs that the person stopped a reply (its message key, when): another tab showing
   * the same reply (the site streams it to each) runs and sends none of it. The Stop is told with its time: a position
   * key can name another message in another tab's virtual list, so there the time tells the reply
   * (page-decide.ts stoppedElsewhere). `escape`: an Escape, told as it is pressed, which the other tabs judge by the
   * reply's last change (SharedStop.escape).
   */
  shareStop(messageKey: string, at: number, text?: string, escape?: boolean): void;
  messageKeyOf(record: MessageRecord): string;
  /**
   * The message key a reply's blocks are told by (their keys in the ledger, their runs in the companion): its message
   * key, and where that is a position, the person's message it answers too — an edit of that message draws another
   * branch at the same position, whose blocks are new ones even where they write the same call.
   */
  runKeyOf(record: MessageRecord): string;
}

export function createPageContext(signal: AbortSignal, deps: PageDeps): PageContext {
  const { site } = deps;
  /** What the person's message before each reply said, hashed (runKeyOf), read once per record. */
  const askedOf = new WeakMap<MessageRecord, string>();
  const reported = new Set<string>();
  const holdName = holdNewChatName(signal, deps.doc);
  const keptName = newChatName(deps.tabStorage, false);
  const kept = holdName(keptName);
  const conversation = site.conversationId(deps.location);
  // Named afresh when a live page goes by the kept name, unless this page opened another new chat since.
  const named =
    kept &&
    kept.then((ours) => {
      if (!ours && !signal.aborted && ctx.newChat.endsWith(`#${keptName}`)) ctx.openNewChat();
    });
  const ctx: PageContext = {
    signal,
    deps,
    site,
    doc: deps.doc,
    bridge: deps.bridge,
    ledger: deps.ledger,
    now: deps.now ?? Date.now,
    loopGuard: deps.loopGuard ?? new LoopGuard(),
    t,
    records: new Map(),
    active: new Set(),
    liveKeys: new Set(),
    stops: new Map(),
    stoppedTexts: new Map(),
    decided: new Map(),
    heldByStop: new Set(),
    conversation,
    newChat: `${deps.location.pathname}#${keptName}`,
    // Waited for only where the page opens on a new chat: elsewhere the name is not used before the answer comes.
    newChatNamed: conversation === null ? named : null,
    openNewChat: () => {
      const name = newChatName(deps.tabStorage, true);
      ctx.newChat = `${deps.location.pathname}#${name}`;
      void holdName(name);
    },
    switchedAt: Number.NEGATIVE_INFINITY,
    epoch: 0,
    personStops: 0,
    escapes: [],
    escapesTold: new Set(),
    stopBeforeReply: null,
    stopsMark: () => ({ count: ctx.personStops, at: ctx.now() }),
    stoppedHereSince: (mark) => ctx.personStops !== mark.count || escapedSince(ctx.escapes, mark.at),
    // Here again once the ledger was read: a Stop pressed here meanwhile may be written there only after the read.
    stoppedSince: async (mark) =>
      ctx.stoppedHereSince(mark) ||
      (await ctx.ledger.stops(ctx.conversationKey())).some((stop) => stop.at >= mark.at && !(stop.escape && ctx.escapesTold.has(stop.at))) ||
      ctx.stoppedHereSince(mark),
    lastSendAt: Number.NEGATIVE_INFINITY,
    replyEndedAt: Number.NEGATIVE_INFINITY,
    lastMessageEl: null,
    externalTools: new Set(),
    theme: 'light',
    reportOnce(what, error) {
      const line = `${what}: ${error instanceof Error ? error.message : String(error)}`;
      if (reported.has(line)) return;
      reported.add(line);
      console.warn(`[chatbridge] ${line}`);
    },
    // A site module without hosts of its own (the generic adapter) runs on every host the person enabled, all posting
    // as the same site: its conversation is named with the host, or one enabled site would share another's
    // conversation — its "Approve for this conversation" grants, its earlier runs, its ledger.
    conversationKey: () => {
      const host = site.hosts.length === 0 ? hostOf(deps.location.href) : '';
      return ctx.conversation !== null ? `${host}${ctx.conversation}` : `${UNSAVED_CONVERSATION_PREFIX}${host}${ctx.newChat}`;
    },
    shareStop: (messageKey, at, text, escape = false) => {
      // A chat without an id yet is open in this tab only: no other tab to tell (page.ts tells its Stops once it has one).
      if (ctx.conversation === null) return;
      void ctx.ledger.markStopped(ctx.conversationKey(), messageKey, at, text, escape).catch((error: unknown) => ctx.reportOnce('updating the run ledger failed', error));
    },
    messageKeyOf: (record) => site.messageKey(record.el, record.position),
    runKeyOf: (record) => {
      const key = ctx.messageKeyOf(record);
      if (!isPositionKey(key)) return key;
      let asked = askedOf.get(record);
      if (asked === undefined) {
        asked = hashText(askedBefore(site, record.el)?.textContent?.trim() ?? '');
        askedOf.set(record, asked);
      }
      return `${key}@${asked}`;
    },
  };
  return ctx;
}

/**
 * The person's message a message comes after: the nearest message before it in the page whose role is the person's
 * (the model's messages of the same turn are passed over); null when there is none.
 */
function askedBefore(site: Site, el: Element): Element | null {
  for (let node: Element | null = el; node && node !== el.ownerDocument.body; node = node.parentElement) {
    for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
      const messages = sibling.matches(site.messageSelector) ? [sibling] : Array.from(sibling.querySelectorAll(site.messageSelector));
      for (let i = messages.length - 1; i >= 0; i--) if (site.roleOf(messages[i]!) === 'user') return messages[i]!;
    }
  }
  return null;
}

const NEW_CHAT_ITEM = 'chatbridge:new-chat';

/**
 * Holds the Web Lock of the new chat's name a page goes by, for as long as it goes by it (Web Locks are the origin's,
 * seen from every tab, and let go when the page goes: at pagehide, or as its renderer ends, as a crash ends it with no
 * pagehide). A tab the browser duplicates copies the storage of a live page, the name included: the
 * name's lock is held then, and the copy's page names a new chat of its own. A kept name no page holds is this tab's
 * own page again — reloaded, also after a crash — and keeps the name, with the runs it still owes the chat.
 * Resolves whether the name is this page's (true also where the lock cannot be asked for); null without Web Locks,
 * where the kept name is kept.
 */
function holdNewChatName(signal: AbortSignal, doc: Document): (name: string) => Promise<boolean> | null {
  const locks = globalThis.navigator?.locks;
  if (!locks) return () => null;
  let held: { name: string; release: () => void } | null = null;
  const letGo = (): void => {
    held?.release();
    held = null;
  };
  const hold = (name: string): Promise<boolean> => {
    letGo();
    const entry: { name: string; release: () => void } = { name, release: () => undefined };
    held = entry;
    return new Promise<boolean>((resolve) => {
      locks
        .request(`chatbridge:new-chat:${name}`, { ifAvailable: true }, (lock) => {
          resolve(lock !== null);
          // Let go already: another name is held since, or the page stopped.
          if (lock === null || held !== entry) return undefined;
          return new Promise<void>((release) => (entry.release = release));
        })
        .catch(() => resolve(true));
    });
  };
  const view = doc.defaultView;
  let hidden: string | null = null;
  view?.addEventListener(
    'pagehide',
    () => {
      hidden = held?.name ?? null;
      letGo();
    },
    { signal },
  );
  // Back from the browser's page cache: going by its name again.
  view?.addEventListener('pageshow', (event) => event.persisted && hidden !== null && void hold(hidden), { signal });
  signal.addEventListener('abort', letGo, { once: true });
  return (name) => (signal.aborted ? Promise.resolve(true) : hold(name));
}
const NEW_CHAT_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The name of the new chat (no conversation id yet) a tab shows: the one kept in the tab's storage, so a reload is
 * still the same chat, or (`fresh`: the person opened another new chat) a new one, kept from then on. Every new chat
 * of a site is at the same address, and a site without message ids keys its first reply by its place: under one
 * shared name, a block another tab's new chat ran counted as run in this one, which then never ran it. A kept name
 * a live page goes by was copied with a tab the browser duplicated: the name is that tab's (holdNewChatName).
 */
function newChatName(storage: PageDeps['tabStorage'], fresh: boolean): string {
  try {
    const kept = fresh ? null : storage?.getItem(NEW_CHAT_ITEM);
    if (kept && NEW_CHAT_NAME.test(kept)) return kept;
  } catch {
    // storage the page does not let us read: this page's own name
  }
  const name = crypto.randomUUID();
  try {
    storage?.setItem(NEW_CHAT_ITEM, name);
  } catch {
    // not kept: a reload names the chat afresh
  }
  return name;
}

function hostOf(href: string): string {
  try {
    return new URL(href).host;
  } catch {
    return '';
  }
}
