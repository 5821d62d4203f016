import { hashText } from '../../shared/protocols/key';
import { defineSite, firstMatch, isShown, plainText, positionKey, type MessageRole } from './define-site';

/*
 * Any other site the person enables from the popup. Without knowledge of the page it reads code blocks (`pre`) inside
 * anything that looks like a message, uses the last visible textarea/contenteditable as the editor, and has no
 * "generating" signal, so a reply counts as finished once its text is stable (scanner: 1.5 s). A button named "stop"
 * is taken for the page's stop control.
 */

const MESSAGE_SELECTOR = '[data-message-author-role], [data-role], [data-author], article, [class*="message" i]';

/** "Stop", "Stop generating", "stop-button", "stopResponse" — not "desktop". */
const STOP_NAME = /(?:^|[^a-z])stop/i;

/** Query parameters a link adds to say where the visit came from (analytics and ad click ids): no chat's name. */
const TRACKING_PARAM = /^(?:utm_.*|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|twclid|igshid|mc_cid|mc_eid|_ga|_gl|ref|ref_src)$/i;

/**
 * Query parameters that set up a new chat rather than name one: the question to send, the model, a temporary chat.
 * A page opened at /?model=… or /?q=… is a new chat, which the site moves to its own address (/c/<id>) once it is
 * saved, while its first reply is written: named by them, it was another conversation, and that reply never ran.
 */
const NEW_CHAT_PARAM = /^(?:q|prompt|models?|temporary-chat)$/i;

/**
 * Query parameters a page writes anew with every message or view (a time stamp, a cursor, a cache buster): no chat's
 * name. Named by them, the chat became another conversation at each message, and the reply written after it was
 * history, never run.
 */
const CHANGING_PARAM = /^(?:_|_t|t|ts|time|timestamp|cursor|nonce|cb|cachebust(?:er)?)$/i;

/**
 * The longest query kept as written in the conversation's name; a longer one (a page that carries the question itself
 * in its address) is named by its hash, so the name stays within what the companion takes for a conversation id.
 */
const QUERY_SHOWN_MAX = 120;

/** The query of a page's address without its tracking and new-chat parameters, sorted by name ('' when none is left). */
function chatQuery(href: string | undefined): string {
  if (!href) return '';
  try {
    return keptQuery(new URL(href).searchParams);
  } catch {
    return '';
  }
}

/** A query's parameters that name a chat (chatQuery), sorted by name ('' when none is left). */
function keptQuery(params: URLSearchParams): string {
  const kept = new URLSearchParams([...params].filter(([name]) => !TRACKING_PARAM.test(name) && !NEW_CHAT_PARAM.test(name) && !CHANGING_PARAM.test(name)));
  kept.sort();
  const query = kept.toString();
  return query.length > QUERY_SHOWN_MAX ? `~${hashText(query)}` : query;
}

/**
 * The route of a page that keeps its chats in the address's hash (/#/chat/<id>, /#!/c/<id>), its own query left out;
 * a route one level deep (/#/chat, /#/settings) names no chat but by the parameters of its query that do (keptQuery:
 * /#/chat?id=<id>), and '' without them: NextChat keeps every chat at /#/chat, and named by it they were all one
 * conversation, its "Approve for this conversation" with them.
 */
function hashRoute(href: string | undefined): string {
  let hash: string;
  try {
    hash = href ? new URL(href).hash : '';
  } catch {
    return '';
  }
  const route = /^#!?(\/[^?]*)(?:\?(.*))?$/.exec(hash);
  if (!route?.[1]) return '';
  const path = route[1].replace(/\/+$/, '');
  if (path.split('/').filter((part) => part !== '').length >= 2) return path.length > QUERY_SHOWN_MAX ? `#~${hashText(path)}` : `#${path}`;
  const query = keptQuery(new URLSearchParams(route[2] ?? ''));
  return query === '' ? '' : `#${path}?${query}`;
}

