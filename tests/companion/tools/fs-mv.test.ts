import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolHandlers } from '../../../companion/tools';
import { withCallScope } from '../../../companion/tools/define-handler';
import { createWorld, type World } from './world';

describe('fs.mv', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('a.txt', 'A');
    await world.write('b.txt', 'B');
    await world.write('dir/c.txt', 'C');
  });
  afterEach(() => world.cleanup());

  it('moves a file (creating the destination directory) and a directory; undo moves back', async () => {
    const out = await world.call('fs.mv', { fromPath: path.join(world.root, 'a.txt'), toPath: path.join(world.root, 'new/place/a.txt') });
    expect(await world.read('new/place/a.txt')).toBe('A');
    expect(await world.exists(path.join(world.root, 'a.txt'))).toBe(false);
    await world.journal.undo(out.journalId!);
    expect(await world.read('a.txt')).toBe('A');
    expect(await world.exists(path.join(world.root, 'new'))).toBe(false);
    await world.call('fs.mv', { fromPath: path.join(world.root, 'dir'), toPath: path.join(world.root, 'dir2') });
    expect(await world.read('dir2/c.txt')).toBe('C');
  });

  it('an existing destination needs overwrite (CONFLICT otherwise); overwrite replaces it', async () => {
    const args = { fromPath: path.join(world.root, 'a.txt'), toPath: path.join(world.root, 'b.txt') };
    await world.fails('fs.mv', args, 'CONFLICT', /overwrite: true/);
    await world.call('fs.mv', { ...args, overwrite: true });
    expect(await world.read('b.txt')).toBe('A');
  });

  it('errors: src/dest names INVALID_INPUT, missing source NOT_FOUND, destination outside FORBIDDEN, into itself INVALID_INPUT', async () => {
    await world.fails('fs.mv', { src: path.join(world.root, 'a.txt'), dest: path.join(world.root, 'z.txt') }, 'INVALID_INPUT');
    await world.fails('fs.mv', { fromPath: path.join(world.root, 'nope'), toPath: path.join(world.root, 'z') }, 'NOT_FOUND');
    await world.fails('fs.mv', { fromPath: path.join(world.root, 'a.txt'), toPath: path.join(world.outside, 'a.txt') }, 'FORBIDDEN');
    await world.fails('fs.mv', { fromPath: path.join(world.root, 'a.txt'), toPath: path.join(world.root, '.env') }, 'POLICY_BLOCKED');
    await world.fails('fs.mv', { fromPath: path.join(world.root, 'dir'), toPath: path.join(world.root, 'dir/inner') }, 'INVALID_INPUT');
    expect(await world.read('a.txt')).toBe('A');
  });

  it.each([
    ['fs.mv', 'POLICY_BLOCKED', (from: string, to: string) => ({ fromPath: from, toPath: to })],
    // its answer speaks the PromptX manual's codes
    ['filesystem', 'FORBIDDEN', (from: string, to: string) => ({ action: 'move', source: from, destination: to })],
  ] as const)(
    '%s: a file that runs code, written into the folder by a call the move waited behind, is seen: the move is refused, nothing lands',
    async (tool, code, argsOf) => {
      // Where writes are auto, a call that writes a folder's files (a long fs.writeBatch, its last file tasks.json) holds
      // the journal while a move of that folder onto .vscode, sent beside it (an MCP client's parallel calls), passes
      // its run-time check with the folder still without tasks.json and waits for its turn: the ordinary write then
      // lands where the move puts it, and the move was never decided as exec.
      const stage = path.join(world.root, 'stage');
      await world.write('stage/notes.md', 'notes\n');
      const beside = { path: path.join(stage, 'tasks.json'), content: '{"tasks":[{"command":"sh x","runOptions":{"runOn":"folderOpen"}}]}\n', mode: 'overwrite' };
      const journal = world.journal;
      const ctx = {
        ...world.ctx,
        journal: {
          ...journal,
          // the write beside it had the journal's turn first: it is made (through the real tool and journal), then this one
          async apply(...args: Parameters<typeof journal.apply>) {
            await toolHandlers['fs.write'].run(toolHandlers['fs.write'].contract.input.parse(beside), world.ctx);
            return journal.apply(...args);
          },
        },
      };
      const handler = toolHandlers[tool];
      const args = handler.contract.input.parse(argsOf(stage, path.join(world.root, '.vscode')));
      const call = withCallScope(ctx);
      const planned = await handler.plan(args as never, call);
      expect(planned.paths).not.toContain(path.join(world.root, '.vscode', 'tasks.json'));
      // fs.mv throws; the PromptX tool answers with its failure
      const outcome = await handler.run(args as never, call).then(
        (output) => output.failure,
        (error: unknown) => error,
      );
      expect(outcome).toMatchObject({ code, message: expect.stringContaining('.vscode/tasks.json') });
      expect(await world.exists(path.join(world.root, '.vscode'))).toBe(false);
      expect(await world.read('stage/tasks.json')).toContain('folderOpen');
    },
  );
});
