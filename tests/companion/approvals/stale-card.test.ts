/**
 * An approval is for the files as its card showed them. The card's diff is made when the call arrives; the card may
 * wait up to the approval's lifetime (30 minutes by default) while the person — or their editor, or another
 * program — changes the file. Approving then must not make a change nobody saw: an overwrite would throw away the
 * edit made meanwhile, an edit would land on other text than the card showed. Against the real companion process
 * with the default modes (writes ask).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  decideApproval,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postPending,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

describe('approving a card after its files changed', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const next = () => context('conv-stale', `m${++n}`);

  beforeAll(async () => {
    ws = makeWorkspace('cb-stale-card-');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it("an overwrite approved after the person edited the file is refused with CONFLICT, and the person's edit stays", async () => {
    const file = join(ws.root, 'notes.md');
    writeFileSync(file, 'line 1\nline 2\n');
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(1, 'fs.write', { path: file, content: 'line 1\nline 2\nline 3\n', mode: 'overwrite' }), next());
    expect(approval.preview.diff).toContain('+line 3');
    writeFileSync(file, 'line 1\nline 2\nwritten by the person while the card waited\n');
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.status).toBe('error');
    expect(parseMcpResponse(done.resultText).error?.message).toBe(
      `CONFLICT: ${JSON.stringify(file)} changed while approval ${approval.id} waited: the card showed it as it was, so what was approved is not what would be done now; nothing was done — send the call again for a new card`,
    );
    expect(readFileSync(file, 'utf8')).toBe('line 1\nline 2\nwritten by the person while the card waited\n');
    expect((await journalEntries(companion)).filter((entry) => entry.paths.includes(file))).toEqual([]);
  });

  it('an edit whose text moved meanwhile is refused rather than made where the card did not show it', async () => {
    const file = join(ws.root, 'config.txt');
    writeFileSync(file, 'a = 1\nb = 2\n');
    const { run, approval } = await postPending(
      companion,
      'mcp-request',
      mcpRequestBlock(2, 'filesystem', { action: 'edit', path: file, edits: [{ oldText: 'b = 2', newText: 'b = 3' }] }),
      next(),
    );
    writeFileSync(file, 'b = 2 # keep\na = 1\n');
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.resultText).toContain(`changed while approval ${approval.id} waited`);
    expect(readFileSync(file, 'utf8')).toBe('b = 2 # keep\na = 1\n');
  });

  it('an auto_coder plan is refused whole when one of its files changed: none of its changes is made', async () => {
    writeFileSync(join(ws.root, 'a.txt'), 'a\n');
    writeFileSync(join(ws.root, 'b.txt'), 'b\n');
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 's1', reason: 'tidy' },
      file_operations: [
        { action_type: 'create_file', path: 'a.txt', file_content: 'A\n' },
        { action_type: 'create_file', path: 'c.txt', file_content: 'C\n' },
        { action_type: 'delete_file', path: 'b.txt' },
      ],
      program_operations: [],
    })}\n--#####`;
    const { run, approval } = await postPending(companion, 'autocoder', plan, next());
    writeFileSync(join(ws.root, 'b.txt'), 'b, edited by the person\n');
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.resultText).toContain(`changed while approval ${approval.id} waited`);
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(ws.root, 'b.txt'), 'utf8')).toBe('b, edited by the person\n');
    expect(existsSync(join(ws.root, 'c.txt'))).toBe(false);
  });

  it('a file saved again with the same bytes, or left alone, is as the card showed it: the approved change is made', async () => {
    const file = join(ws.root, 'same.md');
    writeFileSync(file, 'one\n');
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(4, 'fs.write', { path: file, content: 'two\n', mode: 'overwrite' }), next());
    writeFileSync(file, 'one\n');
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.status).toBe('done');
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    const created = join(ws.root, 'created.md');
    const second = await postPending(companion, 'mcp-request', mcpRequestBlock(5, 'fs.write', { path: created, content: 'new\n', mode: 'overwrite' }), next());
    expect((await decideApproval(companion, second.approval, 'approve', second.run.runId)).status).toBe('done');
    expect(readFileSync(created, 'utf8')).toBe('new\n');
  });

  it('a file too large to hash twice counts by its size and change times: appended to meanwhile, the delete is refused; left alone, it is made', async () => {
    const big = join(ws.root, 'big.bin');
    writeFileSync(big, Buffer.alloc(17 * 1024 * 1024, 7));
    const first = await postPending(companion, 'mcp-request', mcpRequestBlock(6, 'fs.rm', { path: big }), next());
    appendFileSync(big, 'more');
    const refused = await decideApproval(companion, first.approval, 'approve', first.run.runId);
    expect(refused.resultText).toContain(`changed while approval ${first.approval.id} waited`);
    expect(existsSync(big)).toBe(true);
    const second = await postPending(companion, 'mcp-request', mcpRequestBlock(7, 'fs.rm', { path: big }), next());
    expect((await decideApproval(companion, second.approval, 'approve', second.run.runId)).status).toBe('done');
    expect(existsSync(big)).toBe(false);
  });

  it('a folder whose removal waited counts by everything under it: a file edited or saved deep inside meanwhile makes the delete a CONFLICT; left alone, it is removed', async () => {
    const dir = join(ws.root, 'old-notes');
    mkdirSync(join(dir, 'drafts'), { recursive: true });
    writeFileSync(join(dir, 'drafts', 'plan.md'), 'plan\n');
    const first = await postPending(companion, 'mcp-request', mcpRequestBlock(8, 'fs.rm', { path: dir, recursive: true }), next());
    expect(first.approval.preview.title).toContain('a directory with 2 entries');
    // the folder's own entries stay as they were: only drafts/ changes
    writeFileSync(join(dir, 'drafts', 'plan.md'), 'plan, edited by the person\n');
    const refused = await decideApproval(companion, first.approval, 'approve', first.run.runId);
    expect(refused.status).toBe('error');
    expect(refused.resultText).toContain(`${JSON.stringify(dir).replace(/"/g, '\\"')} changed while approval ${first.approval.id} waited`);
    expect(readFileSync(join(dir, 'drafts', 'plan.md'), 'utf8')).toBe('plan, edited by the person\n');
    const second = await postPending(companion, 'mcp-request', mcpRequestBlock(9, 'fs.rm', { path: dir, recursive: true }), next());
    writeFileSync(join(dir, 'drafts', 'new.md'), 'saved by the person while the card waited\n');
    expect((await decideApproval(companion, second.approval, 'approve', second.run.runId)).resultText).toContain(`changed while approval ${second.approval.id} waited`);
    expect(readFileSync(join(dir, 'drafts', 'new.md'), 'utf8')).toBe('saved by the person while the card waited\n');
    const third = await postPending(companion, 'mcp-request', mcpRequestBlock(10, 'fs.rm', { path: dir, recursive: true }), next());
    expect((await decideApproval(companion, third.approval, 'approve', third.run.runId)).status).toBe('done');
    expect(existsSync(dir)).toBe(false);
  });
});
