import type { DoctorProblem } from '../companion/badge';
import { replyCodeProblem } from '../doctor/reply-code';
import { drawnCode, problemFor, safe, topProblem, type Attempt, type DoctorPageState, type ProblemCode } from '../doctor/report';
import { editorText, holdsText } from '../inject/insert';
import type { InsertResult } from '../inject/insert';
import type { SubmitResult } from '../inject/submit';
import type { MessageRecord, PageContext } from './page-context';
import { isUndecided } from './page-decide';

/**
 * The site doctor inside a running page: remembers how the last insert and submit went, watches for what the site
 * needs going missing (the chat box, a finished reply's code), and tells the background the moment a problem starts
 * or ends (`doctor-problem`: the toolbar badge shows "!" on this tab). The popup's doctor view reads `state()`.
 */

export interface PageDoctor {
  inserted(result: InsertResult): void;
  /** `text` is what was put in the box: while the box still holds it, an unverified submit is still a problem. */
  submitted(result: SubmitResult, text: string): void;
  /** A reply was decided (finished): are its code blocks readable? */
  replyFinished(record: MessageRecord): void;
  /**
   * The newest reply of a conversation as it opened: does the page draw its code as the module knows it? (A block a
   * code viewer shows only in part there is its chip's to say: scrolled away, not a changed page.)
   */
  replyShown(record: MessageRecord): void;
  setProblem(code: ProblemCode, problem: DoctorProblem | null): void;
  state(): DoctorPageState;
}

/** How often the chat box's presence is checked, and how many misses in a row make it a problem (a page re-rendering its composer is not one). */
const CHECK_MS = 1_000;
const MISSES = 2;
/**
 * Checks in a row a conversation is shown (its id in the address, a chat box) with no message the module finds before
 * that is a problem: the site changed its message markup. A conversation still loading shows its messages sooner.
 */
const EMPTY_CHECKS = 5;
/**
 * A live reply not decided yet, unchanged this long while the site still says it is being written: the site's
 * signal may be stuck (Gemini's stop icon can stay after a reply ends), and its blocks wait for nothing.
 */
export const STUCK_SIGNAL_MS = 60_000;

/**
 * How much text `root` shows outside the elements `skip` names (a reply's reasoning, buttons, our chips), counted up
 * to `upTo` characters.
 */
function shownChars(root: Element, skip: string, upTo: number): number {
  let shown = 0;
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node && shown < upTo; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').trim();
    if (text === '') continue;
    const skipped = node.parentElement?.closest(skip);
    if (!skipped || !root.contains(skipped)) shown += text.length;
  }
  return shown;
}

/**
 * A message no longer than this, with no code and no markdown drawn in it, may be a site's notice in the reply's
 * place ("Something went wrong", "The server is busy. Please try again later.", a network error): no answer body,
 * nothing in it to run. A reply's body, however short and whatever its class, draws its words as markdown does.
 */
const NOTICE_MAX_CHARS = 300;
const MARKDOWN_BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, table, [class*="paragraph"]';
/**
 * What marks a notice as the page's alert or error: a notice showing all its words inside one is a notice however
 * long, and also when it draws them as paragraphs (a heading, a line with a link to the site's status page).
 */
const NOTICE_MARK = '[role="alert"], [class*="error" i], [data-testid*="error" i]';

