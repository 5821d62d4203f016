/**
 * The replica pages themselves, without the extension: they must behave like the real sites where an extension
 * can get it wrong (SITES.md) — otherwise the end-to-end scenarios prove nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SITE_HOSTS, clickStop, describeE2E, launchBrowser, stream, waitForHeld } from './harness';
import type { Browser } from './harness';
import type { ReplicaSite } from './replica/api';
import { startReplicaServer } from './replica/server';
import type { ReplicaServer } from './replica/server';

describeE2E('replica pages behave like the real sites', () => {
  let scratch = '';
  let server: ReplicaServer;
  let browser: Browser;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'chatbridge-replica-'));
    server = await startReplicaServer(scratch);
    browser = await launchBrowser({ replicaPort: server.port, userDataDir: path.join(scratch, 'profile'), extension: false });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  async function open(site: ReplicaSite, pathname = '/'): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`https://${SITE_HOSTS[site]}${pathname}`);
    await page.waitForFunction(() => window.__replica !== undefined);
    return page;
  }

  it('chatgpt: send exists only while the ProseMirror state has text; DOM writes + same-task click send nothing', async () => {
    const page = await open('chatgpt');
    expect(await page.locator('[data-testid="send-button"]').count()).toBe(0);
    expect(await page.locator('button[aria-label="Start Voice"]').count()).toBe(1);
    // Text written straight into the DOM and "sent" in the same task: the state is still empty, so nothing is sent.
    const sentInSameTask = await page.evaluate(() => {
      const editor = document.querySelector('#prompt-textarea.ProseMirror[contenteditable="true"][role="textbox"]');
      if (!editor) return 'no editor';
      editor.textContent = 'written into the DOM';
      const send = document.querySelector<HTMLButtonElement>('[data-testid="send-button"]');
      send?.click();
      return window.__replica.submitted.length;
    });
    expect(sentInSameTask).toBe(0);
    // ProseMirror's DOM observer does turn the DOM edit into state, a moment later.
    await expect.poll(() => page.evaluate(() => window.__replica.composerText())).toBe('written into the DOM');
    await page.locator('#prompt-textarea').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await expect.poll(() => page.locator('[data-testid="send-button"]').count()).toBe(0);
    await page.keyboard.insertText('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.insertText('line three');
    await expect.poll(() => page.locator('button#composer-submit-button[data-testid="send-button"]').count()).toBe(1);
    expect(await page.evaluate(() => window.__replica.composerText())).toBe('line one\n\nline three');
    await page.locator('[data-testid="send-button"]').click();
    expect(await page.evaluate(() => window.__replica.submitted)).toEqual(['line one\n\nline three']);
    expect(await page.locator('section[data-turn="user"] [data-message-author-role="user"]').count()).toBe(1);
    await page.close();
  });

  it('chatgpt: a streamed reply renders CodeMirror code blocks with a header label and no language class', async () => {
    const page = await open('chatgpt');
    const done = stream(page, 'Reading it.\n\n```mcp-request\n{"jsonrpc":"2.0","id":"1","method":"ping"}\n```\n', { tokenMs: 20 });
    await page.waitForSelector('[data-testid="stop-button"]');
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    await done;
    expect(await page.locator('[data-testid="stop-button"]').count()).toBe(0);
    const block = await page.evaluate(() => {
      const pre = document.querySelector('[data-message-author-role="assistant"] .markdown.prose pre');
      return {
        label: pre?.querySelector('.cm-editor')?.parentElement?.closest('pre')?.querySelector('div.flex.items-center.gap-1')?.textContent,
        code: pre?.querySelector('#code-block-viewer.cm-editor > .cm-scroller > pre.cm-content > code > span')?.textContent,
        languageClasses: document.querySelectorAll('[class*="language-"]').length,
        messageId: document.querySelector('[data-message-author-role="assistant"]')?.getAttribute('data-message-id'),
      };
    });
    expect(block.label).toBe('mcp-request');
    expect(block.code).toBe('{"jsonrpc":"2.0","id":"1","method":"ping"}');
    expect(block.languageClasses).toBe(0);
    expect(block.messageId).toMatch(/^[0-9a-f-]{36}$/);
    // Reload: the same conversation, same message ids, as history.
    await page.reload();
    await page.waitForFunction(() => window.__replica !== undefined);
    const after = await page.evaluate(() => document.querySelector('[data-message-author-role="assistant"]')?.getAttribute('data-message-id'));
    expect(after).toBe(block.messageId);
    await page.close();
  });

  it('deepseek: .value + input leaves React state empty; the native setter reaches it', async () => {
    const page = await open('deepseek');
    const control = 'div[role="button"].ds-button.ds-button--circle';
    expect(await page.locator(`${control}.ds-button--disabled`).count()).toBe(1);
    await page.evaluate(() => {
      const input = document.querySelector<HTMLTextAreaElement>('textarea#chat-input');
      if (!input) throw new Error('no textarea#chat-input');
      input.value = 'plain assignment';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(await page.evaluate(() => window.__replica.composerText())).toBe('');
    expect(await page.locator(`${control}.ds-button--disabled`).count()).toBe(1);
    await page.evaluate(() => {
      const input = document.querySelector<HTMLTextAreaElement>('textarea#chat-input');
      const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
      setter?.call(input, 'through the native setter');
      input?.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(await page.evaluate(() => window.__replica.composerText())).toBe('through the native setter');
    await expect.poll(() => page.locator(`${control}.ds-button--disabled`).count()).toBe(0);
    await page.locator(control).click();
    expect(await page.evaluate(() => window.__replica.submitted)).toEqual(['through the native setter']);
    await page.waitForURL(/\/a\/chat\/s\/[0-9a-f-]{36}$/);
    expect(await page.locator('.ds-message > .fbb737a4').count()).toBe(1);
    await page.close();
  });

  it('deepseek: reasoning streams into .ds-think-content; the control is the stop button while generating', async () => {
    const page = await open('deepseek');
    const done = stream(page, 'Answer:\n\n```flycode-call\n{"id":"c1"}\n```\n', {
      reasoning: 'Maybe:\n\n```flycode-call\n{"id":"example"}\n```\n',
      tokenMs: 20,
    });
    await page.waitForSelector('div[role="button"].ds-button--circle svg rect');
    await done;
    const shape = await page.evaluate(() => ({
      think: document.querySelector('.ds-think-content .ds-markdown .md-code-block pre')?.textContent,
      answer: document.querySelector('.ds-markdown.ds-assistant-message-main-content .md-code-block pre')?.textContent,
      label: document.querySelector('.ds-assistant-message-main-content .md-code-block-banner-wrap span.d813de27')?.textContent,
      codeElements: document.querySelectorAll('.md-code-block code').length,
      stopIcon: document.querySelectorAll('div[role="button"].ds-button--circle svg rect').length,
    }));
    expect(shape).toEqual({
      think: '{"id":"example"}',
      answer: '{"id":"c1"}',
      label: 'flycode-call',
      codeElements: 0,
      stopIcon: 0,
    });
    await page.close();
  });

  // Issue 10: a stopped reply ends where it was, and the page shows an unfinished fence as a finished code block.
  for (const site of ['chatgpt', 'deepseek'] as const) {
    it(`${site}: the page's own Stop ends the reply mid-block; the cut fence is shown as a closed code block`, async () => {
      const page = await open(site);
      const done = stream(page, 'Reading.\n\n```mcp-request\n{"jsonrpc":"2.0","id":"1","params":{"arguments":{"path":"/a"}}}\n```\n\nMore.', {
        holdAt: '"arguments":{',
        replaceAtEnd: true,
      });
      await waitForHeld(page);
      expect(await page.evaluate(() => window.__replica.isStreaming())).toBe(true);
      await clickStop(page, site);
      await done;
      const shown = await page.evaluate(() => ({
        streaming: window.__replica.isStreaming(),
        code: document.querySelector('.cm-content, .md-code-block pre')?.textContent ?? null,
        paragraphs: [...document.querySelectorAll('.markdown p, .ds-markdown p')].map((p) => p.textContent),
      }));
      expect(shown.streaming).toBe(false);
      expect(shown.code).toMatch(/^\{"jsonrpc":"2\.0","id":"1","params":\{"arguments":\{/);
      expect(shown.code).not.toContain('/a');
      expect(shown.paragraphs).toEqual(['Reading.']);
      await page.close();
    });
  }
});