function roleOf(el: Element): MessageRole {
  const described = [
    el.getAttribute('data-message-author-role'),
    el.getAttribute('data-role'),
    el.getAttribute('data-author'),
    el.className,
  ].join(' ').toLowerCase();
  return /\b(user|human|me|self|query|question)\b/.test(described) ? 'user' : 'assistant';
}

export const generic = defineSite({
  id: 'generic',
  name: 'Other site',
  hosts: [],
  editorFamily: 'unknown',
  messageSelector: MESSAGE_SELECTOR,
  roleOf,
  answerRoot: (msg) => msg,
  skipSelector: '[data-chatbridge-chip], [data-chatbridge-indicator], button, [aria-hidden="true"]',
  codeBlockSelector: 'pre',
  codeLanguage(codeEl) {
    const classed = codeEl.querySelector('[class*="language-"]') ?? (codeEl.className.includes('language-') ? codeEl : null);
    return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? codeEl.getAttribute('data-language') ?? '';
  },
  codeText(codeEl) {
    const code = codeEl.querySelector('code');
    // Markdown renderers end a code element with the fence's last line break; the serializer adds its own.
    const text = plainText(code ?? codeEl);
    return { text: text.endsWith('\n') ? text.slice(0, -1) : text };
  },
  editor(doc) {
    // The last box the page shows: a page may keep a hidden one after its chat box (reCAPTCHA's response field, at
    // the page's end), where a result is typed for no one to see and no send sends it.
    const candidates = Array.from(doc.querySelectorAll<HTMLElement>('textarea, [contenteditable="true"]'));
    return candidates.findLast((box) => isShown(box)) ?? null;
  },
  sendButton(doc) {
    return firstMatch(doc, ['button[type="submit"]', 'button[aria-label*="send" i]', 'button[data-testid*="send" i]']);
  },
  isSendDisabled(button) {
    return (button as HTMLButtonElement).disabled === true || button.getAttribute('aria-disabled') === 'true';
  },
  isGenerating: () => undefined,
  // A button named "stop" (as the send button is guessed by its name); the last one, as the chat box is the last one.
  // One inside a message is that message's ("Stop reading aloud"), never the page's: each click of it would count as
  // the person stopping a reply, and a result arriving after it would be typed in, not sent. (The guessed message
  // markup may hold the chat box too: a button beside the box counts.) A button outside the messages named so for
  // something else keeps results after its click from being sent by themselves; Run still works. One the page keeps
  // hidden (display: none, the hidden attribute, visibility: hidden) while nothing is written is not shown: taken for
  // the page's Stop, every result waited the deliverer's two minutes for it to go, and was not sent by itself.
  stopControl(doc) {
    const box = this.editor(doc);
    const named = Array.from(doc.querySelectorAll<HTMLElement>('button, [role="button"]')).filter((button) => {
      if (!STOP_NAME.test(['aria-label', 'title', 'data-testid'].map((name) => button.getAttribute(name) ?? '').join(' '))) return false;
      if (button.closest('[hidden]') || button.checkVisibility?.({ visibilityProperty: true }) === false) return false;
      const message = button.closest(MESSAGE_SELECTOR);
      return !message || (box !== null && message.contains(box));
    });
    return named[named.length - 1] ?? null;
  },
  // The path and the query: a page may keep its chats at one path and name each in the query (/chat?id=1, /?c=2),
  // which without it were one conversation — a block run in one counted as run in the other, and "Approve for this
  // conversation" in one held in the other. Parameters that only tell where the person came from, set up a new chat
  // (NEW_CHAT_PARAM) or change with every message (CHANGING_PARAM) are not part of it, and the order the parameters
  // are written in does not matter. A page that keeps its chats at hash routes (/#/chat/1) is named by the route too:
  // without it every chat there was a new chat with no id, and a result owed to one was typed into the next one opened.
  conversationId(location) {
    const query = chatQuery(location.href);
    const id = `${location.pathname}${query === '' ? '' : `?${query}`}${hashRoute(location.href)}`;
    return id.length > 1 ? id : null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
