import { mkdirSync, statSync } from 'node:fs';
import { appendFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * One server's log, `<home>/mcp-logs/<server>.log`: its stderr, what it printed on stdout that was not the
 * protocol, and chatbridge's own lines (started, exited, gave up). Bounded: past `maxBytes` the file is moved to
 * `<server>.log.1` (replacing the older one) and a new one begun, so a chatty server never fills the disk. Writes
 * are queued and never throw: a log that cannot be written must not take the server down with it. What waits in the
 * queue is bounded too (`maxBytes`): a server that writes to stderr faster than the disk takes it (a debug loop)
 * would otherwise grow the companion's memory by the whole flood — a gigabyte in four seconds — until it dies. Past
 * the bound its output is dropped, and the log says how much once the queue has room again.
 */
export interface ServerLog {
  readonly file: string;
  /** raw output (stderr) */
  write(text: string): void;
  /** one line of chatbridge's own, time-stamped */
  note(line: string): void;
  /** resolves once everything written so far is on disk */
  flush(): Promise<void>;
}

export const DEFAULT_LOG_BYTES = 1024 * 1024;

export function createServerLog(file: string, maxBytes = DEFAULT_LOG_BYTES): ServerLog {
  let size = 0;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    size = statSync(file).size;
  } catch {
    // a new log
  }
  let queue: Promise<void> = Promise.resolve();
  /** bytes handed to the queue and not yet written */
  let queued = 0;
  /** output dropped while the queue was full, told once it has room */
  let dropped = 0;
  const append = (text: string, own = false): void => {
    const bytes = Buffer.byteLength(text);
    // a single write larger than the bound is taken when nothing waits: its end is kept (below)
    if (!own && queued > 0 && queued + bytes > maxBytes) {
      dropped += bytes;
      return;
    }
    queued += bytes;
    queue = queue.then(async () => {
      try {
        if (size > 0 && size + Buffer.byteLength(text) > maxBytes) {
          await rename(file, `${file}.1`);
          size = 0;
        }
        // one write larger than the bound keeps its end, which says what happened last
        const kept = Buffer.byteLength(text) > maxBytes ? `[…]${text.slice(-Math.floor(maxBytes / 4))}` : text;
        await appendFile(file, kept, { mode: 0o600 });
        size += Buffer.byteLength(kept);
      } catch {
        // best effort
      } finally {
        queued -= bytes;
        // once the queue has drained, the log says how much was dropped
        if (queued === 0 && dropped > 0) {
          const line = `--- ${new Date().toISOString()} chatbridge: ${dropped} bytes of the server's output were dropped (written faster than the log could take them)\n`;
          dropped = 0;
          append(line, true);
        }
      }
    });
  };
  return {
    file,
    write: append,
    // notes too: a server chooses many of them (its log notifications, what it prints on stdout that is not JSON-RPC)
    note: (line) => append(`--- ${new Date().toISOString()} chatbridge: ${line}\n`),
    flush: () => queue,
  };
}
