/**
 * The chip in real Chromium on the ChatGPT and DeepSeek replicas: it follows the page's light and dark theme as the
 * site switches it, a person's keys on the focused chip approve a write and fold the result open, and the README's
 * pictures of the chip are taken here (chip-*.png, into docs/screenshots under `npm run screenshots`).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clickChipAction, createWorld, describeE2E, readWorkspaceFile, screenshotPath, stream, waitForChipState, waitForSubmitted } from './harness';
import type { World } from './harness';


function chipHost(page: Page, index = 0) {
  return page.locator('[data-chatbridge-chip]').nth(index);
}

/**
 * The person clicks the chip outside its buttons, which gives it the focus (a page script's `focus()` would not make
 * its keys work: the page could move the focus there while the person types).
 */
async function focusChip(page: Page, index = 0): Promise<void> {
  await chipHost(page, index).click({ position: { x: 6, y: 6 } });
  await expect.poll(() => page.evaluate(() => document.activeElement?.hasAttribute('data-chatbridge-chip') ?? false)).toBe(true);
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

/**
 * The connection indicator as the browser draws it: its background (the colour most of its box has) against its
 * brightest pixel (the middle of its letters' strokes), as a WCAG contrast ratio. The indicator's root is closed;
 * the picture of its box is what a person sees.
 */
async function indicatorContrast(page: Page): Promise<number> {
  const box = await page.locator('[data-chatbridge-indicator]').evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const png = (await page.screenshot({ clip: box })).toString('base64');
  return page.evaluate(async (png) => {
    const image = new Image();
    image.src = `data:image/png;base64,${png}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const luminance = (at: number): number =>
      [0, 1, 2]
        .map((i) => pixels[at + i]! / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
    const counts = new Map<number, number>();
    let brightest = 0;
    for (let at = 0; at < pixels.length; at += 4) {
      const key = (pixels[at]! << 16) | (pixels[at + 1]! << 8) | pixels[at + 2]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      brightest = Math.max(brightest, luminance(at));
    }
    const background = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const bg = [16, 8, 0]
      .map((shift) => ((background >> shift) & 255) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
    return (Math.max(brightest, bg) + 0.05) / (Math.min(brightest, bg) + 0.05);
  }, png);
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

    // Attack: the page's own script moves the focus onto the chip while the person types an "a" meant for the chat
    // box. The key is the person's (trusted), the focus is not: nothing is approved.
    await chipHost(chat).focus();
    await chat.keyboard.press('a');
    await chat.waitForTimeout(500);
    expect(await chipHost(chat).getAttribute('data-chatbridge-state')).toBe('approval');
    expect(await readWorkspaceFile(world, 'notes.txt')).toBe('first line\nsecond line\n');

    // A person's keys (trusted input through the browser) on the focused chip.
    await focusChip(chat);
    await chat.keyboard.press('a');
    await waitForSubmitted(chat, 1);
    expect(await readWorkspaceFile(world, 'notes.txt')).toBe('first line\nsecond line, edited\n');
    await waitForDrawn(chat, 'done');
    expect(await chipHost(chat).getAttribute('data-chatbridge-preview')).toBe('folded');
    await focusChip(chat);
    await chat.keyboard.press('p');
    await expect.poll(() => chipHost(chat).getAttribute('data-chatbridge-preview')).toBe('open');
    // the key stayed with the chip: the chat box did not get a "p"
    expect(await chat.evaluate(() => window.__replica.composerText())).toBe('');
    await chat.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await turn.screenshot({ path: screenshotPath('chip-chatgpt-dark-result.png') });
    await chat.close();
  });

  it('attack: the page hides the approval card under a decoy of its own; the person\'s click there approves nothing', async () => {
    await writeFile(path.join(world.root, 'hidden.txt'), 'original\n');
    const chat = await world.open('chatgpt');
    const request = {
      jsonrpc: '2.0',
      id: 'call-503',
      method: 'tools/call',
      params: { name: 'fs.write', arguments: { path: path.join(world.root, 'hidden.txt'), mode: 'overwrite', content: 'changed\n' } },
    };
    await stream(chat, 'Done.\n\n```mcp-request\n' + JSON.stringify(request) + '\n```\n', { replaceAtEnd: false });
    await waitForDrawn(chat, 'approval');
    // The page's own script: the chip host is in its DOM. It makes the card see-through and draws a harmless-looking
    // button over it that lets clicks through (pointer-events: none).
    await chat.evaluate(() => {
      const host = document.querySelector<HTMLElement>('[data-chatbridge-chip]')!;
      host.style.opacity = '0';
      const rect = host.getBoundingClientRect();
      const decoy = document.createElement('div');
      decoy.textContent = 'Continue reading';
      Object.assign(decoy.style, {
        position: 'fixed', left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px`,
        pointerEvents: 'none', background: 'white', zIndex: '2147483647',
      });
      document.body.append(decoy);
      window.addEventListener('scroll', () => {
        const r = host.getBoundingClientRect();
        decoy.style.left = `${r.left}px`;
        decoy.style.top = `${r.top}px`;
      }, true);
    });
    await chat.waitForTimeout(300);
    await clickChipAction(chat, 0, 'approve');
    await chat.waitForTimeout(1_000);
    expect(await readWorkspaceFile(world, 'hidden.txt')).toBe('original\n');
    expect(await chipHost(chat).getAttribute('data-chatbridge-state')).toBe('approval');
    // The card says why the click did nothing, and where else to approve.
    expect(await chipHost(chat).getAttribute('data-chatbridge-note')).toMatch(/^not approved: .*side panel/);
    await chat.close();
  });

  it("a plan's approval card wraps a path or command with no place to break: nothing runs out of the chip or the page", async () => {
    const chat = await world.open('chatgpt');
    const plan = {
      metadata: { step_id: 'wide_001', reason: 'a long name', summary: '' },
      type: 'operate',
      file_operations: [{ action_type: 'create_file', path: `${'q'.repeat(240)}/file.txt`, file_content: 'hi\n' }],
      program_operations: [{ name: 'p', command: `echo ${'z'.repeat(250)}`, set_timeout: 10 }],
    };
    await stream(chat, 'A plan.\n\n```\n#####--' + JSON.stringify(plan) + '--#####\n```\n', { replaceAtEnd: false });
    await waitForDrawn(chat, 'approval');
    expect(await chat.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'page wider than its window by').toBeLessThanOrEqual(0);
    await clickChipAction(chat, 0, 'deny');
    await waitForChipState(chat, 0, ['failed', 'done']);
    expect(await readWorkspaceFile(world, `${'q'.repeat(240)}/file.txt`)).toBeNull();
    await chat.close();
  });

  it("the connection indicator's words read at 4.5:1 on the light and the dark page, connected and not", async () => {
    const chat = await world.open('chatgpt');
    const indicator = chat.locator('[data-chatbridge-indicator][data-chatbridge-connection="connected"]');
    await indicator.waitFor({ timeout: 30_000 });
    for (const theme of ['light', 'dark'] as const) {
      await chat.evaluate((theme) => window.__replica.setTheme?.(theme), theme);
      await chat.waitForTimeout(300);
      expect(await indicatorContrast(chat), `connected, ${theme} page`).toBeGreaterThanOrEqual(4.5);
    }
    await world.companion.stop();
    await chat.locator('[data-chatbridge-indicator][data-chatbridge-connection="disconnected"]').waitFor({ timeout: 60_000 });
    for (const theme of ['light', 'dark'] as const) {
      await chat.evaluate((theme) => window.__replica.setTheme?.(theme), theme);
      await chat.waitForTimeout(300);
      expect(await indicatorContrast(chat), `disconnected, ${theme} page`).toBeGreaterThanOrEqual(4.5);
    }
    await world.companion.restart();
    await indicator.waitFor({ timeout: 90_000 });
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
    await focusChip(chat);
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
