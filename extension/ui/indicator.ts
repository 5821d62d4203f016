import type { ConnectionState } from '../companion/socket';
import { t, type MessageKey } from './i18n';

/** A small connected/disconnected badge in the page corner (closed shadow root; state on the host for tests). */
export function createIndicator(doc: Document): { host: HTMLElement; update(state: ConnectionState, detail?: string): void } {
  const host = doc.createElement('div');
  host.setAttribute('data-chatbridge-indicator', '');
  host.style.cssText = 'position:fixed;right:12px;bottom:12px;z-index:2147483646;pointer-events:none;';
  const root = host.attachShadow({ mode: 'closed' });
  const badge = doc.createElement('div');
  badge.style.cssText = 'font:11px/1 system-ui,sans-serif;padding:4px 8px;border-radius:10px;color:#fff;background:#59636e;';
  root.append(badge);
  // White words on each at 4.5:1 or more, drawn opaque: see-through, they took the page's colour and read at 2.3:1.
  const colors: Record<ConnectionState, string> = {
    connected: '#1a7f37',
    connecting: '#9a6700',
    disconnected: '#cf222e',
    unpaired: '#59636e',
  };
  return {
    host,
    update(state, detail) {
      host.setAttribute('data-chatbridge-connection', state);
      badge.style.background = colors[state];
      badge.textContent = t(`conn.${state}` as MessageKey);
      badge.title = detail ?? '';
      badge.style.display = 'block';
    },
  };
}
