/**
 * Attack, with a root that holds devices and FIFOs (a root of /, or a project with a serial port linked in): a call
 * naming one. Opening a device is itself an act — a serial port's open resets the Arduino behind it, /dev/watchdog's
 * arms the watchdog — and fs.read, fs.diff and an fs.write's preview and before-image opened the path (O_NONBLOCK) and
 * refused it only from the descriptor's fstat. Each is now refused from its lstat, before any open.
 *
 * The open is seen by a program blocked opening a FIFO for writing: its open returns once anything opens the FIFO
 * for reading, and until then the kernel shows it waiting for a reader (/proc/<pid>/wchan).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from '../tools/world';

const WAITING_FOR_READER = /wait_for_partner|pipe_wait|fifo/;

/** A program opening `fifo` for writing; the open returns only once something opens the FIFO for reading. */
function blockedWriter(fifo: string): ChildProcess {
  return spawn('sh', ['-c', 'exec 3>"$1"', 'sh', fifo], { stdio: 'ignore' });
}

function waitsForReader(child: ChildProcess): boolean {
  try {
    return WAITING_FOR_READER.test(readFileSync(`/proc/${child.pid}/wchan`, 'utf8'));
  } catch {
    // gone: its open returned and it exited
    return false;
  }
}

/** Whether `child` got to wait for a reader; false where the kernel does not name wait channels (then nothing is seen). */
async function untilWaiting(child: ChildProcess): Promise<boolean> {
  for (const until = Date.now() + 5_000; Date.now() < until; ) {
    if (waitsForReader(child)) return true;
    if (child.exitCode !== null) throw new Error('the writer ended before it waited for a reader');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

describe.skipIf(process.platform !== 'linux')('attack: a FIFO or device named by a call is refused before it is opened', () => {
  let world: World;
  let fifo: string;
  let writer: ChildProcess;
  let seen: boolean;
  beforeEach(async () => {
    world = await createWorld();
    fifo = path.join(world.root, 'ttyACM0');
    execFileSync('mkfifo', [fifo]);
    writer = blockedWriter(fifo);
    seen = await untilWaiting(writer);
  });
  afterEach(async () => {
    writer.kill('SIGKILL');
    await world.cleanup();
  });

  it.for([
    ['fs.read', 'a read', () => ({ path: fifo }), /is not a regular file \(a FIFO, socket or device\), so it is not read/],
    ['fs.diff', 'its left file', () => ({ leftPath: fifo, rightContent: 'x' }), /is not a regular file \(a FIFO, socket or device\), so it is not read/],
    ['fs.write', 'an overwrite', () => ({ path: fifo, mode: 'overwrite', content: 'x' }), /is not a regular file \(a FIFO, socket or device\)/],
    ['fs.write', 'an append', () => ({ path: fifo, mode: 'append', content: 'x' }), /is not a regular file \(a FIFO, socket or device\)/],
    ['fs.search', 'its start', () => ({ path: fifo, query: 'x' }), /is not a regular file or a directory \(a FIFO, socket or device\)/],
  ] as const)('%s (%s) is refused, and the FIFO was never opened', async ([tool, , args, message], { skip }) => {
    if (!seen) skip('this kernel does not say what a process waits on (/proc/<pid>/wchan)');
    await world.fails(tool, args(), 'INVALID_INPUT', message);
    expect(waitsForReader(writer)).toBe(true);
  });

  it.for([
    ['read', { action: 'read', path: 'ttyACM0' }],
    ['edit', { action: 'edit', path: 'ttyACM0', edits: [{ oldText: 'a', newText: 'b' }] }],
    ['write', { action: 'write', path: 'ttyACM0', content: 'x' }],
  ] as const)('PromptX filesystem %s is refused, and the FIFO was never opened', async ([, args], { skip }) => {
    if (!seen) skip('this kernel does not say what a process waits on (/proc/<pid>/wchan)');
    const answer = await world.call('filesystem', args).then(
      (output) => output.text,
      (error: Error) => error.message,
    );
    expect(answer).toMatch(/not a regular file/);
    expect(waitsForReader(writer)).toBe(true);
  });

  it("fs.write's before-image is not read from a FIFO either (the journal's own check, the preview aside)", async ({ skip }) => {
    if (!seen) skip('this kernel does not say what a process waits on (/proc/<pid>/wchan)');
    await expect(world.journal.apply('fs.write', [{ op: 'write', path: fifo, content: 'x', mode: 'overwrite' }], world.ctx.origin)).rejects.toThrow(
      /is not a regular file \(a FIFO, socket or device\); it is not overwritten/,
    );
    expect(waitsForReader(writer)).toBe(true);
  });
});
