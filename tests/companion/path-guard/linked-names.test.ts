/**
 * Attack: a denied folder that is a link to a folder of ordinary name (real companion, the root is its home). A
 * dotfile manager made `~/.aws` a link to `~/dotfiles/aws`: `~/.aws/credentials` was refused by `**\/.aws/**`, but
 * the same file read, searched or listed by its dotfiles name was not, and a model read the secret by that name. A
 * file is denied by the name a link in the home folder gives it too.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const SECRET = 'plain-words-no-pattern-knows';

describe('attack: a denied file read by the name of the folder its link leads to (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const post = async (tool: string, args: Record<string, unknown>) => {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(`d${n}`, tool, args), context('conv-linked-deny', `m${n}`));
    return parseMcpResponse(run.resultText);
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-linked-deny-');
    mkdirSync(join(ws.root, 'dotfiles', 'aws'), { recursive: true });
    writeFileSync(join(ws.root, 'dotfiles', 'aws', 'credentials'), `[default]\nnote = ${SECRET}\n`);
    writeFileSync(join(ws.root, 'dotfiles', 'bashrc.md'), 'notes about my shell\n');
    symlinkSync(join(ws.root, 'dotfiles', 'aws'), join(ws.root, '.aws'));
    // rcm (and Stow where the folder already was there) links each file, in a real folder of the denied name
    mkdirSync(join(ws.root, 'dotfiles', 'kube'), { recursive: true });
    writeFileSync(join(ws.root, 'dotfiles', 'kube', 'config'), `users:\n- name: admin\n  note: ${SECRET}\n`);
    mkdirSync(join(ws.root, '.kube'));
    symlinkSync(join(ws.root, 'dotfiles', 'kube', 'config'), join(ws.root, '.kube', 'config'));
    mkdirSync(join(ws.root, 'dotfiles', 'gcloud'), { recursive: true });
    writeFileSync(join(ws.root, 'dotfiles', 'gcloud', 'credentials.db'), `${SECRET}\n`);
    mkdirSync(join(ws.root, '.config', 'gcloud'), { recursive: true });
    symlinkSync(join(ws.root, 'dotfiles', 'gcloud', 'credentials.db'), join(ws.root, '.config', 'gcloud', 'credentials.db'));
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, env: { HOME: ws.root }, config: {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('by the link\'s name and by its target\'s, fs.read is refused naming the glob', async () => {
    for (const path of [join(ws.root, '.aws', 'credentials'), join(ws.root, 'dotfiles', 'aws', 'credentials')]) {
      const answer = await post('fs.read', { path });
      expect(answer.error?.message).toMatch(/POLICY_BLOCKED: .*deny glob "\*\*\/\.aws\/\*\*"/);
      expect(JSON.stringify(answer)).not.toContain(SECRET);
    }
  });

  it('a file linked one by one into a folder of the denied name (~/.kube/config, ~/.config/gcloud/…) is refused by its target\'s name too', async () => {
    for (const [path, glob] of [
      [join(ws.root, 'dotfiles', 'kube', 'config'), '\\*\\*\\/\\.kube\\/\\*\\*'],
      [join(ws.root, 'dotfiles', 'gcloud', 'credentials.db'), '\\*\\*\\/\\.config\\/gcloud\\/\\*\\*'],
    ] as const) {
      const answer = await post('fs.read', { path });
      expect(answer.error?.message).toMatch(new RegExp(`POLICY_BLOCKED: .*deny glob "${glob}"`));
      expect(JSON.stringify(answer)).not.toContain(SECRET);
    }
  });

  it('a search or a listing of the dotfiles folder never shows what the file holds', async () => {
    const search = await post('fs.search', { path: join(ws.root, 'dotfiles'), query: SECRET });
    expect(search.result?.content[0]?.text).toMatch(/^No matches/);
    const listing = await post('fs.ls', { path: join(ws.root, 'dotfiles', 'aws') });
    expect(listing.error?.message).toMatch(/POLICY_BLOCKED/);
  });

  it('a listing with sizes of the dotfiles folder names the linked secrets as denied and never measures them', async () => {
    const deep = await post('fs.ls', { path: join(ws.root, 'dotfiles'), depth: 3, sizes: true });
    const lines = deep.result?.content[0]?.text?.split('\n') ?? [];
    expect(lines).toContain('aws/  [denied by policy]');
    expect(lines).toContain('kube/config  [denied by policy]');
    expect(lines).toContain('gcloud/credentials.db  [denied by policy]');
    expect(lines.filter((line) => line.startsWith('aws/') && line !== 'aws/  [denied by policy]')).toEqual([]);
    const listed = await post('fs.ls', { path: join(ws.root, 'dotfiles', 'kube'), sizes: true });
    expect(listed.result?.content[0]?.text).toBe('config  [denied by policy]');
    // the filesystem tool's list_directory_with_sizes lists the same way
    const manual = await post('filesystem', { action: 'list_directory_with_sizes', path: join(ws.root, 'dotfiles', 'kube') });
    const { data } = JSON.parse(manual.result?.content[0]?.text ?? '{}') as { data: unknown };
    expect(data).toEqual([{ name: 'config', type: 'file', denied: true }]);
  });

  it('the folder\'s ordinary neighbours stay readable', async () => {
    const answer = await post('fs.read', { path: join(ws.root, 'dotfiles', 'bashrc.md') });
    expect(answer.result?.content[0]?.text).toBe('notes about my shell\n');
  });
});
