import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpServers } from '../../../companion/mcp-servers/registry';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { waitUntil } from './world';

/*
 * The companion shuts down (or its servers are closed) while a server is still starting: one downloading itself, or
 * stuck before its first answer. Its program was not the connection's yet, so nothing closed it: it ran on for its
 * whole start timeout, and past the companion's exit, in a process group of its own, for as long as it ignored its
 * closed input.
 */
const home = mkdtempSync(join(tmpdir(), 'cb-mcp-closing-'));

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The live processes whose command line holds `marker` (Linux /proc; elsewhere none are seen). */
function processesWith(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker) && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.runIf(process.platform === 'linux')('a server still starting when its servers are closed', () => {
  it('is stopped with them, not left to its start timeout and beyond', async () => {
    const marker = `silent-start-${randomBytes(4).toString('hex')}`;
    // never answers initialize, and ignores the end of its input
    const silent = 'process.stdin.resume(); process.stdin.on("end", () => {}); setInterval(() => {}, 1000)';
    const policy = policyFromConfig(parseConfig({ mcpServers: { silent: { command: process.execPath, args: ['-e', silent, marker], startTimeoutMs: 600_000 } } }), [
      { root: home, base: home, key: 'test' },
    ]);
    const servers = createMcpServers({ policy, home, version: 'test', killGraceMs: 300 });
    servers.start();
    await waitUntil('the server runs', () => processesWith(marker).length === 1);
    expect(servers.health()[0]?.state).toBe('starting');
    await servers.close();
    expect(processesWith(marker)).toEqual([]);
    expect(servers.health()[0]?.state).toBe('closed');
  });
});
