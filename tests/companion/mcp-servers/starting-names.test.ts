import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpServers } from '../../../companion/mcp-servers/registry';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { MEMORY } from './world';

/*
 * A name that is no tool while a server is still starting (one that needs a while, as `npx -y` or `docker run` do):
 * the answer says which servers are not up yet, so "no such tool" is not taken for the server having none.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-mcp-starting-')));

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('a name asked for while a server starts', () => {
  it('NOT_FOUND names the servers still starting and suggests no other tool for theirs; once up, a bare tool name is suggested as its server\'s', async () => {
    const policy = policyFromConfig(
      parseConfig({ mcpServers: { notes: { command: process.execPath, args: ['-e', 'setTimeout(() => import(process.argv[1]), 3_000)', MEMORY], startTimeoutMs: 20_000 } } }),
      [{ root: base, base, key: 'test' }],
    );
    const servers = createMcpServers({ policy, home: join(base, 'home'), version: 'test' });
    servers.start();
    try {
      // a bare tool name, as prompts written for other MCP clients have the model write it
      await expect(servers.resolve('read_graph', new AbortController().signal)).rejects.toThrow(
        'unknown tool "read_graph"; chatbridge\'s own tools are fs.ls, fs.mkdir, fs.read, fs.search, fs.write, fs.writeBatch, fs.rm, fs.mv, fs.chmod, fs.diff, process.run, shell.exec, filesystem; your MCP servers offer none right now; still starting, so their tools are not known yet: notes (its tools are called notes.<tool>)',
      );
      await servers.settled(20_000);
      await expect(servers.resolve('read_graph', new AbortController().signal)).rejects.toThrow(/from your MCP servers: notes\.create_entities.*\(did you mean "notes\.read_graph"\?\)$/);
    } finally {
      await servers.close();
    }
  }, 30_000);

  it('NOT_FOUND names a server restarting after a failure and suggests no built-in for its tool', async () => {
    const policy = policyFromConfig(parseConfig({ mcpServers: { notes: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }), [
      { root: base, base, key: 'test' },
    ]);
    // a long backoff: the server stays restarting while the name is asked for
    const servers = createMcpServers({ policy, home: join(base, 'home-restarting'), version: 'test', backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    servers.start();
    try {
      await servers.settled(20_000);
      expect(servers.health().find((h) => h.name === 'notes')?.state).toBe('retrying');
      const error = await servers.resolve('read_graph', new AbortController().signal).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain('; restarting after a failure, so their tools are not known now: notes (its tools are called notes.<tool>)');
      expect(error?.message).not.toContain('did you mean');
    } finally {
      await servers.close();
    }
  }, 30_000);

  it('NOT_FOUND names a server given up after its failures and suggests no built-in for its tool', async () => {
    const policy = policyFromConfig(parseConfig({ mcpServers: { notes: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }), [
      { root: base, base, key: 'test' },
    ]);
    const servers = createMcpServers({ policy, home: join(base, 'home-given-up'), version: 'test', maxFailures: 1 });
    servers.start();
    try {
      await servers.settled(20_000);
      expect(servers.health().find((h) => h.name === 'notes')?.state).toBe('error');
      const error = await servers.resolve('read_graph', new AbortController().signal).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain(
        '; given up after failing to start, so their tools are not known now (a call to one starts it again): notes (its tools are called notes.<tool>)',
      );
      expect(error?.message).not.toContain('did you mean');
    } finally {
      await servers.close();
    }
  }, 30_000);

  it('a tool several servers have is named as each server\'s, not taken for a near built-in', async () => {
    const memory = { command: process.execPath, args: [MEMORY] };
    const policy = policyFromConfig(parseConfig({ mcpServers: { work: memory, home: memory } }), [{ root: base, base, key: 'test' }]);
    const servers = createMcpServers({ policy, home: join(base, 'home-twice'), version: 'test' });
    servers.start();
    try {
      await servers.settled(20_000);
      const error = await servers.resolve('read_graph', new AbortController().signal).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/; "read_graph" is a tool of several of your MCP servers, name the one meant: (home\.read_graph, work\.read_graph|work\.read_graph, home\.read_graph)$/);
      expect(error?.message).not.toContain('did you mean');
    } finally {
      await servers.close();
    }
  }, 30_000);
});
