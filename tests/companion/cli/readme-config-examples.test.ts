import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMcpServers } from '../../../companion/mcp-servers/config';
import { loadPolicy } from '../../../companion/policy/load-config';

// People copy the README's config examples into their config.json: each ```json block must be a config the
// companion takes as written, every MCP server in it started rather than reported broken. Only the example home
// folder (/home/you) is swapped for a real one, as a person writes their own.
const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
const examples = [...readme.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
const home = realpathSync(mkdtempSync(join(tmpdir(), 'cb-readme-')));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the README config examples', () => {
  it('are there to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
  });

  it.each(examples.map((text, i) => [i + 1, text] as const))('example %i is accepted by the companion as written', (i, text) => {
    const config = text.replaceAll('/home/you', home);
    for (const folder of config.match(new RegExp(`${home}/[^"]*`, 'g')) ?? []) {
      if (!folder.includes('.')) mkdirSync(folder, { recursive: true });
    }
    const file = join(home, `config-${i}.json`);
    writeFileSync(file, config);
    const policy = loadPolicy({ configFile: file, cwd: home });
    const { broken } = parseMcpServers(policy.mcpServers ?? {}, policy.limits.maxTimeoutMs);
    expect(broken).toEqual([]);
  });
});
