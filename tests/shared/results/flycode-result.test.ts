import { describe, expect, it } from 'vitest';
import { formatFlycodeResult, type FlycodeResultInput } from '../../../shared/results';
import { readFlycodeResult } from './read-back';

const F3 = '```';
const F4 = '````';

const cases: Array<{ name: string; input: FlycodeResultInput; reply: string }> = [
  {
    name: 'success (DESIGN §3.2)',
    input: { id: 'call-001', tool: 'fs.read', outcome: { ok: true, text: 'hello\nworld' }, meta: { auditId: '7f3c' } },
    reply: `${F3}flycode-result\n[id] call-001\n[tool] fs.read\n[ok] true\n[truncated] false\n[auditId] 7f3c\n[data]\nhello\nworld\n${F3}`,
  },
  {
    name: 'data holding a ``` block gets a longer fence; its final line break is kept',
    input: { id: 'call-002', tool: 'fs.read', outcome: { ok: true, text: '# Guide\n```python\nprint("hi")\n```\n' }, meta: { auditId: 'a2' } },
    reply: `${F4}flycode-result\n[id] call-002\n[tool] fs.read\n[ok] true\n[truncated] false\n[auditId] a2\n[data]\n# Guide\n${F3}python\nprint("hi")\n${F3}\n\n${F4}`,
  },
  {
    name: 'truncated, with Chinese text, tildes and a Windows path',
    input: {
      id: 'call-003',
      tool: 'fs.search',
      outcome: { ok: true, text: 'C:\\Users\\a1881\\笔记.md:3:1: 测试成功\n~~~~~\n[truncated: 20000 characters shown; use range to read more]', truncated: true },
      meta: { auditId: 'a3' },
    },
    reply:
      `${F3}flycode-result\n[id] call-003\n[tool] fs.search\n[ok] true\n[truncated] true\n[auditId] a3\n[data]\n` +
      `C:\\Users\\a1881\\笔记.md:3:1: 测试成功\n~~~~~\n[truncated: 20000 characters shown; use range to read more]\n${F3}`,
  },
  {
    name: 'empty data',
    input: { id: 'call-004', tool: 'fs.read', outcome: { ok: true, text: '' }, meta: { auditId: 'a4', truncated: true } },
    reply: `${F3}flycode-result\n[id] call-004\n[tool] fs.read\n[ok] true\n[truncated] true\n[auditId] a4\n[data]\n\n${F3}`,
  },
  {
    name: 'failure',
    input: { id: 'call-005', tool: 'fs.read', outcome: { ok: false, code: 'NOT_FOUND', message: 'no such file: /tmp/a.txt' }, meta: { auditId: 'a5' } },
    reply: `${F3}flycode-result\n[id] call-005\n[tool] fs.read\n[ok] false\n[error] NOT_FOUND: no such file: /tmp/a.txt\n[auditId] a5\n${F3}`,
  },
  {
    name: 'failure message kept on one line, not coded twice',
    input: {
      id: 'call-006',
      tool: 'fs.mv',
      outcome: { ok: false, code: 'INVALID_INPUT', message: 'INVALID_INPUT: fs.mv takes fromPath/toPath,\nnot src/dest' },
      meta: { auditId: 'a6', repaired: true },
    },
    reply:
      `${F3}flycode-result\n[id] call-006\n[tool] fs.mv\n[ok] false\n[error] INVALID_INPUT: fs.mv takes fromPath/toPath, not src/dest\n` +
      `[auditId] a6\n[repaired] true\n[data]\nINVALID_INPUT: fs.mv takes fromPath/toPath,\nnot src/dest\n${F3}`,
  },
  {
    name: 'a failure of several lines (a tool\'s traceback) keeps its lines under [data]',
    input: {
      id: 'call-010',
      tool: 'mcp.py.run',
      outcome: { ok: false, code: 'TOOL_ERROR', message: 'Traceback (most recent call last):\n  File "t.py", line 3, in run\n    x = 1 / 0\nZeroDivisionError: division by zero' },
      meta: { auditId: 'a10' },
    },
    reply:
      `${F3}flycode-result\n[id] call-010\n[tool] mcp.py.run\n[ok] false\n` +
      '[error] TOOL_ERROR: Traceback (most recent call last): File "t.py", line 3, in run x = 1 / 0 ZeroDivisionError: division by zero\n' +
      `[auditId] a10\n[data]\nTraceback (most recent call last):\n  File "t.py", line 3, in run\n    x = 1 / 0\nZeroDivisionError: division by zero\n${F3}`,
  },
  {
    name: 'no id (seed 001 §10.12)',
    input: { id: null, tool: 'fs.read', outcome: { ok: false, code: 'INVALID_INPUT', message: '"id" must be a non-empty string' }, meta: { auditId: 'a7' } },
    reply: `${F3}flycode-result\n[id] (none)\n[tool] fs.read\n[ok] false\n[error] INVALID_INPUT: "id" must be a non-empty string\n[auditId] a7\n${F3}`,
  },
  {
    name: 'no id never reports success',
    input: { id: '  ', tool: null, outcome: { ok: true, text: 'secret' }, meta: { auditId: 'a8' } },
    reply:
      `${F3}flycode-result\n[id] (none)\n[tool] (none)\n[ok] false\n` +
      '[error] INVALID_INPUT: the call has no "id", so this result cannot be matched to it; call again with an id like "call-001"\n' +
      `[auditId] a8\n${F3}`,
  },
  {
    name: 'pending confirmation',
    input: {
      id: 'call-009',
      tool: 'fs.write',
      outcome: { ok: true, text: 'fs.write /root/work/flycode/a.md' },
      meta: { auditId: 'a9', pendingConfirmationId: 'confirm-123' },
    },
    reply:
      `${F3}flycode-result\n[id] call-009\n[tool] fs.write\n[ok] false\n` +
      '[error] WRITE_CONFIRMATION_REQUIRED: Pending confirmation in chatbridge (fs.write /root/work/flycode/a.md). Do not report success; wait for the result.\n' +
      `[pendingConfirmationId] confirm-123\n[auditId] a9\n${F3}`,
  },
];

