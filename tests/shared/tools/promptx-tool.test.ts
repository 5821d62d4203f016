import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../../shared/protocols';
import { validateFlycodeCall, validateMcpRequest } from '../../../shared/protocols';
import { validateToolArgs } from '../../../shared/tools';
import { PROMPTX_RUNNERS, resolvePromptxCall, toolCallOf } from '../../../shared/tools/promptx-tool';

/**
 * Issue 10 §4: PromptX's runner call (seed 004: "通过promptx_tool调用，指定action和相关参数") is the catalogue's
 * `filesystem` tool. The manual's own parameter examples, sent the way PromptX sends them.
 */
const manualExamples: Array<[string, Record<string, unknown>]> = [
  ['write', { action: 'write', path: 'resource/role/assistant/assistant.role.md', content: '<role>...</role>' }],
  ['read', { action: 'read', path: 'resource/tool/calculator/calculator.tool.js' }],
  ['search', { action: 'search', path: 'resource/', pattern: '*.md', excludePatterns: ['test/*', 'backup/*'] }],
  ['edit', { action: 'edit', path: 'resource/role/existing.md', edits: [{ oldText: '旧内容', newText: '新内容' }], dryRun: true }],
];

describe('promptx_tool with @tool://filesystem is the filesystem tool', () => {
  it.each(manualExamples)('the manual\'s %s example: same tool, same arguments, valid for the catalogue', (_action, parameters) => {
    const call = resolvePromptxCall('promptx_tool', { tool_resource: '@tool://filesystem', parameters });
    expect(call).toEqual({ ok: true, tool: 'filesystem', args: parameters });
    expect(validateToolArgs('filesystem', parameters).ok).toBe(true);
  });

  const parameters = { action: 'read', path: 'resource/role/test.md' };
  const variants: Array<[string, string, Record<string, unknown>]> = [
    ['the later runner names', 'toolx', { tool_resource: '@tool://filesystem', mode: 'execute', parameters }],
    ['the later runner names', 'promptx_toolx', { tool_resource: '@tool://filesystem', parameters }],
    ['the runner options rebuild and timeout', 'promptx_tool', { tool_resource: '@tool://filesystem', parameters, rebuild: false, timeout: 30000 }],
    ['"resource" for tool_resource', 'promptx_tool', { resource: '@tool://filesystem', parameters }],
    ['"tool" for tool_resource', 'promptx_tool', { tool: '@tool://filesystem', parameters }],
    ['"toolResource" for tool_resource', 'promptx_tool', { toolResource: '@tool://filesystem', parameters }],
    ['the resource without "@"', 'promptx_tool', { tool_resource: 'tool://filesystem', parameters }],
    ['the bare tool name, any case', 'promptx_tool', { tool_resource: 'FileSystem', parameters }],
    ['"params" for parameters', 'promptx_tool', { tool_resource: '@tool://filesystem', params: parameters }],
    ['"arguments" for parameters', 'promptx_tool', { tool_resource: '@tool://filesystem', arguments: parameters }],
    ['"args" for parameters', 'promptx_tool', { tool_resource: '@tool://filesystem', args: parameters }],
    ['parameters as a JSON string', 'promptx_tool', { tool_resource: '@tool://filesystem', parameters: JSON.stringify(parameters) }],
    ['parameters next to the resource', 'promptx_tool', { tool_resource: '@tool://filesystem', ...parameters }],
  ];
  it.each(variants)('accepts %s (%s)', (_what, runner, args) => {
    expect(resolvePromptxCall(runner, args)).toEqual({ ok: true, tool: 'filesystem', args: parameters });
  });

  it('knows the runner by every name PromptX gave it', () => {
    expect([...PROMPTX_RUNNERS].sort()).toEqual(['promptx_tool', 'promptx_toolx', 'toolx']);
  });

  it('any other tool name is passed on as written, for the catalogue to judge', () => {
    expect(toolCallOf('fs.read', { path: '/a' })).toEqual({ ok: true, tool: 'fs.read', args: { path: '/a' } });
    expect(toolCallOf('filesystem', parameters)).toEqual({ ok: true, tool: 'filesystem', args: parameters });
  });
});

