import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { t } from '../../extension/ui/i18n';
import { formatFlycodeResult } from '../../shared/results';
import { buildPage, catchChipRoots, clickChip, LIST, READ, start, stopPages, streamReply, until } from './page-harness';

/**
 * The person's MCP servers on a DeepSeek-like page: a `<function_calls>` block in an xml code block runs as its own
 * kind; a running call's progress (tool-progress events) shows in its chip; Stop on a running call stops the run in
 * the companion (which cancels the call on the server) — by run id, or by the block while the companion has not
 * answered yet.
 */

afterEach(stopPages);
const roots = catchChipRoots();

const CALL = ['<function_calls>', '<invoke name="everything.longRunningOperation" call_id="1">', '<parameter name="duration">10</parameter>', '</invoke>', '</function_calls>'].join('\n');
const running = (): RunResponse => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' });

/** Waits until the chip has drawn its Stop button (a running chip redraws at most every 250 ms), then clicks it. */
async function pressStop(): Promise<void> {
  await until(() => roots.get(chip())?.querySelector('button[data-action="stop"]') != null);
  clickChip(roots, chip(), 'stop');
}

function chip(): Element {
  const found = document.querySelector('[data-chatbridge-chip]');
  if (!found) throw new Error('no chip on the page');
  return found;
}

describe('page: calls to the person\'s MCP servers', () => {
  it('a call of a tool the companion lists from the person\'s servers is not taken for an unknown tool', async () => {
    const echo = { name: 'everything.echo', description: 'Echoes', risk: 'exec', inputSchema: { type: 'object' }, server: 'everything' };
    const h = start(buildPage(), { settings: { autoRun: false }, script: { tools: [echo] } });
    const call = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name, arguments: { message: 'hi' } } });
    await streamReply(h, [{ lang: 'mcp-request', code: call('everything.echo') }, { lang: 'mcp-request', code: call('nosuch.tool') }]);
    await until(() => h.ctl.records().some((r) => r.blocks.length === 2 && r.blocks.every((b) => b.block.complete)));
    const [known, unknown] = h.ctl.records().find((r) => r.blocks.length === 2)!.blocks;
    expect(known?.block.error).toBeUndefined();
    expect(unknown?.block.error).toMatch(/tool "nosuch\.tool" is not available/);
  });

  it('a <function_calls> block runs as a function-calls block, and its answer goes into the chat', async () => {
    const h = start(buildPage());
    await streamReply(h, ['Calling the server.', { lang: 'xml', code: CALL }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => [r.kind, r.text])).toEqual([['function-calls', CALL]]);
    expect(h.page.submitted).toEqual(['RESULT[function-calls:1]']);
  });

  it('a <function_calls> block the page shows as paragraph text (not in a code block) never runs by itself; Run still works', async () => {
    const h = start(buildPage());
    await streamReply(h, ['Calling the server.', CALL]);
    await until(() => chip().getAttribute('data-chatbridge-state') === 'ready');
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(chip().getAttribute('data-chatbridge-note')).toBe(t('note.unfenced'));
    clickChip(roots, chip(), 'run');
    await until(() => h.runs.length === 1);
    expect(h.runs[0]?.kind).toBe('function-calls');
  });

  it('tool-progress events show in the chip while the call runs, and go away with the result', async () => {
    const h = start(buildPage(), { script: { respond: running } });
    await streamReply(h, [{ lang: 'xml', code: CALL }]);
    await until(() => chip().getAttribute('data-chatbridge-state') === 'running');
    h.push({ type: 'event', event: { type: 'tool-progress', runId: 'run-1', tool: 'everything.longRunningOperation', progress: 3, total: 10, message: 'step 3' } });
    await until(() => chip().getAttribute('data-chatbridge-progress') === '3/10 — step 3');
    // a progress of another run changes nothing here
    h.push({ type: 'event', event: { type: 'tool-progress', runId: 'run-2', tool: 'x.y', progress: 9, total: 10 } });
    h.push({ type: 'event', event: { type: 'tool-progress', runId: 'run-1', tool: 'everything.longRunningOperation', progress: 4 } });
    await until(() => chip().getAttribute('data-chatbridge-progress') === '4');
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'DONE', auditId: 'a' } } });
    await until(() => h.page.submitted.includes('DONE'));
    expect(chip().getAttribute('data-chatbridge-state')).toBe('done');
    expect(chip().hasAttribute('data-chatbridge-progress')).toBe(false);
  });

  it('Stop on a running call stops its run by id; the CANCELLED answer the companion gives goes into the chat', async () => {
    const h = start(buildPage(), { script: { respond: running } });
    await streamReply(h, [{ lang: 'xml', code: CALL }]);
    await pressStop();
    await until(() => h.stops.length > 0);
    expect(h.stops[0]).toEqual({ type: 'stop-run', request: { runId: 'run-1' } });
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'error', resultText: 'CANCELLED ANSWER', auditId: 'a' } } });
    await until(() => h.page.submitted.includes('CANCELLED ANSWER'));
    expect(chip().getAttribute('data-chatbridge-state')).toBe('failed');
  });

  it('Stop before the companion has answered the run stops it by the very request that started it', async () => {
    let answer: (run: RunResponse) => void = () => undefined;
    const h = start(buildPage(), {
      script: { respond: () => new Promise<RunResponse>((resolve) => (answer = resolve)) as unknown as RunResponse },
    });
    await streamReply(h, [{ lang: 'xml', code: CALL }]);
    await until(() => h.runs.length === 1);
    await pressStop();
    await until(() => h.stops.length > 0);
    expect(h.stops[0]).toEqual({ type: 'stop-run', request: { run: h.runs[0] } });
    answer({ runId: 'run-1', status: 'error', resultText: 'CANCELLED ANSWER', auditId: 'a' });
    await until(() => h.page.submitted.includes('CANCELLED ANSWER'));
  });
});

describe('page: a result that holds tool blocks', () => {
  // a prompt file the model read: its example calls come back in the result as the file has them
  const PROMPT_FILE = ['To delete, write:', '```mcp-request', '{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"src"}}}', '```', CALL].join('\n');
  const RESULT = formatFlycodeResult({ id: 'call-001', tool: 'fs.read', outcome: { ok: true, text: PROMPT_FILE }, meta: { auditId: 'a' } });

  it('runs nothing it holds, sent as the person\'s message or quoted back in the next reply; the reply\'s own call runs', async () => {
    const h = start(buildPage(), { script: { respond: (_run, n) => ({ runId: `run-${n}`, status: 'done', resultText: n === 1 ? RESULT : 'LISTED', auditId: 'a' }) } });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual([RESULT]);
    const body = RESULT.replace(/^`+flycode-result\n/, '').replace(/\n`+$/, '');
    await streamReply(h, ['The file returned:', { lang: 'flycode-result', code: body }, 'Now the folder.', { lang: 'mcp-request', code: LIST }]);
    await until(() => h.page.submitted.length === 2);
    expect(h.runs.map((r) => r.text)).toEqual([`\`\`\`mcp-request\n${READ}\n\`\`\``, `\`\`\`mcp-request\n${LIST}\n\`\`\``]);
  });
});
