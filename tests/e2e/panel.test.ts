/**
 * The side panel and the toolbar badge with the real extension, companion and ChatGPT replica: a write waits for
 * approval, the badge counts it, the side panel shows its diff and approves it, then undoes the change; the badge
 * goes back down. The popup and the panel pass axe-core with no serious or critical violation.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clickChipAction, createWorld, describeE2E, getExtensionStorage, openConversation, quietPeriod, readWorkspaceFile, screenshotPath, stream, waitForChipNote, waitForChipState, waitForSubmitted } from './harness';
import type { World } from './harness';
import { contrast } from '../extension/contrast';

/** axe-core's browser build; evaluated through the DevTools protocol, as extension pages forbid inline scripts. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function mcpWrite(world: World, id: string, file: string, content: string): string {
  const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fs.write', arguments: { path: path.join(world.root, file), mode: 'overwrite', content } } };
  return '```mcp-request\n' + JSON.stringify(request) + '\n```';
}

/** The global toolbar badge text, read from the service worker. */
async function badgeText(world: World): Promise<string> {
  const worker = await world.browser.serviceWorker();
  return worker.evaluate(() => (globalThis as unknown as { chrome: { action: { getBadgeText(d: object): Promise<string> } } }).chrome.action.getBadgeText({}));
}

