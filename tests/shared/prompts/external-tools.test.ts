import { describe, expect, it } from 'vitest';
import { listTools } from '../../../companion/runs/tool-list';
import { ToolError } from '../../../shared/errors';
import { buildPrompt, PROMPT_LANGUAGES, type ToolInfo } from '../../../shared/prompts';
import { compactArguments } from '../../../shared/prompts/tool-list';

/** Tools as GET /v1/tools lists a person's MCP servers: `<server>.<tool>`, with `server` set. */
const EXTERNAL: ToolInfo[] = [
  {
    name: 'git.status',
    server: 'git',
    description: 'Shows the working tree status.\nUse it before committing.',
    inputSchema: { type: 'object', properties: { repo_path: { type: 'string' }, short: { type: 'boolean' } }, required: ['repo_path'] },
  },
  {
    name: 'git.log',
    server: 'git',
    description: 'Shows the commit log.',
    inputSchema: {
      type: 'object',
      properties: {
        repo_path: { type: 'string' },
        max_count: { type: 'integer', minimum: 1 },
        order: { enum: ['newest', 'oldest'] },
        paths: { type: 'array', items: { type: 'string' } },
        filter: { type: 'object', properties: { author: { type: 'string' } } },
      },
      required: ['repo_path'],
    },
  },
  { name: 'memory.read_graph', server: 'memory', description: 'Reads the whole knowledge graph.', inputSchema: { type: 'object', properties: {} } },
];

function toolsSection(prompt: string): string[] {
  const lines = prompt.split('\n');
  const start = lines.findIndex((line) => /^## (Tools|工具)/.test(line));
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end);
}

describe("the person's MCP tools in the JSON protocols' prompts (issue 11 §6)", () => {
  it.each(['mcp-request', 'flycode-call'].flatMap((protocol) => PROMPT_LANGUAGES.map((lang) => ({ protocol: protocol as 'mcp-request' | 'flycode-call', lang }))))(
    '$protocol $lang: built-ins in full first, then one compact line per external tool under its server',
    ({ protocol, lang }) => {
      const builtIns = listTools();
      const section = toolsSection(buildPrompt({ protocol, lang, tools: [...builtIns, ...EXTERNAL] }));
      const names = section.flatMap((line) => /^- `([^`]+)`/.exec(line)?.[1] ?? []);
      expect(names).toEqual([...builtIns.map((tool) => tool.name), 'git.status', 'git.log', 'memory.read_graph']);
      const gitHeading = section.findIndex((line) => line.includes('"git"') || line.includes('“git”'));
      const memoryHeading = section.findIndex((line) => line.includes('"memory"') || line.includes('“memory”'));
      expect(gitHeading).toBeGreaterThan(section.findIndex((line) => line.startsWith(`- \`${builtIns.at(-1)!.name}\``)));
      expect(section[gitHeading]).toContain('`git.<');
      expect(memoryHeading).toBeGreaterThan(gitHeading);
      const args = lang === 'en' ? 'arguments' : '参数';
      expect(section[gitHeading + 1]).toBe(`- \`git.status\` — Shows the working tree status. Use it before committing. (${args} {repo_path: string, short?: boolean})`);
      expect(section[gitHeading + 2]).toBe(
        `- \`git.log\` — Shows the commit log. (${args} {repo_path: string, max_count?: integer ≥ 1, order?: "newest" | "oldest", paths?: string[], filter?: object})`,
      );
      expect(section[memoryHeading + 1]).toBe(`- \`memory.read_graph\` — Reads the whole knowledge graph. (${args} {})`);
    },
  );

  it('the headings are in the prompt language', () => {
    expect(buildPrompt({ protocol: 'mcp-request', lang: 'zh', tools: [...listTools(), ...EXTERNAL] })).toContain('我自己的 MCP 服务器“git”提供的工具');
    expect(buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: [...listTools(), ...EXTERNAL] })).toContain('Tools of my own MCP server "git"');
  });

  it('a huge schema is cut to one bounded line, a long description to 120 characters', () => {
    const properties = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`argument_number_${i}`, { type: 'string' }]));
    const compact = compactArguments({ type: 'object', properties }, 'en');
    expect(compact.length).toBeLessThanOrEqual(200);
    expect(compact.endsWith('…}')).toBe(true);
    const prompt = buildPrompt({
      protocol: 'mcp-request',
      lang: 'en',
      tools: [{ name: 'big.tool', server: 'big', description: 'x'.repeat(5000), inputSchema: { type: 'object', properties } }],
    });
    const line = prompt.split('\n').find((l) => l.startsWith('- `big.tool`'))!;
    expect(line.length).toBeLessThan(400);
  });

  it('refuses a server that is not the start of the tool name, naming the value', () => {
    expect(() => buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: [{ name: 'fs.read', server: 'git', description: '', inputSchema: {} }] })).toThrow(ToolError);
    expect(() => buildPrompt({ protocol: 'mcp-request', lang: 'en', tools: [{ name: 'fs.read', server: 'git', description: '', inputSchema: {} }] })).toThrow(
      /tools\[0\] \(fs\.read\)\.server must be the name before the tool's first dot, got "git"/,
    );
  });
});
