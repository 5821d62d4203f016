/**
 * Pairing through the real popup, and the companion going away mid-conversation: the page says "disconnected"
 * and everything works again once the companion is back.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  STOP_GRACE_MS,
  clickChipAction,
  createWorld,
  describeE2E,
  fencedBody,
  getExtensionStorage,
  pairThroughStorage,
  setSiteSettings,
  stream,
  waitForChipState,
  waitForConnection,
  waitForSubmitted,
  screenshotPath,
  setExtensionStorage,
} from './harness';
import type { World } from './harness';

/** What the first chip says of why it cannot act while the companion cannot be reached (null: it says nothing). */
function awayLine(page: Page): Promise<string | null> {
  return page.evaluate(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-away') ?? null);
}

/** The in-page connection indicator's state, published on its host element (extension/ui/README.md). */
function indicatorState(page: Page): Promise<string | null> {
  return page.evaluate(
    () => document.querySelector('[data-chatbridge-indicator]')?.getAttribute('data-chatbridge-connection') ?? null,
  );
}

/** How many pixels of the indicator's tip (its background colour) show above the badge whose box is `box`. */
async function indicatorTipPixels(page: Page, box: { x: number; y: number; width: number; height: number }): Promise<number> {
  const clip = { x: Math.max(0, box.x + box.width - 330), y: Math.max(0, box.y - 120), width: 330, height: 114 };
  const png = (await page.screenshot({ clip })).toString('base64');
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
    let count = 0;
    for (let at = 0; at < pixels.length; at += 4) if (pixels[at] === 0x1f && pixels[at + 1] === 0x23 && pixels[at + 2] === 0x28) count += 1;
    return count;
  }, png);
}

function readNotes(world: World, id: string): string {
  const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fs.read', arguments: { path: path.join(world.root, 'notes.txt') } } };
  return '```mcp-request\n' + JSON.stringify(request) + '\n```';
}

