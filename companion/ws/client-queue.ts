import type { WsServerMessage } from '../../shared/api';

/**
 * Bytes queued for one `/ws` client (ws's `bufferedAmount`: handed to the socket, not yet taken by the kernel)
 * above which its program output is dropped. A reading client never gets near it: the kernel's own buffers (a few
 * MiB on loopback) fill first, and output comes in pipe reads of at most 64 KiB.
 */
export const WS_OUTPUT_QUEUE_BYTES = 1024 * 1024;
/**
 * Bytes queued above which the client is disconnected: it is so far behind on events that cannot be dropped (runs,
 * approvals, exits, journal entries) that it is better off reconnecting and reading the state afresh.
 */
export const WS_MAX_QUEUE_BYTES = 8 * 1024 * 1024;
/** how often a client with a pending gap is checked for room to be told about it */
const GAP_CHECK_MS = 100;

/** The part of a ws socket the queue needs. */
export interface QueueSocket {
  readonly bufferedAmount: number;
  send(text: string): void;
  /** drops the connection at once: a close frame would wait behind everything already queued */
  terminate(): void;
}

export interface ClientQueueStats {
  bufferedBytes: number;
  /** the most that was ever queued right after a send */
  peakBufferedBytes: number;
  /** program output not sent to this client */
  droppedBytes: number;
}

export interface ClientQueue {
  send(message: WsServerMessage): void;
  stats(): ClientQueueStats;
  close(): void;
}

interface Gap {
  programId: string;
  name: string;
  stream: 'stdout' | 'stderr';
  offset: number;
  dropped: number;
}

/**
 * What the companion sends one `/ws` client, bounded (issue 9, finding 8: a client that stopped reading while a
 * program flooded output grew the companion by hundreds of MB). Program output and progress are sent only while
 * less than `outputBytes` is queued; past it, output is dropped and counted per stream, and once the queue has
 * drained to half the client gets one `output-dropped` event per gap (its offset and size — before the stream's
 * next chunk, and at the latest before the program's exit). Every other message is always sent, unless the queue
 * would pass `maxBytes`: then the client is disconnected. The program's own result is not affected: it keeps its
 * capped output (output-buffer.ts) whatever the clients read.
 */
export function createClientQueue(
  socket: QueueSocket,
  limits: { outputBytes?: number; maxBytes?: number } = {},
): ClientQueue {
  const outputBytes = limits.outputBytes ?? WS_OUTPUT_QUEUE_BYTES;
  const maxBytes = limits.maxBytes ?? WS_MAX_QUEUE_BYTES;
  const gaps = new Map<string, Gap>();
  let peak = 0;
  let droppedBytes = 0;
  let closed = false;
  let gapTimer: NodeJS.Timeout | undefined;

  function write(text: string): void {
    if (closed) return;
    if (socket.bufferedAmount + Buffer.byteLength(text) > maxBytes) {
      close();
      socket.terminate();
      return;
    }
    socket.send(text);
    peak = Math.max(peak, socket.bufferedAmount);
  }

  function tellGap(key: string, gap: Gap): void {
    gaps.delete(key);
    write(JSON.stringify({ type: 'output-dropped', ...gap } satisfies WsServerMessage));
    if (gaps.size === 0) stopGapTimer();
  }

  function tellGaps(): void {
    for (const [key, gap] of gaps) {
      if (socket.bufferedAmount > outputBytes / 2) return;
      tellGap(key, gap);
    }
  }

  function stopGapTimer(): void {
    clearInterval(gapTimer);
    gapTimer = undefined;
  }

  function drop(message: Extract<WsServerMessage, { type: 'program-output' }>, key: string): void {
    const bytes = Buffer.byteLength(message.chunk);
    droppedBytes += bytes;
    const gap = gaps.get(key);
    // offsets are the client's: a gap runs to the end of the last chunk dropped into it
    if (gap) gap.dropped = message.offset + bytes - gap.offset;
    else gaps.set(key, { programId: message.programId, name: message.name, stream: message.stream, offset: message.offset, dropped: bytes });
    gapTimer ??= setInterval(tellGaps, GAP_CHECK_MS);
    gapTimer.unref?.();
  }

  function close(): void {
    closed = true;
    gaps.clear();
    stopGapTimer();
  }

  return {
    send(message) {
      if (closed) return;
      const text = JSON.stringify(message);
      if (message.type === 'program-output') {
        const key = `${message.programId}\0${message.stream}`;
        const gap = gaps.get(key);
        // a gap is told once the client has caught up to half the limit, so a client at the edge gets one notice,
        // not one per chunk
        if (gap && socket.bufferedAmount <= outputBytes / 2) tellGap(key, gap);
        if (!gaps.has(key) && socket.bufferedAmount + Buffer.byteLength(text) <= outputBytes) write(text);
        else drop(message, key);
        return;
      }
      if (message.type === 'tool-progress') {
        // the next report supersedes it
        if (socket.bufferedAmount + Buffer.byteLength(text) <= outputBytes) write(text);
        return;
      }
      if (message.type === 'program-exit') {
        for (const [key, gap] of gaps) if (gap.programId === message.program.id) tellGap(key, gap);
      }
      write(text);
    },
    stats() {
      return { bufferedBytes: socket.bufferedAmount, peakBufferedBytes: peak, droppedBytes };
    },
    close,
  };
}
