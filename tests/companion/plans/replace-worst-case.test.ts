/**
 * Attack: old text matched against a file of many equal lines. Matching (shared/replace) tries every line of the file
 * as a start and compares the old text's lines from there, so a file of 300 000 lines of `x` against old text of
 * 3 000 lines of `x` and one `y` costs their product, on the companion's own thread — and a plan checks its replaces
 * before its card, against the files as its own earlier steps leave them. One Axon plan (write_file, then replace)
 * or one auto_coder plan (create_file, then replace_file) held every run, approval and request for minutes with the
 * default policy, nothing approved. Replacements now run under the watchdog with a budget per plan or call
 * (companion/tools/define-handler.ts replaceWithin); past it they fail LIMIT_EXCEEDED and nothing is written.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWhileResponsive, context, makeWorkspace, postBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const FILE = 'x\n'.repeat(300_000);
const OLD = `${'x\n'.repeat(3_000)}y`;

describe('attack: a replace over a file of many equal lines (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-replace-worst-');
    writeFileSync(join(ws.root, 'small.py'), 'def hello():\n    pass\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.kill();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const fence = (name: string, body: string) => `~~~~~${name}\n${body}\n~~~~~`;

  it('an Axon plan writing the file and replacing in it is answered soon: the replace fails LIMIT_EXCEEDED, nothing is written', async () => {
    const plan = [
      fence('act', 'write_file'), fence('path', 'big.txt'), fence('text', FILE),
      fence('act', 'replace'), fence('path', 'big.txt'), fence('text', OLD), fence('text', 'z'),
    ].join('\n');
    const run = await answeredWhileResponsive(companion, postBlock(companion, 'axon', plan, context('conv-replace', 'm1')));
    expect(run).not.toBeNull();
    expect(run?.resultText).toMatch(/2 replace big\.txt: LIMIT_EXCEEDED: matching the old text .* took more than 1000 ms/);
    expect(existsSync(join(ws.root, 'big.txt'))).toBe(false);
  });

  it("an auto_coder plan creating the file and replacing in it gets its card soon, the card saying the replace will fail", async () => {
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 's1', reason: 'edit' },
      file_operations: [
        { action_type: 'create_file', path: 'big2.txt', file_content: FILE },
        { action_type: 'replace_file', path: 'big2.txt', modify_content: [{ identifier: 'b1', old_content: OLD, new_content: 'z' }] },
      ],
      program_operations: [],
    })}\n--#####`;
    const pending = await answeredWhileResponsive(companion, postPending(companion, 'autocoder', plan, context('conv-replace', 'm2')));
    expect(pending).not.toBeNull();
    expect(pending?.approval.preview.diff).toMatch(/replace_file big2\.txt: will fail \(LIMIT_EXCEEDED: block "b1": matching the old text/);
  });

  it('an ordinary replace still applies', async () => {
    const plan = [fence('act', 'replace'), fence('path', 'small.py'), fence('python', '    pass'), fence('python', '    print("Fixed")')].join('\n');
    const { approval } = await postPending(companion, 'axon', plan, context('conv-replace', 'm3'));
    expect(approval.preview.diff).toContain('+    print("Fixed")');
  });
});
