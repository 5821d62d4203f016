/**
 * Attack: the person mounts an MCP server of their own whose program lives in the workspace (`node
 * <root>/tools/server.mjs`, as anyone developing one does). Where writes are `auto`, a model rewrites that file:
 * an ordinary write, no card — and the companion's next start (or the restart after a crash) runs the model's code
 * with the person's rights. The config file is reserved for this very reason (a model must not add an MCP server
 * the next start runs); the program a configured server runs is the same thing. A write to it is exec.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, decideApproval, makeWorkspace, mcpRequestBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';
import { fixture } from '../mcp-servers/world';
import { runsCode } from '../../../companion/policy/runs-code';

describe("attack: rewriting the program of the person's MCP server (real companion)", { timeout: 120_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let server: string;
  let config: Record<string, unknown>;
  const original = () => `import ${JSON.stringify(fixture('features.mjs'))};\n`;

  beforeAll(async () => {
    ws = makeWorkspace('cb-runs-code-mcp-');
    mkdirSync(join(ws.root, 'tools'));
    server = join(ws.root, 'tools', 'server.mjs');
    writeFileSync(server, original());
    config = {
      modes: { write: 'auto', exec: 'confirm' },
      mcpServers: { mine: { command: process.execPath, args: [server], policy: { default: 'auto' } } },
    };
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the rewrite asks on an exec card; denied, the next start runs the person’s program', async () => {
    const pwned = join(ws.base, 'PWNED');
    const evil = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pwned)}, 'ran');\n${original()}`;
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock('w', 'fs.write', { path: server, content: evil, mode: 'overwrite' }), context('conv-mcp', 'm1'));
    expect(approval.risk).toBe('exec');
    expect(approval.preview.actions?.[0]?.label).toMatch(/MCP server/);
    await decideApproval(companion, approval, 'deny', run.runId);
    expect(readFileSync(server, 'utf8')).toBe(original());
    await companion.stop();
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config });
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(pwned)).toBe(false);
  });
});

describe("which files are an MCP server's program", () => {
  const servers = {
    mine: { command: 'node', args: ['tools/server.mjs', '--config=/home/you/p/srv.json', '--verbose'], cwd: '/home/you/p' },
    local: { command: '/home/you/bin/my-server' },
    remote: { url: 'https://mcp.example.com/mcp' },
  };
  it.each(['/home/you/p/tools/server.mjs', '/home/you/p/srv.json', '/home/you/bin/my-server'])('%s is one', (file) => expect(runsCode(file, servers)).toMatch(/MCP servers/));
  it.each(['/home/you/p/tools/other.mjs', '/home/you/p/--verbose', '/home/you/p/README.md'])('%s is not', (file) => expect(runsCode(file, servers)).toBeUndefined());
  it('without servers nothing changes', () => expect(runsCode('/home/you/p/tools/server.mjs')).toBeUndefined());
});
