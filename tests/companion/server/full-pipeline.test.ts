import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan, runAxonPlan } from '../../../companion/plans';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import { context, flycodeCall, makeWorld, mcpCall, mcpJson, removeWorld, type World } from './harness';

/** The whole companion — real tools, plans, journal — behind POST /v1/run. */
const worlds: World[] = [];
function world(config: Record<string, unknown> = {}): World {
  const w = makeWorld({ tools: toolHandlers as ToolHandlers, plans: { runAutocoderPlan, runAxonPlan }, config });
  worlds.push(w);
  return w;
}
afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.close();
    removeWorld(w);
  }
});

async function run(w: World, kind: string, text: string, waitMs = 100): Promise<RunResponse> {
  const res = await w.post('/v1/run', { kind, text, context: context(), waitMs });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResponse;
}

async function approveAndFinish(w: World, res: RunResponse): Promise<RunResponse> {
  expect(res.status).toBe('pending');
  const { approvals } = (await (await w.request('/v1/approvals')).json()) as { approvals: ApprovalView[] };
  const approval = approvals.find((a) => a.id === res.pendingConfirmationId);
  expect(approval).toBeDefined();
  expect((await w.post(`/v1/approvals/${approval!.id}`, { decision: 'approve', argsHash: approval!.argsHash })).status).toBe(200);
  const live = w.companion.runs.live(res.runId);
  if (live) await live.final;
  return (await (await w.request(`/v1/runs/${res.runId}`)).json()) as RunResponse;
}

