import { open, readdir } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { auditRecordSchema, type AuditRecord } from '../../shared/api';
import { createLineAppender, type LineAppender } from '../fsx/line-appender';
import { randomId } from '../random-id';

/**
 * The audit log (DESIGN §5.5): one JSON line per call in `<dir>/YYYY-MM-DD.jsonl` (UTC days). Records name paths
 * and commands, never file contents. Each line is one synchronous write, so lines never interleave.
 */
export interface AuditLog {
  newId(): string;
  record(entry: AuditRecord): Promise<void>;
  /** newest first */
  recent(limit: number): Promise<AuditRecord[]>;
  flush(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function createAuditLog(options: { dir: string; clock?: () => number }): AuditLog {
  const clock = options.clock ?? Date.now;
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  let appender: { file: string; log: LineAppender } | undefined;
  // the id's day (YYYYMMDD, UTC), worked out again only when the day changes: formatting a date per call cost more
  // than the rest of the id
  let day = { prefix: '', until: -Infinity };
  return {
    newId() {
      const now = clock();
      if (now >= day.until || now < day.until - DAY_MS) {
        const start = now - (now % DAY_MS);
        day = { prefix: `audit-${new Date(start).toISOString().slice(0, 10).replace(/-/g, '')}-`, until: start + DAY_MS };
      }
      return `${day.prefix}${randomId(6, 'hex')}`;
    },
    record(entry) {
      const line = JSON.stringify(entry) + '\n';
      const file = join(options.dir, `${entry.time.slice(0, 10)}.jsonl`);
      // One write(2) on a descriptor kept open for the day's file, done before the run answers: three trips
      // through the thread pool (open, write, close) cost every call ~0.2 ms of wall time before (bench).
      if (appender?.file !== file) {
        appender?.log.close();
        appender = { file, log: createLineAppender(file) };
      }
      try {
        appender.log.append(line);
      } catch (error) {
        // the audit must never take a run down with it; say so on stderr
        console.error(`chatbridge: audit write failed: ${String(error)}`);
        appender.log.close();
        appender = undefined;
      }
      return Promise.resolve();
    },
    async recent(limit) {
      const files = (await readdir(options.dir)).filter((f) => /^\d{4}-\d{2}-\d{2}\.jsonl$/.test(f)).sort().reverse();
      const out: AuditRecord[] = [];
      for (const file of files) {
        for await (const line of linesFromEnd(join(options.dir, file))) {
          try {
            const parsed = auditRecordSchema.safeParse(JSON.parse(line));
            if (parsed.success) out.push(parsed.data);
          } catch {
            // a torn last line after a crash: skip it
          }
          if (out.length >= limit) return out;
        }
      }
      return out;
    },
    flush() {
      return Promise.resolve();
    },
  };
}

/** what linesFromEnd reads at a time */
const CHUNK_BYTES = 64 * 1024;
/** a longer line is no record the companion wrote (one names paths and commands, never contents): skipped unread */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/**
 * A day's lines, the last first, read from the end a chunk at a time: the newest records are all a listing asks for,
 * and a day of many calls makes a file of hundreds of megabytes, which read whole held the companion's thread for a
 * second per GET /v1/audit (and past 512 MB could not be made one string, so the listing failed).
 */
async function* linesFromEnd(file: string): AsyncGenerator<string> {
  const handle = await open(file, 'r');
  try {
    let position = (await handle.stat()).size;
    // the bytes after the last line break read so far, still waiting for the start of their line
    let tail: Buffer[] = [];
    let tailBytes = 0;
    let overlong = false;
    const buffer = Buffer.alloc(CHUNK_BYTES);
    while (position > 0) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      let end = bytesRead;
      for (let i = bytesRead - 1; i >= 0; i--) {
        if (buffer[i] !== 0x0a) continue;
        const line = lineOf(buffer.subarray(i + 1, end), tail, overlong);
        if (line !== undefined) yield line;
        tail = [];
        tailBytes = 0;
        overlong = false;
        end = i;
      }
      if (overlong || end === 0) continue;
      tailBytes += end;
      if (tailBytes > MAX_LINE_BYTES) {
        overlong = true;
        tail = [];
      } else {
        tail.unshift(Buffer.from(buffer.subarray(0, end)));
      }
    }
    const first = lineOf(Buffer.alloc(0), tail, overlong);
    if (first !== undefined) yield first;
  } finally {
    await handle.close();
  }
}

function lineOf(start: Buffer, rest: Buffer[], overlong: boolean): string | undefined {
  if (overlong) return undefined;
  const text = Buffer.concat([start, ...rest]).toString('utf8');
  return text === '' ? undefined : text;
}
