import type { ConnectionState } from '../companion/socket';
import { t, type MessageKey } from './i18n';
import { isRetry } from './connection-retry';

// The tip shows on hover and on keyboard focus: a title on the badge never showed, its host letting the pointer through.
// Hover is the pointer over the badge's box (`data-hover`), as the badge lets the pointer through to the page. A tip
// with nothing to say (connected, the badge still focused from before) is not drawn: it was an empty dark box.
const STYLE = `
[data-badge] { font: 11px/1 system-ui, sans-serif; padding: 4px 8px; border-radius: 10px; color: #fff; background: #59636e; outline-offset: 2px; }
[data-badge]:focus-visible { outline: 2px solid #0969da; }
[role="tooltip"] { display: none; position: absolute; right: 0; bottom: calc(100% + 6px); width: max-content; max-width: min(320px, 80vw);
  font: 12px/1.4 system-ui, sans-serif; padding: 6px 8px; border-radius: 6px; color: #fff; background: #1f2328; border: 1px solid #8c959f;
  overflow-wrap: anywhere; }
[data-badge][data-hover] + [role="tooltip"]:not([data-dismissed], :empty), [data-badge]:focus-visible + [role="tooltip"]:not([data-dismissed], :empty) { display: block; }
`;

/**
 * A small connected/disconnected badge in the page corner (closed shadow root; state on the host for tests). While
 * not connected it is a keyboard stop described by a tip (why, and what to do) that hovering or focusing shows;
 * connected it takes no focus. It never takes the pointer: a site's own control in that corner (a help button, the
 * Send button of a narrow window) is clicked through it, and hovering is told by where the pointer is.
 */
export function createIndicator(doc: Document): { host: HTMLElement; update(state: ConnectionState, detail?: string): void } {
  const host = doc.createElement('div');
  host.setAttribute('data-chatbridge-indicator', '');
  host.style.cssText = 'position:fixed;right:12px;bottom:12px;z-index:2147483646;pointer-events:none;';
  const root = host.attachShadow({ mode: 'closed' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  const badge = doc.createElement('div');
  badge.setAttribute('data-badge', '');
  const tip = doc.createElement('div');
  tip.id = 'chatbridge-connection-tip';
  tip.setAttribute('role', 'tooltip');
  root.append(style, badge, tip);
  // Escape hides the tip until the pointer or the focus comes back; like a key the chip takes, it does not reach the page
  badge.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || tip.hasAttribute('data-dismissed')) return;
    tip.setAttribute('data-dismissed', '');
    event.preventDefault();
    event.stopPropagation();
  });
  badge.addEventListener('blur', () => tip.removeAttribute('data-dismissed'));
  const hover = followHover(doc, host, badge, () => tip.removeAttribute('data-dismissed'));
  // White words on each at 4.5:1 or more, drawn opaque: see-through, they took the page's colour and read at 2.3:1.
  const colors: Record<ConnectionState, string> = {
    connected: '#1a7f37',
    connecting: '#9a6700',
    disconnected: '#cf222e',
    unpaired: '#59636e',
  };
  let shown: ConnectionState | undefined;
  return {
    host,
    update(state, detail) {
      // a try again while the companion is away: the tip being read (or put away with Escape) stays as it is
      if (isRetry(shown, state)) return;
      shown = state;
      host.setAttribute('data-chatbridge-connection', state);
      badge.style.background = colors[state];
      badge.textContent = t(`conn.${state}` as MessageKey);
      tip.textContent = connectionTip(state, detail);
      const tells = tip.textContent !== '';
      badge.tabIndex = tells ? 0 : -1;
      hover(tells);
      if (tells) badge.setAttribute('aria-describedby', tip.id);
      else badge.removeAttribute('aria-describedby');
    },
  };
}

/**
 * Marks `badge` with `data-hover` while the pointer is over its box, when `on`: it lets the pointer through, so it
 * gets no hover of its own. The box is measured again after a resize (the badge is fixed in the corner); `left` runs
 * when the pointer leaves it. Stops following once the badge is gone from the page.
 */
function followHover(doc: Document, host: HTMLElement, badge: HTMLElement, left: () => void): (on: boolean) => void {
  const view = doc.defaultView;
  let box: DOMRect | undefined;
  const set = (over: boolean): void => {
    if (over === badge.hasAttribute('data-hover')) return;
    badge.toggleAttribute('data-hover', over);
    if (!over) left();
  };
  const move = (event: PointerEvent): void => {
    if (!host.isConnected) return follow(false);
    box ??= badge.getBoundingClientRect();
    set(event.clientX >= box.left && event.clientX < box.right && event.clientY >= box.top && event.clientY < box.bottom);
  };
  const out = (event: PointerEvent): void => {
    if (event.relatedTarget === null) set(false);
  };
  const resize = (): void => {
    box = undefined;
  };
  const follow = (on: boolean): void => {
    box = undefined;
    const method = on ? 'addEventListener' : 'removeEventListener';
    view?.[method]('pointermove', move as EventListener, { capture: true });
    view?.[method]('pointerout', out as EventListener, { capture: true });
    view?.[method]('resize', resize);
    if (!on) set(false);
  };
  return follow;
}

/**
 * Why the badge says what it says, and what to do: not paired, the reason the connection gave (a refused token) or
 * how to pair; not answering, how to start the companion, then why the socket closed (socket.ts closedDetail). Connected:
 * nothing.
 */
/** What the badge's tip says of a connection state: why it is not connected, and what to do (the chips say it too). */
export function connectionTip(state: ConnectionState, detail: string | undefined): string {
  if (state === 'unpaired') return detail ?? t('conn.notPaired');
  if (state === 'disconnected') return detail ? t('conn.disconnectedTipWhy', [detail]) : t('conn.disconnectedTip');
  return detail ?? '';
}
