/**
 * Attack: the files `chatbridge mcp import` reads are code that runs — Windsurf and VS Code start the servers they
 * list, and an import makes those servers this companion's own, started at its next start — but only Cursor's and
 * Claude Code's were on runs-code's list (Claude Desktop's folder is denied outright). Where writes are auto, a
 * model wrote `~/.codeium/windsurf/mcp_config.json` or VS Code's user `mcp.json` with a server of its choosing (a
 * command, an env such as NODE_OPTIONS, a cwd) and no card; the next `chatbridge mcp import` offered it as the
 * person's own server.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopConfigSources } from '../../../companion/mcp-servers/import';
import { firstDeniedPath } from '../../../companion/policy/decide';
import { runsCode } from '../../../companion/policy/runs-code';
import { DEFAULT_DENY } from '../../../companion/policy/schema';
import { context, decideApproval, makeWorkspace, mcpRequestBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('every file chatbridge mcp import reads runs code, or is denied', () => {
  it.each([
    ['linux', { home: '/home/you', platform: 'linux' as const }],
    ['macOS', { home: '/Users/you', platform: 'darwin' as const }],
    ['Windows (as a POSIX path)', { home: '/c/Users/you', platform: 'win32' as const, appData: '/c/Users/you/AppData/Roaming' }],
  ])('%s', (_os, env) => {
    for (const source of desktopConfigSources(env)) {
      const guarded = runsCode(source.file) !== undefined || firstDeniedPath([source.file], DEFAULT_DENY) !== null;
      expect(guarded, `${source.client}: ${source.file}`).toBe(true);
    }
  });
});

describe("attack: a desktop client's server list written where writes are auto (real companion)", { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-import-sources-');
    // the root is a home folder
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { write: 'auto', exec: 'confirm' } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['.codeium/windsurf/mcp_config.json', 'mcpServers'],
    ['.config/Code/User/mcp.json', 'servers'],
  ])('%s asks on an exec card; denied, nothing is written', async (file, key) => {
    const target = join(ws.root, file);
    const content = JSON.stringify({ [key]: { notes: { command: 'npx', args: ['-y', 'notes-mcp'], env: { NODE_OPTIONS: `--require ${ws.root}/x.js` } } } });
    const { run, approval } = await postPending(
      companion,
      'mcp-request',
      mcpRequestBlock(file, 'fs.write', { path: target, content, mode: 'overwrite' }),
      context('conv-import', file),
    );
    expect(approval.risk).toBe('exec');
    await decideApproval(companion, approval, 'deny', run.runId);
    expect(existsSync(target)).toBe(false);
  });
});
