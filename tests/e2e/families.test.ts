/**
 * Editor families in a real browser (issue 12): one replica page per family, built on the real editor library and
 * served on the real hostname of a site of that family, so that site's module applies — Claude (TipTap/ProseMirror),
 * Gemini (Quill), Kimi (Lexical), Grok (TipTap), Perplexity (Lexical rich text), Z.ai (a textarea whose value lives in the framework's state: Vue). Opt-in sites: the world loads the build with their host permission granted and
 * enables each site as the popup's click does (the background registers its content script). Per family: the result
 * reaches the page's own submit handler exactly as the companion wrote it, the person's draft is kept, the send
 * control appears only with text, a block is not run while the reply streams but once when it ends, and a real click
 * on the site's own stop control keeps a stopped reply from running — Run then types the exact result into the
 * editor's state, unsent. Appended to a draft, a result goes after it wherever the person's caret stands.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ReplicaSite } from './replica/api';
import {
  auditRecords,
  clickChipAction,
  clickStop,
  composerText,
  createWorld,
  describeE2E,
  enableSite,
  fencedBody,
  quietPeriod,
  resultTextOf,
  setSiteSettings,
  stream,
  submitted,
  waitForChipNote,
  waitForHeld,
  waitForSubmitted,
} from './harness';
import type { World } from './harness';

interface Family {
  site: ReplicaSite;
  family: string;
  /** The composer element a person clicks into. */
  composer: string;
  /** true when the page's send control can be pressed (present and enabled). */
  sendReady(page: Page): Promise<boolean>;
}

const buttonReady = (selector: string) => (page: Page) =>
  page.evaluate((s) => {
    const button = document.querySelector<HTMLButtonElement>(s);
    return button !== null && !button.disabled;
  }, selector);

const FAMILIES: Family[] = [
  { site: 'claude', family: 'TipTap (ProseMirror)', composer: 'fieldset .ProseMirror', sendReady: buttonReady('button[aria-label="Send message"]') },
  { site: 'gemini', family: 'Quill', composer: 'rich-textarea .ql-editor', sendReady: buttonReady('button[aria-label="Send message"]') },
  {
    site: 'kimi',
    family: 'Lexical',
    composer: '.chat-input-editor',
    sendReady: (page) => page.evaluate(() => document.querySelector('.send-button-container:not(.disabled):not(.stop)') !== null),
  },
  { site: 'grok', family: 'TipTap', composer: 'form .tiptap.ProseMirror', sendReady: buttonReady('button[type="submit"][aria-label="Submit"]') },
  {
    site: 'perplexity',
    family: 'Lexical rich text',
    composer: '#ask-input',
    sendReady: buttonReady('button[data-testid="submit-button"]'),
  },
  { site: 'zai', family: 'Vue-controlled textarea', composer: 'textarea#chat-input', sendReady: buttonReady('button#send-message-button') },
];

