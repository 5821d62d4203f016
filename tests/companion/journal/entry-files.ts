/**
 * Reading and editing journal entries on disk in tests, whatever their format (companion/journal/records.ts):
 * format 2 is `<journal>/<id>.jsonl`, format 1 `<journal>/<id>/intent.json` and `undo.jsonl`.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { parseEntryFile } from '../../../companion/journal/entry-file';
import type { IntentRecord, IntentState, UndoRecord } from '../../../companion/journal/records';

/** The file that holds an entry's state: the format-2 entry file, or format 1's intent.json. */
export function stateFile(journalDir: string, id: string): string {
  const v2 = path.join(journalDir, `${id}.jsonl`);
  return existsSync(v2) ? v2 : path.join(journalDir, id, 'intent.json');
}

/** The intent with its present state, read from a file stateFile named. */
export async function readIntent(file: string): Promise<IntentRecord> {
  const text = await fs.readFile(file, 'utf8');
  if (!file.endsWith('.jsonl')) return JSON.parse(text) as IntentRecord;
  const parsed = parseEntryFile(path.basename(file, '.jsonl'), text);
  if (!parsed.ok || !parsed.intent) throw new Error(`${file}: ${parsed.ok ? 'no intent' : parsed.reason}`);
  return parsed.intent;
}

/** The undo records of every entry in the journal. */
export async function undoRecords(journalDir: string): Promise<UndoRecord[]> {
  const records: UndoRecord[] = [];
  for (const name of await fs.readdir(journalDir).catch(() => [] as string[])) {
    if (!name.endsWith('.jsonl')) continue;
    const parsed = parseEntryFile(path.basename(name, '.jsonl'), await fs.readFile(path.join(journalDir, name), 'utf8'));
    if (parsed.ok) records.push(...parsed.records);
  }
  return records;
}

/**
 * As if the process had stopped before the entry's state became final: format 2 loses its state lines (a crash
 * before the applied line was durable) and, for `undoing`, gets that one; format 1's intent.json is rewritten.
 * Returns the state file.
 */
export async function markUnfinished(journalDir: string, id: string, state: Extract<IntentState, 'applying' | 'undoing'> = 'applying'): Promise<string> {
  const file = stateFile(journalDir, id);
  const text = await fs.readFile(file, 'utf8');
  if (!file.endsWith('.jsonl')) {
    await fs.writeFile(file, JSON.stringify({ ...(JSON.parse(text) as IntentRecord), state }));
    return file;
  }
  const kept = text.split('\n').filter((line) => line && (JSON.parse(line) as { t: string }).t !== 'state');
  if (state === 'undoing') {
    // an undo starts from an applied entry: its after-state is kept with the undoing line
    const applied = await readIntent(file);
    kept.push(JSON.stringify({ t: 'state', state, ...(applied.after ? { after: applied.after } : {}) }));
  }
  await fs.writeFile(file, `${kept.join('\n')}\n`);
  return file;
}

/** Every file under dir (relative path → content, `<dir>` for directories, mode too), to compare whole trees. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function visit(current: string): Promise<void> {
    for (const name of (await fs.readdir(current)).sort()) {
      const full = path.join(current, name);
      const stat = await fs.lstat(full);
      const key = path.relative(dir, full);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        out[key] = `<dir ${mode}>`;
        await visit(full);
      } else if (stat.isSymbolicLink()) out[key] = `<link ${await fs.readlink(full)}>`;
      else out[key] = `${mode} ${await fs.readFile(full, 'utf8')}`;
    }
  }
  await visit(dir);
  return out;
}

/**
 * A person's edit made a while after a crash (the companion was down, and they went on working): dated a minute on,
 * as nothing in a test waits that long. A file changed within moments of an interrupted entry is the entry's own.
 */
export async function editLater(file: string, content: string): Promise<void> {
  await fs.writeFile(file, content);
  const later = new Date(Date.now() + 60_000);
  await fs.utimes(file, later, later);
}
