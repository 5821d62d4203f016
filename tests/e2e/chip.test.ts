/**
 * The chip in real Chromium on the ChatGPT and DeepSeek replicas: it follows the page's light and dark theme as the
 * site switches it, a person's keys on the focused chip approve a write and fold the result open, and the README's
 * pictures of the chip are taken here (chip-*.png, into docs/screenshots under `npm run screenshots`).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorld, describeE2E, readWorkspaceFile, screenshotPath, stream, waitForChipState, waitForSubmitted } from './harness';
import type { World } from './harness';


function chipHost(page: Page, index = 0) {
  return page.locator('[data-chatbridge-chip]').nth(index);
}

/** Switches the replica's theme the way the site does, and waits for the chip to follow. */
async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((theme) => window.__replica.setTheme?.(theme), theme);
  await expect.poll(() => chipHost(page).getAttribute('data-chatbridge-theme'), { timeout: 10_000 }).toBe(theme);
}

/** Waits for the first chip to reach `state` and to be drawn in it. */
async function waitForDrawn(page: Page, state: string): Promise<void> {
  await waitForChipState(page, 0, [state]);
  // queued/running/done are drawn after a quiet moment; the button boxes are published after the next layout
  await page.waitForTimeout(400);
}

describeE2E('the chip on the replicas: themes, keys, pictures', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({
      sites: {
        chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 120_000 },
        deepseek: { enabled: true, autoRun: true, autoSubmit: true },
      },
    });
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('ChatGPT: the approval card in light and dark; A on the focused chip approves, P opens the result', async () => {
    await writeFile(path.join(world.root, 'notes.txt'), 'first line\nsecond line\n');
    const chat = await world.open('chatgpt');
    await chat.evaluate(() => window.__replica.setTheme?.('light'));
    const request = {
      jsonrpc: '2.0',
      id: 'call-501',
      method: 'tools/call',
      params: { name: 'fs.write', arguments: { path: path.join(world.root, 'notes.txt'), mode: 'overwrite', content: 'first line\nsecond line, edited\n' } },
    };
    await stream(chat, 'I will update the second line of your notes.\n\n```mcp-request\n' + JSON.stringify(request) + '\n```\n', { replaceAtEnd: false });
    await waitForDrawn(chat, 'approval');
    expect(await chipHost(chat).getAttribute('data-chatbridge-theme')).toBe('light');
    expect(await chipHost(chat).getAttribute('aria-keyshortcuts')).toBe('S A C D');
    expect(await chipHost(chat).getAttribute('title')).toMatch(/A Approve/);
    const turn = chat.locator('section[data-turn="assistant"]').last();
    await turn.screenshot({ path: screenshotPath('chip-chatgpt-light.png') });

    await setTheme(chat, 'dark');
    await turn.screenshot({ path: screenshotPath('chip-chatgpt-dark.png') });

    // A person's keys (trusted input through the browser) on the focused chip.
    await chipHost(chat).focus();
    await chat.keyboard.press('a');
    await waitForSubmitted(chat, 1);
    expect(await readWorkspaceFile(world, 'notes.txt')).toBe('first line\nsecond line, edited\n');
    await waitForDrawn(chat, 'done');
    expect(await chipHost(chat).getAttribute('data-chatbridge-preview')).toBe('folded');
    await chipHost(chat).focus();
    await chat.keyboard.press('p');
    await expect.poll(() => chipHost(chat).getAttribute('data-chatbridge-preview')).toBe('open');
    // the key stayed with the chip: the chat box did not get a "p"
    expect(await chat.evaluate(() => window.__replica.composerText())).toBe('');
    await chat.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await turn.screenshot({ path: screenshotPath('chip-chatgpt-dark-result.png') });
    await chat.close();
  });

  it('DeepSeek: a finished block with its result, light and dark', async () => {
    await writeFile(path.join(world.root, 'readme.md'), '# demo\n\nA small project.\n');
    const chat = await world.open('deepseek');
    // A person on a dark system with DeepSeek set to light: the site marks only its dark theme, so the chip reads the
    // light page from the background it paints, not from the system.
    await chat.emulateMedia({ colorScheme: 'dark' });
    const call = '```flycode-call\n' + JSON.stringify({ id: 'call-502', tool: 'fs.read', args: { path: path.join(world.root, 'readme.md') } }) + '\n```';
    await stream(chat, `先读一下说明文件。\n\n${call}\n`);
    await waitForSubmitted(chat, 1);
    await waitForDrawn(chat, 'done');
    await chipHost(chat).focus();
    await chat.keyboard.press('p');
    await expect.poll(() => chipHost(chat).getAttribute('data-chatbridge-preview')).toBe('open');
    await chat.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // the reply with the chip (the result the page sent is the next, the person's, message)
    const message = chat.locator('.ds-message', { has: chat.locator('[data-chatbridge-chip]') }).last();
    expect(await chipHost(chat).getAttribute('data-chatbridge-theme')).toBe('light');
    await message.screenshot({ path: screenshotPath('chip-deepseek.png') });
    await setTheme(chat, 'dark');
    await message.screenshot({ path: screenshotPath('chip-deepseek-dark.png') });
    await setTheme(chat, 'light');
    await chat.close();
  });
});