describeE2E('pairing and connection end to end', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ paired: false });
    await writeFile(path.join(world.root, 'notes.txt'), 'still here\n');
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('pairs through the real popup with the code the companion hands out, then runs a block with the popup toggles on', async () => {
    const { code } = await world.companion.api<{ code: string }>('POST', '/v1/pair/code');
    const popup = await world.popup();
    await popup.setViewportSize({ width: 420, height: 640 });
    // extension/ui/README.md: #companion-url (under a <details>), #pair-code, #pair-button, #connection[data-state].
    await popup.locator('details:has(#companion-url) > summary').click();
    await popup.locator('#companion-url').fill(`http://127.0.0.1:${world.companion.port}`);
    await popup.locator('#pair-code').fill(code);
    await popup.locator('#pair-button').click();
    await expect.poll(() => popup.locator('#connection').getAttribute('data-state'), { timeout: 30_000 }).toBe('connected');
    expect(await popup.locator('#error').textContent()).toBe('');
    const stored = await getExtensionStorage(world, ['companion.token', 'companion.url']);
    expect(String(stored['companion.token'] ?? '')).not.toBe('');
    expect(stored['companion.url']).toBe(`http://127.0.0.1:${world.companion.port}`);

    // Then turn on auto-run and auto-submit for ChatGPT with the popup's own toggles, as the README tells people to.
    await popup.locator('[data-setting="chatgpt.autoRun"]').check();
    await popup.locator('[data-setting="chatgpt.autoSubmit"]').check();
    await expect
      .poll(async () => getExtensionStorage(world, ['site.chatgpt.autoRun', 'site.chatgpt.autoSubmit']))
      .toEqual({ 'site.chatgpt.autoRun': true, 'site.chatgpt.autoSubmit': true });
    await popup.screenshot({ path: screenshotPath('popup.png') });
    await popup.close();

    // Paired and configured through the popup alone: a block on the chat page runs and its result is sent.
    const page = await world.open('chatgpt');
    await stream(page, readNotes(world, 'call-401'));
    const [message] = await waitForSubmitted(page, 1);
    expect(JSON.parse(fencedBody(message ?? '', 'mcp-response') ?? '{}')).toMatchObject({ id: 'call-401', result: { content: [{ text: 'still here\n' }] } });
    await page.close();

    // Forget token: the companion revokes the paired token first, so a copy of it is refused there from then on
    const token = String((await getExtensionStorage(world, ['companion.token']))['companion.token']);
    const forget = await world.popup();
    await forget.locator('details:has(#unpair-button) > summary').click();
    await forget.locator('#unpair-button').click(); // asks first
    await forget.locator('#unpair-button').click();
    await expect.poll(() => forget.locator('#connection').getAttribute('data-state'), { timeout: 30_000 }).toBe('unpaired');
    expect(await forget.locator('#error').textContent()).toBe('');
    await forget.close();
    const refused = await fetch(`http://127.0.0.1:${world.companion.port}/v1/approvals`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
  });

  it('a pairing that fails keeps the address that worked: the popup opened again pairs with the code alone', async () => {
    const working = `http://127.0.0.1:${world.companion.port}`;
    await pairThroughStorage(world);
    await waitForConnection(world, 'connected');
    const popup = await world.popup();
    await popup.locator('details:has(#unpair-button) > summary').click();
    await popup.locator('#unpair-button').click(); // asks first
    await popup.locator('#unpair-button').click();
    await expect.poll(() => popup.locator('#connection').getAttribute('data-state'), { timeout: 30_000 }).toBe('unpaired');
    // A mistyped address: nothing listens on port 9 of this machine.
    await popup.locator('details:has(#companion-url) > summary').click();
    await popup.locator('#companion-url').fill('http://127.0.0.1:9');
    await popup.locator('#pair-code').fill('ABCDEFGH');
    await popup.locator('#pair-button').click();
    await expect.poll(() => popup.locator('#error').textContent(), { timeout: 30_000 }).toContain('127.0.0.1:9');
    expect((await getExtensionStorage(world, ['companion.url']))['companion.url']).toBe(working);
    await popup.close();

    const { code } = await world.companion.api<{ code: string }>('POST', '/v1/pair/code');
    const again = await world.popup();
    await expect(again.locator('#companion-url').inputValue()).resolves.toBe(working);
    await again.locator('#pair-code').fill(code);
    await again.locator('#pair-button').click();
    await expect.poll(() => again.locator('#connection').getAttribute('data-state'), { timeout: 30_000 }).toBe('connected');
    await again.close();
  });

  it('shows "disconnected" when the companion stops mid-conversation and recovers when it is back', async () => {
    // Independent of the pairing test above: the preset token is what a pairing leaves behind.
    await pairThroughStorage(world);
    await waitForConnection(world, 'connected');
    await setSiteSettings(world, 'chatgpt', { enabled: true, autoRun: true, autoSubmit: true });
    const page = await world.open('chatgpt');
    await expect.poll(() => indicatorState(page), { timeout: 30_000 }).toBe('connected');
    await stream(page, readNotes(world, 'call-501'));
    await waitForSubmitted(page, 1);

    await world.companion.stop();
    const stopped = world.companion.lastStop();
    await expect.poll(() => indicatorState(page), { timeout: 60_000 }).toBe('disconnected');
    // the person reads why from the keyboard: the badge is the page's last stop, its tip shows
    const box = (await page.locator('[data-chatbridge-indicator]').boundingBox())!;
    const onBadge = () => page.evaluate(() => document.activeElement === document.querySelector('[data-chatbridge-indicator]'));
    for (let presses = 0; presses < 60 && !(await onBadge()); presses += 1) await page.keyboard.press('Tab');
    expect(await onBadge()).toBe(true);
    await expect.poll(() => indicatorTipPixels(page, box), { timeout: 5_000 }).toBeGreaterThan(1000);

    await world.companion.restart();
    await expect.poll(() => indicatorState(page), { timeout: 90_000 }).toBe('connected');
    // connected, there is nothing to tell: no tip, not even an empty box, though the badge still has the focus
    await expect.poll(() => indicatorTipPixels(page, box), { timeout: 5_000 }).toBe(0);
    await stream(page, readNotes(world, 'call-502'));
    const all = await waitForSubmitted(page, 2);
    const body = fencedBody(all[1] ?? '', 'mcp-response');
    expect(JSON.parse(body ?? '{}')).toMatchObject({ id: 'call-502', result: { content: [{ type: 'text', text: 'still here\n' }] } });
    await page.close();
    // Checked last so the extension's part above is judged on its own: SIGTERM alone must end the companion even
    // with the extension's socket open (the harness had to SIGKILL it otherwise).
    expect(stopped?.exitedOnSigterm, `companion still running ${STOP_GRACE_MS} ms after SIGTERM`).toBe(true);
  });

  it('a block still runs after the background service worker was stopped (MV3 restarts it)', async () => {
    await pairThroughStorage(world);
    await waitForConnection(world, 'connected');
    await setSiteSettings(world, 'chatgpt', { enabled: true, autoRun: true, autoSubmit: true });
    const page = await world.open('chatgpt');
    await stream(page, readNotes(world, 'call-601'));
    await waitForSubmitted(page, 1);
    // Every state the page's indicator takes from here on: a worker woken again is about to connect, and a chip told
    // "disconnected" meanwhile would refuse the person's click on Approve or Run. Stopped from the chat page's own
    // session, so no extension page wakes the worker first: the page's port does, as when Chrome stopped it idle.
    await page.evaluate(() => {
      const indicator = document.querySelector('[data-chatbridge-indicator]')!;
      const seen: string[] = [];
      (window as unknown as { __states: string[] }).__states = seen;
      new MutationObserver(() => seen.push(indicator.getAttribute('data-chatbridge-connection') ?? '')).observe(indicator, {
        attributes: true,
        attributeFilter: ['data-chatbridge-connection'],
      });
    });
    const cdp = await world.browser.context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await cdp.detach();
    const states = () => page.evaluate(() => (window as unknown as { __states: string[] }).__states);
    await expect.poll(async () => (await states()).at(-1), { timeout: 30_000 }).toBe('connected');
    expect(await states()).not.toContain('disconnected');

    await stream(page, readNotes(world, 'call-602'));
    const all = await waitForSubmitted(page, 2);
    expect(JSON.parse(fencedBody(all[1] ?? '', 'mcp-response') ?? '{}')).toMatchObject({ id: 'call-602', result: { content: [{ text: 'still here\n' }] } });
    await page.close();
  });
});

