import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrompt, PROMPT_LANGUAGES, type ToolInfo } from '../../../shared/prompts';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * The prompt library writes the tool list from GET /v1/tools; a model calls the names it reads there. Every name
 * the companion offers — a server name of up to 32 characters, a tool name of up to 64 — must be written whole,
 * and the name as written must run.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { 'github-enterprise-server': fixtureServer('long-names.mjs', { policy: { default: 'auto' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('the names the prompt library gives the tools of a server', () => {
  it.each(PROMPT_LANGUAGES)('%s: a name as long as the rule allows is written whole, and calling it as written runs the tool', async (lang) => {
    const { tools } = (await (await world.request('/v1/tools')).json()) as { tools: ToolInfo[] };
    const prompt = buildPrompt({ protocol: 'mcp-request', lang, tools });
    const line = prompt.split('\n').find((l) => l.startsWith('- `github-enterprise-server.'));
    const written = /^- `([^`]+)`/.exec(line ?? '')?.[1] ?? '';
    expect(written).toBe('github-enterprise-server.get_repository_branch_protection_required_status_checks_contexts');
    const run = await world.run('mcp-request', mcpCall(`p-${lang}`, written, {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('ci/build, ci/test');
  });
});
