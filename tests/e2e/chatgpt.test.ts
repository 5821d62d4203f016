/**
 * ChatGPT replica (real ProseMirror composer) + built extension + real companion. Each scenario asserts what reached
 * the page's own submit handler and what is on disk / in the companion's audit log.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  REPO,
  auditRecords,
  chips,
  clickChipAction,
  clickStop,
  composerText,
  describeE2E,
  createWorld,
  fencedBody,
  openConversation,
  quietPeriod,
  readWorkspaceFile,
  resultTextOf,
  setSiteSettings,
  stream,
  submitted,
  waitForChipNote,
  waitForChipState,
  waitForHeld,
  waitForSubmitted,
  screenshotPath,
} from './harness';
import type { World } from './harness';
import type { Page } from 'playwright-core';

function mcpRequest(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

interface McpResponse {
  jsonrpc: string;
  id: string;
  result?: { content: Array<{ type: string; text: string }>; meta?: Record<string, unknown> };
  error?: { code: number; message: string };
}

function parseMcpResponse(message: string): McpResponse {
  const body = fencedBody(message, 'mcp-response');
  if (body === null) throw new Error(`no mcp-response block in the submitted message:\n${message}`);
  return JSON.parse(body) as McpResponse;
}

/**
 * Streams a reply that keeps its `.markdown` node at the end. ChatGPT sometimes swaps that node for a new one when the
 * reply is final; that variant has its own scenario below, so one cause fails one test.
 */
function reply(page: Page, markdown: string): Promise<void> {
  return stream(page, markdown, { replaceAtEnd: false });
}

