/**
 * A NUL byte in what a program is started with (command, argument, environment variable) can never reach the
 * operating system: it ends a C string there. Against the real companion process with the default modes (exec
 * asks): such a call is refused at once as bad input naming the field and the rule — the person is never shown a
 * card for a program that cannot start — and an auto_coder plan holding one is refused whole, nothing written.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

describe('a NUL byte in a program call is refused before any card', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function post(kind: string, text: string): Promise<RunResponse> {
    n++;
    const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind, text, context: context('conv-nul', `m${n}`), waitMs: 2_000 }),
    });
    return (await response.json()) as RunResponse;
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-nul-');
    companion = await startCompanionProcess({ root: ws.root, home: join(ws.base, 'home'), config: { allowCommands: ['echo hi'] } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  for (const [name, args, field] of [
    ['process.run', { command: 'echo', args: ['h\u0000i'] }, 'word 2 of the command "echo h\\u0000i"'],
    ['process.run', { command: 'ec\u0000ho', args: ['hi'] }, 'word 1 of the command "ec\\u0000ho hi"'],
    ['process.run', { command: 'echo', args: ['hi'], env: { GREETING: 'a\u0000b' } }, 'word 1 of the command "GREETING=a\\u0000b echo hi"'],
    ['shell.exec', { command: 'echo hi\u0000; touch pwned' }, 'the command line "echo hi\\u0000; touch pwned"'],
  ] as const) {
    it(`${name}, NUL in ${field}: INVALID_INPUT at once, naming it, no approval asked`, async () => {
      const run = await post('mcp-request', mcpRequestBlock(n + 1, name, args));
      expect(run.status, JSON.stringify(run)).toBe('error');
      expect(run.pendingConfirmationId).toBeUndefined();
      const response = parseMcpResponse(run.resultText);
      expect(response.error?.message).toMatch(/^INVALID_INPUT: /);
      expect(response.error?.message).toBe(`INVALID_INPUT: ${name}: ${field} holds a NUL byte (\\u0000), which no program name, argument or environment variable can hold`);
      expect(existsSync(join(ws.root, 'pwned'))).toBe(false);
    });
  }

  it('an auto_coder plan whose program holds a NUL is refused whole: no card, no file written', async () => {
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'nul-1', reason: 'run it' },
      file_operations: [{ action_type: 'create_file', path: 'made.txt', file_content: 'x' }],
      program_operations: [{ name: 'greet', command: 'echo hi\u0000' }],
    })}\n--#####`;
    const run = await post('autocoder', plan);
    expect(run.status, JSON.stringify(run)).toBe('done');
    expect(run.pendingConfirmationId).toBeUndefined();
    expect(run.resultText).toMatch(/NUL/);
    expect(existsSync(join(ws.root, 'made.txt'))).toBe(false);
  });
});