async function openPanel(world: World, hash = ''): Promise<Page> {
  const page = await world.browser.context.newPage();
  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto(`chrome-extension://${world.browser.extensionId}/sidepanel.html${hash}`);
  return page;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core run in the page; the serious and critical violations, described. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The WCAG contrast of the approvals count (a number on a coloured dot) as the page computes its colours. */
async function countContrast(page: Page): Promise<number> {
  const [color, background] = await page
    .locator('.count[data-zero="false"]')
    .first()
    .evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
  const hex = (rgb: string): string => `#${(rgb.match(/\d+/g) ?? []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
  return contrast(hex(color!), hex(background!));
}

/**
 * The WCAG contrast of what shows a control and its state (WCAG 1.4.11 asks 3:1), as the page computes its colours: a
 * switch that is off (its track on its card, its knob on its track) and a number field's edge on its card.
 */
async function controlContrasts(page: Page): Promise<Record<string, number>> {
  const colors = await page.evaluate(() => {
    const track = document.querySelector('.switch input:not(:checked) + .switch-track')!;
    const field = document.querySelector('input[type="number"]')!;
    const surface = (el: Element): string => getComputedStyle(el.closest('.card')!).backgroundColor;
    return {
      'off switch on its card': [getComputedStyle(track).backgroundColor, surface(track)],
      "off switch's knob": [getComputedStyle(track, '::after').backgroundColor, getComputedStyle(track).backgroundColor],
      "number field's edge": [getComputedStyle(field).borderTopColor, surface(field)],
    };
  });
  const hex = (rgb: string): string => `#${(rgb.match(/\d+/g) ?? []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
  return Object.fromEntries(Object.entries(colors).map(([part, [a, b]]) => [part, Math.round(contrast(hex(a!), hex(b!)) * 100) / 100]));
}

describeE2E('side panel and badge end to end', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld({ sites: { chatgpt: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 120_000 } } });
  });
  afterAll(async () => {
    await world?.dispose();
  });

  it('approve a write from the side panel, undo it from the side panel; the badge counts up and down', async () => {
    await writeFile(path.join(world.root, 'notes.txt'), 'before\n');
    await expect.poll(() => badgeText(world), { timeout: 30_000 }).toBe('');

    const chat = await world.open('chatgpt');
    await stream(chat, `Updating the notes.\n\n${mcpWrite(world, 'call-901', 'notes.txt', 'after <b>approval</b>\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    await expect.poll(() => badgeText(world), { timeout: 30_000 }).toBe('1');

    const [approval] = await world.companion.api<{ approvals: Array<{ id: string }> }>('GET', '/v1/approvals').then((r) => r.approvals);
    const panel = await openPanel(world, `#approval=${approval!.id}`);
    const card = panel.locator(`[data-approval="${approval!.id}"]`);
    await card.waitFor({ timeout: 30_000 });
    // The diff is drawn by diff2html: the added line is there, as text (no <b> element from the file's content).
    await expect.poll(() => card.locator('.d2h-ins').count()).toBeGreaterThan(0);
    expect(await card.locator('.d2h-ins').allTextContents().then((lines) => lines.join('\n'))).toContain('after <b>approval</b>');
    expect(await card.locator('.d2h-file-wrapper b').count()).toBe(0);
    // Opened on the approval: its card has the focus.
    expect(await card.evaluate((el) => el === document.activeElement)).toBe(true);
    await panel.screenshot({ path: screenshotPath('sidepanel.png') });

    await card.locator('[data-decision="approve"]').click();
    await waitForSubmitted(chat, 1);
    expect(await readFile(path.join(world.root, 'notes.txt'), 'utf8')).toBe('after <b>approval</b>\n');
    await expect.poll(() => badgeText(world), { timeout: 30_000 }).toBe('');
    await expect.poll(() => panel.locator('[data-approval]').count(), { timeout: 30_000 }).toBe(0);

    // The run is listed with its tool and a link back to the chat; its change can be undone right there.
    const run = panel.locator('[data-run][data-status="done"]').first();
    await run.waitFor({ timeout: 30_000 });
    expect(await run.textContent()).toContain('fs.write');
    expect(await run.locator('[data-run-link]').getAttribute('href')).toMatch(/^https:\/\/chatgpt\.com\//);
    const undo = panel.locator('#changes [data-undo]').first();
    await undo.waitFor({ timeout: 30_000 });
    await undo.click();
    await expect.poll(() => readWorkspaceFile(world, 'notes.txt'), { timeout: 30_000 }).toBe('before\n');
    await expect.poll(() => panel.locator('#changes [data-journal]').first().getAttribute('data-state'), { timeout: 30_000 }).toBe('undone');

    // The audit log is searchable.
    await panel.locator('#audit-search').fill('fs.write');
    await expect.poll(() => panel.locator('#audit [data-audit]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await panel.locator('#audit-search').fill('no-such-tool-anywhere');
    await expect.poll(() => panel.locator('#audit [data-audit]').count()).toBe(0);
    await panel.close();
    await chat.close();
  });

  it('an exec approval shows its command and directory; once approved its live output streams into the panel and Stop ends it', async () => {
    const chat = await world.open('chatgpt');
    const command = 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo tick $i; sleep 1; done';
    const request = { jsonrpc: '2.0', id: 'call-903', method: 'tools/call', params: { name: 'shell.exec', arguments: { command, cwd: world.root } } };
    await stream(chat, 'Counting.\n\n```mcp-request\n' + JSON.stringify(request) + '\n```\n', { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const panel = await openPanel(world);
    const card = panel.locator('[data-approval]').first();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('[data-command]').textContent()).toContain(`$ ${command}`);
    expect(await card.locator('[data-command]').textContent()).toContain(world.root);
    await card.locator('[data-decision="approve"]').click();
    const program = panel.locator('#programs [data-program]').first();
    await program.waitFor({ timeout: 30_000 });
    await expect.poll(() => program.locator('[data-output]').textContent(), { timeout: 30_000 }).toMatch(/tick 2/);
    // its run, approved and running with its card gone and no audit record yet, is named by its tool, not its block's kind
    const running = panel.locator('#runs [data-run][data-status="running"]').first();
    await expect.poll(() => running.locator('strong').textContent(), { timeout: 30_000 }).toBe('shell.exec');
    const programId = await program.getAttribute('data-program');
    await program.locator('[data-stop-program]').click();
    await expect.poll(() => panel.locator('#programs [data-program]').count(), { timeout: 30_000 }).toBe(0);
    // its card stays below, with how it ended and the output it gave
    const ended = panel.locator(`#programs-ended [data-program="${programId}"]`);
    await expect.poll(() => ended.getAttribute('data-ended'), { timeout: 30_000 }).toBe('terminated');
    expect(await ended.locator('[data-output]').textContent()).toMatch(/tick 2/);
    // the focus Stop had went with its card to the ended one, which says how it ended, not to the page's body
    expect(await panel.evaluate(() => document.activeElement?.closest('#programs-ended [data-program]')?.getAttribute('data-program'))).toBe(programId);
    await waitForChipState(chat, 0, ['done', 'failed']);
    await panel.close();
    await chat.close();
  });

  it('a change that reads differently from what it does (Trojan Source): it does not run by itself; after Run the card warns first and shows every override; deny leaves the file', async () => {
    await writeFile(path.join(world.root, 'auth.js'), 'const isAdmin = false;\n');
    const rlo = '\u202E';
    const lri = '\u2066';
    const pdi = '\u2069';
    const content = `const isAdmin = false;\n/*${rlo} } ${lri}if (isAdmin)${pdi} ${lri} begin admins only */\n  grantAll();\n/* end admins only ${rlo} { ${lri}*/\n`;
    const chat = await world.open('chatgpt');
    await stream(chat, `Tidying the comments.\n\n${mcpWrite(world, 'call-905', 'auth.js', content)}\n`, { replaceAtEnd: false });
    // auto-run is on for the site, but the page shows this block otherwise than it runs: it waits for the person
    await waitForChipNote(chat, 0, /never runs by itself/);
    expect((await waitForChipState(chat, 0, ['ready'])).state).toBe('ready');
    await quietPeriod(1_500);
    expect(await world.companion.api<{ approvals: unknown[] }>('GET', '/v1/approvals').then((r) => r.approvals)).toEqual([]);
    await clickChipAction(chat, 0, 'run');
    await waitForChipState(chat, 0, ['approval']);
    const panel = await openPanel(world);
    const card = panel.locator('[data-approval]').first();
    await card.waitFor({ timeout: 30_000 });
    const warning = card.locator('[data-warning]');
    expect(await warning.getAttribute('role')).toBe('alert');
    expect(await warning.textContent()).toContain('U+202E RIGHT-TO-LEFT OVERRIDE ×2');
    await card.locator('.d2h-ins').first().waitFor({ timeout: 30_000 });
    const added = await card.locator('.d2h-ins').allTextContents().then((lines) => lines.join('\n'));
    expect(added).toContain('/*⟨U+202E⟩ } ⟨U+2066⟩if (isAdmin)⟨U+2069⟩ ⟨U+2066⟩ begin admins only */');
    expect(await card.textContent()).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/u);
    await card.locator('[data-decision="deny"]').click();
    await waitForChipState(chat, 0, ['done', 'failed']);
    expect(await readFile(path.join(world.root, 'auth.js'), 'utf8')).toBe('const isAdmin = false;\n');
    await panel.close();
    await chat.close();
  });

  it('a long change is read whole: its line numbers stay in the diff (not over Approve), a long line wraps, the diff scrolls from the keyboard, axe finds nothing (panel and popup)', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i}`);
    lines[3] = `const secret = "${'x'.repeat(400)}"; // END-OF-LONG-LINE`;
    const chat = await world.open('chatgpt');
    await stream(chat, `A long file.\n\n${mcpWrite(world, 'call-905', 'long.txt', `${lines.join('\n')}\n`)}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    for (const scheme of ['light', 'dark'] as const) {
      const panel = await openPanel(world);
      await panel.emulateMedia({ colorScheme: scheme });
      const card = panel.locator('[data-approval]').first();
      await card.locator('.d2h-ins').first().waitFor({ timeout: 30_000 });
      // The line numbers stay inside the diff's box: nothing of a long diff lies over the card's buttons.
      const approveUncovered = await card.locator('[data-decision="approve"]').evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + 4, r.top + r.height / 2);
        return hit !== null && el.contains(hit);
      });
      expect(approveUncovered, `side panel (${scheme}): Approve is under the diff`).toBe(true);
      // Nothing of a line is out of sight sideways: the file's diff is no wider than its box.
      const sideways = await card.locator('.d2h-file-diff').evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(sideways, `side panel (${scheme}): the diff scrolls sideways by`).toBeLessThanOrEqual(0);
      expect(await seriousViolations(panel), `side panel with a long diff (${scheme})`).toEqual([]);
      // The diff's scrolling box takes the focus and moves with the arrow keys.
      const box = card.locator('[data-diff]');
      await box.focus();
      const before = await box.evaluate((el) => el.scrollTop);
      await panel.keyboard.press('PageDown');
      await expect.poll(() => box.evaluate((el) => el.scrollTop)).toBeGreaterThan(before);
      // At 200 % zoom a side panel is under 200 px wide: the line numbers keep a narrow column and the code the rest
      // (a 7.5em gutter left it one character a line)
      await panel.setViewportSize({ width: 180, height: 900 });
      const [gutter, code] = await card.locator('.d2h-ins').first().evaluate((cell) => {
        const row = cell.closest('tr')!;
        return ['.d2h-code-linenumber', '.d2h-code-line'].map((part) => row.querySelector(part)!.getBoundingClientRect().width);
      });
      expect(code, `side panel at 180 px (${scheme}): the code beside a ${gutter} px gutter`).toBeGreaterThan(2 * gutter!);
      await panel.close();

      const popup = await world.popup();
      await popup.emulateMedia({ colorScheme: scheme });
      await popup.setViewportSize({ width: 400, height: 600 });
      await popup.locator('#approvals details > summary').first().click();
      await popup.locator('#approvals .d2h-ins').first().waitFor({ timeout: 30_000 });
      expect(await seriousViolations(popup), `popup with a long diff (${scheme})`).toEqual([]);
      await popup.close();
    }
    const panel = await openPanel(world);
    await panel.locator('[data-approval] [data-decision="deny"]').click();
    await waitForChipState(chat, 0, ['failed', 'done']);
    expect(await readWorkspaceFile(world, 'long.txt')).toBeNull();
    await panel.close();
    await chat.close();
  });

  it('"Approve for this conversation" is listed in the side panel and Forget takes it back: the next write in that conversation asks again', async () => {
    const chat = await openConversation(world, 'chatgpt', 'grant-1', [{ role: 'user', text: 'Keep notes.' }]);
    await stream(chat, `Writing.\n\n${mcpWrite(world, 'call-906', 'granted-1.txt', 'one\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const panel = await openPanel(world);
    await panel.locator('[data-approval] [data-decision="approve-conversation"]').click();
    await waitForChipState(chat, 0, ['done']);
    const grant = panel.locator('#grants [data-grant]');
    await expect.poll(() => grant.count(), { timeout: 30_000 }).toBe(1);
    expect(await grant.textContent()).toContain('fs.write');

    // Forget it from the keyboard: the next write in the same conversation waits for a card again.
    await grant.locator('[data-forget-grant]').focus();
    await panel.keyboard.press('Enter');
    await expect.poll(() => grant.count(), { timeout: 30_000 }).toBe(0);
    await stream(chat, `Once more.\n\n${mcpWrite(world, 'call-907', 'granted-2.txt', 'two\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 1, ['approval']);
    expect(await readWorkspaceFile(world, 'granted-2.txt')).toBeNull();
    await panel.locator('[data-approval] [data-decision="deny"]').click();
    await waitForChipState(chat, 1, ['failed', 'done']);
    await panel.close();
    await chat.close();
  });

  it('deciding an approval from the keyboard moves the focus to the next card, never onto its buttons: a second Enter decides nothing', async () => {
    const first = await openConversation(world, 'chatgpt', 'keys-1', [{ role: 'user', text: 'one' }]);
    await stream(first, `One.\n\n${mcpWrite(world, 'call-910', 'keys-1.txt', 'one\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(first, 0, ['approval']);
    const second = await openConversation(world, 'chatgpt', 'keys-2', [{ role: 'user', text: 'two' }]);
    await stream(second, `Two.\n\n${mcpWrite(world, 'call-911', 'keys-2.txt', 'two\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(second, 0, ['approval']);
    const panel = await openPanel(world);
    const cards = panel.locator('[data-approval]');
    await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(2);
    const [firstId, secondId] = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-approval')));
    // Tab to the first card's Deny and press Enter, as a person without a mouse does.
    const deny = panel.locator(`[data-approval="${firstId}"] [data-decision="deny"]`);
    let reached = false;
    for (let i = 0; i < 40 && !reached; i += 1) {
      await panel.keyboard.press('Tab');
      reached = await deny.evaluate((el) => el === document.activeElement);
    }
    expect(reached, 'Tab reaches Deny').toBe(true);
    await panel.keyboard.press('Enter');
    await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(1);
    await expect
      .poll(() => panel.evaluate(() => document.activeElement?.getAttribute('data-approval') ?? document.activeElement?.outerHTML.slice(0, 80)))
      .toBe(secondId);
    // The key pressed once more (a double press, a repeat) lands on the card, not on a button of an approval not read yet.
    await panel.keyboard.press('Enter');
    await quietPeriod(1_000);
    expect(await cards.count()).toBe(1);
    expect(await world.companion.api<{ approvals: Array<{ id: string }> }>('GET', '/v1/approvals').then((r) => r.approvals.map((a) => a.id))).toEqual([secondId]);
    await panel.locator(`[data-approval="${secondId}"] [data-decision="deny"]`).click();
    // after the last card the focus goes to the approvals' heading, which says none is left, not to the page's body
    await expect.poll(() => panel.evaluate(() => document.activeElement?.id ?? null), { timeout: 30_000 }).toBe('approvals-title');
    await waitForChipState(first, 0, ['failed', 'done']);
    await waitForChipState(second, 0, ['failed', 'done']);
    await panel.close();
    await first.close();
    await second.close();
  });

  it("the popup's Approve on a folded diff opens it and decides nothing; the next click, on a change now seen, approves", async () => {
    const chat = await world.open('chatgpt');
    await stream(chat, `Writing.\n\n${mcpWrite(world, 'call-915', 'seen-first.txt', 'read me first\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const popup = await world.popup();
    await popup.setViewportSize({ width: 400, height: 600 });
    const card = popup.locator('#approvals [data-approval]').first();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('details').evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await card.locator('[data-decision="approve"]').click();
    await card.locator('details .d2h-ins').first().waitFor({ timeout: 30_000 });
    expect(await card.locator('[data-read-first]').count()).toBe(0);
    await quietPeriod(1_000);
    expect((await world.companion.api<{ approvals: unknown[] }>('GET', '/v1/approvals')).approvals).toHaveLength(1);
    await card.locator('[data-decision="approve"]').click();
    await waitForSubmitted(chat, 1);
    expect(await readWorkspaceFile(world, 'seen-first.txt')).toBe('read me first\n');
    await popup.close();
    await chat.close();
  });

  it('a path with no place to break keeps the popup and the side panel their width: it wraps, nothing scrolls sideways', async () => {
    const folder = path.join(world.root, 'a'.repeat(120), 'b'.repeat(120));
    await mkdir(folder, { recursive: true });
    const chat = await world.open('chatgpt');
    await stream(chat, `Writing.\n\n${mcpWrite(world, 'call-909', path.relative(world.root, path.join(folder, `${'c'.repeat(200)}.txt`)), 'hi\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const sideways = (page: Page): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    const panel = await openPanel(world);
    await panel.locator('[data-approval] .d2h-ins').first().waitFor({ timeout: 30_000 });
    expect(await sideways(panel), 'side panel wider than its window by').toBeLessThanOrEqual(0);
    const popup = await world.popup();
    await popup.setViewportSize({ width: 400, height: 600 });
    await popup.locator('[data-approval]').first().waitFor({ timeout: 30_000 });
    expect(await sideways(popup), 'popup wider than its window by').toBeLessThanOrEqual(0);
    await popup.close();
    await panel.locator('[data-approval] [data-decision="deny"]').click();
    await waitForChipState(chat, 0, ['failed', 'done']);
    await panel.close();
    await chat.close();
  });

  it('an Undo refused far down the panel is said where the person is looking, not only at the top of the page', async () => {
    await writeFile(path.join(world.root, 'undo-me.txt'), 'before\n');
    const chat = await world.open('chatgpt');
    await stream(chat, `Changing it.\n\n${mcpWrite(world, 'call-912', 'undo-me.txt', 'after\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const panel = await openPanel(world);
    await panel.setViewportSize({ width: 420, height: 300 });
    await panel.locator('[data-approval] [data-decision="approve"]').click();
    await waitForChipState(chat, 0, ['done']);
    // Changed again since: its undo is refused (CONFLICT).
    await writeFile(path.join(world.root, 'undo-me.txt'), 'edited by the person\n');
    // This change's own row: the list also holds earlier tests' changes, and it may not show this one yet.
    const undo = panel.locator('#changes [data-journal]', { hasText: 'undo-me.txt' }).locator('[data-undo]');
    await undo.waitFor({ timeout: 30_000 });
    await undo.scrollIntoViewIfNeeded();
    expect(await panel.evaluate(() => window.scrollY), 'the panel is scrolled down to the change').toBeGreaterThan(0);
    await undo.click();
    const error = panel.locator('#error');
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toMatch(/^Not undone: \/.*\/undo-me\.txt was changed after this change, and undoing it would throw that away/);
    const seen = await error.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
    });
    expect(seen, 'the refusal is in view').toBe(true);
    expect(await readWorkspaceFile(world, 'undo-me.txt')).toBe('edited by the person\n');
    await panel.close();
    await chat.close();
  });

  it('a recent run whose result is longer than the panel keeps says so, and where the whole result is', async () => {
    await writeFile(path.join(world.root, 'long-read.txt'), `${'a line of the file\n'.repeat(100)}THE-LAST-LINE\n`);
    const request = { jsonrpc: '2.0', id: 'call-908', method: 'tools/call', params: { name: 'fs.read', arguments: { path: path.join(world.root, 'long-read.txt') } } };
    const chat = await world.open('chatgpt');
    await stream(chat, 'Reading.\n\n```mcp-request\n' + JSON.stringify(request) + '\n```\n', { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['done']);
    const panel = await openPanel(world);
    const run = panel.locator('#runs [data-run][data-status="done"]').first();
    await run.waitFor({ timeout: 30_000 });
    await run.locator('details > summary').click();
    const shown = await run.locator('details').textContent();
    expect(shown).not.toContain('THE-LAST-LINE');
    expect(shown).toMatch(/\d+ more characters are not kept here: the chip under the block in the chat has the whole result/);
    await panel.close();
    await chat.close();
  });

  it('the badge says "off" while the companion is away and counts again when it is back; a run it ended meanwhile is not listed as waiting', async () => {
    const chat = await world.open('chatgpt');
    const request = { jsonrpc: '2.0', id: 'call-913', method: 'tools/call', params: { name: 'shell.exec', arguments: { command: 'echo never', cwd: world.root } } };
    await stream(chat, 'Asking.\n\n```mcp-request\n' + JSON.stringify(request) + '\n```\n', { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    const [approval] = await world.companion.api<{ approvals: Array<{ runId: string; tool: string }> }>('GET', '/v1/approvals').then((r) => r.approvals.filter((a) => a.tool === 'shell.exec'));
    // the chat is closed: nothing posts the block again once the companion is back
    await chat.close();
    const panel = await openPanel(world);
    const row = panel.locator(`#runs [data-run="${approval!.runId}"]`);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('pending');
    await world.companion.stop();
    await expect.poll(() => badgeText(world), { timeout: 60_000 }).toBe('off');
    // its words' colour is set (white), not left to the browser's choice
    const worker = await world.browser.serviceWorker();
    expect(
      await worker.evaluate(() => (globalThis as unknown as { chrome: { action: { getBadgeTextColor(d: object): Promise<number[]> } } }).chrome.action.getBadgeTextColor({})),
    ).toEqual([255, 255, 255, 255]);
    await world.companion.restart();
    await expect.poll(() => badgeText(world), { timeout: 90_000 }).toBe('');
    // stopping ended the run waiting for approval: its row says how it ended, not "waiting for approval" for good
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('error');
    await panel.close();
  });

  it('the popup and the side panel have no serious accessibility violations (axe-core), light and dark', async () => {
    // An approval with a diff waiting, so the richest cards are on both pages.
    const chat = await world.open('chatgpt');
    await stream(chat, `Once more.\n\n${mcpWrite(world, 'call-902', 'axe.txt', 'checked\n')}\n`, { replaceAtEnd: false });
    await waitForChipState(chat, 0, ['approval']);
    for (const scheme of ['light', 'dark'] as const) {
      const popup = await world.popup();
      await popup.emulateMedia({ colorScheme: scheme });
      await popup.setViewportSize({ width: 400, height: 900 });
      await popup.locator('#connection[data-state="connected"]').waitFor({ timeout: 30_000 });
      await popup.locator('[data-setting="chatgpt.enabled"]:not([disabled])').waitFor();
      expect(await seriousViolations(popup), `popup (${scheme})`).toEqual([]);
      // axe leaves a one-character text undecided ("too short"): the approvals count is measured here
      expect(await countContrast(popup), `popup's approvals count (${scheme})`).toBeGreaterThanOrEqual(4.5);
      // axe does not measure what shows a control: a switch that is off was 1.45:1 on its light card
      for (const [part, ratio] of Object.entries(await controlContrasts(popup))) expect(ratio, `popup: ${part} (${scheme})`).toBeGreaterThanOrEqual(3);
      await popup.screenshot({ path: screenshotPath(`popup-${scheme}.png`), fullPage: true });
      if (scheme === 'light') {
        // Keyboard only: Tab reaches ChatGPT's auto-run switch, Space turns it off and on again.
        const autoRun = popup.locator('[data-setting="chatgpt.autoRun"]');
        let reached = false;
        for (let i = 0; i < 30 && !reached; i += 1) {
          await popup.keyboard.press('Tab');
          reached = await autoRun.evaluate((el) => el === document.activeElement);
        }
        expect(reached, 'Tab reaches the auto-run switch').toBe(true);
        await popup.keyboard.press('Space');
        await expect.poll(() => getExtensionStorage(world, ['site.chatgpt.autoRun'])).toEqual({ 'site.chatgpt.autoRun': false });
        await popup.keyboard.press('Space');
        await expect.poll(() => getExtensionStorage(world, ['site.chatgpt.autoRun'])).toEqual({ 'site.chatgpt.autoRun': true });
      }
      // the folded parts too: the prompt library (with its preview) and the other sites
      await popup.locator('#prompts > summary').click();
      await popup.locator('#more-sites > summary').click();
      await expect.poll(() => popup.locator('#prompt-preview').inputValue(), { timeout: 30_000 }).not.toBe('');
      expect(await seriousViolations(popup), `popup unfolded (${scheme})`).toEqual([]);
      if (scheme === 'light') await popup.screenshot({ path: screenshotPath('popup-prompts.png'), fullPage: true });
      await popup.close();

      const panel = await openPanel(world);
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.locator('[data-approval] .d2h-ins').first().waitFor({ timeout: 30_000 });
      await panel.locator('#connection[data-state="connected"]').waitFor({ timeout: 30_000 });
      expect(await seriousViolations(panel), `side panel (${scheme})`).toEqual([]);
      expect(await countContrast(panel), `side panel's approvals count (${scheme})`).toBeGreaterThanOrEqual(4.5);
      if (scheme === 'dark') await panel.screenshot({ path: screenshotPath('sidepanel-dark.png'), fullPage: true });
      await panel.close();
    }
    const panel = await openPanel(world);
    await panel.locator('[data-approval] [data-decision="deny"]').click();
    await waitForChipState(chat, 0, ['failed', 'done']);
    expect(await readWorkspaceFile(world, 'axe.txt')).toBeNull();
    await panel.close();
    await chat.close();
  });
});