function mcpRequest(id: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fs.read', arguments: args } }) + '\n```';
}

interface McpResponse {
  id: unknown;
  result?: { meta?: { auditId?: unknown } };
}

function parseResponse(message: string): McpResponse {
  const body = fencedBody(message, 'mcp-response');
  if (body === null) throw new Error(`no mcp-response block in the message:\n${message}`);
  return JSON.parse(body) as McpResponse;
}

function responseId(message: string): string {
  return String(parseResponse(message).id);
}

describeE2E('editor families end to end', () => {
  let world: World;
  let notes: string;

  beforeAll(async () => {
    world = await createWorld({ granted: true });
    notes = path.join(world.root, 'notes.txt');
    // Lines, a blank line, indentation and markdown-looking text: what an editor most easily changes on the way in.
    await writeFile(notes, 'first line\n\n  indented third line\n{"json": [1, 2]}\n    def __init__(self, **kw): `x` **bold** ~~y~~ _z_\n');
    for (const { site } of FAMILIES) {
      await setSiteSettings(world, site, { autoRun: true, autoSubmit: true, approvalWaitMs: 60_000 });
      await enableSite(world, site);
    }
  }, 180_000);
  afterAll(async () => {
    await world?.dispose();
  });

  for (const family of FAMILIES) {
    it(`${family.site} (${family.family}): the result reaches the page's own submit handler exactly as the companion wrote it`, async () => {
      const page = await world.open(family.site);
      await stream(page, `Reading it.\n\n${mcpRequest(`${family.site}-1`, { path: notes })}\n`);
      const [message] = await waitForSubmitted(page, 1);
      expect(responseId(message ?? '')).toBe(`${family.site}-1`);
      const conversation = await page.evaluate(() => window.__replica.conversationId());
      const records = (await auditRecords(world)).filter((r) => r.site === family.site);
      expect(records).toHaveLength(1);
      expect(records[0]?.conversationId).toBe(conversation);
      // What the editor framework held at the submit is the companion's text, line for line.
      expect((message ?? '').trim()).toBe((await resultTextOf(world, records[0]?.runId ?? '')).trim());
      expect(await composerText(page)).toBe('');
      await quietPeriod(2_000);
      expect(await submitted(page)).toHaveLength(1);
      await page.close();
    });

    it(`${family.site} (${family.family}): the draft is kept; the send control appears only with text; the result goes in once the box is free`, async () => {
      const page = await world.open(family.site);
      expect(await family.sendReady(page)).toBe(false);
      await page.locator(family.composer).click();
      await page.keyboard.insertText('my own half-written question');
      await expect.poll(() => family.sendReady(page)).toBe(true);
      expect(await composerText(page)).toBe('my own half-written question');

      await stream(page, mcpRequest(`${family.site}-2`, { path: notes }));
      await quietPeriod();
      expect(await composerText(page)).toBe('my own half-written question');
      expect(await submitted(page)).toEqual([]);

      await page.locator(family.composer).click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await expect.poll(() => family.sendReady(page)).toBe(false);
      const [message] = await waitForSubmitted(page, 1);
      expect(responseId(message ?? '')).toBe(`${family.site}-2`);
      await page.close();
    });

    it(`${family.site} (${family.family}): the site's own Stop keeps a stopped reply from running; Run types the exact result in, unsent`, async () => {
      const page = await world.open(family.site);
      const before = (await auditRecords(world)).length;
      const streaming = stream(page, `${mcpRequest(`${family.site}-4`, { path: notes })}\n\nWhile that runs, a long explanation follows.\n`, {
        holdAt: 'a long explanation',
      });
      await waitForHeld(page);
      await clickStop(page, family.site);
      await streaming;
      await waitForChipNote(page, 0, /^reply stopped: /);
      await quietPeriod(2_000);
      expect(await submitted(page)).toEqual([]);
      expect((await auditRecords(world)).length).toBe(before);

      await clickChipAction(page, 0, 'run');
      await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
      const inserted = await composerText(page);
      expect(responseId(inserted)).toBe(`${family.site}-4`);
      const records = await auditRecords(world);
      expect(records).toHaveLength(before + 1);
      const record = records.find((r) => r.auditId === parseResponse(inserted).result?.meta?.auditId);
      expect(record?.site).toBe(family.site);
      // The editor framework's own state holds exactly the companion's text.
      expect(inserted.trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
      expect(await family.sendReady(page)).toBe(true);
      await quietPeriod(1_500);
      expect(await submitted(page)).toEqual([]);
      await page.close();
    });

    it(`${family.site} (${family.family}): a block is not run while the reply streams, and runs once when it ends`, async () => {
      const page = await world.open(family.site);
      const before = (await auditRecords(world)).length;
      // The block is complete early; the reply goes on for a few seconds of prose.
      const tail = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
      const streamed = stream(page, `${mcpRequest(`${family.site}-3`, { path: notes })}\n\nAnd now some more words: ${tail}.`, { tokenMs: 90 });
      await page.waitForFunction(() => (document.body.textContent ?? '').includes('more words'));
      expect(await page.evaluate(() => window.__replica.isStreaming())).toBe(true);
      await quietPeriod(1_500);
      expect(await page.evaluate(() => window.__replica.isStreaming()), 'the reply was still streaming during the check').toBe(true);
      expect((await auditRecords(world)).length).toBe(before);
      expect(await submitted(page)).toEqual([]);
      await streamed;
      const [message] = await waitForSubmitted(page, 1);
      expect(responseId(message ?? '')).toBe(`${family.site}-3`);
      expect((await auditRecords(world)).length).toBe(before + 1);
      await page.close();
    });
  }

  it('claude (TipTap): a result longer than Claude takes from a paste (it would become a "PASTED" card) goes in exactly', async () => {
    const page = await world.open('claude');
    const big = path.join(world.root, 'big-claude.txt');
    await writeFile(big, `${Array.from({ length: 300 }, (_, i) => `row ${i}: ${'y'.repeat(i % 30)}`).join('\n')}\n\n  indented after a blank line\n`);
    await stream(page, `Reading it.\n\n${mcpRequest('claude-long', { path: big })}\n`);
    const [message] = await waitForSubmitted(page, 1);
    expect((message ?? '').length).toBeGreaterThan(4_000);
    const record = (await auditRecords(world)).find((r) => r.site === 'claude' && (message ?? '').includes(r.auditId));
    expect((message ?? '').trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    await page.close();
  });

  it('claude (TipTap), kimi (Lexical): a result appended to the draft goes after it, though the caret stands at its start', async () => {
    for (const family of FAMILIES.filter((f) => f.site === 'claude' || f.site === 'kimi')) {
      await setSiteSettings(world, family.site, { draftPolicy: 'append' });
      const page = await world.open(family.site);
      await page.locator(family.composer).click();
      await page.keyboard.insertText('my own question');
      await page.keyboard.press('Home');
      await stream(page, mcpRequest(`${family.site}-append`, { path: notes }));
      await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
      const inserted = await composerText(page);
      const record = (await auditRecords(world)).find((r) => inserted.includes(r.auditId));
      expect(inserted, family.site).toBe(`my own question\n\n${(await resultTextOf(world, record?.runId ?? '')).trim()}`);
      expect(await submitted(page)).toEqual([]);
      await setSiteSettings(world, family.site, { draftPolicy: 'wait' });
      await page.close();
    }
  });
});
