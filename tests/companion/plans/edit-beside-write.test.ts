/**
 * Attack (lost update): a replacement is worked out from the file as it was read, and written whole. Changes take
 * the journal's turns, so a write that had the turn (another call sent beside it — an MCP client's parallel calls —
 * or the person's editor saving) lands between the read and the replacement's own write, which then put the old
 * text back over it and answered success: the other change was gone with no word. Each replacement now says what
 * it was made from, and the journal refuses it in its turn (CONFLICT) when the file holds something else by then.
 * The interleaving is made exact here: the journal's turn first makes the other write (through the real journal),
 * then the replacement's.
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan, runAxonPlan } from '../../../companion/plans';
import { toolHandlers } from '../../../companion/tools';
import type { Journal, ToolContext } from '../../../companion/types';
import { createWorld, type World } from './world';

let world: World;
beforeEach(async () => {
  world = await createWorld({ modes: { write: 'auto' } });
  await world.write('notes.md', 'title\nline 2\nline 3\n');
});
afterEach(async () => {
  await world.dispose();
});

const BESIDE = 'title\nline 2\nline 3\nwritten beside, by the call that had the turn\n';

/** A context whose journal lets the write beside it go first, as a turn held by another call would. */
function besideWrite(): ToolContext {
  const ctx = world.ctx();
  const journal: Journal = world.journal;
  return {
    ...ctx,
    journal: {
      ...journal,
      async apply(...args: Parameters<Journal['apply']>) {
        await writeFile(join(world.root, 'notes.md'), BESIDE);
        return journal.apply(...args);
      },
    },
  };
}

describe('a replacement after a write it did not read', () => {
  it('Axon replace: refused with CONFLICT, the other write kept', async () => {
    const text = await runAxonPlan([{ acts: [{ act: 'replace\n', args: ['notes.md\n', 'line 2\n', 'line two\n'] }] }], besideWrite(), { auditId: 'a' });
    expect(text).toContain('CONFLICT');
    expect(text).not.toContain('plan: applied');
    expect(await world.read('notes.md')).toBe(BESIDE);
  });

  it('auto_coder replace_file: refused with CONFLICT, the other write kept', async () => {
    const text = await runAutocoderPlan(
      {
        metadata: { step_id: 's1', reason: '' },
        type: 'operate',
        file_operations: [{ action_type: 'replace_file', path: 'notes.md', modify_content: [{ identifier: 'l2', old_content: 'line 2', new_content: 'line two' }] }],
        program_operations: [],
      } as never,
      besideWrite(),
      { auditId: 'a' },
    );
    expect(text).toContain('CONFLICT');
    expect(await world.read('notes.md')).toBe(BESIDE);
  });

  it('PromptX edit: refused with CONFLICT, the other write kept', async () => {
    const handler = toolHandlers.filesystem;
    const args = handler.contract.input.parse({ action: 'edit', path: join(world.root, 'notes.md'), edits: [{ oldText: 'line 2', newText: 'line two' }] });
    const ctx = besideWrite();
    await handler.plan(args, ctx);
    const output = await handler.run(args, ctx);
    expect(output.failure).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('changed after it was read') });
    expect(await world.read('notes.md')).toBe(BESIDE);
  });

  it('left alone, a replacement is made as before', async () => {
    await runAxonPlan([{ acts: [{ act: 'replace\n', args: ['notes.md\n', 'line 2\n', 'line two\n'] }] }], world.ctx(), { auditId: 'a' });
    expect(await world.read('notes.md')).toBe('title\nline two\nline 3\n');
  });
});
