/**
 * sha256File hashes a file its caller found to be a regular file a moment before (an approval's shown state, the
 * journal's after-state, an append's digest). Whatever was swapped in meanwhile is not followed or waited on.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256, sha256File } from '../../../companion/fsx/sha256';

const dir = mkdtempSync(join(tmpdir(), 'cb-sha256-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The promise's outcome, or 'still waiting' after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('sha256File', () => {
  it('hashes a small file read whole and a large one streamed', async () => {
    const small = join(dir, 'small.txt');
    writeFileSync(small, 'hello\n');
    expect(await sha256File(small, 6)).toBe(sha256('hello\n'));
    const large = join(dir, 'large.bin');
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    writeFileSync(large, bytes);
    expect(await sha256File(large, bytes.length)).toBe(sha256(bytes));
    expect(await sha256File(large)).toBe(sha256(bytes));
  });

  it('a FIFO swapped in for the file is refused at once, not waited on with a thread of the pool', async () => {
    const fifo = join(dir, 'swapped.fifo');
    execFileSync('mkfifo', [fifo]);
    const outcome = await within(
      sha256File(fifo, 10).then(
        () => 'hashed',
        (error: Error) => error.message,
      ),
      2000,
    );
    expect(outcome).toBe(`${JSON.stringify(fifo)} is no longer a regular file`);
  });

  it('a symlink swapped in for the file is not followed', async () => {
    const outside = join(dir, 'elsewhere.txt');
    writeFileSync(outside, 'not this one\n');
    const link = join(dir, 'link.txt');
    symlinkSync(outside, link);
    await expect(sha256File(link, 13)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
