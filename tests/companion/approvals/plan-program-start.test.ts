/**
 * An auto_coder plan's programs start after its file actions: the card's pinned scripts were checked when the person
 * approved, but a write that lands while the plan applies its files (another block where writes are auto, another
 * tab, any program) used to go unseen, and the program ran text nobody saw. Each program's scripts are checked again
 * as it starts, against the card — or, for a file the plan itself wrote, against what the plan wrote (its diff).
 * The real authorizer, approval store, journal and process manager; the person approves at once, and the other
 * block's write is made right after one of the plan's own file actions is applied, as it would land between them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../../companion/approvals/store';
import { runAutocoderPlan } from '../../../companion/plans';
import { createAuthorize } from '../../../companion/runs/authorizer';
import type { ToolContext } from '../../../companion/types';
import { createWorld, parseExecutorResponse, type World } from '../plans/world';

const SHOWN = 'echo shown-content\n';
const SWAPPED = 'echo swapped-content\n';

describe("attack: a script rewritten while an approved plan applies its files, before its program starts", () => {
  let world: World;
  /** what the other block writes, right after the plan's file action of this label is applied */
  let landing: { after: string; file: string; content: string } | undefined;

  beforeEach(async () => {
    world = await createWorld();
    landing = undefined;
  });
  afterEach(() => world.dispose());

  function ctx(): ToolContext {
    const base = world.ctx();
    const approvals = createApprovalStore({ ttlMs: 60_000 });
    const authorize = createAuthorize({ policy: world.policy, approvals }, base.origin, { paths: [], commands: [], decision: '' }, {
      onPending: (approval) => void approvals.decide(approval.id, 'approve', approval.argsHash),
      onResumed: () => {},
    });
    const journal = {
      ...world.journal,
      async apply(...args: Parameters<World['journal']['apply']>) {
        const entry = await world.journal.apply(...args);
        if (landing !== undefined && args[0].includes(landing.after)) await writeFile(join(world.root, landing.file), landing.content);
        return entry;
      },
    };
    return { ...base, journal, authorize };
  }

  const plan = (files: Array<[string, string]>, command: string) => ({
    type: 'operate',
    metadata: { step_id: 's1', reason: 'run' },
    file_operations: files.map(([path, content]) => ({ action_type: 'create_file', path, file_content: content })),
    program_operations: [{ name: 'go', command }],
  });

  async function run(files: Array<[string, string]>, command: string) {
    const text = await runAutocoderPlan(plan(files, command) as never, ctx(), { auditId: 'a1' });
    return { text: text ?? '', go: parseExecutorResponse(text).program_execs.go as { status: string; stdout: string; stderr: string } };
  }

  it('a script the plan does not write, rewritten after the approval: the program is not started, CONFLICT names it', async () => {
    await world.write('go.sh', SHOWN);
    landing = { after: 'made.txt', file: 'go.sh', content: SWAPPED };
    const { text, go } = await run([['made.txt', 'x\n']], 'bash go.sh');
    expect(text).not.toContain('swapped-content');
    expect(go.status).toBe('failure');
    expect(go.stderr).toContain(`CONFLICT: ${JSON.stringify(join(world.root, 'go.sh'))}, which program "go" runs, changed after its card was approved`);
  });

  it('a script the plan writes, rewritten by another block after the plan wrote it: not started either', async () => {
    await world.write('own.sh', SHOWN);
    landing = { after: 'own.sh', file: 'own.sh', content: SWAPPED };
    const { text, go } = await run([['own.sh', 'echo planned-content\n']], 'bash own.sh');
    expect(text).not.toContain('swapped-content');
    expect(go.status).toBe('failure');
    expect(go.stderr).toContain(`CONFLICT: ${JSON.stringify(join(world.root, 'own.sh'))}, which program "go" runs`);
  });

  it("the plan's own change to its script runs as its diff showed, and an untouched script as the card showed", async () => {
    await world.write('own.sh', SHOWN);
    await world.write('kept.sh', 'echo kept-content\n');
    const { go } = await run([['own.sh', 'echo planned-content\n']], 'bash own.sh && bash kept.sh');
    expect(go.status).toBe('completed');
    expect(go.stdout).toContain('planned-content');
    expect(go.stdout).toContain('kept-content');
  });
});