describe('flycode-result', () => {
  it.each(cases)('$name: exact text', ({ input, reply }) => {
    expect(formatFlycodeResult(input)).toBe(reply);
  });

  it.each(cases)('$name: reads back as one block with the same fields and data', ({ input }) => {
    const { fields, data } = readFlycodeResult(formatFlycodeResult(input));
    const field = (name: string) => fields.find(([key]) => key === name)?.[1];
    expect(fields.map(([key]) => key).slice(0, 3)).toEqual(['id', 'tool', 'ok']);
    expect(field('auditId')).toBe(input.meta.auditId);
    const succeeded = input.outcome.ok && input.id !== null && input.id.trim() !== '' && input.meta.pendingConfirmationId === undefined;
    expect(field('ok')).toBe(String(succeeded));
    if (succeeded && input.outcome.ok) {
      expect(field('id')).toBe(input.id);
      expect(data).toBe(input.outcome.text);
    } else {
      const message = input.outcome.ok ? '' : input.outcome.message;
      expect(data).toBe(succeeded || input.id === null || input.id.trim() === '' || !message.includes('\n') ? undefined : message);
      expect(field('error')).toMatch(/^[A-Z_]+: \S/);
    }
  });

  it('a long failure of several lines is given once whole, under [data]; the [error] line shows its start', () => {
    const message = `upstream failed:\n${'  at handler (/srv/app.js:10:5)\n'.repeat(400)}`;
    const { fields, data } = readFlycodeResult(formatFlycodeResult({ id: 'call-011', tool: 'mcp.api.go', outcome: { ok: false, code: 'TOOL_ERROR', message }, meta: { auditId: 'a11' } }));
    const error = fields.find(([key]) => key === 'error')?.[1] ?? '';
    expect(error.startsWith('TOOL_ERROR: upstream failed: at handler (/srv/app.js:10:5) at handler')).toBe(true);
    expect(error.length).toBeLessThanOrEqual(500);
    expect(data).toBe(message);
  });

  it('data with a longer run of backticks than any fence so far still stays inside', () => {
    const text = '``````\nx\n   ````````\n';
    const reply = formatFlycodeResult({ id: 'c', tool: 'fs.read', outcome: { ok: true, text }, meta: { auditId: 'a' } });
    expect(reply.startsWith('`````````flycode-result\n')).toBe(true);
    expect(readFlycodeResult(reply).data).toBe(text);
  });
});
