/**
 * Attack: a replacement's old text as an oracle for a secret, or as a way to take the secret out of hiding. A file's secret is shown to the model as [REDACTED],
 * but an Axon `replace` or an auto_coder `replace_file` whose old text guessed the start of it ("db_password=s")
 * was applied, and a wrong guess ("db_password=x") answered MISMATCH — where writes are auto, with no card, and
 * with old text equal to new text, without even changing the file: the secret read a character at a time. A right
 * guess and a wrong guess must answer the same, and the file must stay as it is (real companion process). And old
 * text beside a secret, which touches none of it, rewrote what makes it one — `db_password=` made `db_note=` — so
 * the next fs.read showed the password: such a replacement is refused and the file stays as it is.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const PASSWORD = 'sunshine1';
const FILE = `[db]\ndb_password=${PASSWORD}\nport=5432\n`;

describe('attack: a replacement\'s old text guesses a secret (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const run = async (kind: string, text: string) =>
    ((await postBlock(companion, kind, text, context('conv-replace-oracle', `m${++n}`))).resultText ?? '').replace(/audit-[\w-]+/g, '<audit>');

  const axon = (old: string, replacement = old) =>
    `~~~~~act\nreplace\n~~~~~\n~~~~~\nsettings.ini\n~~~~~\n~~~~~\n${old}\n~~~~~\n~~~~~\n${replacement}\n~~~~~\n~~~~~end\n`;
  const autocoder = (old: string, replacement: string) =>
    `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'guess', reason: 'edit the settings' },
      file_operations: [{ action_type: 'replace_file', path: 'settings.ini', modify_content: [{ identifier: 'db', old_content: old, new_content: replacement }] }],
      program_operations: [],
    })}\n--#####`;

  beforeAll(async () => {
    ws = makeWorkspace('cb-replace-oracle-');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' } } });
  }, 60_000);

  beforeEach(() => writeFileSync(join(ws.root, 'settings.ini'), FILE));

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('Axon replace: a right guess at the start of the password answers as a wrong one does', async () => {
    const right = await run('axon', axon(`db_password=${PASSWORD.slice(0, 1)}`));
    const wrong = await run('axon', axon('db_password=x'));
    expect(right).toBe(wrong.replace('db_password=x', `db_password=${PASSWORD.slice(0, 1)}`));
    expect(right).toContain('MISMATCH');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  it('Axon replace: the whole password guessed right is not taken either, and the file keeps it', async () => {
    const right = await run('axon', axon(`db_password=${PASSWORD}`, 'db_password=changed'));
    expect(right).toContain('MISMATCH');
    expect(right).not.toContain(PASSWORD);
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  it('auto_coder replace_file: a right guess answers as a wrong one does', async () => {
    const right = await run('autocoder', autocoder(`db_password=${PASSWORD.slice(0, 2)}`, 'db_password=ZZ'));
    const wrong = await run('autocoder', autocoder('db_password=xx', 'db_password=ZZ'));
    expect(right).toBe(wrong.replaceAll('db_password=xx', `db_password=${PASSWORD.slice(0, 2)}`));
    expect(right).toContain('MISMATCH');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  it('PromptX filesystem edit: a right guess answers as a wrong one does', async () => {
    const edit = (oldText: string) =>
      mcpRequestBlock(`edit-${n}`, 'promptx_tool', {
        tool_resource: '@tool://filesystem',
        parameters: { action: 'edit', path: 'settings.ini', edits: [{ oldText, newText: oldText }] },
      });
    const right = await run('mcp-request', edit(`db_password=${PASSWORD.slice(0, 3)}`));
    const wrong = await run('mcp-request', edit('db_password=xyz'));
    expect(right.replace(/"id":"edit-\d+"/, '')).toBe(wrong.replace(/"id":"edit-\d+"/, '').replaceAll('db_password=xyz', `db_password=${PASSWORD.slice(0, 3)}`));
    expect(right).toContain('MISMATCH');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
  });

  const read = async () => {
    const answer = await run('mcp-request', mcpRequestBlock(`read-${n}`, 'fs.read', { path: join(ws.root, 'settings.ini') }));
    expect(answer).not.toContain(PASSWORD);
    return answer;
  };

  it.each([
    ['Axon replace', () => axon('db_password=', 'db_note=')],
    ['auto_coder replace_file', () => autocoder('db_password=', 'db_note=')],
    [
      'PromptX filesystem edit',
      () =>
        mcpRequestBlock(`edit-${n}`, 'promptx_tool', {
          tool_resource: '@tool://filesystem',
          parameters: { action: 'edit', path: 'settings.ini', edits: [{ oldText: '[db]\ndb_password', newText: '[db]\n# old: db' }] },
        }),
    ],
  ])('%s: old text that rewrites the key of a secret is refused, naming the rule, and the secret stays hidden', async (_how, block) => {
    const answer = await run(block().startsWith('```mcp-request') ? 'mcp-request' : block().startsWith('~') ? 'axon' : 'autocoder', block());
    expect(answer).toContain('POLICY_BLOCKED');
    expect(answer).toContain('keeps hidden as [REDACTED]');
    expect(answer).not.toContain(PASSWORD);
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
    expect(await read()).toContain('[REDACTED]');
  });

  it('a change around a secret that keeps it a secret is made', async () => {
    const answer = await run('axon', axon('[db]\ndb_password=', '[database]\ndb_password='));
    expect(answer).toContain('ok (replaced at line 1)');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`[database]\ndb_password=${PASSWORD}\nport=5432\n`);
    expect(await read()).toContain('db_password=[REDACTED]');
  });

  it.each([
    ['Axon replace', 'axon', () => axon('db_password=[REDACTED]\nport=5432', 'db_password=[REDACTED]\nport=6543')],
    ['auto_coder replace_file', 'autocoder', () => autocoder('db_password=[REDACTED]\nport=5432', 'db_password=[REDACTED]\nport=6543')],
  ])('%s: old text quoting the secret\'s line as read says [REDACTED] is hidden text, and what to quote instead', async (_how, kind, block) => {
    const answer = await run(kind, block());
    expect(answer).toContain('MISMATCH');
    expect(answer).toContain('the old text holds [REDACTED], which stands for text hidden from you (a secret)');
    expect(answer).toContain('quote only the text beside it');
    expect(answer).not.toContain(PASSWORD);
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(FILE);
    // quoting the line beside it, as the answer says, makes the change
    expect(await run(kind, kind === 'axon' ? axon('port=5432', 'port=6543') : autocoder('port=5432', 'port=6543'))).not.toContain('MISMATCH');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`[db]\ndb_password=${PASSWORD}\nport=6543\n`);
  });

  it('text beside the secret is still replaced: the key and the other lines', async () => {
    const answer = await run('axon', axon('port=5432', 'port=6543'));
    expect(answer).toContain('ok (replaced at line 3)');
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`[db]\ndb_password=${PASSWORD}\nport=6543\n`);
  });
});
