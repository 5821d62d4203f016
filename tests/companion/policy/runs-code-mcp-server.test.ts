/**
 * Attack: the person mounts an MCP server of their own whose program lives in the workspace (`node
 * <root>/tools/server.mjs`, as anyone developing one does). Where writes are `auto`, a model rewrites that file:
 * an ordinary write, no card — and the companion's next start (or the restart after a crash) runs the model's code
 * with the person's rights. The config file is reserved for this very reason (a model must not add an MCP server
 * the next start runs); the program a configured server runs is the same thing. A write to it is exec.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, startCompanionProcess, writeDeniedAsExec, type CompanionProcess, type Workspace } from '../load/live-companion';
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
    await writeDeniedAsExec(companion, { path: server, content: evil, mode: 'overwrite' }, context('conv-mcp', 'm1'), /MCP server/);
    expect(readFileSync(server, 'utf8')).toBe(original());
    await companion.stop();
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config });
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(pwned)).toBe(false);
  });
});

describe.runIf(spawnSync('python3', ['--version']).status === 0)(
  "attack: a module file beside a Python MCP server run with -m, in its working directory (real companion)",
  { timeout: 120_000 },
  () => {
    let ws: Workspace;
    let companion: CompanionProcess;

    beforeAll(async () => {
      ws = makeWorkspace('cb-runs-code-mcp-py-');
      companion = await startCompanionProcess({
        root: ws.root,
        home: ws.home,
        config: { modes: { write: 'auto', exec: 'confirm' }, mcpServers: { py: { command: 'python3', args: ['-m', 'cb_probe_server'], cwd: ws.root } } },
      });
    }, 60_000);

    afterAll(async () => {
      await companion?.stop();
      rmSync(ws.base, { recursive: true, force: true });
    });

    it('python -m runs a module of that name in its working directory first, so writing one there asks on an exec card', async () => {
      // what makes it code that runs: Python's own lookup, shown with the same working directory
      const marker = join(ws.base, 'ran');
      writeFileSync(join(ws.base, 'cb_probe_server.py'), `open(${JSON.stringify(marker)}, 'w').write('x')\n`);
      spawnSync('python3', ['-m', 'cb_probe_server'], { cwd: ws.base });
      expect(existsSync(marker)).toBe(true);

      for (const [i, file] of [join(ws.root, 'cb_probe_server.py'), join(ws.root, 'cb_probe_server', '__main__.py')].entries()) {
        await writeDeniedAsExec(companion, { path: file, content: 'import os\n', mode: 'overwrite' }, context('conv-mcp-py', `m${i}`), /MCP server/);
        expect(existsSync(file)).toBe(false);
      }
    });
  },
);

describe("attack: a program planted in node_modules where an npx-started MCP server runs (real companion)", { timeout: 120_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-runs-code-mcp-npx-');
    mkdirSync(join(ws.root, 'tools'));
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { write: 'auto', exec: 'confirm' }, mcpServers: { files: { command: 'npx', args: ['-y', '--offline', 'cb-probe-srv'], cwd: join(ws.root, 'tools') } } },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it("a write into the node_modules of the project around the working directory asks on an exec card", async () => {
    // the server starts in tools/ of a project: npx takes the project's node_modules, one folder up
    writeFileSync(join(ws.root, 'package.json'), '{"name":"project","version":"1.0.0"}\n');
    const file = join(ws.root, 'node_modules', 'cb-probe-srv', 'cli.js');
    await writeDeniedAsExec(companion, { path: file, content: '#!/usr/bin/env node\n', mode: 'overwrite' }, context('conv-mcp-npx', 'm2'), /MCP server/);
    expect(existsSync(file)).toBe(false);
  });

  it("a write into the working directory's node_modules asks on an exec card", async () => {
    const file = join(ws.root, 'tools', 'node_modules', '.bin', 'cb-probe-srv');
    await writeDeniedAsExec(companion, { path: file, content: '#!/bin/sh\n', mode: 'overwrite' }, context('conv-mcp-npx', 'm1'), /MCP server/);
    expect(existsSync(file)).toBe(false);
  });
});

describe("attack: the script of an MCP server uv runs in its --directory (real companion)", { timeout: 120_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-runs-code-mcp-uv-');
    mkdirSync(join(ws.root, 'weather'));
    writeFileSync(join(ws.root, 'weather', 'weather.py'), 'print("weather")\n');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      // as the MCP quickstart writes it: uv changes into the folder, then runs weather.py there
      config: { modes: { write: 'auto', exec: 'confirm' }, mcpServers: { weather: { command: 'uv', args: ['--directory', join(ws.root, 'weather'), 'run', 'weather.py'], disabled: true } } },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('a rewrite of the script in that folder asks on an exec card', async () => {
    const file = join(ws.root, 'weather', 'weather.py');
    await writeDeniedAsExec(companion, { path: file, content: 'import os\n', mode: 'overwrite' }, context('conv-mcp-uv', 'm1'), /MCP server/);
    expect(readFileSync(file, 'utf8')).toBe('print("weather")\n');
  });
});

describe("which files are an MCP server's program", () => {
  const servers = {
    mine: { command: 'node', args: ['tools/server.mjs', '--config=/home/you/p/srv.json', '--verbose'], cwd: '/home/you/p' },
    local: { command: '/home/you/bin/my-server' },
    remote: { url: 'https://mcp.example.com/mcp' },
    python: { command: 'python3', args: ['-m', 'mcp_server_git.cli', '--repository', '.'], cwd: '/home/you/q' },
    fetched: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/you/docs'], cwd: '/home/you/r' },
    uv: { command: 'uv', args: ['--directory=/home/you/w', 'run', 'server.py'], cwd: '/home/you/s' },
  };
  it.each([
    '/home/you/p/tools/server.mjs',
    '/home/you/p/srv.json',
    '/home/you/bin/my-server',
    // python -m looks in its working directory first: a module file or package folder there is what runs
    '/home/you/q/mcp_server_git.py',
    '/home/you/q/mcp_server_git',
    '/home/you/q/mcp_server_git/__init__.py',
    '/home/you/q/mcp_server_git/cli.py',
    // npx runs what the working directory's node_modules holds before it fetches the package
    '/home/you/r/node_modules/.bin/mcp-server-filesystem',
    '/home/you/r/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
    // and the project's above it: npm takes the nearest folder up with a package.json or node_modules
    '/home/you/node_modules/.bin/mcp-server-filesystem',
    '/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
    // uv runs in its --directory: the script named after it is there
    '/home/you/w/server.py',
  ])('%s is one', (file) => expect(runsCode(file, servers)).toMatch(/MCP servers/));
  it.each(['/home/you/p/tools/other.mjs', '/home/you/p/--verbose', '/home/you/p/README.md', '/home/you/q/mcp_server_gitx.py', '/home/you/q/other.py', '/home/you/r/src/index.js', '/home/you/p/node_modules/x/index.js', '/home/you/s/server.py'])(
    '%s is not',
    (file) => expect(runsCode(file, servers)).toBeUndefined(),
  );
  it('without servers nothing changes', () => expect(runsCode('/home/you/p/tools/server.mjs')).toBeUndefined());
});
