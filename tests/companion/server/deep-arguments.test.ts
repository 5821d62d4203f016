/**
 * Arguments nested deeper than any tool takes are refused as bad input, naming the rule, on every way a call comes
 * in — against the real companion process. mcp-request and flycode-call blocks were refused before parsing
 * (shared/protocols/json.ts MAX_NESTING), but a `<function_calls>` block (JSON lines, or an XML parameter whose text
 * is JSON) and a call to /mcp reached the argument check with the value, which overflowed the stack: the model was
 * answered 'INTERNAL: internal error: Maximum call stack size exceeded'.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../../shared/protocols/json';
import { context, makeWorkspace, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('attack: arguments nested past the stack', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  beforeAll(async () => {
    ws = makeWorkspace('cb-deep-');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const block = async (kind: string, text: string) => (await postBlock(companion, kind, text, context('conv-deep', `m${++n}`))).resultText ?? '';

  it.each([
    ['JSON lines', (value: string) => '```jsonl\n' + `{"type":"function_call_start","name":"fs.read","call_id":1}\n{"type":"parameter","key":"path","value":${value}}\n{"type":"function_call_end","call_id":1}` + '\n```'],
    ['XML', (value: string) => '```xml\n<function_calls>\n<invoke name="fs.ls" call_id="1">\n<parameter name="depth">' + value + '</parameter>\n</invoke>\n</function_calls>\n```'],
  ])('<function_calls> (%s): a value nested 100 000 levels deep is INVALID_INPUT naming the limit', async (_form, text) => {
    const answer = await block('function-calls', text(deep(100_000)));
    expect(answer).not.toMatch(/INTERNAL|call stack/);
    expect(answer).toContain(`INVALID_INPUT: fs.`);
    expect(answer).toContain(`nested deeper than ${MAX_NESTING} levels`);
  });

  it('a value as deep as the limit is still read and checked as usual', async () => {
    const answer = await block('function-calls', '```jsonl\n' + `{"type":"function_call_start","name":"fs.read","call_id":1}\n{"type":"parameter","key":"path","value":${deep(MAX_NESTING - 2)}}\n{"type":"function_call_end","call_id":1}` + '\n```');
    expect(answer).toMatch(/INVALID_INPUT: fs\.read argument "path" must be a string/);
  });

  it('/mcp: tools/call with arguments nested 100 000 levels deep is an error naming the limit, not an internal one', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs.read","arguments":{"path":${deep(100_000)}}}}`;
    const response = await fetch(`http://127.0.0.1:${companion.port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    const text = await response.text();
    expect(text).not.toMatch(/INTERNAL|call stack/);
    expect(text).toContain(`nested deeper than ${MAX_NESTING} levels`);
  });
});
