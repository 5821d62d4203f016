/**
 * Attack: a denied name that is a link inside a project, to a file of ordinary name in it. A project keeps
 * `config/dev.env` and links `.env` to it (or keeps its secrets in `vault/` and links `.aws` to that folder):
 * `.env` was refused by `**\/.env`, but the same file read, searched, listed with sizes or written by its real name
 * was not, so a model read the secret by that name. A file is denied by the name a link in a folder around it (up
 * to its root) gives it, as it is by the names the home folder's links give it (linked-names.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const SECRET = 'plain-words-no-pattern-knows';

describe('attack: a denied file read by the real name of the file a link in its project leads to (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let proj: string;
  let companion: CompanionProcess;
  let n = 0;
  const post = async (tool: string, args: Record<string, unknown>) => {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(`p${n}`, tool, args), context('conv-project-linked-deny', `m${n}`));
    return parseMcpResponse(run.resultText);
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-project-linked-deny-');
    proj = join(ws.root, 'proj');
    mkdirSync(join(proj, 'config'), { recursive: true });
    writeFileSync(join(proj, 'config', 'dev.env'), `NOTE=${SECRET}\n`);
    writeFileSync(join(proj, 'config', 'app.json'), '{"port": 8080}\n');
    symlinkSync('config/dev.env', join(proj, '.env'));
    mkdirSync(join(proj, 'vault', 'aws'), { recursive: true });
    writeFileSync(join(proj, 'vault', 'aws', 'credentials'), `[default]\nnote = ${SECRET}\n`);
    symlinkSync('vault/aws', join(proj, '.aws'));
    // a link whose file is not there yet: the secret file a model would make by its real name
    mkdirSync(join(proj, 'next', 'config'), { recursive: true });
    symlinkSync('config/prod.env', join(proj, 'next', '.env'));
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('fs.read by the real name is refused naming the glob the link\'s name matches', async () => {
    for (const [path, glob] of [
      [join(proj, 'config', 'dev.env'), '\\*\\*\\/\\.env'],
      [join(proj, 'vault', 'aws', 'credentials'), '\\*\\*\\/\\.aws\\/\\*\\*'],
    ] as const) {
      const answer = await post('fs.read', { path });
      expect(answer.error?.message, JSON.stringify(answer)).toMatch(new RegExp(`POLICY_BLOCKED: .*deny glob "${glob}"`));
      expect(JSON.stringify(answer)).not.toContain(SECRET);
    }
  });

  it('a search of the project finds nothing in it, and a listing with sizes names it as denied without its size', async () => {
    const search = await post('fs.search', { path: proj, query: SECRET });
    expect(search.result?.content[0]?.text).toMatch(/^No matches/);
    const listing = await post('fs.ls', { path: join(proj, 'config'), sizes: true });
    expect(listing.result?.content[0]?.text?.split('\n')).toEqual(['app.json  15 B', 'dev.env  [denied by policy]']);
    // a deeper listing from the project names the linked folder as denied and does not go into it
    const deep = await post('fs.ls', { path: join(proj, 'vault'), depth: 3, sizes: true });
    expect(deep.result?.content[0]?.text?.split('\n')).toEqual(['aws/  [denied by policy]']);
  });

  it('a write by the real name is refused, and the file is as it was', async () => {
    const answer = await post('fs.write', { path: join(proj, 'config', 'dev.env'), mode: 'overwrite', content: 'NOTE=changed\n' });
    expect(answer.error?.message).toMatch(/POLICY_BLOCKED: .*deny glob "\*\*\/\.env"/);
    expect(readFileSync(join(proj, 'config', 'dev.env'), 'utf8')).toBe(`NOTE=${SECRET}\n`);
  });

  it('a file a dangling link names, made by its real name, is refused as the link\'s name is: nothing is made', async () => {
    const answer = await post('fs.write', { path: join(proj, 'next', 'config', 'prod.env'), mode: 'overwrite', content: 'NOTE=planted\n' });
    expect(answer.error?.message).toMatch(/POLICY_BLOCKED: .*deny glob "\*\*\/\.env"/);
    expect(existsSync(join(proj, 'next', 'config', 'prod.env'))).toBe(false);
  });

  it('the project\'s ordinary files stay readable', async () => {
    const answer = await post('fs.read', { path: join(proj, 'config', 'app.json') });
    expect(answer.result?.content[0]?.text).toBe('{"port": 8080}\n');
  });
});