export function createPageDoctor(ctx: PageContext): PageDoctor {
  const { site, doc, bridge, signal, now } = ctx;
  const problems = new Map<ProblemCode, DoctorProblem>();
  let lastInsert: Attempt | null = null;
  let lastSubmit: Attempt | null = null;
  /** The text an unverified submit left in the box, and the user messages then: either changing means it went. */
  let unsent: { text: string; users: number } | null = null;
  /** User messages when a result was handed over on the clipboard: the person sending or pasting ends that problem. */
  let handedOver: number | null = null;
  let reported: DoctorProblem | null = null;
  let misses = 0;
  /** The address the chat box was last seen at (the app may move to a page of the site with none, in the same tab). */
  let composerSeenAt: string | null = null;
  let emptyChecks = 0;
  /** The address messages were last found at: a page that emptied its list there is a new chat, not renamed markup. */
  let messagesSeenAt: string | null = null;
  /** Checks in a row the same replies showed no answer the module finds (answerless), and how much they held then. */
  let answerlessChecks = 0;
  let answerlessSize = -1;
  /** Checks in a row a box holding text, or a page writing a reply, showed neither a send nor a stop control. */
  let sendMisses = 0;
  /** The newest reply as the last check saw it grow with no writing signal, and in how many checks in a row it grew so. */
  let unseenWriting: { record: MessageRecord; grown: number; checks: number } | null = null;
  /** Replies shown as they were (not seen being written), with the markdown the doctor looked at their code in. */
  const shownLooked = new WeakMap<MessageRecord, string | null>();

  const userCount = (): number => {
    try {
      return site.messages(doc).filter((m) => m.role === 'user').length;
    } catch {
      return 0;
    }
  };

  const generating = (): boolean | undefined => {
    try {
      return site.isGenerating(doc);
    } catch {
      return undefined;
    }
  };

  const messageCount = (): number => {
    try {
      return site.messages(doc).length;
    } catch {
      return 0;
    }
  };

  /**
   * Replies whose answer the module does not find: the newest message is a reply with text but no answer in it (and
   * no other reply has one), or a conversation of several messages has none read as a reply (a module that tells
   * replies by their answer, as DeepSeek's does, then takes them for the person's). null while the page writes: a
   * reply just begun, or still reasoning, has no answer yet; null too when the newest message shows nothing outside
   * what the module skips (a reply the person stopped while the model was reasoning holds only its reasoning), or
   * only what may be the site's notice in a reply's place (an error with no answer body: a few words, no code) — a
   * renamed markup is named by the next reply that holds more. `size` is what the replies held, so a reply still
   * changing is not counted yet.
   */
  /** A message that may be a site's notice in a reply's place: no code drawn, a few words or all of it marked as an alert or error. */
  const isNotice = (el: Element): boolean =>
    drawnCode(el).length === 0 &&
    (shownChars(el, `${site.skipSelector}, ${NOTICE_MARK}`, 1) === 0 ||
      (shownChars(el, site.skipSelector, NOTICE_MAX_CHARS + 1) <= NOTICE_MAX_CHARS &&
        !Array.from(el.querySelectorAll(MARKDOWN_BLOCKS)).some((block) => !block.closest(site.skipSelector) && shownChars(block, site.skipSelector, 1) > 0)));

  const answerless = (): { size: number; detail?: string } | null => {
    if (site.hosts.length === 0 || generating() === true) return null;
    const newest = ctx.lastMessageEl ? ctx.records.get(ctx.lastMessageEl) : undefined;
    if (!newest?.el.isConnected) return null;
    if (shownChars(newest.el, site.skipSelector, 1) === 0) return null;
    const answerOf = (el: Element): Element | null => {
      try {
        return site.answerRoot(el);
      } catch {
        return null;
      }
    };
    if (newest.role === 'assistant') {
      const size = (newest.el.textContent ?? '').trim().length;
      if (size === 0 || answerOf(newest.el) !== null) return null;
      // One reply without an answer among replies with one is a reply of another kind (an error notice, an image):
      // a renamed markup leaves every reply without it. Replies that are all such notices say nothing of the markup.
      let notices = true;
      for (const record of ctx.records.values()) {
        if (record.role !== 'assistant' || !record.el.isConnected) continue;
        if (record !== newest && answerOf(record.el) !== null) return null;
        notices &&= isNotice(record.el);
      }
      return notices ? null : { size };
    }
    let messages = 0;
    for (const record of ctx.records.values()) {
      if (!record.el.isConnected) continue;
      if (record.role === 'assistant') return null;
      messages += 1;
    }
    if (messages < 2) return null;
    // The newest of messages all read as the person's may be a notice in the reply's place: with no code drawn on the
    // page (a reply the module no longer finds as a message still draws its code), nothing says a markup was renamed.
    if (isNotice(newest.el) && drawnCode(doc.body).length === 0) return null;
    return { size: messages, detail: ctx.t('doctor.detailNoReplies') };
  };

  /**
   * The send control is missing: the box holds text, or the page says a reply is being written, and neither a send
   * nor a stop control is found. Some sites draw none while the box is empty and idle (ChatGPT, Gemini): that needs
   * none. The generic adapter's guess at a send button is no contract: a page without one is sent with Enter.
   */
  const sendMissing = (editor: HTMLElement): boolean => {
    if (site.hosts.length === 0) return false;
    try {
      if (site.sendButton(doc) || site.stopControl(doc)) return false;
    } catch {
      return false;
    }
    return generating() === true || editorText(editor).trim() !== '';
  };

  /**
   * A reply the person's send started grows in the page while the site says nothing is being written and shows no
   * stop control: the site renamed its stop control, which is its writing signal (ChatGPT, Gemini: their send control
   * is gone while the box is empty, so the send check sees nothing missing). Named as it streams, once it grew in
   * MISSES checks in a row; the page's own verdict (page-scan, writingSignal) comes only when it gives up waiting on
   * the reply, and ends the problem once a reply is seen being written. Once a reply to the send ended, a reply drawn
   * after it came from no send of this tab (the conversation's other tab sent it; the composer here is idle). On sites whose only writing signal is the stop
   * control (OpenRouter, T3 Chat: their module says undefined without it) the reply is then decided by its text
   * standing still, and a Stop pressed on the renamed control is not seen: that is named too. The generic adapter
   * has no stop control to miss.
   */
  const writingUnseen = (): boolean => {
    const newest = ctx.lastMessageEl ? ctx.records.get(ctx.lastMessageEl) : undefined;
    const waiting =
      site.hosts.length > 0 &&
      newest !== undefined &&
      newest.role === 'assistant' &&
      newest.candidate &&
      !newest.seenGenerating &&
      newest.el.isConnected &&
      ctx.lastSendAt !== Number.NEGATIVE_INFINITY &&
      ctx.lastSendAt <= newest.firstSeenAt &&
      ctx.replyEndedAt <= ctx.lastSendAt;
    if (!waiting || generating() === true || safe(() => site.stopControl(doc), null) !== null) {
      unseenWriting = null;
      return false;
    }
    const grew = unseenWriting?.record === newest && newest.timesGrown > unseenWriting.grown;
    unseenWriting = { record: newest, grown: newest.timesGrown, checks: grew ? unseenWriting!.checks + 1 : 0 };
    return unseenWriting.checks >= MISSES;
  };

  /**
   * The newest message of the conversation shown, when it is a reply shown as it was (not one being written here, which
   * the doctor looks at as it finishes) that the doctor has not looked at as it reads now: a conversation opened
   * without a reload (from the new chat page, from another conversation) is looked at as it opens, as the first one
   * was — its code read or named, and what the conversation before it had no longer said.
   */
  const shownReply = (): MessageRecord | null => {
    const newest = ctx.lastMessageEl ? ctx.records.get(ctx.lastMessageEl) : undefined;
    if (!newest || newest.role !== 'assistant' || newest.origin !== 'history' || !newest.el.isConnected || newest.markdown === null) return null;
    if (shownLooked.has(newest) && shownLooked.get(newest) === newest.markdown) return null;
    // A reply drawn after a send may be the one being written (it is decided live, and looked at then).
    if (newest.candidate && ctx.lastSendAt !== Number.NEGATIVE_INFINITY && ctx.lastSendAt <= newest.firstSeenAt) return null;
    return generating() === true ? null : newest;
  };

  const report = (): void => {
    const top = topProblem([...problems.values()]);
    if (top?.code === reported?.code && top?.message === reported?.message) return;
    reported = top;
    bridge.ask('doctor-problem', { problem: top }).catch((error: unknown) => ctx.reportOnce('telling the badge about a problem failed', error));
  };

  const setProblem = (code: ProblemCode, problem: DoctorProblem | null): void => {
    if (code === 'insert-failed') handedOver = problem ? userCount() : null;
    if (problem) problems.set(code, problem);
    else problems.delete(code);
    report();
  };

  const lookAtShown = (record: MessageRecord): void => {
    shownLooked.set(record, record.markdown);
    setProblem('code-unreadable', safe(() => replyCodeProblem(site, record.el, []), null));
  };

  const check = (): void => {
    let editor: HTMLElement | null = null;
    try {
      editor = site.editor(doc);
    } catch {
      editor = null;
    }
    const here = ctx.deps.location.pathname;
    if (editor) composerSeenAt = here;
    misses = editor ? 0 : misses + 1;
    // The person's conversation the page shows (null: a new chat, or a page of the site that is none of the person's
    // conversations — settings, a shared conversation). The generic adapter has no conversation ids, only paths.
    let conversation: string | null = null;
    try {
      conversation = site.hosts.length > 0 ? site.conversationId(ctx.deps.location) : null;
    } catch {
      conversation = null;
    }
    // A page of the site that is no chat (settings, a gallery, a shared conversation anyone can read) has no box and
    // needs none, also when the person went there from a chat: only a box that went away from its page, or one of the
    // person's conversations shown without one, is a problem — with its messages, or with none found either for as
    // long as a conversation takes to show them (a build that renamed both).
    const shown = conversation !== null || site.hosts.length === 0;
    const needed = misses === 0 || composerSeenAt === here || (shown && (messageCount() > 0 || (conversation !== null && misses >= EMPTY_CHECKS)));
    if ((misses === 0 || !needed) && problems.has('no-composer')) setProblem('no-composer', null);
    else if (misses >= MISSES && needed && !problems.has('no-composer')) setProblem('no-composer', problemFor('no-composer'));
    sendMisses = editor && sendMissing(editor) ? sendMisses + 1 : 0;
    const noSend = sendMisses >= MISSES;
    if (noSend !== problems.has('no-send-control')) setProblem('no-send-control', noSend ? problemFor('no-send-control') : null);
    // A conversation shown with its chat box in which no message is found: nothing in it is read, nothing runs.
    const hasMessages = (): boolean => {
      for (const record of ctx.records.values()) if (record.el.isConnected) return true;
      return messageCount() > 0;
    };
    // Gemini's "New chat" empties the list and keeps the old conversation's address until the first send: messages
    // found at this address before mean the markup is read, and the page only emptied its view.
    const found = hasMessages();
    if (found) messagesSeenAt = here;
    if (conversation === null || found || messagesSeenAt === here) emptyChecks = 0;
    else if (editor) emptyChecks += 1;
    const noMessages = emptyChecks >= EMPTY_CHECKS;
    if (noMessages !== problems.has('no-messages')) setProblem('no-messages', noMessages ? problemFor('no-messages') : null);
    const unanswered = answerless();
    answerlessChecks = unanswered === null ? 0 : unanswered.size === answerlessSize ? answerlessChecks + 1 : 1;
    answerlessSize = unanswered?.size ?? -1;
    const noAnswer = answerlessChecks >= EMPTY_CHECKS ? unanswered : null;
    if ((noAnswer !== null) !== problems.has('no-answer')) setProblem('no-answer', noAnswer ? problemFor('no-answer', noAnswer.detail) : null);
    if (handedOver !== null && (userCount() > handedOver || (editor && editorText(editor).trim() !== ''))) setProblem('insert-failed', null);
    let stuck = false;
    for (const record of ctx.records.values()) {
      if (isUndecided(record) && record.el.isConnected && now() - record.lastChangeAt >= STUCK_SIGNAL_MS) {
        stuck = generating() === true;
        break;
      }
    }
    if (writingUnseen() && !problems.has('no-writing-signal')) setProblem('no-writing-signal', problemFor('no-writing-signal'));
    if (stuck !== problems.has('writing-signal-stuck')) setProblem('writing-signal-stuck', stuck ? problemFor('writing-signal-stuck') : null);
    if (unsent && (!editor || !holdsText(editor, unsent.text) || userCount() > unsent.users)) {
      // The person pressed Enter (or cleared the box): nothing is waiting to be sent any more.
      unsent = null;
      setProblem('submit-unverified', null);
    }
    const opened = shownReply();
    if (opened) lookAtShown(opened);
  };
  // A page starting (a reload, the site switched on) starts clean: the tab's badge may still show the last page's problem.
  bridge.ask('doctor-problem', { problem: null }).catch(() => undefined);
  const timer = setInterval(check, ctx.deps.doctorCheckMs ?? CHECK_MS);
  // Seen at once: a box the page takes away before the first interval was still there.
  check();
  signal.addEventListener(
    'abort',
    () => {
      clearInterval(timer);
      // The page no longer runs here (site switched off, navigation): its problems go with it.
      if (reported) void bridge.ask('doctor-problem', { problem: null }).catch(() => undefined);
    },
    { once: true },
  );

  return {
    inserted(result) {
      lastInsert = result.ok ? { ok: true, method: result.method, at: now() } : { ok: false, reason: result.reason.slice(0, 300), at: now() };
      if (result.ok) setProblem('insert-failed', null);
    },
    submitted(result, text) {
      lastSubmit = result.ok ? { ok: true, method: result.method, at: now() } : { ok: false, reason: result.reason.slice(0, 300), at: now() };
      unsent = result.ok ? null : { text, users: userCount() };
      setProblem('submit-unverified', result.ok ? null : problemFor('submit-unverified'));
    },
    replyFinished(record) {
      if (record.role !== 'assistant') return;
      // A block the protocol leaves unrun (a second plan) is no code the page failed to show.
      setProblem('code-unreadable', replyCodeProblem(site, record.el, record.blocks.filter((b) => !b.block.inert)));
      // A reasoning section the module did not place holds nothing of the answer by the module's account: named until
      // a reply is decided without one.
      setProblem('reasoning-unplaced', record.unplacedReasoning === null ? null : problemFor('reasoning-unplaced', record.unplacedReasoning));
    },
    replyShown(record) {
      if (record.role === 'assistant') lookAtShown(record);
    },
    setProblem,
    state() {
      const latest = [...ctx.records.values()].filter((r) => r.role === 'assistant' && r.el.isConnected).at(-1);
      return {
        running: true,
        lastInsert,
        lastSubmit,
        lastReplyBlocks: latest
          ? latest.blocks.map((b) => ({ kind: b.block.kind, state: b.state, ...(b.unreadable ? { unreadable: b.unreadable.slice(0, 300) } : {}) }))
          : null,
        problems: [...problems.values()],
      };
    },
  };
}