describeE2E('pairing in Chinese', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ paired: false, lang: 'zh-CN' });
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('the in-page indicator says why it is not connected on hover, on keyboard focus and to a screen reader, in Chinese', async () => {
    const chat = await world.open('chatgpt');
    await expect.poll(() => indicatorState(chat), { timeout: 30_000 }).toBe('unpaired');
    const host = chat.locator('[data-chatbridge-indicator]');
    const box = (await host.boundingBox())!;
    // the tip is drawn above the badge (its root is closed: what a person sees is the picture)
    const tipPixels = (): Promise<number> => indicatorTipPixels(chat, box);
    expect(await tipPixels()).toBe(0);
    // a site's own control in that corner (a help button; a narrow window's Send) is under the badge: hovering shows
    // the tip (a title on the badge never showed), and a click reaches the site's control, not the badge
    await chat.evaluate(() => {
      const help = document.createElement('button');
      help.id = 'site-help';
      help.textContent = '?';
      help.style.cssText = 'position:fixed;right:8px;bottom:8px;width:120px;height:40px;';
      help.addEventListener('click', () => help.setAttribute('data-clicked', String(Number(help.dataset.clicked ?? 0) + 1)));
      document.body.append(help);
    });
    await chat.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(tipPixels, { timeout: 5_000 }).toBeGreaterThan(1000);
    await chat.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(await chat.locator('#site-help').getAttribute('data-clicked')).toBe('1');
    await chat.evaluate(() => document.querySelector('#site-help')?.remove());
    await chat.screenshot({ path: screenshotPath('indicator-tip-zh.png'), clip: { x: box.x + box.width - 360, y: box.y - 130, width: 380, height: 130 + box.height + 12 } });
    await chat.mouse.move(10, 10);
    await expect.poll(tipPixels, { timeout: 5_000 }).toBe(0);

    // from the keyboard: the badge is the page's last stop (Shift+Tab from nothing focused), and its tip shows
    await chat.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await chat.keyboard.press('Shift+Tab');
    expect(await host.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect.poll(tipPixels, { timeout: 5_000 }).toBeGreaterThan(1000);
    await chat.keyboard.press('Escape');
    await expect.poll(tipPixels, { timeout: 5_000 }).toBe(0);

    // a screen reader is given the state and, as its description, why and what to do
    const cdp = await world.browser.context.newCDPSession(chat);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: Array<{ name?: { value?: string }; description?: { value?: string } }> };
    const badge = nodes.find((n) => n.name?.value === 'chatbridge 未配对' && n.description?.value);
    expect(badge?.description?.value).toBe('尚未配对：请打开 chatbridge 弹窗，输入本地助手显示的配对码');
    await cdp.detach();
    await chat.close();
  });

  it("before pairing the chip says in Chinese that chatbridge is not paired and where to pair, and its Run does nothing", async () => {
    const chat = await world.open('chatgpt');
    await stream(chat, '读取。\n\n' + readNotes(world, 'call-701'), { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['ready']);
    await expect.poll(() => awayLine(chat), { timeout: 30_000 }).toBe('现在无法运行。尚未配对：请打开 chatbridge 弹窗，输入本地助手显示的配对码。');
    await clickChipAction(chat, 0, 'run');
    const chip = await waitForChipState(chat, 0, ['ready']);
    expect(chip.attributes['data-chatbridge-note'] ?? '').not.toMatch(/配对|paired/);
    await chat.close();
  });

  it('with a token the companion no longer takes the chip says so in Chinese, not the companion\'s code and English, and its Run does nothing', async () => {
    await setExtensionStorage(world, { 'companion.url': `http://127.0.0.1:${world.companion.port}`, 'companion.token': 'e2e-a-token-from-before-a-reset' });
    const chat = await world.open('chatgpt');
    await expect.poll(() => indicatorState(chat), { timeout: 30_000 }).toBe('unpaired');
    await stream(chat, '读取。\n\n' + readNotes(world, 'call-702'), { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['ready']);
    await expect.poll(() => awayLine(chat), { timeout: 30_000 }).toBe('现在无法运行。本地助手不再接受这个令牌（例如它的数据目录被重置了）：请重新配对。');
    await clickChipAction(chat, 0, 'run');
    const chip = await waitForChipState(chat, 0, ['ready']);
    expect(chip.attributes['data-chatbridge-note'] ?? '').not.toMatch(/令牌|token/);
    await setExtensionStorage(world, { 'companion.token': '' });
    await chat.close();
  });

  it('a pairing that fails says why in Chinese, with what to do next; the right code then pairs', async () => {
    const popup = await world.popup();
    await popup.setViewportSize({ width: 420, height: 640 });
    const error = popup.locator('#error');
    await popup.locator('details:has(#companion-url) > summary').click();
    // Nothing answers at this address.
    await popup.locator('#companion-url').fill('http://127.0.0.1:9');
    await popup.locator('#pair-code').fill('NOTTHIS1');
    await popup.locator('#pair-button').click();
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toBe(
      'http://127.0.0.1:9 没有响应：请在这台电脑上启动本地助手（在 chatbridge 文件夹中运行 npm start），或检查“本地助手地址”。',
    );
    // An address that is not the companion's.
    await popup.locator('#companion-url').fill('https://example.com');
    await popup.locator('#pair-button').click();
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toContain('“https://example.com”不是本地助手的地址');
    // The companion, and a wrong code.
    await popup.locator('#companion-url').fill(`http://127.0.0.1:${world.companion.port}`);
    await popup.locator('#pair-button').click();
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toBe('配对码不对：还可以再试 4 次。请输入本地助手显示的配对码。');

    const { code } = await world.companion.api<{ code: string }>('POST', '/v1/pair/code');
    await popup.locator('#pair-code').fill(code);
    await popup.locator('#pair-button').click();
    await expect.poll(() => popup.locator('#connection').textContent(), { timeout: 30_000 }).toBe('chatbridge 已连接');
    expect(await error.textContent()).toBe('');
    await popup.close();
  });

  it("an approval card's title is in Chinese, worded from the companion's facts (it sent English only)", async () => {
    await waitForConnection(world, 'connected');
    await setSiteSettings(world, 'chatgpt', { enabled: true, autoRun: true, autoSubmit: true });
    const chat = await world.open('chatgpt');
    const target = path.join(world.root, 'zh-title.txt');
    const request = { jsonrpc: '2.0', id: 'call-720', method: 'tools/call', params: { name: 'fs.write', arguments: { path: target, mode: 'overwrite', content: '你好\n' } } };
    await stream(chat, '写入。\n\n```mcp-request\n' + JSON.stringify(request) + '\n```', { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const popup = await world.popup();
    const card = popup.locator('#approvals [data-approval]').first();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('[data-title]').textContent()).toBe(`新建 ${target}`);
    await card.locator('[data-decision="deny"]').click();
    await waitForChipState(chat, 0, ['failed', 'done']);
    await popup.close();
    await chat.close();
  });
});
