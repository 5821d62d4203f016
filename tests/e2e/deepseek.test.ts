/**
 * DeepSeek replica (React controlled textarea, send control disabled while React state is empty) + built extension +
 * real companion: a flycode-call, an auto_coder plan with a program, and an Axon plan each run and their replies
 * reach the page's own submit handler.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  auditRecords,
  chips,
  clickChipAction,
  clickStop,
  composerText,
  createWorld,
  describeE2E,
  fencedBody,
  quietPeriod,
  readWorkspaceFile,
  setSiteSettings,
  stream,
  submitted,
  waitForChipNote,
  waitForChipState,
  waitForHeld,
  waitForSubmitted,
  waitForSubmittedContaining,
} from './harness';
import type { World } from './harness';

/** The key: value lines of a flycode-result block. */
function flycodeFields(message: string): Record<string, string> {
  const body = fencedBody(message, 'flycode-result');
  if (body === null) throw new Error(`no flycode-result block in:\n${message}`);
  const fields: Record<string, string> = {};
  const lines = body.split('\n');
  for (const [index, line] of lines.entries()) {
    const match = /^\[(\w+)\]\s?(.*)$/.exec(line);
    if (!match?.[1]) continue;
    if (match[1] === 'data') {
      fields.data = lines.slice(index + 1).join('\n');
      break;
    }
    fields[match[1]] = match[2] ?? '';
  }
  return fields;
}

