/**
 * limits.maxActions against a real companion: a batch or a plan of more files or actions than it allows is refused
 * whole, naming the count, the limit and the key, before any path is resolved; nothing of it is written or journaled.
 * Without the limit an fs.writeBatch of 20 000 files held the companion's thread for seconds (an lstat per path on
 * the way), so GET /v1/status, other calls and approvals waited on it. The limit is set low here: the refusal, not
 * the stall, is what is checked.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from './live-companion';

const MAX = 3;
let ws: Workspace;
let companion: CompanionProcess;

beforeAll(async () => {
  ws = makeWorkspace('cb-action-limit-');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { ...ALL_AUTO, limits: { maxActions: MAX } } });
}, 60_000);

afterAll(async () => {
  await companion?.stop();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

const names = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}.txt`);

describe('limits.maxActions', () => {
  it('an fs.writeBatch of one file more than the limit writes none of them, naming the count, the limit and the key', async () => {
    const files = names(MAX + 1, 'batch').map((name) => ({ path: join(ws.root, name), content: `${name}\n` }));
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(1, 'fs.writeBatch', { files }), context('conv-limit', 'batch-over'));
    const error = parseMcpResponse(run.resultText ?? '').error;
    expect(error?.data?.code).toBe('LIMIT_EXCEEDED');
    expect(error?.message).toContain(`holds ${MAX + 1} files, over the limit of ${MAX} files in one call (limits.maxActions)`);
    for (const file of files) expect(existsSync(file.path)).toBe(false);
    expect((await journalEntries(companion)).filter((entry) => entry.paths.some((p) => p.includes('batch-')))).toEqual([]);

    // one at the limit is written
    const allowed = files.slice(0, MAX);
    const ok = await postBlock(companion, 'mcp-request', mcpRequestBlock(2, 'fs.writeBatch', { files: allowed }), context('conv-limit', 'batch-at'));
    expect(mcpResultText(ok.resultText ?? '')).toBe('WRITE_BATCH_SUCCESS');
    for (const file of allowed) expect(existsSync(file.path)).toBe(true);
  });

  it('an auto_coder plan of more file actions than the limit changes nothing and says which limit', async () => {
    const plan = {
      type: 'operate',
      metadata: { step_id: 'many', reason: 'create files' },
      file_operations: names(MAX + 1, 'plan').map((name) => ({ action_type: 'create_file', path: name, file_content: 'x\n' })),
    };
    const run = await postBlock(companion, 'autocoder', `#####--\n${JSON.stringify(plan)}\n--#####`, context('conv-limit', 'autocoder-over'));
    expect(run.resultText).toContain(`LIMIT_EXCEEDED: the auto_coder plan holds ${MAX + 1} file actions and programs, over the limit of ${MAX}`);
    expect(run.resultText).toContain('limits.maxActions');
    for (const name of names(MAX + 1, 'plan')) expect(existsSync(join(ws.root, name))).toBe(false);
  });

  it('an Axon plan of more acts than the limit changes nothing and says which limit', async () => {
    const text = names(MAX + 1, 'axon')
      .map((name) => ['```act\nwrite_file\n```', `\`\`\`path\n${name}\n\`\`\``, '```text\nx\n```', ''].join('\n'))
      .join('\n');
    const run = await postBlock(companion, 'axon', text, context('conv-limit', 'axon-over'));
    expect(run.resultText).toContain(`LIMIT_EXCEEDED: the Axon plan holds ${MAX + 1} acts, over the limit of ${MAX} acts in one call (limits.maxActions)`);
    for (const name of names(MAX + 1, 'axon')) expect(existsSync(join(ws.root, name))).toBe(false);
  });
});
