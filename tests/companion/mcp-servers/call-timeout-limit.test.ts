import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../companion/cli';
import { makeMcpWorld, type McpWorld } from './world';

/*
 * A server's own timeoutMs above limits.maxTimeoutMs was taken and every call was cut to the maximum, so the time
 * the person wrote never held and nothing said so. It is refused like a defaultTimeoutMs above the maximum: the
 * entry is reported broken, naming both values and the rule, and the rest of the companion starts.
 */
const config = {
  limits: { maxTimeoutMs: 120_000 },
  mcpServers: {
    slow: { command: '/nonexistent/chatbridge-test-server', timeoutMs: 900_000, disabled: true },
    atmost: { command: '/nonexistent/chatbridge-test-server', timeoutMs: 120_000, disabled: true },
  },
};
const refusal = 'mcpServers.slow.timeoutMs: value 900000 — must be ≤ limits.maxTimeoutMs (120000), the longest any call may take: raise maxTimeoutMs too';

describe("a server's timeoutMs above limits.maxTimeoutMs", () => {
  let world: McpWorld;
  beforeAll(async () => {
    world = await makeMcpWorld(config);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('is refused at start, naming both values and the rule; one at the maximum is taken', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; transport: string; lastError?: string }> };
    expect(servers.find((s) => s.name === 'slow')).toMatchObject({ state: 'error', transport: 'invalid', lastError: refusal });
    expect(servers.find((s) => s.name === 'atmost')).toMatchObject({ state: 'disabled' });
  });

  it('is shown invalid by chatbridge mcp list while the companion is not running', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-mcp-timeout-')));
    try {
      const dataHome = join(base, '.chatbridge');
      mkdirSync(dataHome);
      writeFileSync(join(dataHome, 'config.json'), JSON.stringify(config));
      const out: string[] = [];
      const code = await runCli(['mcp', 'list'], { out: (line) => out.push(line), err: (line) => out.push(line), env: { HOME: base, CHATBRIDGE_HOME: dataHome, PATH: process.env.PATH ?? '' }, cwd: base });
      expect(code).toBe(0);
      expect(out).toContain(`slow  invalid  ${refusal}`);
      expect(out.some((line) => line.startsWith('atmost  disabled'))).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
