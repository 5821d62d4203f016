import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, makeMcpWorld, type McpWorld } from './world';

/*
 * A tool's own name may hold dots, so one server's tool can be named like another server's: a server "notes" whose
 * tool is "github.create_issue". A `<function_calls>` name that is not listed as it stands is taken for the own name
 * of one listed tool (prompts written for the MCP proxies name tools so), and while the person's "github" server was
 * not up (switched off, given up, still starting), github.create_issue went to notes' tool with the arguments the
 * model wrote for GitHub, run without a card where the person lets notes' tools run. A name that starts with a
 * configured server's name and a dot is that server's, up or not. Real servers over stdio.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({
    mcpServers: {
      github: { ...fixtureServer('no-tools.mjs'), disabled: true },
      notes: fixtureServer('dotted-names.mjs', { policy: { default: 'auto' } }),
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

function call(name: string, body: string): string {
  return '```xml\n<function_calls>\n' + `<invoke name="${name}">\n<parameter name="body">${body}</parameter>\n</invoke>` + '\n</function_calls>\n```';
}

describe("a tool named like another server's tool", () => {
  it("a call of a server that is not up is that server's, not the other server's tool of that name", async () => {
    const answer = await world.run('function-calls', call('github.create_issue', 'the deploy key is in vault/prod'));
    expect(answer.resultText).not.toContain('dotted-names took');
    expect(answer.resultText).toContain('UNAVAILABLE: MCP server github is disabled in the config');
  });

  it('is still called by its full name', async () => {
    const full = await world.run('function-calls', call('notes.github.create_issue', 'one'));
    expect(full.resultText).toContain('dotted-names took: one');
  });
});
