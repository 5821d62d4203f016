/**
 * Attack: fs.search drops a hit that exists only because the query matched inside a secret (it would confirm a
 * guess), but with `limit: 1` the dropped hit still counted toward the limit: a right guess answered
 * "… stopped at 1 hits", a wrong one "No matches". Guessing a token a character at a time then reads it whole.
 * A right guess and a wrong guess must answer the same (real companion, both search backends).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const TOKEN = 'ghp_R7xQ2mV9kL4pW8zT3nB6yH1cF5gJ0dS2aE4u';
const PASSWORD = 'correct-horse-battery';

describe.each(['auto', 'js'] as const)('attack: fs.search limit as an oracle for a secret (real companion, %s backend)', { timeout: 90_000 }, (backend) => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const search = async (args: Record<string, unknown>) => {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(`s${n}`, 'fs.search', { path: ws.root, ...args }), context('conv-oracle', `m${n}`));
    const result = parseMcpResponse(run.resultText).result;
    return JSON.stringify(result?.content).replaceAll(JSON.stringify(args.query).slice(1, -1), '<query>');
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-oracle-');
    writeFileSync(join(ws.root, 'config.ts'), `export const token = "${TOKEN}";\n`);
    writeFileSync(join(ws.root, 'settings.ini'), `db_password=${PASSWORD}\nport=5432\n`);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, env: backend === 'js' ? { CHATBRIDGE_SEARCH_BACKEND: 'js' } : {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('a right guess at a token answers as a wrong one does, with limit 1', async () => {
    const right = await search({ query: TOKEN.slice(0, 8), limit: 1 });
    const wrong = await search({ query: 'ghp_ZZZZ', limit: 1 });
    expect(right).toBe(wrong);
  });

  it('a right regex guess at a password answers as a wrong one does, with limit 1', async () => {
    const right = await search({ query: 'password=(?=corr)', regex: true, limit: 1 });
    const wrong = await search({ query: 'password=(?=wron)', regex: true, limit: 1 });
    expect(right).toBe(wrong);
  });
});
