/**
 * A file's secret is shown to the model as [REDACTED], and a model that changes such a file by writing it whole
 * writes back what it read: the marker in the secret's place. Where writes are auto, fs.write, an auto_coder
 * create_file or an Axon write_file of settings.ini put `db_password=[REDACTED]` over the password, with no card and
 * nothing said — the person's setting lost, found only when the program using it failed. A write whose content holds
 * the marker over a file that holds a secret is refused, naming the marker and what to do instead; the file is left
 * as it is. (Against the real companion process.)
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const PASSWORD = 'sunshine1';
const FILE = `[db]\ndb_password=${PASSWORD}\nport=5432\n`;
const AS_READ = '[db]\ndb_password=[REDACTED]\nport=6543\n';

describe('attack: a file with a secret written back whole as it was read (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const run = async (kind: string, text: string) => (await postBlock(companion, kind, text, context('conv-marker', `m${++n}`))).resultText ?? '';

  beforeAll(async () => {
    ws = makeWorkspace('cb-marker-overwrite-');
    // on DeepSeek writes ask: the refusal comes before any card there
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' }, sites: { deepseek: { modes: { write: 'confirm' } } } },
    });
  }, 60_000);

  beforeEach(() => writeFileSync(join(ws.root, 'settings.ini'), FILE));

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['fs.write', 'mcp-request', () => mcpRequestBlock(`w-${n}`, 'fs.write', { path: join(ws.root, 'settings.ini'), mode: 'overwrite', content: AS_READ })],
    [
      'auto_coder create_file',
      'autocoder',
      () =>
        `#####--\n${JSON.stringify({
          type: 'operate',
          metadata: { step_id: 'w', reason: 'change the port' },
          file_operations: [
            { action_type: 'create_file', path: 'notes.txt', file_content: 'port changed\n' },
            { action_type: 'create_file', path: 'settings.ini', file_content: AS_READ },
          ],
          program_operations: [],
        })}\n--#####`,
    ],
    ['Axon write_file', 'axon', () => `~~~~~act\nwrite_file\n~~~~~\n~~~~~\nsettings.ini\n~~~~~\n~~~~~\n${AS_READ}~~~~~\n~~~~~end\n`],
  ])('%s: the marker is not written over the password; the answer says why and what to do', async (_how, kind, block) => {
    const answer = await run(kind, block());
    expect(answer).toContain('[REDACTED] stands for');
    expect(answer).toContain('replace');
    expect(answer).not.toContain(PASSWORD);
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  it.each([
    ['fs.write', 'mcp-request', () => mcpRequestBlock('card-w', 'fs.write', { path: join(ws.root, 'settings.ini'), mode: 'overwrite', content: AS_READ })],
    ['fs.writeBatch', 'mcp-request', () => mcpRequestBlock('card-b', 'fs.writeBatch', { files: [{ path: join(ws.root, 'settings.ini'), content: AS_READ }] })],
    ['PromptX write', 'mcp-request', () => mcpRequestBlock('card-p', 'filesystem', { action: 'write', path: 'settings.ini', content: AS_READ })],
    [
      'auto_coder create_file',
      'autocoder',
      () =>
        `#####--\n${JSON.stringify({
          type: 'operate',
          metadata: { step_id: 'card', reason: 'change the port' },
          file_operations: [{ action_type: 'create_file', path: 'settings.ini', file_content: AS_READ }],
          program_operations: [],
        })}\n--#####`,
    ],
    ['Axon write_file', 'axon', () => `~~~~~act\nwrite_file\n~~~~~\n~~~~~\nsettings.ini\n~~~~~\n~~~~~\n${AS_READ}~~~~~\n~~~~~end\n`],
  ])('%s where writes ask: refused before any card, not after the person approved it', async (_how, kind, block) => {
    const ctx = { site: 'deepseek', url: 'https://chat.deepseek.com/a/chat/s/conv-card', conversationId: 'conv-card', messageKey: `m${++n}` };
    const { json } = await call<{ status: string; resultText: string }>(companion, 'POST', '/v1/run', { kind, text: block(), context: ctx, waitMs: 300 });
    expect(json.resultText).not.toContain('Pending confirmation');
    expect(json.resultText).toContain('[REDACTED] stands for');
    expect((await call<{ approvals: unknown[] }>(companion, 'GET', '/v1/approvals')).json.approvals).toEqual([]);
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  it('fs.writeBatch: refused for that file, none of the batch is written', async () => {
    const other = join(ws.root, 'other.txt');
    const answer = await run(
      'mcp-request',
      mcpRequestBlock('batch', 'fs.writeBatch', { files: [{ path: other, content: 'new\n' }, { path: join(ws.root, 'settings.ini'), content: AS_READ }] }),
    );
    expect(answer).toContain('[REDACTED] stands for');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
    expect(existsSync(other)).toBe(false);
  });

  it('the marker written into a file that holds no secret, or appended beside one, is written as asked', async () => {
    writeFileSync(join(ws.root, 'plain.md'), 'Logs show secrets as text.\n');
    const plain = await run('mcp-request', mcpRequestBlock('plain', 'fs.write', { path: join(ws.root, 'plain.md'), mode: 'overwrite', content: 'Logs show secrets as [REDACTED].\n' }));
    expect(plain).toContain('WRITE_SUCCESS');
    expect(readFileSync(join(ws.root, 'plain.md'), 'utf8')).toBe('Logs show secrets as [REDACTED].\n');
    const appended = await run('mcp-request', mcpRequestBlock('append', 'fs.write', { path: join(ws.root, 'settings.ini'), mode: 'append', content: '# secrets show as [REDACTED]\n' }));
    expect(appended).toContain('WRITE_SUCCESS');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`${FILE}# secrets show as [REDACTED]\n`);
  });

  it('a file that holds the marker as text beside a secret is still changed by a replacement', async () => {
    const doc = `Secrets show as [REDACTED] in results.\ndb_password=${PASSWORD}\nport=5432\n`;
    writeFileSync(join(ws.root, 'doc.ini'), doc);
    const answer = await run('axon', '~~~~~act\nreplace\n~~~~~\n~~~~~\ndoc.ini\n~~~~~\n~~~~~\nport=5432\n~~~~~\n~~~~~\nport=6543\n~~~~~\n~~~~~end\n');
    expect(answer).toContain('ok (replaced at line 3)');
    expect(readFileSync(join(ws.root, 'doc.ini'), 'utf8')).toBe(doc.replace('port=5432', 'port=6543'));
  });

  it('the honest way, a replacement of the line it changes, keeps the password', async () => {
    const answer = await run('axon', '~~~~~act\nreplace\n~~~~~\n~~~~~\nsettings.ini\n~~~~~\n~~~~~\nport=5432\n~~~~~\n~~~~~\nport=6543\n~~~~~\n~~~~~end\n');
    expect(answer).toContain('ok (replaced at line 3)');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`[db]\ndb_password=${PASSWORD}\nport=6543\n`);
  });
});