describe('promptx_tool calls that are refused name the value and the rule', () => {
  const refused: Array<[string, unknown, string]> = [
    ['another resource', { tool_resource: '@tool://calculator', parameters: { expression: '1+1' } }, 'promptx_tool tool_resource "@tool://calculator" is not available here: chatbridge runs only "@tool://filesystem" (the PromptX filesystem manual) through promptx_tool'],
    ['a resource that is not a string', { tool_resource: 3, parameters: {} }, 'promptx_tool tool_resource 3 is not available here'],
    ['no resource', { parameters: { action: 'read', path: 'a.md' } }, 'promptx_tool takes {"tool_resource": "@tool://filesystem", "parameters": {"action": …, …}}; "tool_resource" is missing'],
    ['two resources', { tool_resource: '@tool://filesystem', resource: '@tool://filesystem', parameters: {} }, 'got the tool resource twice ("tool_resource", "resource")'],
    ['two parameter objects', { tool_resource: '@tool://filesystem', parameters: {}, params: {} }, 'got the parameters twice ("parameters", "params")'],
    ['the manual mode', { tool_resource: '@tool://filesystem', mode: 'manual' }, 'promptx_tool mode "manual" is not supported here; only "execute" runs the tool'],
    ['parameters that are not JSON', { tool_resource: '@tool://filesystem', parameters: 'action=read' }, 'promptx_tool parameters is a string that is not JSON: "action=read"'],
    ['parameters that are an array', { tool_resource: '@tool://filesystem', parameters: [1] }, 'promptx_tool parameters must be an object like {"action": "read", "path": "…"}, got an array'],
    ['arguments left beside the parameters', { tool_resource: '@tool://filesystem', parameters: { action: 'read' }, path: 'a.md' }, '"path" belongs inside "parameters"'],
    ['arguments that are not an object', 'read a.md', 'promptx_tool takes {"tool_resource": "@tool://filesystem", "parameters": {"action": …, …}}; got "read a.md"'],
  ];
  it.each(refused)('%s', (_what, args, message) => {
    const call = resolvePromptxCall('promptx_tool', args);
    expect(call.ok).toBe(false);
    expect(call.ok ? '' : call.message).toContain(message);
  });
});

describe('the protocols accept the runner call and refuse what the runner refuses', () => {
  const mcp = (args: unknown) => ({ jsonrpc: '2.0', id: 'c-1', method: 'tools/call', params: { name: 'promptx_tool', arguments: args } });
  const fly = (args: unknown) => ({ id: 'c-1', tool: 'promptx_tool', args });
  const good = { tool_resource: '@tool://filesystem', parameters: { action: 'list', path: 'resource/' } };
  const bad = { tool_resource: '@tool://calculator', parameters: {} };

  it('mcp-request tools/call', () => {
    expect(validateMcpRequest(mcp(good)).ok).toBe(true);
    expect(validateMcpRequest(mcp(bad))).toMatchObject({ ok: false, code: 'INVALID_INPUT', message: expect.stringContaining('"@tool://calculator"') });
  });

  it('flycode-call', () => {
    expect(validateFlycodeCall(fly(good)).ok).toBe(true);
    expect(validateFlycodeCall(fly(bad))).toMatchObject({ ok: false, code: 'INVALID_INPUT', message: expect.stringContaining('"@tool://calculator"') });
  });

  it('a block of each shows the refusal on its chip', () => {
    const markdown = '```flycode-call\n' + JSON.stringify(fly(bad)) + '\n```\n\n```mcp-request\n' + JSON.stringify(mcp(good)) + '\n```';
    const [flycode, request] = findBlocks(markdown);
    expect(flycode?.error).toContain('chatbridge runs only "@tool://filesystem"');
    expect(request?.error).toBeUndefined();
  });

  it('a wrong envelope around the filesystem parameters is for the filesystem tool to answer, not the parser', () => {
    const notJson = { tool_resource: '@tool://filesystem', parameters: '{"action": "read", path' };
    expect(resolvePromptxCall('promptx_tool', notJson)).toMatchObject({ ok: false, tool: 'filesystem' });
    expect(validateMcpRequest(mcp(notJson)).ok).toBe(true);
    expect(validateFlycodeCall(fly(notJson)).ok).toBe(true);
    expect(resolvePromptxCall('promptx_tool', bad)).not.toHaveProperty('tool');
  });
});
