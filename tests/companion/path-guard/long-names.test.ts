/**
 * Names near and over the file system's limits (NAME_MAX 255 bytes, PATH_MAX 4096 on Linux), against the real
 * companion process with every mode on auto: a name the file system holds is written, changed and undone like any
 * other — the temp file beside it must fit too — and one it cannot hold is refused as bad input naming the rule,
 * never answered as an internal error, and nothing of the call is applied.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  undo,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

function answerOf(resultText: string): { ok: boolean; text: string } {
  const response = parseMcpResponse(resultText);
  if (response.result) return { ok: !response.result.isError, text: response.result.content.map((c) => c.text).join('') };
  return { ok: false, text: response.error?.message ?? JSON.stringify(response) };
}

describe('long names: what the file system holds is usable, what it cannot hold is refused with the rule', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }> {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-long', `m${n}`));
    return answerOf(run.resultText);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-long-names-');
    companion = await startCompanionProcess({ root: ws.root, home: join(ws.base, 'home'), config: ALL_AUTO });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  // 250 ASCII bytes, and 84 CJK characters (252 bytes): both are names ext4 holds
  for (const [label, name] of [
    ['a 250-byte name', `${'n'.repeat(246)}.txt`],
    ['an 84-character CJK name (252 bytes)', `${'测'.repeat(83)}文`],
  ] as const) {
    it(`${label} is written, appended to, edited and undone, with no temp file left beside it`, async () => {
      const file = join(ws.root, name);
      const written = await call('fs.write', { path: file, content: 'one\n', mode: 'overwrite' });
      expect(written, written.text).toMatchObject({ ok: true });
      const appended = await call('fs.write', { path: file, content: 'two\n', mode: 'append' });
      expect(appended, appended.text).toMatchObject({ ok: true });
      const edited = await call('filesystem', { action: 'edit', path: file, edits: [{ oldText: 'two', newText: 'three' }] });
      expect(edited, edited.text).toMatchObject({ ok: true });
      expect(readFileSync(file, 'utf8')).toBe('one\nthree\n');
      expect(readdirSync(ws.root).filter((entry) => entry.endsWith('.chatbridge-tmp'))).toEqual([]);
      const read = await call('fs.read', { path: file });
      expect(read).toEqual({ ok: true, text: 'one\nthree\n' });
      const entries = (await journalEntries(companion)).filter((entry) => entry.paths.includes(file) && entry.state === 'applied');
      for (const entry of entries) expect((await undo(companion, entry.id)).status).toBe(200);
      expect(existsSync(file)).toBe(false);
    });
  }

  it('a name over 255 bytes or a path over PATH_MAX is INVALID_INPUT naming the limit, for every tool, and a batch holding one writes nothing', async () => {
    writeFileSync(join(ws.root, 'movable.txt'), 'x');
    const tooLongName = join(ws.root, 'q'.repeat(300));
    const tooLongPath = join(ws.root, ...Array.from({ length: 24 }, () => 'd'.repeat(200)), 'file.txt');
    for (const [name, args] of [
      ['fs.read', { path: tooLongName }],
      ['fs.write', { path: tooLongName, content: 'x', mode: 'overwrite' }],
      ['fs.write', { path: tooLongPath, content: 'x', mode: 'overwrite' }],
      ['fs.mkdir', { path: tooLongPath }],
      ['fs.ls', { path: tooLongName }],
      ['fs.search', { path: tooLongName, query: 'x' }],
      ['fs.mv', { fromPath: join(ws.root, 'movable.txt'), toPath: tooLongName }],
      ['fs.writeBatch', { files: [{ path: join(ws.root, 'first.txt'), content: 'x' }, { path: tooLongName, content: 'y' }] }],
    ] as const) {
      const answer = await call(name, args);
      expect(answer.ok, `${name}: ${answer.text}`).toBe(false);
      expect(answer.text, name).toMatch(/^INVALID_INPUT: .*longer than the file system allows: a name in it may hold at most 255 bytes, the whole path 4095/);
      expect(answer.text, name).not.toMatch(/internal error/i);
    }
    expect(existsSync(join(ws.root, 'first.txt'))).toBe(false);
    expect(readFileSync(join(ws.root, 'movable.txt'), 'utf8')).toBe('x');
  });
});
