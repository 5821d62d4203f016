/**
 * The person's own MCP server, end to end on the ChatGPT replica: the built extension in real Chromium, the real
 * companion started with a config that mounts the MCP project's "everything" reference server (a dev dependency)
 * over stdio. A streamed block calls one of its tools, a real mouse click approves it in the chip, and exactly the
 * companion's answer reaches the page's own submit handler.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  auditRecords,
  chips,
  clickChipAction,
  createWorld,
  describeE2E,
  fencedBody,
  resultTextOf,
  stream,
  waitForChipState,
  waitForSubmitted,
} from './harness';
import type { World } from './harness';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

function reply(page: Page, markdown: string): Promise<void> {
  return stream(page, markdown, { replaceAtEnd: false });
}

/** Waits until the companion reports the server ready with its tools. */
async function serverReady(world: World, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { servers } = await world.companion.api<{ servers: Array<{ name: string; state: string; tools: number }> }>('GET', '/v1/mcp-servers');
    const server = servers.find((s) => s.name === name);
    if (server?.state === 'ready' && server.tools > 0) return;
    if (Date.now() > deadline) throw new Error(`MCP server ${name} not ready within 30 s: ${JSON.stringify(servers)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describeE2E('the person\'s MCP server on the chatgpt replica', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({
      sites: { chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 60_000 } },
      companionConfig: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } },
    });
    await serverReady(world, 'everything');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('a streamed mcp-request calls everything.echo; a real click approves it and the exact mcp-response is submitted', async () => {
    const page = await world.open('chatgpt');
    const call = { jsonrpc: '2.0', id: 'call-echo', method: 'tools/call', params: { name: 'everything.echo', arguments: { message: 'hello from the chat' } } };
    await reply(page, `Asking your server to echo it.\n\n\`\`\`mcp-request\n${JSON.stringify(call)}\n\`\`\`\n`);

    const waiting = await waitForChipState(page, 0, ['approval']);
    expect(waiting.kind).toBe('mcp-request');
    // the side panel's card shows the arguments the person approves (sent in place of a diff)
    const panel = await world.browser.context.newPage();
    await panel.goto(`chrome-extension://${world.browser.extensionId}/sidepanel.html`);
    const card = panel.locator('[data-approval]').first();
    // once the diff renderer is loaded: drawn by diff2html (data-diff="") or as text (data-diff="text")
    await card.locator('[data-diff=""], [data-diff="text"]').waitFor({ timeout: 30_000 });
    expect(await card.textContent()).toContain('"message": "hello from the chat"');
    await panel.close();
    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1);
    const response = JSON.parse(fencedBody(message ?? '', 'mcp-response') ?? 'null') as { id: string; result?: { content: Array<{ text: string }>; meta: { auditId: string } } };
    expect(response.id).toBe('call-echo');
    expect(response.result?.content[0]?.text).toBe('Echo: hello from the chat');
    const record = (await auditRecords(world)).find((r) => r.auditId === response.result?.meta.auditId);
    expect(record).toMatchObject({ tool: 'everything.echo', site: 'chatgpt', decision: expect.stringMatching(/approve/) });
    // byte for byte what the companion produced for that run
    expect((message ?? '').trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    await waitForChipState(page, 0, ['done']);
    await page.close();
  });

  it('a <function_calls> block in an xml code block calls the same tool and gets its <function_result> back', async () => {
    const page = await world.open('chatgpt');
    const xml = ['<function_calls>', '<invoke name="everything.get-sum" call_id="1">', '<parameter name="a">19</parameter>', '<parameter name="b">23</parameter>', '</invoke>', '</function_calls>'].join('\n');
    await reply(page, `## Thoughts\n  - Function to be used: everything.get-sum\n\n\`\`\`xml\n${xml}\n\`\`\`\n`);

    expect((await waitForChipState(page, 0, ['approval'])).kind).toBe('function-calls');
    await clickChipAction(page, 0, 'approve');
    const [message] = await waitForSubmitted(page, 1);
    const auditId = /audit_id="([^"]+)"/.exec(message ?? '')?.[1] ?? '';
    expect(message?.trim()).toBe(`<function_result call_id="1" name="everything.get-sum" audit_id="${auditId}">\nThe sum of 19 and 23 is 42.\n</function_result>`);
    const record = (await auditRecords(world)).find((r) => r.auditId === auditId);
    expect(record).toMatchObject({ tool: 'everything.get-sum', kind: 'function-calls' });
    expect((message ?? '').trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    await page.close();
  });

  it('a long call shows its progress in the chip, and a real click on Stop cancels it on the server (CANCELLED in the chat)', async () => {
    const page = await world.open('chatgpt');
    const xml = ['<function_calls>', '<invoke name="everything.trigger-long-running-operation" call_id="2">', '<parameter name="duration">60</parameter>', '<parameter name="steps">60</parameter>', '</invoke>', '</function_calls>'].join('\n');
    await reply(page, `\`\`\`xml\n${xml}\n\`\`\`\n`);

    await waitForChipState(page, 0, ['approval']);
    await clickChipAction(page, 0, 'approve');
    await page.waitForFunction(() => /^\d+\/60$/.test(document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-progress') ?? ''), undefined, { timeout: 20_000 });
    await clickChipAction(page, 0, 'stop');
    const [message] = await waitForSubmitted(page, 1, 20_000);
    expect(message).toMatch(/^<function_result call_id="2" name="everything\.trigger-long-running-operation" status="error" audit_id="[^"]+">\nCANCELLED: /);
    expect((await chips(page))[0]?.state).toBe('failed');
    await page.close();
  });
});
