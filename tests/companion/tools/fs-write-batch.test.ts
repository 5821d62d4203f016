import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../../companion/fsx/sha256';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from './world';

describe('fs.writeBatch', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('a.txt', 'A\n');
    await world.write('b.txt', 'B\n');
  });
  afterEach(() => world.cleanup());

  it('writes every file and answers WRITE_BATCH_SUCCESS; preview has a diff per file', async () => {
    const files = [
      { path: path.join(world.root, 'a.txt'), content: 'A2\n' },
      { path: path.join(world.root, 'b.txt'), content: 'more\n', mode: 'append' },
      { path: path.join(world.root, 'new/c.txt'), content: '' },
    ];
    const preview = await toolHandlers['fs.writeBatch'].preview({ files }, world.ctx);
    expect(preview.diff).toBeUndefined();
    const diff = await preview.diffLater!();
    expect(diff.match(/^\+\+\+ /gm)).toHaveLength(3);
    // the file the batch creates is diffed from /dev/null (the card tags it new); the others from themselves
    expect(diff.match(/^--- .*$/gm)).toEqual([`--- ${files[0]!.path}`, `--- ${files[1]!.path}`, '--- /dev/null']);
    const out = await world.call('fs.writeBatch', { files });
    expect(out.text).toBe('WRITE_BATCH_SUCCESS');
    expect([await world.read('a.txt'), await world.read('b.txt'), await world.read('new/c.txt')]).toEqual(['A2\n', 'B\nmore\n', '']);
  });

  it("a binary file's card says it is replaced or appended to, not a diff that reads as if it were empty", async () => {
    const blob = await world.write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const blob2 = await world.write('data.bin', Buffer.from([1, 0, 2, 0]));
    const files = [
      { path: blob, content: 'text\n' },
      { path: blob2, content: 'tail', mode: 'append' },
      { path: blob2, content: 'more', mode: 'append' },
    ];
    const diff = await (await toolHandlers['fs.writeBatch'].preview({ files }, world.ctx)).diffLater!();
    expect(diff).toBe(
      [
        `(binary file ${blob} would be replaced by 5 characters of text)`,
        `(4 characters of text would be appended to the binary file ${blob2})`,
        `(4 characters of text would be appended to the binary file ${blob2})`,
      ].join('\n'),
    );
    const single = await toolHandlers['fs.write'].preview({ path: blob2, content: 'tail', mode: 'append' }, world.ctx);
    expect(await single.diffLater!()).toBe(`(4 characters of text would be appended to the binary file ${blob2})`);
  });

  it('all-or-nothing: one stale expectedSha256 → CONFLICT and no file changed or created', async () => {
    await world.fails(
      'fs.writeBatch',
      {
        files: [
          { path: path.join(world.root, 'a.txt'), content: 'changed' },
          { path: path.join(world.root, 'fresh/d.txt'), content: 'created' },
          { path: path.join(world.root, 'b.txt'), content: 'changed', expectedSha256: sha256('stale') },
        ],
      },
      'CONFLICT',
    );
    expect(await world.read('a.txt')).toBe('A\n');
    expect(await world.read('b.txt')).toBe('B\n');
    expect(await world.exists(path.join(world.root, 'fresh'))).toBe(false);
  });

  it('one path outside the roots refuses the whole batch before anything is written', async () => {
    await world.fails(
      'fs.writeBatch',
      { files: [{ path: path.join(world.root, 'a.txt'), content: 'x' }, { path: path.join(world.outside, 'x'), content: 'x' }] },
      'FORBIDDEN',
    );
    expect(await world.read('a.txt')).toBe('A\n');
    await world.fails('fs.writeBatch', { files: [] }, 'INVALID_INPUT');
    await world.fails('fs.writeBatch', { files: [{ path: path.join(world.root, 'a.txt') }] }, 'INVALID_INPUT');
  });
});
