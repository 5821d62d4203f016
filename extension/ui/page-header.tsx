import type { ConnectionInfo } from '../messaging';
import { t } from './i18n';

/**
 * The top of the popup and the side panel: the icon, the name, the connection state (`#connection[data-state]`), when
 * nothing answers where the companion should be what to do (`#connection-hint`; why the socket closed stays in the
 * state's tooltip) or, on a page without the pairing step, where to pair; the reason under it when not paired or
 * connecting, and the last error (`#error`, always present, empty when all is well).
 */
export function PageHeader(props: {
  connection: ConnectionInfo | null;
  error: string;
  /** the page has no pairing step of its own (the side panel): when not paired it says where to pair */
  pairElsewhere?: boolean;
}) {
  const state = props.connection?.state ?? 'connecting';
  const detail = props.connection?.detail;
  return (
    <>
      <header class="row">
        <img src="/icon/32.png" width="22" height="22" alt="" />
        <h1>chatbridge</h1>
        <span class="spacer" />
        <span id="connection" class="pill" data-state={state} role="status" title={detail} tabIndex={-1}>
          {props.connection ? t(`conn.${state}`) : '…'}
        </span>
      </header>
      {state === 'disconnected' && (
        <p class="warn" id="connection-hint" style="margin:0">
          {t('conn.disconnectedHint', [props.connection?.companionUrl ?? ''])} <code>npm start</code>
        </p>
      )}
      {state === 'unpaired' && props.pairElsewhere && (
        <p class="warn" id="connection-hint" style="margin:0">
          {t('conn.unpairedHint')}
        </p>
      )}
      {detail && state !== 'connected' && state !== 'disconnected' && (
        <div class="muted" id="connection-detail">
          {detail}
        </div>
      )}
      <div id="error" class="error" role="alert">
        {props.error}
      </div>
    </>
  );
}
