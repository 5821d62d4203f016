import { t } from '../ui/i18n';
import { parseCompanionMessage, type WsEvent } from './api-types';

export type ConnectionState = 'connected' | 'connecting' | 'disconnected' | 'unpaired';

export const HEARTBEAT_MS = 20_000;
/** No frame at all for this long (two missed heartbeats) means the socket is dead even if it looks open. */
export const SILENCE_MS = 45_000;
export const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000] as const;

export interface SocketOptions {
  /** http://127.0.0.1:PORT; the socket goes to ws://…/ws. */
  baseUrl: () => Promise<string>;
  token: () => Promise<string>;
  onEvent: (event: WsEvent) => void;
  onState: (state: ConnectionState, detail?: string) => void;
  WebSocket?: typeof WebSocket;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  now?: () => number;
}

/** The socket closes itself with this code when the companion sent nothing for SILENCE_MS. */
const SILENT_CLOSE = 4000;

/**
 * Why the socket closed, as the person reads it (the connection's tooltip, the in-page badge's tip), in their language:
 * what it means and what to do, the close code and the companion's reason kept as details. The code alone
 * ("closed (1006)") said nothing to a person, and in English on any browser.
 */
export function closedDetail(code: number, reason: string): string {
  const meaning =
    code === 1006 || code === 1015
      ? t('conn.closedUnreachable')
      : code === 1000 || code === 1001 || code === 1012
        ? t('conn.closedByCompanion')
        : code === SILENT_CLOSE
          ? t('conn.closedSilent')
          : t('conn.closedOther');
  return t('conn.closeDetails', [meaning, `WebSocket ${code}${reason ? `, ${reason}` : ''}`]);
}

/**
 * One authenticated socket to the companion, kept alive with heartbeats every 20 s (which also keeps an MV3 service
 * worker awake) and reopened with backoff when it drops. Authentication is the first message, never the URL, so
 * the token does not end up in logs.
 */
export class CompanionSocket {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private stopped = false;
  private heartbeat: unknown = null;
  private retry: unknown = null;
  private lastFrameAt = 0;
  /** bumped by every start and stop: a start that waited for the token while a newer one began gives way to it */
  private generation = 0;
  private readonly WS: typeof WebSocket;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly now: () => number;
  state: ConnectionState = 'disconnected';

  constructor(private readonly options: SocketOptions) {
    this.WS = options.WebSocket ?? WebSocket;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.opening()) return;
    // Starts overlap (a page, the popup and the alarm ask at once; a restart while one is under way): only the newest
    // opens, and only while no socket is open, or every event would come once per socket.
    const generation = ++this.generation;
    const token = await this.options.token();
    const base = token ? await this.options.baseUrl() : '';
    if (generation !== this.generation || this.stopped || this.opening()) return;
    if (!token) {
      this.setState('unpaired');
      return;
    }
    const url = `${base.replace(/^http/, 'ws')}/ws`;
    this.setState('connecting');
    let ws: WebSocket;
    try {
      ws = new this.WS(url);
    } catch (error) {
      this.scheduleReconnect(t('conn.closeDetails', [t('conn.openFailed'), String(error)]));
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'auth', token }));
      this.lastFrameAt = this.now();
      this.startHeartbeat();
    };
    ws.onmessage = (message) => {
      if (this.ws !== ws) return; // stopped or replaced: its onclose is on the way
      this.lastFrameAt = this.now();
      const parsed = parseCompanionMessage(message.data);
      if (!parsed) return;
      if (parsed.type === 'auth-ok') {
        this.attempt = 0;
        this.setState('connected');
      } else if (parsed.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong', t: this.now() }));
      } else if (parsed.type === 'pong' || parsed.type === 'error') {
        // heartbeats only refresh lastFrameAt
      } else {
        // An event proves authentication even if this companion does not send auth-ok.
        if (this.state !== 'connected') this.setState('connected');
        this.options.onEvent(parsed);
      }
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopHeartbeat();
      if (event.code === 4401) {
        this.setState('unpaired', t('conn.tokenRefused'));
        return;
      }
      this.scheduleReconnect(closedDetail(event.code, event.reason));
    };
    ws.onerror = () => {
      // onclose follows and decides what to do
    };
  }

  private opening(): boolean {
    return this.ws !== null && (this.ws.readyState === 0 || this.ws.readyState === 1);
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    this.stopHeartbeat();
    if (this.retry !== null) this.clearTimer(this.retry);
    this.retry = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000, 'stopped');
    this.setState('disconnected');
  }

  /** Drops the current socket and opens a new one now (token or URL changed). */
  async restart(): Promise<void> {
    this.stop();
    this.attempt = 0;
    await this.start();
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    const beat = (): void => {
      const ws = this.ws;
      if (!ws || ws.readyState !== 1) return;
      if (this.now() - this.lastFrameAt > SILENCE_MS) {
        ws.close(SILENT_CLOSE, 'heartbeat lost');
        return;
      }
      ws.send(JSON.stringify({ type: 'ping', t: this.now() }));
      this.heartbeat = this.setTimer(beat, HEARTBEAT_MS);
    };
    this.heartbeat = this.setTimer(beat, HEARTBEAT_MS);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) this.clearTimer(this.heartbeat);
    this.heartbeat = null;
  }

  private scheduleReconnect(reason: string): void {
    this.setState('disconnected', reason);
    if (this.stopped) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] ?? 30_000;
    this.attempt += 1;
    if (this.retry !== null) this.clearTimer(this.retry);
    this.retry = this.setTimer(() => {
      this.retry = null;
      void this.start();
    }, delay);
  }

  private setState(state: ConnectionState, detail?: string): void {
    this.state = state;
    this.options.onState(state, detail);
  }
}
