/**
 * Issue 9, finding 5: a hard link inside a root to a file outside it. A link is a second name for the same
 * inode, and nothing tells it from the original — so `fs.chmod 4777` on the inside name changed the outside
 * file's mode while the card showed only the inside path. Each attack runs through the real tools and the real
 * journal on real temp directories and real hard links (link(2)), and checks the outside file afterwards.
 *
 * The rules: a mode change refuses a file with more than one link, at plan and again when the journal applies it
 * (a link made while the approval waited) and when it is undone; setuid/setgid bits are never set; writes
 * replace the inode (temp file + rename), so the other name keeps its content — for overwrite, append, undo and
 * a batch's rollback alike.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from '../tools/world';

const OUTSIDE_TEXT = 'outside: do not touch\n';

describe.skipIf(process.platform === 'win32')('hard-link attacks', () => {
  let world: World;
  let outsideFile: string;
  let inside: string;
  beforeEach(async () => {
    world = await createWorld();
    outsideFile = path.join(world.outside, 'secret.txt');
    await fs.writeFile(outsideFile, OUTSIDE_TEXT);
    await fs.chmod(outsideFile, 0o600);
    inside = path.join(world.root, 'notes.txt');
    await fs.link(outsideFile, inside);
  });
  afterEach(() => world.cleanup());

  async function outsideUntouched(): Promise<void> {
    expect(await fs.readFile(outsideFile, 'utf8')).toBe(OUTSIDE_TEXT);
    expect(((await fs.stat(outsideFile)).mode & 0o7777).toString(8)).toBe('600');
  }

  it.each(['777', '4777', '644', '0600'])('chmod %s through a hard link to an outside file → FORBIDDEN, the outside mode unchanged', async (mode) => {
    const error = await world.fails('fs.chmod', { path: inside, mode }, 'FORBIDDEN');
    expect(error.message).toMatch(/hard link|setuid/);
    await outsideUntouched();
  });

  it('the refusal says why: more than one name, the others may be anywhere', async () => {
    await world.fails('fs.chmod', { path: inside, mode: '755' }, 'FORBIDDEN', /2 hard links.*other name/);
    await expect(toolHandlers['fs.chmod'].plan({ path: inside, mode: '755' }, world.ctx)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { path: inside, links: 2 },
    });
  });

  it('a hard link made while the approval waits is caught when the journal applies the chmod', async () => {
    const plain = await world.write('plain.txt', OUTSIDE_TEXT);
    await fs.chmod(plain, 0o600);
    const args = { path: plain, mode: '777' };
    await toolHandlers['fs.chmod'].plan(args, world.ctx);
    await toolHandlers['fs.chmod'].preview(args, world.ctx);
    // during the wait: the inside name is replaced by a second name of the outside file
    await fs.rm(plain);
    await fs.link(outsideFile, plain);
    await expect(toolHandlers['fs.chmod'].run(args, world.ctx)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await outsideUntouched();
  });

  it('the journal itself refuses a chmod op on a file with more than one link (whoever plans it)', async () => {
    await expect(world.journal.apply('test chmod', [{ op: 'chmod', path: inside, mode: 0o777 }], world.ctx.origin)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await outsideUntouched();
  });

  it('undoing a chmod does not change a file that has since become a hard link to an outside file', async () => {
    const plain = await world.write('plain.txt', OUTSIDE_TEXT);
    await fs.chmod(plain, 0o644);
    const out = await world.call('fs.chmod', { path: plain, mode: '600' });
    // the after-state still matches (same content, same mode), but it is the outside inode now
    await fs.rm(plain);
    await fs.link(outsideFile, plain);
    await expect(world.journal.undo(out.journalId!)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await outsideUntouched();
  });

  it('setuid and setgid bits are never set, on a plain file or a directory: FORBIDDEN, mode unchanged', async () => {
    const plain = await world.write('run.sh', '#!/bin/sh\n');
    await fs.chmod(plain, 0o755);
    for (const mode of ['4755', '2755', '6755', '4000']) {
      await world.fails('fs.chmod', { path: plain, mode }, 'FORBIDDEN', /setuid|setgid/);
    }
    await fs.mkdir(path.join(world.root, 'shared'));
    await world.fails('fs.chmod', { path: path.join(world.root, 'shared'), mode: '2775' }, 'FORBIDDEN', /setgid/);
    expect((await fs.stat(plain)).mode & 0o7777).toBe(0o755);
    // the sticky bit and plain modes are fine
    await world.call('fs.chmod', { path: path.join(world.root, 'shared'), mode: '1777' });
    expect((await fs.stat(path.join(world.root, 'shared'))).mode & 0o7777).toBe(0o1777);
  });

  it('a directory is not refused for its link count (every directory has two or more)', async () => {
    await world.write('dir/sub/a.txt', 'a');
    expect((await fs.stat(path.join(world.root, 'dir'))).nlink).toBeGreaterThan(1);
    await world.call('fs.chmod', { path: path.join(world.root, 'dir'), mode: '750' });
    expect((await fs.stat(path.join(world.root, 'dir'))).mode & 0o777).toBe(0o750);
  });

  it.each(['overwrite', 'append'] as const)('fs.write (%s) to a hard-linked file replaces the inode: the outside file keeps its content', async (mode) => {
    await world.call('fs.write', { path: inside, mode, content: 'pwned\n' });
    expect(await fs.readFile(inside, 'utf8')).toBe(mode === 'append' ? `${OUTSIDE_TEXT}pwned\n` : 'pwned\n');
    expect((await fs.stat(inside)).nlink).toBe(1);
    await outsideUntouched();
  });

  it('undo of a write to a hard-linked file restores the inside name without writing through to the outside file', async () => {
    const out = await world.call('fs.write', { path: inside, mode: 'overwrite', content: 'changed\n' });
    await world.journal.undo(out.journalId!);
    expect(await fs.readFile(inside, 'utf8')).toBe(OUTSIDE_TEXT);
    await outsideUntouched();
  });

  it('a batch that fails after writing a hard-linked file rolls back without writing through', async () => {
    await world.write('afile', 'x');
    await world.fails(
      'fs.writeBatch',
      { files: [{ path: inside, content: 'batch\n' }, { path: path.join(world.root, 'afile', 'below', 'new.txt'), content: 'y' }] },
      'CONFLICT',
    );
    expect(await fs.readFile(inside, 'utf8')).toBe(OUTSIDE_TEXT);
    await outsideUntouched();
  });

  it('PromptX write and edit to a hard-linked file leave the outside file alone', async () => {
    await world.call('filesystem', { action: 'edit', path: 'notes.txt', edits: [{ oldText: 'do not touch', newText: 'edited' }] });
    expect(await fs.readFile(inside, 'utf8')).toBe('outside: edited\n');
    await outsideUntouched();
  });

  it('a write to a setuid file does not carry the setuid bit over to the new content', async () => {
    const tool = await world.write('tool', '#!/bin/sh\necho hi\n');
    await fs.chmod(tool, 0o4755);
    await world.call('fs.write', { path: tool, mode: 'overwrite', content: '#!/bin/sh\necho replaced\n' });
    expect((await fs.stat(tool)).mode & 0o7777).toBe(0o755);
  });

  it('removing or moving a hard link acts on the inside name only', async () => {
    await world.call('fs.mv', { fromPath: inside, toPath: path.join(world.root, 'moved.txt') });
    await world.call('fs.rm', { path: path.join(world.root, 'moved.txt') });
    await outsideUntouched();
  });

  it('reads: a hard link inside a root is read as the file it is (a link cannot be told from its original)', async () => {
    // The roots bound names, not inodes: whoever could make this link could already read the file. See the report.
    const out = await world.call('fs.read', { path: inside });
    expect(out.text).toContain('outside: do not touch');
  });
});
