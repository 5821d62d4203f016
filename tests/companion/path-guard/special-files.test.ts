/**
 * Attack: files that are not what a read expects, planted inside a root where reads run without a card (the
 * default policy). A sparse file that says it is 100 GB: fs.read refused it by its size, but fs.search named it as
 * its start, and ripgrep — which applies --max-filesize only to files its walk finds, not to one named on its
 * command line — read all 100 GB of zeros, one core busy for minutes while the run waited, only for the hits to be
 * thrown away for the file's size. A FIFO named as the search's start was taken for a directory (spawn ENOTDIR, an
 * internal error), and a socket read was an internal error (ENXIO) where a FIFO was refused by name. Each is now
 * refused at once, naming the path and the rule (real companion, both search backends).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const HUNDRED_GB = 100 * 1024 ** 3;
const TEN_MB = 10 * 1024 * 1024;

describe.each(['auto', 'js'] as const)('attack: special files inside a root (real companion, %s search backend)', { timeout: 90_000 }, (backend) => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let socket: net.Server;
  let n = 0;
  /** The call's error, or a failure naming how long it took when no answer came within `withinMs`. */
  const refusal = async (tool: string, args: Record<string, unknown>, withinMs = 10_000) => {
    n++;
    const started = Date.now();
    const posted = postBlock(companion, 'mcp-request', mcpRequestBlock(`s${n}`, tool, args), context('conv-special', `m${n}`));
    const run = await Promise.race([posted, new Promise<undefined>((resolve) => setTimeout(resolve, withinMs))]);
    if (run === undefined) throw new Error(`${tool} ${JSON.stringify(args)} had no answer after ${Date.now() - started} ms`);
    return parseMcpResponse(run.resultText).error;
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-special-');
    writeFileSync(join(ws.root, 'disk.img'), '');
    truncateSync(join(ws.root, 'disk.img'), HUNDRED_GB);
    execFileSync('mkfifo', [join(ws.root, 'pipe')]);
    socket = net.createServer().listen(join(ws.root, 'app.sock'));
    writeFileSync(join(ws.root, 'notes.txt'), 'hello\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, env: backend === 'js' ? { CHATBRIDGE_SEARCH_BACKEND: 'js' } : {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    socket?.close();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('a search of a sparse 100 GB file is refused at once for its size, as a read of it is', async () => {
    const path = join(ws.root, 'disk.img');
    const error = await refusal('fs.search', { path, query: 'password' }, 5_000);
    expect(error?.data?.code).toBe('LIMIT_EXCEEDED');
    expect(error?.message).toContain(JSON.stringify(path));
    expect(error?.message).toContain(`${HUNDRED_GB} bytes, over the limit of ${TEN_MB} bytes (limits.maxFileBytes)`);
    // the companion is free for the next call
    n++;
    const read = await postBlock(companion, 'mcp-request', mcpRequestBlock(`s${n}`, 'fs.read', { path: join(ws.root, 'notes.txt') }), context('conv-special', `m${n}`));
    expect(parseMcpResponse(read.resultText).result?.content[0]?.text).toBe('hello\n');
  });

  it('a search of a FIFO is refused by name, not answered as an internal error', async () => {
    const path = join(ws.root, 'pipe');
    const error = await refusal('fs.search', { path, query: 'x' });
    expect(error?.data?.code).toBe('INVALID_INPUT');
    expect(error?.message).toContain(`${JSON.stringify(path)} is not a regular file or a directory (a FIFO, socket or device), so it is not searched`);
  });

  it('a read of a socket is refused as a FIFO is, not answered as an internal error', async () => {
    const path = join(ws.root, 'app.sock');
    const error = await refusal('fs.read', { path });
    expect(error?.data?.code).toBe('INVALID_INPUT');
    expect(error?.message).toContain(`${JSON.stringify(path)} is not a regular file (a FIFO, socket or device), so it is not read`);
  });
});

/**
 * Attack, where writes are `auto`: overwriting a file larger than limits.maxFileBytes. A card would have refused it
 * (its diff reads the file through the limit), but without one the journal read the whole file for its before-image
 * first: a sparse 1.5 GB file took 10 s, 1.7 GB of the companion's memory and 1.6 GB of the data dir, and a 100 GB
 * one failed as an internal error with Node's buffer message. The journal now refuses a file over the limit before
 * reading it, whoever asks for the write, and nothing is changed.
 */
describe('attack: overwriting a file over limits.maxFileBytes where writes are auto (real companion)', { timeout: 90_000 }, () => {
  const ONE_MB = 1024 * 1024;
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const post = async (tool: string, args: Record<string, unknown>) => {
    n++;
    return postBlock(companion, 'mcp-request', mcpRequestBlock(`w${n}`, tool, args), context('conv-large', `m${n}`));
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-large-write-');
    for (const [name, size] of [['disk.img', HUNDRED_GB], ['data.bin', 20 * ONE_MB], ['table.bin', 20 * ONE_MB]] as const) {
      writeFileSync(join(ws.root, name), '');
      truncateSync(join(ws.root, name), size);
    }
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { write: 'auto' }, limits: { maxFileBytes: ONE_MB } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  /** No change of this path was applied (a refused change is in the journal as rolled back). */
  const applied = async (path: string) => (await journalEntries(companion)).filter((entry) => entry.paths.includes(path) && entry.state === 'applied');

  it.each([
    ['disk.img', HUNDRED_GB],
    ['data.bin', 20 * ONE_MB],
  ] as const)('fs.write over %s is refused for its size before it is read; the file is as it was', async (name, size) => {
    const path = join(ws.root, name);
    const error = parseMcpResponse((await post('fs.write', { path, content: 'x', mode: 'overwrite' })).resultText).error;
    expect(error?.data?.code).toBe('LIMIT_EXCEEDED');
    expect(error?.message).toContain(`${JSON.stringify(path)} is ${size} bytes, over the limit of ${ONE_MB} bytes (limits.maxFileBytes)`);
    expect(statSync(path).size).toBe(size);
    expect(await applied(path)).toEqual([]);
  });

  it('an auto_coder plan creating the file over it fails that step the same way', async () => {
    const path = join(ws.root, 'table.bin');
    const plan = `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's1', reason: 'reset' }, file_operations: [{ action_type: 'create_file', path: 'table.bin', file_content: 'x' }], program_operations: [] })}\n--#####`;
    n++;
    const run = await postBlock(companion, 'autocoder', plan, context('conv-large', `m${n}`));
    const response = JSON.parse(/^#####--\n([\s\S]*)\n--#####$/.exec(run.resultText)![1]!) as { file_actions: Array<{ status: string; error?: string }> };
    expect(response.file_actions[0]?.status).toBe('failure');
    expect(response.file_actions[0]?.error).toContain(`LIMIT_EXCEEDED: ${JSON.stringify(path)} is ${20 * ONE_MB} bytes, over the limit of ${ONE_MB} bytes (limits.maxFileBytes)`);
    expect(statSync(path).size).toBe(20 * ONE_MB);
    expect(await applied(path)).toEqual([]);
  });
});