describe('full pipeline with the real tools and plans', () => {
  it('mcp-request fs.write: pending with a diff preview, approved, written, journaled, undone', async () => {
    const w = world();
    const path = join(w.root, 'notes.md');
    const res = await run(w, 'mcp-request', mcpCall('call-1', 'fs.write', { path, mode: 'overwrite', content: 'hello\n' }));
    const { approvals } = (await (await w.request('/v1/approvals')).json()) as { approvals: ApprovalView[] };
    expect(approvals[0]?.preview.diff).toContain('+hello');
    const final = await approveAndFinish(w, res);
    expect(mcpJson(final.resultText).result?.content[0]?.text).toBe('WRITE_SUCCESS');
    expect(readFileSync(path, 'utf8')).toBe('hello\n');
    const { entries } = (await (await w.request('/v1/journal')).json()) as { entries: Array<{ id: string; paths: string[] }> };
    expect(entries[0]?.paths).toContain(path);
    expect((await w.post(`/v1/journal/${entries[0]!.id}/undo`, {})).status).toBe(200);
    expect(existsSync(path)).toBe(false);
  });

  it('a call that names its tool under the other format\'s key is answered with where the name goes, and nothing runs', async () => {
    const w = world();
    const path = join(w.root, 'a.txt');
    writeFileSync(path, 'A');
    const fly = await run(w, 'flycode-call', '```flycode-call\n' + JSON.stringify({ id: 'call-001', name: 'fs.read', args: { path } }) + '\n```');
    expect(fly.status).toBe('error');
    expect(fly.resultText).toContain('[id] call-001\n');
    expect(fly.resultText).toContain(`[error] INVALID_INPUT: the tool's name goes under "tool" (seed 001: {"id", "tool", "args"}); it puts it under "name"`);
    const mcp = await run(w, 'mcp-request', '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id: 'call-002', method: 'tools/call', params: { tool: 'fs.read', arguments: { path } } }) + '\n```');
    expect(mcp.status).toBe('error');
    expect(mcpJson(mcp.resultText).error?.message).toBe("INVALID_INPUT: the tool's name goes under params.name (seed 000); the call puts it under params.tool");
  });

  it.each([
    ['in single quotes with a trailing comma, as Python writes it', (a: string, b: string) => `[{'path': '${a}', 'content': 'A'}, {'path': '${b}', 'content': 'B'},]`],
    ['in curly quotes with a full-width comma, as a Chinese input method types it', (a: string, b: string) => `[{“path”: “${a}”， “content”: “A”}， {“path”: “${b}”， “content”: “B”}]`],
  ])('a <function_calls> list parameter written %s is read as the list it stands for', async (_how, files) => {
    const w = world({ modes: { write: 'auto' } });
    const [a, b] = [join(w.root, 'a.txt'), join(w.root, 'b.txt')];
    const xml = '```xml\n<function_calls>\n<invoke name="fs.writeBatch" call_id="1">\n<parameter name="files">' + files(a, b) + '</parameter>\n</invoke>\n</function_calls>\n```';
    const res = await run(w, 'function-calls', xml);
    expect(res.resultText).toBe(`<function_result call_id="1" name="fs.writeBatch" audit_id="${res.auditId}">\nWRITE_BATCH_SUCCESS\n</function_result>`);
    expect([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')]).toEqual(['A', 'B']);
  });

  it('a <function_calls> written as prose around a ```xml block of its invokes runs as the call it is (its Run clicked)', async () => {
    const w = world({ modes: { read: 'auto' } });
    writeFileSync(join(w.root, 'a.txt'), 'A');
    const text = `I will read it.\n\n<function_calls>\n\n\`\`\`xml\n<invoke name="fs.read" call_id="1">\n<parameter name="path">${w.root}/a.txt</parameter>\n</invoke>\n\`\`\`\n\n</function_calls>\n`;
    const res = await run(w, 'function-calls', text);
    expect(res.resultText).toBe(`<function_result call_id="1" name="fs.read" audit_id="${res.auditId}">\nA\n</function_result>`);
  });

  it('an <invoke> written without its <function_calls> runs as the call it is (its Run clicked), answered as a <function_calls> call is', async () => {
    const w = world({ modes: { read: 'auto' } });
    writeFileSync(join(w.root, 'a.txt'), 'A');
    const text = `<invoke name="fs.read" call_id="1">\n<parameter name="path">${w.root}/a.txt</parameter>\n</invoke>`;
    const res = await run(w, 'function-calls', text);
    expect(res.resultText).toBe(`<function_result call_id="1" name="fs.read" audit_id="${res.auditId}">\nA\n</function_result>`);
  });

  it.each([
    ['an <invoke> with no name', (root: string) => `<invoke call_id="2">\n<parameter name="path">${root}/b.txt</parameter>\n</invoke>`, '<invoke> number 2 has no name; write <invoke name="tool name">'],
    ['a parameter given twice', (root: string) => `<invoke name="fs.read" call_id="2">\n<parameter name="path">${root}/b.txt</parameter>\n<parameter name="path">${root}/c.txt</parameter>\n</invoke>`, 'the parameter "path" of fs.read is given twice'],
    ['a parameter not closed', (root: string) => `<invoke name="fs.read" call_id="2">\n<parameter name="path">${root}/b.txt\n</invoke>`, '<parameter name="path"> of fs.read is not closed with </parameter>'],
  ])('a <function_calls> block with %s among its calls runs the others, each answered under its own call_id in order', async (_what, bad, error) => {
    const w = world({ modes: { write: 'auto' } });
    writeFileSync(join(w.root, 'a.txt'), 'A');
    const xml = [
      '```xml',
      '<function_calls>',
      `<invoke name="fs.read" call_id="1">\n<parameter name="path">${w.root}/a.txt</parameter>\n</invoke>`,
      bad(w.root),
      `<invoke name="fs.write" call_id="3">\n<parameter name="path">${w.root}/d.txt</parameter>\n<parameter name="mode">overwrite</parameter>\n<parameter name="content">D</parameter>\n</invoke>`,
      '</function_calls>',
      '```',
    ].join('\n');
    const res = await run(w, 'function-calls', xml);
    const name = bad('').includes('name="fs.read"') ? 'fs.read' : '';
    expect(res.resultText).toBe(
      [
        `<function_result call_id="1" name="fs.read" audit_id="${res.auditId}">\nA\n</function_result>`,
        `<function_result call_id="2" name="${name}" status="error" audit_id="${res.auditId}">\nINVALID_INPUT: ${error}; this call did not run\n</function_result>`,
        `<function_result call_id="3" name="fs.write" audit_id="${res.auditId}">\nWRITE_SUCCESS\n</function_result>`,
      ].join('\n\n'),
    );
    expect(readFileSync(join(w.root, 'd.txt'), 'utf8')).toBe('D');
    expect(res.status).toBe('error');
  });

  it.each([
    ['a line that is not JSON', (root: string) => `{"type": "parameter", "key": "path", "value": "${root}/b.txt"`, 'line 5 is not a JSON object with a "type"'],
    ['a parameter given twice', (root: string) => `{"type": "parameter", "key": "path", "value": "${root}/b.txt"}\n{"type": "parameter", "key": "path", "value": "${root}/c.txt"}`, 'line 6: the parameter "path" of fs.read is given twice'],
    ['a type it does not know', (root: string) => `{"type": "parameter", "key": "path", "value": "${root}/b.txt"}\n{"type": "argument", "key": "x", "value": 1}`, 'line 6: type "argument" is not one of'],
  ])('a JSON-lines <function_calls> block with %s in one call runs the others, each answered under its own call_id in order', async (_what, bad, error) => {
    const w = world({ modes: { write: 'auto' } });
    writeFileSync(join(w.root, 'a.txt'), 'A');
    const call = (id: number, name: string, lines: string) => `{"type": "function_call_start", "name": "${name}", "call_id": ${id}}\n${lines}\n{"type": "function_call_end", "call_id": ${id}}`;
    const jsonl = [
      '```jsonl',
      call(1, 'fs.read', `{"type": "parameter", "key": "path", "value": "${w.root}/a.txt"}`),
      call(2, 'fs.read', bad(w.root)),
      call(3, 'fs.write', [`{"type": "parameter", "key": "path", "value": "${w.root}/d.txt"}`, '{"type": "parameter", "key": "mode", "value": "overwrite"}', '{"type": "parameter", "key": "content", "value": "D"}'].join('\n')),
      '```',
    ].join('\n');
    const res = await run(w, 'function-calls', jsonl);
    const results = res.resultText.split('\n\n');
    expect(results[0]).toBe(`<function_result call_id="1" name="fs.read" audit_id="${res.auditId}">\nA\n</function_result>`);
    expect(results[1]?.startsWith(`<function_result call_id="2" name="fs.read" status="error" audit_id="${res.auditId}">\nINVALID_INPUT: ${error}`)).toBe(true);
    expect(results[1]?.endsWith('; this call did not run\n</function_result>')).toBe(true);
    expect(results[2]).toBe(`<function_result call_id="3" name="fs.write" audit_id="${res.auditId}">\nWRITE_SUCCESS\n</function_result>`);
    expect(readFileSync(join(w.root, 'd.txt'), 'utf8')).toBe('D');
  });

  it('flycode-call fs.read of a file outside the roots is refused', async () => {
    const w = world();
    const res = await run(w, 'flycode-call', flycodeCall('call-2', 'fs.read', { path: '/etc/passwd' }));
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('[ok] false');
    expect(res.resultText).toMatch(/\[error\] (FORBIDDEN|POLICY_BLOCKED)/);
  });

  it('autocoder plan: authorized once, files created, response in the seed delimiters', async () => {
    const w = world();
    const plan = {
      type: 'operate',
      metadata: { step_id: 'step-1', reason: 'create a file' },
      file_operations: [{ action_type: 'create_file', path: 'src/hello.txt', file_content: 'hi\n' }],
    };
    const res = await run(w, 'autocoder', `#####--\n${JSON.stringify(plan)}\n--#####`);
    const final = await approveAndFinish(w, res);
    expect(final.status).toBe('done');
    expect(final.resultText).toMatch(/^#####--/);
    expect(final.resultText).toContain('step-1');
    expect(readFileSync(join(w.root, 'src/hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('axon plan: all statements as one plan, applied after one approval', async () => {
    const w = world();
    writeFileSync(join(w.root, 'main.py'), 'print("old")\n');
    const text = [
      '```act\nwrite_file\n```',
      '```path\ndocs/a.md\n```',
      '```markdown\n# A\n```',
      '',
      '```act\nreplace\n```',
      '```path\nmain.py\n```',
      '```python\nprint("old")\n```',
      '```python\nprint("new")\n```',
    ].join('\n');
    const res = await run(w, 'axon', text);
    const final = await approveAndFinish(w, res);
    expect(final.resultText).toContain('axon-result');
    expect(final.resultText).toContain('applied');
    expect(readFileSync(join(w.root, 'docs/a.md'), 'utf8')).toBe('# A\n');
    expect(readFileSync(join(w.root, 'main.py'), 'utf8')).toBe('print("new")\n');
  });

  it('an axon plan written inside a block quote (its Run clicked) is answered as the same plan unquoted is', async () => {
    const plan = [
      '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\ndocs/a.md\n~~~~~\n~~~~~markdown\n# A\n\n    kept\n~~~~~',
      '~~~~~act\nreplace\n~~~~~\n~~~~~path\nmain.py\n~~~~~\n~~~~~python\nprint("old")\n~~~~~\n~~~~~python\nprint("new")\n~~~~~',
    ];
    const quote = (text: string) => text.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
    const answers: string[] = [];
    for (const text of [plan.join('\n\n'), plan.map(quote).join('\n\n')]) {
      const w = world();
      writeFileSync(join(w.root, 'main.py'), 'print("old")\n');
      const final = await approveAndFinish(w, await run(w, 'axon', text));
      expect(readFileSync(join(w.root, 'docs/a.md'), 'utf8')).toBe('# A\n\n    kept\n');
      expect(readFileSync(join(w.root, 'main.py'), 'utf8')).toBe('print("new")\n');
      answers.push(final.resultText.replace(/audit[_-]?id[^\n]*/gi, ''));
    }
    expect(answers[0]).toContain('applied');
    expect(answers[1]).toBe(answers[0]);
  });

  it('axon plan with an unknown act: aborted, nothing changed, the act named', async () => {
    const w = world();
    const text = ['```act\nwrite_file\n```', '```path\nkeep.md\n```', '```md\nx\n```', '', '```act\ndelete_everything\n```'].join('\n');
    const res = await run(w, 'axon', text);
    expect(res.resultText).toContain('axon-result');
    expect(res.resultText).toContain('delete_everything');
    expect(res.resultText).toMatch(/aborted at act 2/);
    expect(existsSync(join(w.root, 'keep.md'))).toBe(false);
  });

  it('a read the tool cut itself keeps its own note on how to read on (the range or lines to ask next), not a second cut through it', async () => {
    const w = world({ modes: { read: 'auto' } });
    const big = join(w.root, 'big.txt');
    writeFileSync(big, 'x'.repeat(30) + '\n' + 'y'.repeat(25_000));
    const byRange = mcpJson((await run(w, 'mcp-request', mcpCall('call-1', 'fs.read', { path: big, range: '5000:30000' }))).resultText);
    const rangeText = byRange.result?.content[0]?.text ?? '';
    // 20000 characters shown from character 5000 on: the next read starts at 25000 of the file
    expect(rangeText).toContain('read more with range: "25000:');
    expect(rangeText).not.toContain('showed 20000 of');
    const lines = join(w.root, 'lines.txt');
    writeFileSync(lines, Array.from({ length: 5000 }, (_, i) => `row ${i + 1} ${'z'.repeat(20)}`).join('\n'));
    const byLines = mcpJson((await run(w, 'mcp-request', mcpCall('call-2', 'fs.read', { path: lines, lines: '1-5000' }))).resultText);
    expect(byLines.result?.content[0]?.text).toMatch(/read more with lines: "\d+-5000"\]$/);
    expect(byLines.result?.meta.truncated).toBe(true);
  });

  it('autocoder: a plan cut by a --##### in a file\'s text is told how to write it, and the plan written so creates the file with the marker', async () => {
    const w = world({ modes: { write: 'auto' } });
    const plan = (content: string) =>
      `#####--\n{"metadata":{"step_id":"doc_001","reason":"r"},"type":"operate","file_operations":[{"action_type":"create_file","path":"PROTOCOL.md","file_content":"${content}"}]}\n--#####`;
    const cutShort = await run(w, 'autocoder', plan('Wrap it: #####--{...}--##### in one reply'));
    expect(cutShort.status).toBe('error');
    const response = JSON.parse(/^#####--\s*(.*?)\s*--#####$/s.exec(cutShort.resultText)![1]!) as { metadata: { summary: string } };
    expect(response.metadata.summary).toContain(
      'if the plan goes on after the closing marker that ends this block, that marker stood inside one of its strings and ended the block there ' +
        '(the executor reads up to the first closing marker): write it in the string as --\\u0023#### (\\u0023 is "#" in JSON, so it reads back as the marker)',
    );
    const written = await run(w, 'autocoder', plan('Wrap it: #####--{...}--\\u0023#### in one reply'));
    expect(written.status).toBe('done');
    expect(readFileSync(join(w.root, 'PROTOCOL.md'), 'utf8')).toBe('Wrap it: #####--{...}--##### in one reply');
  });

  it.skipIf(process.platform === 'win32')('plan paths written with backslashes, as on Windows, are refused on POSIX, naming the path: no file gets the backslashes in its name', async () => {
    const w = world({ modes: { write: 'auto' } });
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'init_001', reason: 'r' },
      file_operations: [
        { action_type: 'create_directory', path: 'tetris/assets' },
        { action_type: 'create_file', path: 'tetris\\game.py', file_content: 'import pygame\n' },
      ],
    })}\n--#####`;
    const coder = await run(w, 'autocoder', plan);
    const response = JSON.parse(/^#####--\s*(.*?)\s*--#####$/s.exec(coder.resultText)![1]!) as { file_actions: Array<{ status: string; error?: string }> };
    expect(response.file_actions[1]).toMatchObject({
      status: 'failure',
      error: 'INVALID_INPUT: path "tetris\\\\game.py" is written with backslashes, as on Windows, but this machine uses POSIX paths, where a backslash is part of a file\'s name: write it with / (tetris/game.py)',
    });
    const axon = await run(w, 'axon', '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nC:\\proj\\main.py\n~~~~~\n~~~~~python\nprint(1)\n~~~~~');
    expect(axon.resultText).toContain(
      `1 write_file C:\\proj\\main.py: INVALID_INPUT: path "C:\\\\proj\\\\main.py" is a Windows path, but this machine uses POSIX paths; give a path relative to the workspace root ${w.root}`,
    );
    expect(readdirSync(w.root)).toEqual([]);
  });

  it('autocoder: a secret followed by a quote is redacted and the executor response is still JSON', async () => {
    const w = world({ modes: { read: 'auto', exec: 'auto' } });
    writeFileSync(join(w.root, 'conf.txt'), 'password=abc"def\n');
    const plan = {
      type: 'operate',
      metadata: { step_id: 's1', reason: 'read the config' },
      file_operations: [{ action_type: 'read_file', path: 'conf.txt' }],
      program_operations: [{ name: 'show', command: `printf 'password=abc"def\\n'`, set_timeout: 20 }],
    };
    const res = await run(w, 'autocoder', `#####--\n${JSON.stringify(plan)}\n--#####`, 10_000);
    const match = /^#####--\s*(.*?)\s*--#####$/s.exec(res.resultText);
    const response = JSON.parse(match![1]!) as { file_actions: Array<{ content?: string }>; program_execs: Record<string, { stdout: string }> };
    expect(response.file_actions[0]?.content).toBe('password=[REDACTED]"def\n');
    expect(response.program_execs.show?.stdout).toBe('password=[REDACTED]"def\n');
    expect(res.resultText).not.toContain('abc');
  });
  it('a file saved as GBK is neither read nor edited as text by a plan: it keeps its bytes, the model is told why, and an overwrite still works', async () => {
    const w = world({ modes: { read: 'auto', write: 'auto' } });
    // "# 中文" in GBK (d6d0 cec4), then ASCII: what a model on a Chinese Windows machine edits; read as UTF-8, each
    // GBK byte is U+FFFD, and a replace of the ASCII part wrote those back in the comment's place
    const gbk = Buffer.concat([Buffer.from('# '), Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), Buffer.from('\ndef f():\n    pass\n')]);
    for (const name of ['a.py', 'b.py', 'c.py']) writeFileSync(join(w.root, name), gbk);
    const plan = (operations: unknown[]) => `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's1', reason: 'r' }, file_operations: operations })}\n--#####`;
    const refusal = (name: string, act: string) =>
      `INVALID_INPUT: ${name} is not UTF-8 text (25 bytes: another encoding, such as GBK, or binary data); a plan reads and edits files as UTF-8 only, so it was not read or changed; to change it, write it whole in UTF-8 with ${act}`;

    const coder = await run(w, 'autocoder', plan([
      { action_type: 'replace_file', path: 'a.py', modify_content: [{ identifier: 'f', old_content: 'def f():\n    pass', new_content: 'def f():\n    return 1' }] },
      { action_type: 'read_file', path: 'a.py' },
    ]));
    const response = JSON.parse(/^#####--\s*(.*?)\s*--#####$/s.exec(coder.resultText)![1]!) as { file_actions: Array<{ status: string; error?: string; content?: string; replaces?: Array<{ replaced: boolean; error?: string }> }> };
    expect(response.file_actions[0]).toMatchObject({ status: 'failure', error: refusal('a.py', 'create_file'), replaces: [{ replaced: false, error: refusal('a.py', 'create_file') }] });
    expect(response.file_actions[1]).toMatchObject({ status: 'failure', error: refusal('a.py', 'create_file') });
    expect(response.file_actions[1]?.content).toBeUndefined();

    const axon = await run(w, 'axon', '~~~~~act\nreplace\n~~~~~\n~~~~~path\nb.py\n~~~~~\n~~~~~python\n    pass\n~~~~~\n~~~~~python\n    return 1\n~~~~~');
    expect(axon.resultText).toContain(`1 replace b.py: ${refusal('b.py', 'write_file')}`);
    expect(readFileSync(join(w.root, 'a.py'))).toEqual(gbk);
    expect(readFileSync(join(w.root, 'b.py'))).toEqual(gbk);

    // written whole, as the refusal says, the file is the model's UTF-8 text
    const rewrite = await run(w, 'axon', '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nc.py\n~~~~~\n~~~~~python\n# 中文\ndef f():\n    return 1\n~~~~~');
    expect(rewrite.resultText).toContain('plan: applied');
    expect(readFileSync(join(w.root, 'c.py'), 'utf8')).toBe('# 中文\ndef f():\n    return 1\n');
  });
  it.skipIf(process.platform === 'win32')('autocoder: a file or an output longer than one result names the program that prints what follows, and that program shows it whole', async () => {
    const w = world({ modes: { read: 'auto', exec: 'auto' }, limits: { maxResultChars: 2000 } });
    writeFileSync(join(w.root, 'big.txt'), Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${'x'.repeat(20)}`).join('\n'));
    // a minified file: one line longer than a program's output shows
    const minified = Array.from({ length: 900 }, (_, i) => `var a${i}=${i};`).join('');
    writeFileSync(join(w.root, 'app.min.js'), minified);
    type Response = { file_actions: Array<{ content?: string }>; program_execs: Record<string, { stdout: string }> };
    const plan = async (steps: Record<string, unknown>) => {
      const res = await run(w, 'autocoder', `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's1', reason: 'r' }, ...steps })}\n--#####`, 10_000);
      return JSON.parse(/^#####--\s*(.*?)\s*--#####$/s.exec(res.resultText)![1]!) as Response;
    };
    const first = await plan({ file_operations: [{ action_type: 'read_file', path: 'big.txt' }, { action_type: 'read_file', path: 'app.min.js' }], program_operations: [{ name: 'count', command: 'seq 1 3000', set_timeout: 20 }] });
    // read_file has no range: the note names a program that prints the next lines, as many as one output shows
    const fileNote = /read_file shows no more of it; to see the rest, run a program to print lines 70 to (\d+) of it with (sed -n '70,\d+p' big\.txt) …\]$/.exec(first.file_actions[0]!.content!);
    expect(fileNote).not.toBeNull();
    const minifiedNote = /to see the rest, run a program to print characters 2001 to 2800 of it with (tail -c \+2001 app\.min\.js \| head -c 800) …\]$/.exec(first.file_actions[1]!.content!);
    expect(minifiedNote).not.toBeNull();
    const outputNote = /characters omitted; write the output to a file \(out\.txt\) and print lines 128 to (\d+) of it with (sed -n '128,\d+p' out\.txt) …\]/.exec(first.program_execs.count!.stdout);
    expect(outputNote).not.toBeNull();
    const next = await plan({ program_operations: [
      { name: 'file', command: fileNote![2], set_timeout: 20 },
      { name: 'minified', command: minifiedNote![1], set_timeout: 20 },
      { name: 'output', command: `seq 1 3000 > out.txt && ${outputNote![2]}`, set_timeout: 20 },
    ] });
    const lines = (from: number, to: number, line: (n: number) => string) => Array.from({ length: to - from + 1 }, (_, i) => `${line(from + i)}\n`).join('');
    expect(next.program_execs.file!.stdout).toBe(lines(70, Number(fileNote![1]), (n) => `line ${n} ${'x'.repeat(20)}`));
    expect(next.program_execs.output!.stdout).toBe(lines(128, Number(outputNote![1]), String));
    expect(next.program_execs.minified!.stdout).toBe(minified.slice(2000, 2800));
  });
});
