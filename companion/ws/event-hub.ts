import type { WsEvent } from '../../shared/api';
import type { ClientQueueStats } from './client-queue';

/** Fan-out of companion events to every authenticated socket (and to tests). */
export interface EventHub {
  publish(event: WsEvent): void;
  /** `stats`: how much is queued for that socket (client-queue.ts), for clientStats */
  subscribe(listener: (event: WsEvent) => void, stats?: () => ClientQueueStats): () => void;
  /** one entry per subscribed socket: what is queued for it, its peak, the output it was not sent */
  clientStats(): ClientQueueStats[];
}

export function createEventHub(): EventHub {
  const listeners = new Map<(event: WsEvent) => void, (() => ClientQueueStats) | undefined>();
  return {
    publish(event) {
      for (const listener of [...listeners.keys()]) {
        try {
          listener(event);
        } catch (error) {
          // one broken socket never stops the others
          console.error(`chatbridge: event listener failed: ${String(error)}`);
        }
      }
    },
    subscribe(listener, stats) {
      listeners.set(listener, stats);
      return () => listeners.delete(listener);
    },
    clientStats() {
      return [...listeners.values()].flatMap((stats) => (stats ? [stats()] : []));
    },
  };
}
