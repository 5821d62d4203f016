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
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

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