describeE2E('chatgpt replica end to end', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ sites: { chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 60_000 } } });
    await writeFile(path.join(world.root, 'notes.txt'), 'hello from the workspace\nsecond line\n');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('a streamed mcp-request fs.read auto-runs once and its exact mcp-response is submitted', async () => {
    const page = await world.open('chatgpt');
    const notes = path.join(world.root, 'notes.txt');
    await reply(page, `I will read the file first.\n\n${mcpRequest('call-001', 'fs.read', { path: notes })}\n`);

    const [message] = await waitForSubmitted(page, 1);
    const response = parseMcpResponse(message ?? '');
    expect(response.id).toBe('call-001');
    expect(response.result?.content[0]?.text).toBe('hello from the workspace\nsecond line\n');
    const auditId = String(response.result?.meta?.auditId ?? '');
    const record = (await auditRecords(world)).find((r) => r.auditId === auditId);
    expect(record, `audit record ${auditId}`).toBeDefined();
    expect(record?.site).toBe('chatgpt');
    expect(record?.conversationId).toBe(await page.evaluate(() => window.__replica.conversationId()));
    // Byte for byte what the companion produced for that run.
    expect((message ?? '').trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    expect((await waitForChipState(page, 0, ['done'])).kind).toBe('mcp-request');
    // The README's picture of a block chip: the reply with its code block and the chip under it (a run's passing
    // states are drawn after a quiet moment: ui/README.md).
    await page.waitForTimeout(400);
    await page.locator('section[data-turn="assistant"]').last().screenshot({ path: screenshotPath('chip.png') });

    // Ran once: nothing more is submitted and the companion saw exactly one call for it.
    await quietPeriod(2_500);
    expect(await submitted(page)).toHaveLength(1);
    expect((await auditRecords(world)).filter((r) => r.conversationId === record?.conversationId)).toHaveLength(1);

    // Reloading the page, or opening the conversation in a second tab, runs nothing again.
    const before = (await auditRecords(world)).length;
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);
    const second = await world.open('chatgpt', new URL(page.url()).pathname);
    await quietPeriod();
    expect(await submitted(page)).toEqual([]);
    expect(await submitted(second)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);
    await second.close();
    await page.close();
  });

  it('a result longer than ChatGPT takes from a paste is typed in exactly, once, never as a "Pasted text" attachment', async () => {
    const page = await world.open('chatgpt');
    const big = path.join(world.root, 'big.txt');
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: ${'x'.repeat(i % 40)}`);
    await writeFile(big, `${lines.join('\n')}\n\nafter a blank line\n`);
    await reply(page, `Reading the big file.\n\n${mcpRequest('call-050', 'fs.read', { path: big })}\n`);
    const [message] = await waitForSubmitted(page, 1);
    expect((message ?? '').length).toBeGreaterThan(10_000);
    const response = parseMcpResponse(message ?? '');
    expect(response.result?.content[0]?.text).toBe(`${lines.join('\n')}\n\nafter a blank line\n`);
    const record = (await auditRecords(world)).find((r) => r.auditId === String(response.result?.meta?.auditId ?? ''));
    expect((message ?? '').trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    expect(await page.evaluate(() => window.__replica.pastedAttachments)).toEqual([]);
    await quietPeriod(1_500);
    expect(await submitted(page)).toHaveLength(1);
    await page.close();
  });

  it('a write waits for approval; a trusted click on Approve writes the file and submits the result', async () => {
    const page = await world.open('chatgpt');
    const target = path.join(world.root, 'approved.txt');
    await reply(page, `Writing it now.\n\n${mcpRequest('call-002', 'fs.write', { path: target, mode: 'overwrite', content: 'written after approval\n' })}\n`);

    await waitForChipState(page, 0, ['approval']);
    expect(await readWorkspaceFile(world, 'approved.txt')).toBeNull();
    expect(await submitted(page)).toEqual([]);
    // Page scripts cannot reach the chip's buttons (closed shadow root), and a synthetic click at the Approve
    // button's position lands on the host and approves nothing.
    expect(await page.evaluate(() => [...document.querySelectorAll('[data-chatbridge-chip]')].every((host) => host.shadowRoot === null))).toBe(true);
    await page.evaluate(() => {
      const host = document.querySelector<HTMLElement>('[data-chatbridge-chip]');
      const boxes = JSON.parse(host?.getAttribute('data-chatbridge-buttons') ?? '[]') as Array<{ action: string; x: number; y: number }>;
      const approve = boxes.find((box) => box.action === 'approve');
      const rect = host?.getBoundingClientRect();
      if (!approve || !rect) return;
      const x = rect.left + approve.x + 4;
      const y = rect.top + approve.y + 4;
      document.elementFromPoint(x, y)?.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, clientX: x, clientY: y }));
    });
    await quietPeriod(1_000);
    expect(await readWorkspaceFile(world, 'approved.txt')).toBeNull();

    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1);
    expect(await readFile(target, 'utf8')).toBe('written after approval\n');
    const response = parseMcpResponse(message ?? '');
    expect(response.id).toBe('call-002');
    expect(response.result?.content[0]?.text).toBe('WRITE_SUCCESS');
    await waitForChipState(page, 0, ['done']);
    await page.close();
  });

  it('a conversation opened with old blocks shows Run and runs nothing until Run is clicked', async () => {
    const conversation = crypto.randomUUID();
    const notes = path.join(world.root, 'notes.txt');
    const before = (await auditRecords(world)).length;
    const page = await openConversation(world, 'chatgpt', conversation, [
      { role: 'user', text: 'Read my notes please.' },
      { role: 'assistant', text: `Sure.\n\n${mcpRequest('call-101', 'fs.read', { path: notes })}\n` },
      { role: 'user', text: 'And write a file.' },
      { role: 'assistant', text: `${mcpRequest('call-102', 'fs.write', { path: path.join(world.root, 'history.txt'), mode: 'overwrite', content: 'no' })}\n` },
    ]);
    await waitForChipState(page, 0, ['ready']);
    await waitForChipState(page, 1, ['ready']);
    expect((await chips(page)).map((chip) => chip.attributes['data-chatbridge-origin'])).toEqual(['history', 'history']);
    await quietPeriod();
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);
    expect(await readWorkspaceFile(world, 'history.txt')).toBeNull();

    await clickChipAction(page, 0, 'run');
    const [message] = await waitForSubmitted(page, 1);
    const response = parseMcpResponse(message ?? '');
    expect(response.id).toBe('call-101');
    expect(response.result?.content[0]?.text).toBe('hello from the workspace\nsecond line\n');
    expect(await readWorkspaceFile(world, 'history.txt')).toBeNull();
    await page.close();
  });

  it('switching to another conversation in the same tab shows its blocks as history, and Run still works', async () => {
    const notes = path.join(world.root, 'notes.txt');
    const page = await world.open('chatgpt');
    await reply(page, mcpRequest('call-601', 'fs.read', { path: notes }));
    await waitForSubmitted(page, 1);

    const other = crypto.randomUUID();
    await page.evaluate(
      ({ id, turns }) => window.__replica.saveConversation(id, turns),
      {
        id: other,
        turns: [
          { role: 'user' as const, text: 'Read the notes.' },
          { role: 'assistant' as const, text: mcpRequest('call-602', 'fs.read', { path: notes }) },
        ],
      },
    );
    const before = (await auditRecords(world)).length;
    await page.evaluate((id) => window.__replica.switchConversation(id), other);
    await waitForChipState(page, 0, ['ready']);
    expect((await chips(page))[0]?.attributes['data-chatbridge-origin']).toBe('history');
    await quietPeriod();
    expect(await submitted(page)).toHaveLength(1);
    expect((await auditRecords(world)).length).toBe(before);

    await clickChipAction(page, 0, 'run');
    const all = await waitForSubmitted(page, 2);
    expect(parseMcpResponse(all[1] ?? '').id).toBe('call-602');
    await page.close();
  });

  it('a user message that pastes a seed prompt full of example blocks runs nothing', async () => {
    // Seed 000 word for word (the FlyCode V2 prompt people paste), full of example mcp-request blocks.
    const seed = await readFile(path.join(REPO, 'tests', 'e2e', 'fixtures', 'seed-000-mcp-request.txt'), 'utf8');
    const page = await world.open('chatgpt');
    const before = (await auditRecords(world)).length;
    await page.locator('#prompt-textarea').click();
    await page.keyboard.insertText(seed);
    await page.keyboard.press('Enter');
    const [sent] = await waitForSubmitted(page, 1);
    expect(sent).toContain('mcp-request');
    await reply(page, 'Understood. I will use mcp-request blocks when I need your files.');
    await quietPeriod();
    expect(await submitted(page)).toHaveLength(1);
    expect((await auditRecords(world)).length).toBe(before);

    // Positive control: a real block in the next reply of the same conversation does run.
    await reply(page, mcpRequest('call-201', 'fs.read', { path: path.join(world.root, 'notes.txt') }));
    const all = await waitForSubmitted(page, 2);
    expect(parseMcpResponse(all[1] ?? '').id).toBe('call-201');
    expect((await auditRecords(world)).length).toBe(before + 1);
    await page.close();
  });

  it("the person's draft is never overwritten, and the result waits until the box is free", async () => {
    const page = await world.open('chatgpt');
    await page.locator('#prompt-textarea').click();
    await page.keyboard.insertText('my own half-written question');
    await reply(page, mcpRequest('call-301', 'fs.read', { path: path.join(world.root, 'notes.txt') }));
    await quietPeriod();
    expect(await composerText(page)).toBe('my own half-written question');
    expect(await submitted(page)).toEqual([]);

    // The person clears their draft; the waiting result goes in and is sent.
    await page.locator('#prompt-textarea').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    const [message] = await waitForSubmitted(page, 1);
    expect(parseMcpResponse(message ?? '').id).toBe('call-301');
    await page.close();
  });

  it('with auto-submit off the result is inserted into the composer and not sent', async () => {
    await setSiteSettings(world, 'chatgpt', { autoSubmit: false });
    try {
      const page = await world.open('chatgpt');
      await reply(page, mcpRequest('call-401', 'fs.read', { path: path.join(world.root, 'notes.txt') }));
      await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
      const inserted = await composerText(page);
      expect(parseMcpResponse(inserted).id).toBe('call-401');
      expect(parseMcpResponse(inserted).result?.content[0]?.text).toBe('hello from the workspace\nsecond line\n');
      await quietPeriod(2_500);
      expect(await submitted(page)).toEqual([]);
      expect(await page.locator('button[data-testid="send-button"]').count()).toBe(1);
      expect((await chips(page)).map((chip) => chip.kind)).toEqual(['mcp-request']);

      // ChatGPT keeps its one composer across conversations: the unsent result is not carried into the one the person
      // opens, and is typed in again, once, when they come back to its own.
      const own = (await page.evaluate(() => window.__replica.conversationId())) ?? '';
      expect(own).not.toBe('');
      const other = crypto.randomUUID();
      await page.evaluate(({ id }) => window.__replica.saveConversation(id, [{ role: 'user' as const, text: 'Something else.' }]), { id: other });
      await page.evaluate((id) => window.__replica.switchConversation(id), other);
      await expect.poll(() => composerText(page), { timeout: 10_000 }).toBe('');
      await page.evaluate((id) => window.__replica.switchConversation(id), own);
      await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
      await quietPeriod(2_500);
      expect(parseMcpResponse(await composerText(page)).id).toBe('call-401');
      expect((await composerText(page)).split('mcp-response')).toHaveLength(2);
      expect(await submitted(page)).toEqual([]);
      await page.close();
    } finally {
      await setSiteSettings(world, 'chatgpt', { autoSubmit: true });
    }
  });

  it("chips survive ChatGPT replacing the reply's .markdown node at the end, and Approve still works", async () => {
    const page = await world.open('chatgpt');
    const target = path.join(world.root, 'after-replace.txt');
    await stream(page, `Writing.\n\n${mcpRequest('call-501', 'fs.write', { path: target, mode: 'overwrite', content: 'kept\n' })}\n`, { replaceAtEnd: true });
    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1);
    expect(parseMcpResponse(message ?? '').result?.content[0]?.text).toBe('WRITE_SUCCESS');
    expect(await readFile(target, 'utf8')).toBe('kept\n');
    await waitForChipState(page, 0, ['done']);
    await page.close();
  });

  // Issue 10: the person pressed Stop. ChatGPT shows the unfinished fence as a closed code block, so the page reads
  // back a "complete" block whose JSON is cut; a stopped reply must never run or send anything by itself.
  it("Stop pressed inside an mcp-request's JSON: nothing runs, nothing is sent; the chip says stopped, Run shows the cut block failing", async () => {
    const page = await world.open('chatgpt');
    const before = (await auditRecords(world)).length;
    const streaming = stream(page, `Reading the notes.\n\n${mcpRequest('call-701', 'fs.read', { path: path.join(world.root, 'notes.txt') })}\n`, {
      holdAt: '"arguments":{',
      replaceAtEnd: true,
    });
    await waitForHeld(page);
    await clickStop(page, 'chatgpt');
    await streaming;
    const chip = await waitForChipNote(page, 0, /^reply stopped before this block was complete/);
    expect(chip.state).toBe('ready');
    expect(chip.attributes['data-chatbridge-actions']).toBe('run');
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect(await composerText(page)).toBe('');
    expect((await auditRecords(world)).length).toBe(before);

    // Run by hand: the companion answers the cut block with a parse error; the chip shows it, the chat gets nothing.
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
    const page = await world.open('chatgpt');
    const before = (await auditRecords(world)).length;
    const block = mcpRequest('call-702', 'fs.read', { path: path.join(world.root, 'notes.txt') });
    const streaming = stream(page, `Reading the notes.\n\n${block}\n\nWhile that runs, here is a long explanation of what comes next.\n`, {
      holdAt: 'a long explanation',
    });
    await waitForHeld(page);
    await clickStop(page, 'chatgpt');
    await streaming;
    const chip = await waitForChipNote(page, 0, /^reply stopped: /);
    expect(chip.state).toBe('ready');
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);

    await clickChipAction(page, 0, 'run');
    await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
    expect(parseMcpResponse(await composerText(page)).id).toBe('call-702');
    await waitForChipNote(page, 0, /not sent: the reply was stopped/);
    await quietPeriod(1_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before + 1);
    await page.close();
  });

  it('a reply that ends inside a block without anyone pressing Stop runs and sends nothing; the next reply runs', async () => {
    const page = await world.open('chatgpt');
    const before = (await auditRecords(world)).length;
    const notes = path.join(world.root, 'notes.txt');
    const streaming = stream(page, mcpRequest('call-703', 'fs.read', { path: notes }), { holdAt: '"arguments":{', replaceAtEnd: true });
    await waitForHeld(page);
    // The site (or the network) ends the reply: no click, no key — only the page's display closes the fence.
    await page.evaluate(() => window.__replica.stop());
    await streaming;
    await waitForChipNote(page, 0, /^the reply ended before this block was complete/);
    await quietPeriod(2_500);
    expect(await submitted(page)).toEqual([]);
    expect((await auditRecords(world)).length).toBe(before);

    // Positive control: the next reply's complete block runs and is sent as usual.
    await reply(page, mcpRequest('call-704', 'fs.read', { path: notes }));
    const [message] = await waitForSubmitted(page, 1);
    expect(parseMcpResponse(message ?? '').id).toBe('call-704');
    await page.close();
  });
});
