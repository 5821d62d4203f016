import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callExecuting, ioOnMainThread } from '../../../companion/fsx/io-mode';
import { sha256 } from '../../../companion/fsx/sha256';
import { createWorld, DEFAULT_LIMITS, type World } from './world';

const TEXT = 'line one\nline two\nline three\nline four\n';

describe('fs.read', () => {
  let world: World;
  let file: string;
  beforeEach(async () => {
    world = await createWorld();
    file = await world.write('notes.txt', TEXT);
  });
  afterEach(() => world.cleanup());

  it('reads a whole file; its sha256 only with includeMeta', async () => {
    const out = await world.call('fs.read', { path: file });
    expect(out.text).toBe(TEXT);
    expect(out.truncated).toBe(false);
    expect(out.data).toMatchObject({ path: file, size: TEXT.length, lines: 4 });
    expect(out.data).not.toHaveProperty('sha256');
    const meta = await world.call('fs.read', { path: file, includeMeta: true });
    expect(meta.text).toContain(`sha256: ${sha256(TEXT)}`);
    expect(meta.data).toMatchObject({ sha256: sha256(TEXT) });
  });

  it('reads the same through the thread pool as on the main thread (other calls executing: fsx/io-mode.ts)', async () => {
    const alone = await world.call('fs.read', { path: file, lines: '2-3' });
    callExecuting(1);
    callExecuting(1);
    try {
      expect(ioOnMainThread()).toBe(false);
      expect(await world.call('fs.read', { path: file, lines: '2-3' })).toEqual(alone);
      expect(await world.call('fs.read', { path: file })).toMatchObject({ text: TEXT });
    } finally {
      callExecuting(-1);
      callExecuting(-1);
    }
  });

  it.each([
    [{ range: 'head:8' }, 'line one'],
    [{ range: 'tail:10' }, 'line four\n'],
    [{ range: '5:12' }, 'one\nlin'],
    [{ range: '30:' }, 'ine four\n'],
    [{ head: 4 }, 'line'],
    [{ tail: 5 }, 'four\n'],
    [{ line: 2 }, 'line two\n'],
    [{ lines: '2-3' }, 'line two\nline three\n'],
    [{ lines: '3-' }, 'line three\nline four\n'],
    [{ lines: '3-99' }, 'line three\nline four\n'],
  ])('selects %j', async (selector, expected) => {
    const out = await world.call('fs.read', { path: file, ...selector });
    expect(out.text).toBe(expected);
  });

  it('encodes as base64 and hex, with ranges counted in bytes', async () => {
    expect((await world.call('fs.read', { path: file, encoding: 'base64' })).text).toBe(Buffer.from(TEXT).toString('base64'));
    expect((await world.call('fs.read', { path: file, encoding: 'hex', range: '0:4' })).text).toBe(Buffer.from('line').toString('hex'));
    expect((await world.call('fs.read', { path: file, encoding: 'base64', tail: 5 })).text).toBe(Buffer.from('four\n').toString('base64'));
  });

  it('includeMeta puts size, sha256, mtime and line count in a header', async () => {
    const out = await world.call('fs.read', { path: file, includeMeta: true, line: 1 });
    const stat = await fs.stat(file);
    expect(out.text).toBe(
      `path: ${file}\nsize: ${TEXT.length} B\nsha256: ${sha256(TEXT)}\nmtime: ${stat.mtime.toISOString()}\nlines: 4\nencoding: utf-8\n---\nline one\n`,
    );
  });

  it('caps a large read and says which range to read next', async () => {
    await world.cleanup();
    world = await createWorld({ limits: { ...DEFAULT_LIMITS, maxResultChars: 100 } });
    const big = await world.write('big.txt', 'x'.repeat(250));
    const out = await world.call('fs.read', { path: big });
    expect(out.truncated).toBe(true);
    expect(out.text.startsWith('x'.repeat(100))).toBe(true);
    expect(out.text).toContain('read more with range: "100:200"');
    const next = await world.call('fs.read', { path: big, range: '200:250' });
    expect(next.text).toBe('x'.repeat(50));
    const lines = await world.write('lines.txt', Array.from({ length: 40 }, (_, i) => `row ${i + 1}`).join('\n'));
    const byLines = await world.call('fs.read', { path: lines, lines: '1-40' });
    expect(byLines.truncated).toBe(true);
    expect(byLines.text).toMatch(/read more with lines: "\d+-40"/);
    const minified = await world.write('min.js', `a\n${'m'.repeat(300)}\nz\n`);
    const longLine = await world.call('fs.read', { path: minified, line: 2 });
    expect(longLine.truncated).toBe(true);
    expect(longLine.text).toContain('line 2 is 300 characters; read the rest with range: "102:302"');
  });

  it('a binary file read as utf-8 is refused with a hint to use base64', async () => {
    const bin = await world.write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]));
    await world.fails('fs.read', { path: bin }, 'INVALID_INPUT', /binary.*base64/);
    expect((await world.call('fs.read', { path: bin, encoding: 'hex' })).text).toBe('89504e47000102ff');
  });

  it.skipIf(process.platform === 'win32')('a FIFO planted in the workspace is refused, not waited on', async () => {
    const fifo = path.join(world.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await world.fails('fs.read', { path: fifo }, 'INVALID_INPUT', /not a regular file/);
    await world.fails('fs.write', { path: fifo, mode: 'overwrite', content: 'x' }, 'INVALID_INPUT', /not a regular file/);
  });

  it('an empty file reads as empty text', async () => {
    const empty = await world.write('empty.txt', '');
    expect((await world.call('fs.read', { path: empty })).text).toBe('');
  });

  it.each([
    ['range and line together', { range: 'head:3', line: 1 }, /at most one/],
    ['head and tail together', { head: 1, tail: 1 }, /at most one/],
    ['base64 with lines', { encoding: 'base64', lines: '1-2' }, /line/],
    ['hex with line', { encoding: 'hex', line: 1 }, /line/],
    ['bad range', { range: 'middle:3' }, /head:N/],
    ['unknown argument', { file: 'x' }, /file|Unrecognized/i],
    ['line past the end', { line: 10 }, /past the end; the file has 4 lines/],
    ['range start past the end', { range: '500:600' }, /past the end/],
  ])('%s → INVALID_INPUT', async (_name, extra, message) => {
    await world.fails('fs.read', { path: file, ...extra }, 'INVALID_INPUT', message);
  });

  it('errors: missing file NOT_FOUND, directory INVALID_INPUT, relative path INVALID_INPUT, over maxFileBytes LIMIT_EXCEEDED', async () => {
    await world.fails('fs.read', { path: path.join(world.root, 'missing.txt') }, 'NOT_FOUND');
    await world.fails('fs.read', { path: world.root }, 'INVALID_INPUT', /directory/);
    await world.fails('fs.read', { path: 'notes.txt' }, 'INVALID_INPUT', new RegExp(`absolute.*${world.root}`));
    await world.cleanup();
    world = await createWorld({ limits: { ...DEFAULT_LIMITS, maxFileBytes: 10 } });
    const big = await world.write('big.txt', 'y'.repeat(11));
    await world.fails('fs.read', { path: big }, 'LIMIT_EXCEEDED', /maxFileBytes/);
  });

  it('symlink out for read is FORBIDDEN; a denied file is POLICY_BLOCKED', async () => {
    await fs.writeFile(path.join(world.outside, 'secret'), 'top secret');
    await fs.symlink(path.join(world.outside, 'secret'), path.join(world.root, 'innocent.txt'));
    await world.fails('fs.read', { path: path.join(world.root, 'innocent.txt') }, 'FORBIDDEN');
    const env = await world.write('.env', 'API_KEY=1');
    await world.fails('fs.read', { path: env }, 'POLICY_BLOCKED', /\.env/);
    const gitConfig = await world.write('.git/config', '[core]');
    await world.fails('fs.read', { path: gitConfig }, 'POLICY_BLOCKED');
  });
});
