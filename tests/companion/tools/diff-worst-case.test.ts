/**
 * Attack: a unified diff of two texts whose lines all differ. The diff library's algorithm takes time that grows with
 * the size of the texts times the number of differing lines, and it ran on the companion's own thread: 10 000 lines
 * against 10 000 other lines (117 KB in all) took 24 s, 20 000 against 20 000 three minutes, and the 2 MB a diff was
 * allowed would take hours — every run, approval, `/v1/status` and `/ws` hung meanwhile. fs.diff is a read (no card
 * by default) whose right side the call gives inline, and an auto_coder or Axon plan's card diff is made before the
 * card is shown, so one block froze the companion. A diff now gets a bounded time (companion/tools/define-handler.ts
 * unifiedDiff); past it the answer names the sizes instead of the lines.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWhileResponsive, context, makeWorkspace, mcpRequestBlock, postBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const LINES = 20_000;
const lines = (prefix: string) => Array.from({ length: LINES }, (_, i) => `${prefix} ${i}`).join('\n') + '\n';

describe('attack: a diff of two texts whose every line differs (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-diff-worst-');
    writeFileSync(join(ws.root, 'left.txt'), lines('left'));
    writeFileSync(join(ws.root, 'table.txt'), lines('row'));
    writeFileSync(join(ws.root, 'small.txt'), 'one\ntwo\nthree\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.kill();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('fs.diff of a file against inline content whose every line differs answers soon, naming the sizes', async () => {
    const block = mcpRequestBlock('d', 'fs.diff', { leftPath: join(ws.root, 'left.txt'), rightContent: lines('right') });
    const run = await answeredWhileResponsive(companion, postBlock(companion, 'mcp-request', block, context('conv-diff', 'm1')));
    expect(run).not.toBeNull();
    expect(run?.resultText).toMatch(/too different to diff here/);
    expect(run?.resultText).toContain(`${lines('left').length} characters before, ${lines('right').length} after`);
  });

  it("an auto_coder plan rewriting every line of a file gets its card soon, the card's diff naming the sizes", async () => {
    const plan = `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's1', reason: 'rewrite' }, file_operations: [{ action_type: 'create_file', path: 'table.txt', file_content: lines('col') }], program_operations: [] })}\n--#####`;
    const pending = await answeredWhileResponsive(companion, postPending(companion, 'autocoder', plan, context('conv-diff', 'm2')));
    expect(pending).not.toBeNull();
    expect(pending?.approval.preview.diff).toMatch(/too different to diff here/);
  });

  it('an ordinary diff still shows its lines', async () => {
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('s', 'fs.diff', { leftPath: join(ws.root, 'small.txt'), rightContent: 'one\n2\nthree\n' }), context('conv-diff', 'm3'));
    expect(run.resultText).toContain('-two');
    expect(run.resultText).toContain('+2');
  });
});
