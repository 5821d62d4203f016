import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

/*
 * Seed 004 against the real companion process: every action and option the PromptX filesystem manual names, called
 * as a model primed with it writes the call (promptx_tool + @tool://filesystem, in an mcp-request), and every
 * failure in the manual's {"success":false,"error":{code,message,details}} with its codes.
 */
let ws: Workspace;
let companion: CompanionProcess;
let sequence = 0;

type Reply = { success: boolean; data?: unknown; message?: string; error?: { code: string; message: string; details: unknown } };

async function promptx(parameters: unknown): Promise<{ status: string; reply: Reply }> {
  sequence += 1;
  const text = mcpRequestBlock(`call-${sequence}`, 'promptx_tool', { tool_resource: '@tool://filesystem', parameters });
  const run = await postBlock(companion, 'mcp-request', text, context('c1', `m${sequence}`));
  const response = parseMcpResponse(run.resultText);
  expect(response.error, run.resultText).toBeUndefined();
  return { status: run.status, reply: JSON.parse(response.result!.content[0]!.text) as Reply };
}

beforeAll(async () => {
  ws = makeWorkspace('cb-promptx-live-');
  mkdirSync(join(ws.root, 'resource/role'), { recursive: true });
  writeFileSync(join(ws.root, 'resource/role/existing.md'), '# 角色\n旧内容\n');
  writeFileSync(join(ws.root, 'resource/role/big.role.md'), 'x'.repeat(100));
  writeFileSync(join(ws.root, '.env'), 'TOKEN=x\n');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' } } });
}, 40_000);

afterAll(async () => {
  await companion?.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

describe('the PromptX filesystem manual, against the real companion', () => {
  it('every action and option it names does what it says, in its success shape', async () => {
    const write = await promptx({ action: 'write', path: 'resource/role/assistant/assistant.role.md', content: '<role>...</role>\nline 2\n' });
    expect(write).toMatchObject({ status: 'done', reply: { success: true, data: Buffer.byteLength('<role>...</role>\nline 2\n') } });
    expect((await promptx({ action: 'read', path: 'resource/role/assistant/assistant.role.md', head: 1 })).reply.data).toBe('<role>...</role>');
    expect((await promptx({ action: 'read', path: 'resource/role/assistant/assistant.role.md', tail: 1 })).reply.data).toBe('line 2');
    expect((await promptx({ action: 'read', path: 'resource/role/existing.md', encoding: 'utf8' })).reply.data).toBe('# 角色\n旧内容\n');
    expect((await promptx({ action: 'list', path: 'resource/role/' })).reply.data).toEqual(['assistant/', 'big.role.md', 'existing.md']);
    const sized = (await promptx({ action: 'list_with_sizes', path: 'resource/role/', sortBy: 'size' })).reply.data as Array<{ name: string }>;
    expect(sized.map((e) => e.name)).toEqual(['big.role.md', 'existing.md', 'assistant']);
    mkdirSync(join(ws.root, 'resource/test'));
    writeFileSync(join(ws.root, 'resource/test/t.md'), 't\n');
    const found = (await promptx({ action: 'search', path: 'resource/', pattern: '*.md', excludePatterns: ['test/*', 'backup/*'] })).reply.data;
    expect(found).toEqual(['resource/role/assistant/assistant.role.md', 'resource/role/big.role.md', 'resource/role/existing.md']);
    const preview = await promptx({ action: 'edit', path: 'resource/role/existing.md', edits: [{ oldText: '旧内容', newText: '新内容' }], dryRun: true });
    expect(JSON.stringify(preview.reply.data)).toContain('+新内容');
    expect(readFileSync(join(ws.root, 'resource/role/existing.md'), 'utf8')).toBe('# 角色\n旧内容\n');
    expect((await promptx({ action: 'edit', path: 'resource/role/existing.md', edits: [{ oldText: '旧内容', newText: '新内容' }] })).reply.success).toBe(true);
    expect(readFileSync(join(ws.root, 'resource/role/existing.md'), 'utf8')).toBe('# 角色\n新内容\n');
    const moved = await promptx({ action: 'move', source: 'resource/role/big.role.md', destination: 'resource/old/big.role.md' });
    expect(moved.reply).toMatchObject({ success: true, data: { source: 'resource/role/big.role.md', destination: 'resource/old/big.role.md' } });
  });

  it.each([
    ['MISSING_PARAMETER', { path: 'resource/role/existing.md' }],
    ['MISSING_PARAMETER', { action: 'write', path: 'resource/x.md' }],
    ['INVALID_ACTION', { action: 'delete', path: 'resource/role/existing.md' }],
    ['ENCODING_ERROR', { action: 'read', path: 'resource/role/existing.md', encoding: 'gb2312' }],
    ['FILE_NOT_FOUND', { action: 'read', path: 'resource/role/test.md' }],
    ['PATH_TRAVERSAL', { action: 'read', path: '../../etc/passwd' }],
    ['PERMISSION_DENIED', { action: 'read', path: '.env' }],
    ['INVALID_INPUT', '{"action": "read", path: resource/role/existing.md'],
  ])('%s comes back in the manual\'s error shape (%j)', async (code, parameters) => {
    const { status, reply } = await promptx(parameters);
    expect(status).toBe('error');
    expect(reply.success).toBe(false);
    expect(reply.error?.code).toBe(code);
    expect(reply.error?.message.length).toBeGreaterThan(0);
    expect(Object.keys(reply.error ?? {})).toEqual(['code', 'message', 'details']);
  });
});