function mcpRequest(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

/** The JSON between #####-- and --##### in a message. */
function autocoderReply(message: string): Record<string, unknown> {
  const match = /#####--\s*([\s\S]*?)\s*--#####/.exec(message);
  if (!match?.[1]) throw new Error(`no #####-- reply in:\n${message}`);
  return JSON.parse(match[1]) as Record<string, unknown>;
}

describeE2E('deepseek replica end to end', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ sites: { deepseek: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 60_000 } } });
    await writeFile(path.join(world.root, 'readme.md'), '# Demo\n\nA workspace for the end-to-end suite.\n');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('a flycode-call runs and its flycode-result is submitted; the block in the reasoning never runs', async () => {
    const page = await world.open('deepseek');
    // DeepSeek sends the person's first message before the reply: the URL becomes /a/chat/s/<uuid>.
    await page.locator('textarea#chat-input').click();
    await page.keyboard.type('What is in my readme?');
    await page.keyboard.press('Enter');
    await waitForSubmitted(page, 1);
    await page.waitForURL(/\/a\/chat\/s\//);

    const reasoningBlock =
      '```flycode-call\n' +
      JSON.stringify({ id: 'call-900', tool: 'fs.write', args: { path: path.join(world.root, 'from-reasoning.txt'), mode: 'overwrite', content: 'x' } }) +
      '\n```';
    const call = '```flycode-call\n' + JSON.stringify({ id: 'call-001', tool: 'fs.read', args: { path: path.join(world.root, 'readme.md') } }) + '\n```';
    await stream(page, `Let me read it.\n\n${call}\n`, {
      reasoning: `The user wants the readme. An example of a call would be:\n\n${reasoningBlock}\n\nBut I should read first.`,
    });

    const all = await waitForSubmitted(page, 2);
    const fields = flycodeFields(all[1] ?? '');
    expect(fields.id).toBe('call-001');
    expect(fields.tool).toBe('fs.read');
    expect(fields.ok).toBe('true');
    expect(fields.data).toContain('A workspace for the end-to-end suite.');
    await waitForChipState(page, 0, ['done']);
    expect(await readWorkspaceFile(world, 'from-reasoning.txt')).toBeNull();
    expect((await auditRecords(world)).map((r) => r.tool)).not.toContain('fs.write');
    await page.close();
  });

  it("the person's draft in the React textarea is never overwritten; the result goes in once the box is free", async () => {
    const page = await world.open('deepseek');
    await page.locator('textarea#chat-input').click();
    await page.keyboard.type('half a thought');
    const call = '```flycode-call\n' + JSON.stringify({ id: 'call-002', tool: 'fs.read', args: { path: path.join(world.root, 'readme.md') } }) + '\n```';
    await stream(page, call);
    await quietPeriod();
    expect(await composerText(page)).toBe('half a thought');
    expect(await submitted(page)).toEqual([]);

    await page.locator('textarea#chat-input').fill('');
    const [message] = await waitForSubmitted(page, 1);
    expect(flycodeFields(message ?? '').id).toBe('call-002');
    await page.close();
  });

  it('an auto_coder plan written as a paragraph never auto-runs (the page may have changed it); Run, then Approve, runs it and its executor response is submitted', async () => {
    const page = await world.open('deepseek');
    const before = (await auditRecords(world)).length;
    const plan = {
      metadata: { step_id: 'e2e_001', reason: 'create a file and run a program', summary: '' },
      type: 'operate',
      file_operations: [{ action_type: 'create_file', path: 'autocoder/hello.txt', file_content: 'made by a plan\n' }],
      program_operations: [{ name: 'greet', command: 'echo e2e-program-ran', set_timeout: 20, expected_output: 'a greeting' }],
    };
    await stream(page, `Creating the file and running a check.\n\n#####--${JSON.stringify(plan)}--#####\n`);

    // Shown as paragraph text, the plan is read back from what the page shows: never auto-run, Run offered.
    const chip = await waitForChipNote(page, 0, /^found outside a code block: the page may have changed its text/);
    expect(chip.state).toBe('ready');
    await quietPeriod(2_500);
    expect((await auditRecords(world)).length).toBe(before);
    expect(await submitted(page)).toEqual([]);

    await clickChipAction(page, 0, 'run');
    await waitForChipState(page, 0, ['approval']);
    expect(await readWorkspaceFile(world, 'autocoder/hello.txt')).toBeNull();
    await clickChipAction(page, 0, 'approve');

    const [message] = await waitForSubmitted(page, 1, 60_000);
    const reply = autocoderReply(message ?? '') as {
      file_actions: Array<{ status: string; action: string; path: string }>;
      program_execs: Record<string, { status: string; stdout: string; returncode: number }>;
    };
    expect(reply.file_actions).toEqual([expect.objectContaining({ status: 'success', action: 'create_file', path: 'autocoder/hello.txt' })]);
    expect(reply.program_execs.greet?.status).toBe('completed');
    expect(reply.program_execs.greet?.stdout).toContain('e2e-program-ran');
    expect(reply.program_execs.greet?.returncode).toBe(0);
    expect(await readFile(path.join(world.root, 'autocoder', 'hello.txt'), 'utf8')).toBe('made by a plan\n');
    await page.close();
  });

  it('an Axon plan runs after approval, all statements at once, and its axon-result is submitted', async () => {
    const page = await world.open('deepseek');
    await writeFile(path.join(world.root, 'config.json'), '{\n    "debug": false\n}\n');
    const plan = [
      '~~~~~act', 'check_files_exist', '~~~~~', '~~~~~list', 'config.json', '~~~~~', '',
      '~~~~~act', 'write_file', '~~~~~', '~~~~~path', 'docs/axon.md', '~~~~~', '~~~~~content', '# Axon', '', '```python', 'print("hi")', '```', '~~~~~', '',
      '~~~~~act', 'replace', '~~~~~', '~~~~~path', 'config.json', '~~~~~', '~~~~~json', '    "debug": false', '~~~~~', '~~~~~json', '    "debug": true', '~~~~~',
    ].join('\n');
    await stream(page, `Here is the change.\n\n${plan}\n\nDone.`);

    await waitForChipState(page, 0, ['approval']);
    expect(await readWorkspaceFile(world, 'docs/axon.md')).toBeNull();
    await clickChipAction(page, 0, 'approve');

    const [message] = await waitForSubmitted(page, 1, 60_000);
    const result = fencedBody(message ?? '', 'axon-result');
    expect(result, message).not.toBeNull();
    expect(result).toMatch(/applied/);
    expect(await readFile(path.join(world.root, 'docs', 'axon.md'), 'utf8')).toBe('# Axon\n\n```python\nprint("hi")\n```\n');
    expect(await readFile(path.join(world.root, 'config.json'), 'utf8')).toBe('{\n    "debug": true\n}\n');
    await page.close();
  });

  it('a long auto_coder program sends runtime feedback on the site interval, losing no output', async () => {
    await setSiteSettings(world, 'deepseek', { feedbackIntervalMs: 2_000 });
    try {
      const page = await world.open('deepseek');
      const plan = {
        metadata: { step_id: 'e2e_002', reason: 'a slow program', summary: '' },
        type: 'operate',
        file_operations: [],
        program_operations: [
          { name: 'ticker', command: 'for i in 1 2 3 4 5 6 7; do echo tick-$i; sleep 1; done', set_timeout: 30, expected_output: 'ticks' },
        ],
      };
      // In a code block the page shows the plan verbatim, so it auto-runs (a paragraph plan waits for Run, above).
      await stream(page, `Running the slow check.\n\n\`\`\`json\n#####--${JSON.stringify(plan)}--#####\n\`\`\`\n`);
      await waitForChipState(page, 0, ['approval']);
      await clickChipAction(page, 0, 'approve');

      // Feedback messages first, then the final executor response (the only one with program_execs).
      const messages = (await waitForSubmittedContaining(page, 'program_execs', 60_000)).map(autocoderReply);
      const feedback = messages.filter((m) => m.type === 'program_runtime_feedback') as Array<{
        request_id: string;
        programs: Record<string, { stdout: string }>;
      }>;
      const final = messages.find((m) => 'program_execs' in m) as { program_execs: Record<string, { status: string; stdout: string }> };
      expect(feedback.length).toBeGreaterThanOrEqual(1);
      expect(feedback.every((f) => f.request_id.startsWith('fb-'))).toBe(true);
      const streamed = feedback.map((f) => f.programs.ticker?.stdout ?? '').join('');
      expect(streamed).toContain('tick-1');
      // Each feedback holds only new output, in order: together they are the start of the final output.
      expect(final.program_execs.ticker?.stdout.startsWith(streamed)).toBe(true);
      expect(final.program_execs.ticker?.status).toBe('completed');
      expect(final.program_execs.ticker?.stdout).toBe([1, 2, 3, 4, 5, 6, 7].map((i) => `tick-${i}\n`).join(''));
      await page.close();
    } finally {
      await setSiteSettings(world, 'deepseek', { feedbackIntervalMs: 10_000 });
    }
  });

  // Issue 10 on DeepSeek: its send control is the stop button while a reply is generated; the person clicks it in
  // the middle of a block and the page shows the unfinished fence as a closed code block.
  it("Stop pressed inside an mcp-request's JSON: nothing runs, nothing is sent; the chip says stopped, Run shows the cut block failing", async () => {
    const page = await world.open('deepseek');
    const before = (await auditRecords(world)).length;
    const streaming = stream(page, `Reading the readme.\n\n${mcpRequest('call-801', 'fs.read', { path: path.join(world.root, 'readme.md') })}\n`, {
      holdAt: '"arguments":{',
    });
    await waitForHeld(page);
    await clickStop(page, 'deepseek');
    await streaming;
    const chip = await waitForChipNote(page, 0, /^reply stopped before this block was complete/);
    expect(chip.state).toBe('ready');
    expect(chip.attributes['data-chatbridge-actions']).toBe('run');
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect(await composerText(page)).toBe('');
    expect((await auditRecords(world)).length).toBe(before);

    await clickChipAction(page, 0, 'run');
    await waitForChipState(page, 0, ['failed']);
    await waitForChipNote(page, 0, /not put into the chat/);
    expect((await auditRecords(world)).length).toBe(before + 1);
    await quietPeriod(1_500);
    expect(await submitted(page)).toEqual([]);
    expect(await composerText(page)).toBe('');
    await page.close();
  });

  it('Stop pressed after a complete block: the stopped reply runs and sends nothing by itself; Run puts the result in the box, unsent', async () => {
    const page = await world.open('deepseek');
    const before = (await auditRecords(world)).length;
    const block = mcpRequest('call-802', 'fs.read', { path: path.join(world.root, 'readme.md') });
    const streaming = stream(page, `Reading the readme.\n\n${block}\n\nWhile that runs, here is a long explanation of what comes next.\n`, {
      holdAt: 'a long explanation',
    });
    await waitForHeld(page);
    await clickStop(page, 'deepseek');
    await streaming;
    const chip = await waitForChipNote(page, 0, /^reply stopped: /);
    expect(chip.state).toBe('ready');
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);

    await clickChipAction(page, 0, 'run');
    await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
    expect(fencedBody(await composerText(page), 'mcp-response')).toContain('"call-802"');
    await waitForChipNote(page, 0, /not sent: the reply was stopped/);
    await quietPeriod(1_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before + 1);
    expect((await chips(page)).map((c) => c.state)).toEqual(['done']);
    await page.close();
  });

  it('a reply that ends inside a block without anyone pressing Stop runs and sends nothing; the next reply runs', async () => {
    const page = await world.open('deepseek');
    const before = (await auditRecords(world)).length;
    const readme = path.join(world.root, 'readme.md');
    const streaming = stream(page, mcpRequest('call-803', 'fs.read', { path: readme }), { holdAt: '"arguments":{' });
    await waitForHeld(page);
    await page.evaluate(() => window.__replica.stop());
    await streaming;
    await waitForChipNote(page, 0, /^the reply ended before this block was complete/);
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);

    await stream(page, mcpRequest('call-804', 'fs.read', { path: readme }));
    const [message] = await waitForSubmitted(page, 1);
    expect(fencedBody(message ?? '', 'mcp-response')).toContain('"call-804"');
    await page.close();
  });
});
