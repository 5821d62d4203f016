import { CHATBRIDGE_HOST_SELECTOR, messageElementOf, type Site } from '../sites/define-site';

/**
 * The ONE MutationObserver per page. It maps every mutation to the message it happened in and reports each changed
 * message once per batch, so the work done per streamed token is proportional to that message — never to the page.
 */

export interface PageChanges {
  /** Messages whose content changed (including ones just added). */
  changed: Set<Element>;
  /** Elements matching the message selector that appeared in this batch (the caller tells messages from wrappers). */
  added: Element[];
  /** Some message element left the page (virtual list, re-render, conversation switch). */
  removed: boolean;
  /** When the page made the batch's last change (the flush may come later: scans are spaced out while text streams). */
  at: number;
}

export interface ObserveOptions {
  root: Node;
  /** `codeBlockSelector`: a code block going in or out holds no message, so its subtree is not searched for one. */
  site: Pick<Site, 'messageSelector' | 'messageNesting'> & Partial<Pick<Site, 'codeBlockSelector'>>;
  onChanges: (changes: PageChanges) => void;
  signal: AbortSignal;
  /** Defers the batch (default: a zero timeout, so bursts of records become one flush). */
  schedule?: (flush: () => void) => void;
  now?: () => number;
  /**
   * The page changed something outside every message (and outside our own UI): called once per observer callback,
   * at once, never batched. The site's "generating" control swapping back to send is such a change — how a reply is
   * seen finished the moment the site says so, without looking at the control on every token.
   */
  onOutside?: () => void;
  /**
   * The message a reply is being written into, if any. A change inside it is that message's change and nothing
   * more: new messages arrive beside it, not inside it, so what a token adds or takes out there is not searched for
   * messages (touching each new node from the content script's world was most of the observer's cost per token).
   */
  streaming?: () => Element | null;
}

/** The most messages a turn's own container holds (a comparison's candidates and their turn): more is a list. */
const MESSAGES_OF_A_TURN = 4;

export function observeMessages(options: ObserveOptions): { flushNow(): void } {
  const { site } = options;
  const { messageSelector } = site;
  // A streamed token usually re-renders the code block it is in: searching that subtree for messages (on the way in
  // and on the way out) was the observer's largest cost per token. A code block never holds a message.
  const codeBlock = site.codeBlockSelector;
  const mayHoldMessages = (el: Element): boolean => el.firstElementChild !== null && !(codeBlock !== undefined && el.matches(codeBlock));
  const now = options.now ?? Date.now;
  const empty = (): PageChanges => ({ changed: new Set(), added: [], removed: false, at: 0 });
  let pending = empty();
  let scheduled = false;
  const schedule = options.schedule ?? ((fn: () => void) => void setTimeout(fn, 0));

  const flush = (): void => {
    scheduled = false;
    if (options.signal.aborted) return;
    const batch = pending;
    pending = empty();
    if (batch.changed.size > 0 || batch.added.length > 0 || batch.removed) options.onChanges(batch);
  };

  const isOurs = (node: Node): boolean => node.nodeType === 1 && (node as Element).matches(CHATBRIDGE_HOST_SELECTOR);
  const addMessage = (el: Element): void => {
    pending.added.push(el);
    pending.changed.add(messageElementOf(site, el) ?? el);
  };

  const observer = new MutationObserver((records) => {
    let outside = false;
    // A streamed token is often several records on one node: its message is looked up once.
    let lastTarget: Element | null = null;
    let lastMessage: Element | null = null;
    const hot = options.streaming?.() ?? null;
    for (const record of records) {
      if (hot !== null && record.target !== hot && hot.contains(record.target)) {
        pending.changed.add(hot);
        continue;
      }
      if (record.type === 'childList') {
        const { addedNodes, removedNodes } = record;
        // Our own chip going in is not a change of the message; our chip being taken out (a re-render) is,
        // so the scan puts it back.
        let onlyOurs = removedNodes.length === 0 && addedNodes.length > 0;
        for (let i = 0; onlyOurs && i < addedNodes.length; i++) onlyOurs = isOurs(addedNodes[i] as Node);
        if (onlyOurs) continue;
        for (let i = 0; i < addedNodes.length; i++) {
          const node = addedNodes[i] as Node;
          if (node.nodeType !== 1) continue;
          const el = node as Element;
          // A wrapper that itself matches (a turn around its message) still brings the messages inside it.
          if (el.matches(messageSelector)) addMessage(el);
          if (mayHoldMessages(el)) for (const inner of Array.from(el.querySelectorAll(messageSelector))) addMessage(inner);
        }
        let tookMessage = false;
        for (let i = 0; i < removedNodes.length && !tookMessage; i++) {
          const node = removedNodes[i] as Node;
          if (node.nodeType !== 1) continue;
          const el = node as Element;
          if (el.matches(messageSelector) || (mayHoldMessages(el) && el.querySelector(messageSelector))) tookMessage = true;
        }
        // A message taken out may change how the messages beside it read: a comparison's candidate not picked goes, and
        // the one kept is the reply (Site.pendingChoice), with nothing changed inside it. The messages left where it was
        // taken from are changed too (outside a message: inside one, that message is) — where that is a turn's own
        // container, not the conversation's list: a row a list takes out changes none of the others, and marking every
        // message of a long conversation changed would read them all again on each row a virtual list drops.
        if (tookMessage) {
          pending.removed = true;
          const from = record.target.nodeType === 1 ? (record.target as Element) : null;
          const left = from && !messageElementOf(site, from) ? from.querySelectorAll(messageSelector) : [];
          if (left.length <= MESSAGES_OF_A_TURN) for (const message of Array.from(left)) pending.changed.add(messageElementOf(site, message) ?? message);
        }
      }
      const target = record.target.nodeType === 1 ? (record.target as Element) : record.target.parentElement;
      if (target !== lastTarget) {
        lastTarget = target;
        lastMessage = target ? messageElementOf(site, target) : null;
      }
      const message = lastMessage;
      if (message) pending.changed.add(message);
      else if (!outside && options.onOutside && target && !target.closest(CHATBRIDGE_HOST_SELECTOR)) outside = true;
    }
    if (outside) options.onOutside?.();
    pending.at = now();
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  });
  observer.observe(options.root, { childList: true, subtree: true, characterData: true });
  options.signal.addEventListener('abort', () => observer.disconnect(), { once: true });
  return { flushNow: flush };
}
