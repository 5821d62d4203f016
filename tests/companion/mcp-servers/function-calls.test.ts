import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolNameFor } from '../../../companion/runs/function-calls-job';
import { EVERYTHING, MEMORY, fixtureServer, makeMcpWorld, type McpWorld } from './world';

/** The reference filesystem server: its write_file changes files chatbridge's journal never sees. */
const FILESYSTEM = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

/*
 * `<function_calls>` blocks (XML and JSON lines, the call format of the MCP browser proxies) through the real
 * companion: the "everything" and "memory" reference servers over stdio, the built-in tools on a real temp root,
 * approvals, and the `<function_result>` answer those proxies type back.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({
    envAllow: ['PATH', 'HOME'],
    allowCommands: ['node check.js'],
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '/dev/null' } },
      // the person lets it write without asking; the world's root is under the temp folder it may write in
      files: { command: process.execPath, args: [FILESYSTEM, realpathSync(tmpdir())], policy: { tools: { write_file: 'auto' } } },
      // a server on another SDK, whose tools answer with the arguments they were given
      loose: fixtureServer('loose-schemas.mjs', { policy: { default: 'auto' } }),
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

function xml(...invokes: string[]): string {
  return '```xml\n<function_calls>\n' + invokes.join('\n') + '\n</function_calls>\n```';
}

function invoke(name: string, callId: string | undefined, params: Record<string, string>): string {
  const parameters = Object.entries(params).map(([key, value]) => `<parameter name="${key}">${value}</parameter>`);
  return [`<invoke name="${name}"${callId === undefined ? '' : ` call_id="${callId}"`}>`, ...parameters, '</invoke>'].join('\n');
}

/** The `<function_result …>` elements of an answer: their attributes and text. */
function results(text: string): Array<{ attributes: Record<string, string>; text: string }> {
  return [...text.matchAll(/<function_result([^>]*)>\n([\s\S]*?)\n<\/function_result>/g)].map((m) => ({
    attributes: Object.fromEntries([...(m[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
    text: m[2] as string,
  }));
}

describe('<function_calls> through /v1/run', () => {
  it('an XML call of a server tool waits for approval with a pending <function_result>, then answers the tool text', async () => {
    const pending = await world.run('function-calls', xml(invoke('everything.echo', '1', { message: 'hello from a chat' })));
    expect(pending.status).toBe('pending');
    expect(results(pending.resultText)).toEqual([
      {
        attributes: expect.objectContaining({ call_id: '1', name: 'everything.echo', status: 'pending', audit_id: pending.auditId }),
        text: 'Pending confirmation in chatbridge (everything.echo — MCP server "everything", tool "echo"). Do not report success; wait for the result.',
      },
    ]);
    const approval = await world.approvalOf(pending.runId);
    expect(approval.tool).toBe('everything.echo');
    const done = await world.decide(pending.runId, 'approve');
    expect(done.status).toBe('done');
    expect(done.resultText).toBe(`<function_result call_id="1" name="everything.echo" audit_id="${done.auditId}">\nEcho: hello from a chat\n</function_result>`);
  });

  it('XML parameter text is read against the tool schema: numbers for get-sum, the text for a string property', async () => {
    const pending = await world.run('function-calls', xml(invoke('everything.get-sum', '2', { a: '2', b: '40' })));
    const done = await world.decide(pending.runId, 'approve');
    expect(results(done.resultText)[0]?.text).toBe('The sum of 2 and 40 is 42.');

    const echo = await world.run('function-calls', xml(invoke('everything.echo', '3', { message: '42' })));
    const echoed = await world.decide(echo.runId, 'approve');
    expect(results(echoed.resultText)[0]?.text).toBe('Echo: 42');
  });

  it('an XML parameter whose property is typed behind a $ref is read as that type: digits for a string id stay text', async () => {
    const done = await world.run(
      'function-calls',
      xml(invoke('loose.referenced', 'r', { issue_id: '42', priority: '2', parent_id: '7', duplicate_of: '43', count: '3', version: '2' })),
    );
    expect(results(done.resultText)[0]?.text).toBe('called referenced with {"issue_id":"42","priority":"2","parent_id":"7","duplicate_of":"43","count":3,"version":"2"}');
  });

  it('an XML number JSON would not keep as written (past 2^53, or past the largest number) is not sent as another number', async () => {
    for (const [a, written] of [['9007199254740993', '9007199254740993'], ['1e400', '1e400']] as const) {
      const pending = await world.run('function-calls', xml(invoke('everything.get-sum', '2b', { a, b: '0' })));
      const done = pending.status === 'pending' ? await world.decide(pending.runId, 'approve') : pending;
      const [result] = results(done.resultText);
      // refused naming what was written, never the sum of a rounded (or null) number
      expect(result?.attributes.status, done.resultText).toBe('error');
      expect(result?.text).toContain(written);
      expect(result?.text).not.toMatch(/The sum of/);
    }
  });

  it('the JSON-lines form runs the same way, its values as typed', async () => {
    const lines = [
      { type: 'function_call_start', name: 'everything.get-sum', call_id: 4 },
      { type: 'description', text: 'add two numbers' },
      { type: 'parameter', key: 'a', value: 5 },
      { type: 'parameter', key: 'b', value: 6 },
      { type: 'function_call_end', call_id: 4 },
    ];
    const pending = await world.run('function-calls', '```jsonl\n' + lines.map((l) => JSON.stringify(l)).join('\n') + '\n```');
    const done = await world.decide(pending.runId, 'approve');
    expect(results(done.resultText)).toEqual([{ attributes: expect.objectContaining({ call_id: '4', name: 'everything.get-sum' }), text: 'The sum of 5 and 6 is 11.' }]);
  });

  it('a bare tool name that only one server has (as the proxies\' prompts write it) is that server\'s tool', async () => {
    const pending = await world.run('function-calls', xml(invoke('echo', undefined, { message: 'bare' })));
    expect((await world.approvalOf(pending.runId)).tool).toBe('everything.echo');
    const done = await world.decide(pending.runId, 'approve');
    expect(done.resultText).toBe(`<function_result name="echo" audit_id="${done.auditId}">\nEcho: bare\n</function_result>`);
  });

  it('a built-in tool and a server tool in one block run in order, one <function_result> each', async () => {
    writeFileSync(join(world.root, 'notes.txt'), 'first line\nsecond line\n');
    const pending = await world.run(
      'function-calls',
      xml(invoke('fs.read', '5', { path: join(world.root, 'notes.txt') }), invoke('memory.read_graph', '6', {})),
    );
    // fs.read is automatic; the memory server's tool waits, and the pending answer already carries the first result
    expect(pending.status).toBe('pending');
    const early = results(pending.resultText);
    expect(early.map((r) => r.attributes.status ?? 'ok')).toEqual(['ok', 'pending']);
    expect(early[0]?.text).toContain('first line');
    const done = await world.decide(pending.runId, 'approve');
    const answers = results(done.resultText);
    expect(answers.map((r) => [r.attributes.call_id, r.attributes.name, r.attributes.status])).toEqual([
      ['5', 'fs.read', undefined],
      ['6', 'memory.read_graph', undefined],
    ]);
    expect(JSON.parse(answers[1]?.text as string)).toEqual({ entities: [], relations: [] });
  });

  it('errors come back in the same form: an unknown tool names the real ones, a broken block says why, a denial is DENIED', async () => {
    const unknown = await world.run('function-calls', xml(invoke('nosuch.tool', '7', {})));
    const [missing] = results(unknown.resultText);
    expect(missing?.attributes).toMatchObject({ call_id: '7', status: 'error' });
    expect(missing?.text).toMatch(/^NOT_FOUND: .*everything\.echo/);
    expect(unknown.status).toBe('error');

    const broken = await world.run('function-calls', '```xml\n<function_calls>\n</function_calls>\n```');
    expect(results(broken.resultText)).toEqual([
      { attributes: expect.objectContaining({ name: 'function_calls', status: 'error' }), text: 'INVALID_INPUT: the <function_calls> block holds no <invoke name="…"> call' },
    ]);

    const wrongType = await world.run('function-calls', xml(invoke('everything.get-sum', '8', { a: 'two', b: '2' })));
    expect(results(wrongType.resultText)[0]?.text).toMatch(/^INVALID_INPUT: .*\ba\b/);

    const denied = await world.run('function-calls', xml(invoke('everything.echo', '9', { message: 'no' })));
    const answer = await world.decide(denied.runId, 'deny');
    expect(results(answer.resultText)[0]).toMatchObject({ attributes: { call_id: '9', status: 'error' }, text: expect.stringMatching(/^DENIED: /) });
  });

  it('a server tool that runs without asking, then an allow-listed command: the command asks (the tool may have rewritten it)', async () => {
    const script = join(world.root, 'check.js');
    const pwned = join(world.base, 'pwned');
    writeFileSync(script, 'console.log("checked")\n');
    const pending = await world.run(
      'function-calls',
      xml(
        invoke('files.write_file', '10', { path: script, content: `require('fs').writeFileSync(${JSON.stringify(pwned)}, 'x')` }),
        invoke('process.run', '11', { command: 'node', args: '["check.js"]', cwd: world.root }),
      ),
    );
    try {
      // the server's write was the person's to allow; the command it rewrote was not run on the allow-list alone
      expect(results(pending.resultText).map((r) => r.attributes.status ?? 'ok')).toEqual(['ok', 'pending']);
      expect(existsSync(pwned)).toBe(false);
      expect((await world.approvalOf(pending.runId)).tool).toBe('process.run');
    } finally {
      if (pending.status === 'pending') await world.decide(pending.runId, 'deny');
    }
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('which tool a name stands for', () => {
  const listing = (name: string, server?: string) => ({ name, description: '', risk: 'exec', inputSchema: {}, ...(server ? { server } : {}) });
  const tools = [listing('fs.read'), listing('git.log', 'git'), listing('a.echo', 'a'), listing('b.echo', 'b')];
  it.each([
    ['fs.read', 'fs.read'],
    ['git.log', 'git.log'],
    ['log', 'git.log'],
    // two servers have an `echo`: the name stays as written and the registry answers NOT_FOUND with the real names
    ['echo', 'echo'],
    ['nosuch', 'nosuch'],
  ])('%s → %s', (name, resolved) => {
    expect(toolNameFor(name, tools)).toBe(resolved);
  });
});
