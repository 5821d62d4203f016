/**
 * The format-2 entry file, `<dir>/<id>.jsonl` (see records.ts): appending lines durably, and reading them back.
 *
 * Why one file per change: format 1 made the intent durable with a temp file, its rename and two directory fsyncs,
 * then appended each undo record to a second file and wrote each before-image to a third, and saved the applied
 * state by rewriting the intent the same way — 9 fsyncs in 5 rounds per overwrite, even with the ones that need no
 * order between them in flight together. Here the intent, the undo record and the before-image are one write
 * followed by one fsync of the file and one of the journal directory (its name), in flight together; a state
 * change is one more line and one fsync, with no rename and no directory to sync.
 */
import { closeSync, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { fsyncDir, writeAllAt } from '../fsx/atomic-write';
import { fsyncFd } from '../fsx/fd';
import { makeDir, openFile } from '../fsx/fs-calls';
import { entryLineSchema, type ExpectLine, type IntentRecord, type UndoRecord } from './records';

export class EntryFile {
  private fd: number | undefined;

  /**
   * @param file the entry's `<dir>/<id>.jsonl`
   * @param position where the next line goes: 0 for a new entry, the end of the last whole line for one read back
   *   (a torn line a crash left after it is cut off before anything is appended)
   */
  constructor(
    readonly file: string,
    private position: number,
    private readonly createIn?: string,
  ) {}

  /** A new entry's file in `dir`; nothing is on disk until the first append. */
  static create(dir: string, file: string): EntryFile {
    return new EntryFile(file, 0, dir);
  }

  get started(): boolean {
    return this.position > 0;
  }

  /**
   * Appends `text` (whole lines) and resolves once it is durable. The first append of a new entry creates the file
   * and also fsyncs the journal directory, so the file's name lasts too. `alongside`: other fsyncs the caller needs
   * done in the same round (a before-image written beside the entry, its directories).
   */
  async append(text: string, alongside: ReadonlyArray<Promise<void>> = []): Promise<void> {
    const first = this.fd === undefined;
    if (first) await this.open();
    const bytes = Buffer.from(text, 'utf8');
    const at = this.position;
    await writeAllAt(this.fd!, bytes, at);
    this.position = at + bytes.byteLength;
    const syncs = [fsyncFd(this.fd!), ...alongside];
    if (first && this.createIn !== undefined) syncs.push(fsyncDir(this.createIn));
    await Promise.all(syncs);
  }

  /**
   * Writes `text` (into the page cache: a process killed after this reads it back) and returns its fsync without
   * waiting for it. Only for a line recover() can do without (a lone write's applied state, journal.ts).
   */
  async appendThenSync(text: string): Promise<{ synced: Promise<void> }> {
    const bytes = Buffer.from(text, 'utf8');
    await writeAllAt(this.fd!, bytes, this.position);
    this.position += bytes.byteLength;
    return { synced: fsyncFd(this.fd!) };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private async open(): Promise<void> {
    if (this.createIn !== undefined) {
      await makeDir(this.createIn, { recursive: true });
      // 'wx': an id is new; a file already there is not ours to append to
      this.fd = await openFile(this.file, 'wx', 0o600);
      return;
    }
    this.fd = openSync(this.file, 'r+');
    if (fstatSync(this.fd).size !== this.position) ftruncateSync(this.fd, this.position);
  }
}

export const intentLine = (intent: IntentRecord): string => `${JSON.stringify({ t: 'intent', intent })}\n`;

export const undoLine = (undo: UndoRecord, bytes?: Uint8Array): string =>
  `${JSON.stringify(bytes ? { t: 'undo', undo, bytes: Buffer.from(bytes).toString('base64') } : { t: 'undo', undo })}\n`;

export const expectLine = (path: string, sha256: string, mode?: number): string =>
  `${JSON.stringify({ t: 'expect', path, sha256, ...(mode !== undefined ? { mode } : {}) })}\n`;

export const stateLine = (intent: IntentRecord): string =>
  `${JSON.stringify({ t: 'state', state: intent.state, ...(intent.after ? { after: intent.after } : {}), ...(intent.error !== undefined ? { error: intent.error } : {}) })}\n`;

export type ParsedEntry =
  | {
      ok: true;
      /** undefined when the process died before the intent line was whole: nothing of the change ran */
      intent: IntentRecord | undefined;
      records: UndoRecord[];
      /** before-images written inline, by their record's ref */
      inline: Map<string, Buffer>;
      /** what a lone write's path will hold */
      expects: ExpectLine[];
      /** the end of the last whole, valid line: where the next line is appended */
      validLength: number;
    }
  | { ok: false; reason: string };

/**
 * Reads an entry file. Only the last line may be unreadable — the process died while appending it, so the step it
 * guards never started — and it is left out; anything else that is not what apply writes rejects the whole entry.
 */
export function parseEntryFile(id: string, text: string): ParsedEntry {
  const lines = text.split('\n');
  // the text after the last newline: empty, or a line whose newline never reached the disk
  let lastNonEmpty = lines.length - 1;
  while (lastNonEmpty >= 0 && lines[lastNonEmpty]!.trim() === '') lastNonEmpty--;
  let intent: IntentRecord | undefined;
  const records: UndoRecord[] = [];
  const inline = new Map<string, Buffer>();
  const expects: ExpectLine[] = [];
  let offset = 0;
  let validLength = 0;
  for (const [i, line] of lines.entries()) {
    const start = offset;
    offset += Buffer.byteLength(line, 'utf8') + 1;
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      if (i === lastNonEmpty) break;
      return { ok: false, reason: `line ${i + 1} is not JSON` };
    }
    // a line whose newline is missing was cut short even when it parses (a number, say): left out like a torn one
    if (i === lines.length - 1) break;
    const parsed = entryLineSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, reason: `line ${i + 1}: ${issue?.path.join('.')} ${issue?.message}` };
    }
    const entry = parsed.data;
    if (intent === undefined && entry.t !== 'intent') return { ok: false, reason: `line ${i + 1} comes before the intent` };
    switch (entry.t) {
      case 'intent':
        if (intent !== undefined) return { ok: false, reason: `line ${i + 1} is a second intent` };
        if (entry.intent.id !== id) return { ok: false, reason: `the intent names entry ${JSON.stringify(entry.intent.id)}` };
        intent = entry.intent;
        break;
      case 'undo':
        if (entry.bytes !== undefined) {
          if (entry.undo.type !== 'restore-file') return { ok: false, reason: `line ${i + 1}: only a restore-file record carries bytes` };
          inline.set(entry.undo.ref, Buffer.from(entry.bytes, 'base64'));
        }
        records.push(entry.undo);
        break;
      case 'expect':
        expects.push(entry);
        break;
      case 'state':
        intent = { ...intent!, state: entry.state, ...(entry.after ? { after: entry.after } : {}), ...(entry.error !== undefined ? { error: entry.error } : {}) };
        break;
    }
    validLength = start + Buffer.byteLength(line, 'utf8') + 1;
  }
  return { ok: true, intent, records, inline, expects, validLength };
}
