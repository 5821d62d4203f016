import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from './world';

describe('fs.diff', () => {
  let world: World;
  let left: string;
  let right: string;
  beforeEach(async () => {
    world = await createWorld();
    left = await world.write('left.txt', 'a\nb\nc\nd\ne\nf\ng\n');
    right = await world.write('right.txt', 'a\nb\nc\nD\ne\nf\ng\n');
  });
  afterEach(() => world.cleanup());

  it('unified diff against another file', async () => {
    const out = await world.call('fs.diff', { leftPath: left, rightPath: right });
    expect(out.text).toContain(`--- ${left}`);
    expect(out.text).toContain(`+++ ${right}`);
    expect(out.text).toContain('@@ -1,7 +1,7 @@');
    expect(out.text).toContain('-d\n+D');
  });

  it('against rightContent, with contextLines', async () => {
    const out = await world.call('fs.diff', { leftPath: left, rightContent: 'a\nb\nc\nd\ne\nf\nG\n', contextLines: 1 });
    expect(out.text).toContain('@@ -6,2 +6,2 @@');
    expect(out.text).not.toContain(' a\n');
    expect((await world.call('fs.diff', { leftPath: left, rightContent: 'a\nb\nc\nd\ne\nf\ng\n' })).text).toBe('No differences.');
  });

  it("its card's title comes with the files compared, for the card to word in the person's language", async () => {
    const handler = toolHandlers['fs.diff'];
    const files = await handler.preview({ leftPath: left, rightPath: right }, world.ctx);
    expect(files.title).toBe(`Compare ${left} with ${right}`);
    expect(files.heading).toEqual({ kind: 'compare', left, right });
    const given = await handler.preview({ leftPath: left, rightContent: 'x' }, world.ctx);
    expect(given.title).toBe(`Compare ${left} with the given content`);
    expect(given.heading).toEqual({ kind: 'compare', left });
  });

  it('errors: both or neither right side INVALID_INPUT, missing NOT_FOUND, binary INVALID_INPUT, outside FORBIDDEN', async () => {
    await world.fails('fs.diff', { leftPath: left, rightPath: right, rightContent: 'x' }, 'INVALID_INPUT', /exactly one/);
    await world.fails('fs.diff', { leftPath: left }, 'INVALID_INPUT', /exactly one/);
    await world.fails('fs.diff', { leftPath: path.join(world.root, 'nope'), rightContent: '' }, 'NOT_FOUND');
    const bin = await world.write('b.bin', Buffer.from([0, 1, 2]));
    await world.fails('fs.diff', { leftPath: bin, rightContent: '' }, 'INVALID_INPUT', /binary/);
    await world.fails('fs.diff', { leftPath: left, rightPath: '/etc/passwd' }, 'FORBIDDEN');
    await world.fails('fs.diff', { leftPath: left, rightContent: 'x', contextLines: 9 }, 'INVALID_INPUT');
  });
});
