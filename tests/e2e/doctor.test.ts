/**
 * The site doctor and any site (issue 12, points 3–5) in a real browser with the real companion. Plain chat pages no
 * site module knows — one with a textarea, one with a contenteditable — are enabled with the popup's "Enable on this
 * site" (the build with every https host granted, so the click's permission request is answered at once) and the
 * generic adapter runs a block on each. A ChatGPT page whose composer was removed and a plain page whose send control
 * never enables show what the doctor is for: the toolbar badge says "!" on that tab, the chip says what to do
 * ("copied — paste it", "inserted — press Enter"), the popup's doctor names what is missing, nothing is lost or
 * sent twice, and the problem goes away once the person acts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runRequest } from '../../bench/companion-process';
import type { ReplicaSite } from './replica/api';
import {
  SITE_HOSTS,
  auditRecords,
  composerText,
  createWorld,
  describeE2E,
  enableSite,
  fencedBody,
  firstScanDone,
  quietPeriod,
  resultTextOf,
  screenshotPath,
  setSiteSettings,
  stream,
  submitted,
  waitForChipNote,
  waitForSubmitted,
} from './harness';
import type { World } from './harness';

type Chrome = {
  tabs: { query(query: object): Promise<Array<{ id?: number; url?: string }>> };
  action: { getBadgeText(details: { tabId?: number }): Promise<string> };
  scripting: { getRegisteredContentScripts(): Promise<Array<{ id: string; matches?: string[] }>> };
};

/** axe-core's browser build; evaluated through the DevTools protocol, as extension pages forbid inline scripts. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations in the page, described. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    type Violation = { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> };
    return (await (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

function mcpRequest(id: string, file: string): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fs.read', arguments: { path: file } } }) + '\n```';
}

/** The id the browser gave the tab showing `page`. */
async function tabIdOf(world: World, page: Page): Promise<number> {
  const worker = await world.browser.serviceWorker();
  const url = page.url();
  const id = await worker.evaluate(async (target) => {
    const tabs = await (globalThis as unknown as { chrome: Chrome }).chrome.tabs.query({});
    return tabs.find((t) => t.url === target)?.id;
  }, url);
  if (id === undefined) throw new Error(`no tab shows ${url}`);
  return id;
}

/** The toolbar badge on one tab, read from the service worker. */
async function badgeOn(world: World, tabId: number): Promise<string> {
  const worker = await world.browser.serviceWorker();
  return worker.evaluate((id) => (globalThis as unknown as { chrome: Chrome }).chrome.action.getBadgeText({ tabId: id }), tabId);
}

/** The popup about one tab (an extension page in a tab of its own is about the tab named in its address). */
async function popupFor(world: World, tabId: number): Promise<Page> {
  const popup = await world.browser.context.newPage();
  await popup.goto(`chrome-extension://${world.browser.extensionId}/popup.html#tab=${tabId}`);
  return popup;
}

async function registrations(world: World): Promise<string[]> {
  const worker = await world.browser.serviceWorker();
  return worker.evaluate(async () => (await (globalThis as unknown as { chrome: Chrome }).chrome.scripting.getRegisteredContentScripts()).map((s) => s.id));
}

/**
 * The popup about `page`'s tab, light and dark: the composer row names the long id, and no row or problem is wider
 * than the popup (each fits its own box, the page scrolls no way but down); screenshots for a look.
 */
async function wrapsInPopup(world: World, page: Page, id: string, locale: string): Promise<void> {
  const tabId = await tabIdOf(world, page);
  for (const scheme of ['light', 'dark'] as const) {
    const popup = await popupFor(world, tabId);
    await popup.emulateMedia({ colorScheme: scheme });
    await popup.setViewportSize({ width: 400, height: 900 });
    await expect.poll(() => popup.locator('[data-doctor-row="composer"]').textContent(), { timeout: 15_000 }).toContain(id);
    const wide = await popup.evaluate(() => {
      const out: string[] = [];
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > width) out.push(`the popup scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('#doctor [data-doctor-row], #doctor [data-doctor-problem]'))) {
        const box = el.getBoundingClientRect();
        if (el.scrollWidth > el.clientWidth + 1 || box.right > width) out.push(`${el.dataset.doctorRow ?? el.dataset.doctorProblem}: ${el.scrollWidth} in ${el.clientWidth}, right edge ${box.right}`);
      }
      return out;
    });
    expect(wide, `${locale}, ${scheme}`).toEqual([]);
    await popup.locator('#doctor').screenshot({ path: screenshotPath(`doctor-${locale}-${scheme}.png`) });
    await popup.close();
  }
}

/** The plain page's host enabled as "Enable on this site" stores it (the granted build has its permission already). */
async function plainEnabled(world: World): Promise<void> {
  await setSiteSettings(world, SITE_HOSTS.plain, { enabled: true });
  const worker = await world.browser.serviceWorker();
  await worker.evaluate(
    (host) => (globalThis as unknown as { chrome: { storage: { local: { set(items: object): Promise<void> } } } }).chrome.storage.local.set({ 'generic.hosts': [host] }),
    SITE_HOSTS.plain,
  );
  await expect.poll(() => registrations(world), { timeout: 15_000 }).toContain('chatbridge-generic');
}

describeE2E('site doctor and any site', () => {
  let world: World;
  let notes: string;

  beforeAll(async () => {
    world = await createWorld({ granted: true });
    notes = path.join(world.root, 'notes.txt');
    await writeFile(notes, 'first line\n\n  indented third line\n');
  }, 180_000);
  afterAll(async () => {
    await world?.dispose();
  });

  /** The person opens a plain chat page and clicks "Enable on this site" in the popup; the popup is kept open. */
  async function enableHere(site: ReplicaSite, search = ''): Promise<{ page: Page; popup: Page; tabId: number }> {
    const host = SITE_HOSTS[site];
    if (site === 'plain') await setSiteSettings(world, host, { autoRun: true, autoSubmit: true });
    const page = await world.open(site, `/${search}`);
    const tabId = await tabIdOf(world, page);
    const popup = await popupFor(world, tabId);
    // Before: chatbridge does not run there, and the popup offers to enable it.
    await popup.waitForSelector('#doctor[data-state="absent"]');
    await popup.locator('#enable-here').click();
    await expect.poll(() => registrations(world), { timeout: 15_000 }).toContain('chatbridge-generic');
    // The popup draws again with the host's own card, switched on, and the doctor of the now running page.
    await popup.waitForSelector(`fieldset[data-site="${host}"][data-on="true"]`);
    await popup.waitForSelector('#doctor:is([data-state="ok"], [data-state="problem"])', { timeout: 15_000 });
    await firstScanDone(page, 15_000);
    return { page, popup, tabId };
  }

  /**
   * The person asks in the page's box and presses Enter: the plain pages give no "writing" signal, so only a reply
   * that follows a send is live (a saved conversation rendering in is not).
   */
  async function personAsks(page: Page, text: string): Promise<void> {
    await page.locator('#prompt').click();
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    await waitForSubmitted(page, 1);
  }

  async function row(popup: Page, name: string): Promise<{ ok: string | null; text: string | null }> {
    const cell = popup.locator(`[data-doctor-row="${name}"]`);
    return { ok: await cell.getAttribute('data-ok'), text: await cell.textContent() };
  }

  it('a plain page with a textarea: "Enable on this site", the generic adapter runs the block, the result is sent; the doctor shows what it found', async () => {
    const { page, popup } = await enableHere('plain');
    expect((await row(popup, 'site')).text).toContain('generic adapter');
    expect(await row(popup, 'composer')).toEqual({ ok: 'true', text: 'found: textarea#prompt · unknown' });
    expect((await row(popup, 'generating')).text).toContain('none on this site');

    await personAsks(page, 'What is in my notes?');
    await stream(page, `Reading it.\n\n${mcpRequest('plain-1', notes)}\n`);
    const [, message] = await waitForSubmitted(page, 2);
    const records = (await auditRecords(world)).filter((r) => r.site === 'generic');
    expect(records).toHaveLength(1);
    expect((message ?? '').trim()).toBe((await resultTextOf(world, records[0]?.runId ?? '')).trim());
    expect(fencedBody(message ?? '', 'mcp-response')).toContain('plain-1');
    await expect.poll(async () => (await row(popup, 'submit')).text, { timeout: 10_000 }).toBe('verified (click)');
    // The reply, and the result the page sent as the person's message.
    await expect.poll(async () => (await row(popup, 'messages')).text, { timeout: 10_000 }).toBe('3 (2 yours, 1 reply)');
    expect((await row(popup, 'last-reply')).ok).toBe('true');
    await quietPeriod(1_500);
    expect(await submitted(page)).toHaveLength(2);
    await popup.close();
    await page.close();
  });

  it('a plain page with a contenteditable: enabled the same way, the result is typed in exactly (auto-submit off)', async () => {
    await setSiteSettings(world, SITE_HOSTS.editable, { autoRun: true, autoSubmit: false });
    const { page, popup } = await enableHere('editable');
    expect(await row(popup, 'composer')).toEqual({ ok: 'true', text: 'found: div#prompt · unknown' });
    await personAsks(page, 'What is in my notes?');
    await stream(page, mcpRequest('editable-1', notes));
    await expect.poll(() => composerText(page), { timeout: 30_000 }).toContain('mcp-response');
    const inserted = await composerText(page);
    const record = (await auditRecords(world)).find((r) => r.site === 'generic' && inserted.includes(r.auditId));
    expect(record, 'the audit record of the inserted result').toBeDefined();
    expect(inserted.trim()).toBe((await resultTextOf(world, record?.runId ?? '')).trim());
    await waitForChipNote(page, 0, /^result is in the chat box/);
    expect(await submitted(page)).toEqual(['What is in my notes?']);
    await expect.poll(async () => (await row(popup, 'insert')).text, { timeout: 10_000 }).toMatch(/^verified \(/);
    await popup.close();
    await page.close();
  });

  it('a ChatGPT page whose composer was removed: the badge says "!", the result is copied ("copied — paste it"), the doctor names it', async () => {
    await setSiteSettings(world, 'chatgpt', { autoRun: true, autoSubmit: true });
    const page = await world.open('chatgpt');
    await firstScanDone(page, 15_000);
    await world.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: 'https://chatgpt.com' });
    const tabId = await tabIdOf(world, page);
    expect(await badgeOn(world, tabId)).toBe('');
    // The site changed its page: the composer is gone (its form and stop button stay).
    await page.evaluate(() => document.querySelector('#prompt-textarea')?.parentElement?.remove());
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('!');

    await page.bringToFront();
    await stream(page, mcpRequest('gone-1', notes));
    const chip = await waitForChipNote(page, 0, /^copied — paste it/, 40_000);
    expect(chip.state).toBe('done');
    const records = (await auditRecords(world)).filter((r) => r.site === 'chatgpt');
    expect(records).toHaveLength(1);
    const clipboard = await page.evaluate(() => navigator.clipboard.readText());
    expect(clipboard.trim()).toBe((await resultTextOf(world, records[0]?.runId ?? '')).trim());
    expect(await submitted(page)).toEqual([]);

    const popup = await popupFor(world, tabId);
    await popup.waitForSelector('#doctor[data-state="problem"]');
    expect(await popup.locator('[data-doctor-problem="no-composer"]').textContent()).toContain('no chat box found on this page');
    expect(await row(popup, 'composer')).toEqual({ ok: 'false', text: 'NOT found · prosemirror' });
    expect((await row(popup, 'insert')).ok).toBe('true');

    // "Copy a report": the page's structure, never its text (the reply's JSON and the file's content stay out).
    await popup.locator('#doctor-copy').click();
    await popup.waitForSelector('#doctor-status:has-text("never its text")');
    // One clipboard for the whole browser: read back in the page allowed to read it.
    await page.bringToFront();
    const report = await page.evaluate(() => navigator.clipboard.readText());
    expect(report).toContain('site: ChatGPT (chatgpt) on chatgpt.com');
    expect(report).toContain('composer: NOT found; family prosemirror');
    expect(report).toMatch(/\n\s*section[^\n]*\[data-testid=conversation-turn-\d+\]/);
    for (const secret of ['gone-1', 'indented third line', 'fs.read', notes]) expect(report).not.toContain(secret);
    // Nothing ran or went anywhere twice.
    await quietPeriod(1_500);
    expect((await auditRecords(world)).filter((r) => r.site === 'chatgpt')).toHaveLength(1);
    await popup.close();

    // The person goes on in that tab to a page chatbridge does not run on: the "!" goes with the chat page, and an
    // approval that comes and goes meanwhile (the global badge drawn again on every tab) does not bring it back.
    await page.goto('about:blank');
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('');
    const asked = runRequest('fs.write', { path: path.join(world.root, 'badge.txt'), content: 'x\n', mode: 'overwrite' });
    const pending = await world.companion.api<{ status: string }>('POST', '/v1/run', { ...asked, waitMs: 0 });
    expect(pending.status).toBe('pending');
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('1');
    const { approvals } = await world.companion.api<{ approvals: Array<{ id: string; argsHash: string }> }>('GET', '/v1/approvals');
    for (const a of approvals) await world.companion.api('POST', `/v1/approvals/${a.id}`, { decision: 'deny', argsHash: a.argsHash });
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('');
    await page.close();
  });

  it('a page whose send control never enables: "inserted — press Enter", badge "!", the person presses Enter once, and it is over', async () => {
    const page = await world.open('plain', '/?send=never');
    await firstScanDone(page, 15_000);
    const tabId = await tabIdOf(world, page);
    await personAsks(page, 'What is in my notes?');
    await stream(page, mcpRequest('never-1', notes));
    await waitForChipNote(page, 0, /^inserted — press Enter/, 40_000);
    expect(await composerText(page)).toContain('never-1');
    expect(await submitted(page)).toEqual(['What is in my notes?']);
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('!');

    const popup = await popupFor(world, tabId);
    await popup.waitForSelector('#doctor[data-state="problem"]');
    expect(await popup.locator('[data-doctor-problem="submit-unverified"]').textContent()).toContain('press Enter');
    const send = await row(popup, 'send');
    expect(send).toEqual({ ok: 'true', text: 'found, disabled' });
    expect((await row(popup, 'submit')).ok).toBe('false');
    // The doctor showing problems is as accessible as the rest of the popup.
    expect(await seriousViolations(popup)).toEqual([]);
    await popup.close();

    // Not tried again: the result waits in the box, once.
    await quietPeriod(2_000);
    expect(await submitted(page)).toEqual(['What is in my notes?']);
    // The person presses Enter (a real key press): sent once, and the badge clears.
    await page.locator('#prompt').click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const sent = await waitForSubmitted(page, 2);
    expect(sent[1]).toContain('never-1');
    await expect.poll(() => badgeOn(world, tabId), { timeout: 10_000 }).toBe('');
    await quietPeriod(1_500);
    expect(await submitted(page)).toHaveLength(2);
    await page.close();
  });

  it('a DeepSeek build that renames the answer body, and a Z.ai build that renames its send button: each named within seconds, badge "!"', async () => {
    const page = await world.open('deepseek');
    await firstScanDone(page, 15_000);
    const tabId = await tabIdOf(world, page);
    await page.evaluate(() => window.__replica.addUserTurn('What is in my notes?'));
    await stream(page, 'Just words, no blocks.');
    await quietPeriod(1_500);
    expect(await badgeOn(world, tabId)).toBe('');
    // The new build's replies: the same rows, the answer body's class renamed.
    await page.evaluate(() => {
      for (const body of Array.from(document.querySelectorAll('.ds-markdown'))) body.classList.replace('ds-markdown', 'ds-md-2027');
    });
    await expect.poll(() => badgeOn(world, tabId), { timeout: 12_000 }).toBe('!');
    const popup = await popupFor(world, tabId);
    await popup.waitForSelector('#doctor[data-state="problem"]');
    expect(await popup.locator('[data-doctor-problem="no-answer"]').textContent()).toContain('answer is not found');
    await popup.close();
    await page.close();

    await enableSite(world, 'zai');
    const zai = await world.open('zai');
    await firstScanDone(zai, 15_000);
    const zaiTab = await tabIdOf(world, zai);
    await quietPeriod(1_500);
    expect(await badgeOn(world, zaiTab)).toBe('');
    await zai.evaluate(() => document.querySelector('#send-message-button')?.setAttribute('id', 'send-2027'));
    await expect.poll(() => badgeOn(world, zaiTab), { timeout: 6_000 }).toBe('!');
    const zaiPopup = await popupFor(world, zaiTab);
    await zaiPopup.waitForSelector('#doctor[data-state="problem"]');
    expect(await zaiPopup.locator('[data-doctor-problem="no-send-control"]').textContent()).toContain('no send control is found');
    expect(await zaiPopup.locator('[data-doctor-problem="writing-signal-stuck"]').count()).toBe(0);
    await zaiPopup.close();
    await zai.close();
  }, 90_000);

  it('a ChatGPT build that renames its stop control: named while the reply streams, badge "!"; with it as drawn, nothing', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    for (const renamed of [false, true]) {
      const page = await world.open('chatgpt');
      await firstScanDone(page, 15_000);
      const tabId = await tabIdOf(world, page);
      if (renamed) {
        // The new build's stop control: the same button in the send slot, without the test id and label the module reads.
        await page.evaluate(() => {
          const rename = (): void => {
            const stop = document.querySelector('button[data-testid="stop-button"]');
            stop?.removeAttribute('data-testid');
            stop?.setAttribute('aria-label', 'Halt');
          };
          new MutationObserver(rename).observe(document.body, { childList: true, subtree: true });
        });
      }
      await page.locator('#prompt-textarea').click();
      await page.keyboard.insertText('Tell me a long story.');
      await page.keyboard.press('Enter');
      await waitForSubmitted(page, 1);
      // The reply streams for about eight seconds.
      const streaming = stream(page, words, { tokenChars: 4, tokenMs: 60, replaceAtEnd: false });
      if (renamed) {
        await expect.poll(() => badgeOn(world, tabId), { timeout: 6_000 }).toBe('!');
        expect(await page.evaluate(() => document.querySelectorAll('[data-message-author-role="assistant"] .markdown')[0]?.textContent?.length ?? 0)).toBeLessThan(words.length);
        const popup = await popupFor(world, tabId);
        await popup.waitForSelector('#doctor[data-state="problem"]');
        expect(await popup.locator('[data-doctor-problem="no-writing-signal"]').textContent()).toContain('never showed it being written');
        await popup.close();
      } else {
        await quietPeriod(4_000);
        expect(await badgeOn(world, tabId)).toBe('');
      }
      await streaming;
      await page.close();
    }
  }, 90_000);

  it('every replica site: the person sends with Enter and a reply streams in; the badge stays clear (the writing checks cry no wolf)', async () => {
    const composers: Array<[ReplicaSite, string]> = [
      ['chatgpt', '#prompt-textarea'],
      ['deepseek', 'textarea#chat-input'],
      ['claude', 'fieldset .ProseMirror'],
      ['gemini', 'rich-textarea .ql-editor'],
      ['kimi', '.chat-input-editor'],
      ['grok', 'form .tiptap.ProseMirror'],
      ['zai', 'textarea#chat-input'],
      ['perplexity', '#ask-input'],
    ];
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    // Every site's page is opened and sent from in turn, then all replies stream at once (each page checks on its own
    // timer): the checks need a reply growing over several seconds, not one site after another.
    const sent: Array<{ site: ReplicaSite; page: Page; tabId: number }> = [];
    for (const [site, composer] of composers) {
      await enableSite(world, site);
      const page = await world.open(site);
      await firstScanDone(page, 15_000);
      await page.locator(composer).click();
      await page.keyboard.insertText('Tell me a story.');
      await page.keyboard.press('Enter');
      await waitForSubmitted(page, 1);
      sent.push({ site, page, tabId: await tabIdOf(world, page) });
    }
    await Promise.all(sent.map(({ page }) => stream(page, words, { tokenChars: 4, tokenMs: 50 })));
    await quietPeriod(2_000);
    for (const { site, page, tabId } of sent) {
      expect(await badgeOn(world, tabId), site).toBe('');
      await page.close();
    }
  }, 150_000);

  it("the popup's doctor keeps a long element name or address inside the popup, light and dark, in English and Chinese", async () => {
    // A build that gives its chat box a long id: one word wider than the popup.
    const id = `composer${'x'.repeat(52)}`;
    for (const [lang, locale] of [[undefined, 'en'], ['zh-CN', 'zh_CN']] as const) {
      const here = lang === undefined ? world : await createWorld({ granted: true, lang });
      try {
        await plainEnabled(here);
        const page = await here.open('plain');
        await firstScanDone(page, 15_000);
        await page.evaluate((long) => void document.querySelector('#prompt')?.setAttribute('id', long), id);
        await wrapsInPopup(here, page, id, locale);
        await page.close();
      } finally {
        if (here !== world) await here.dispose();
      }
    }
  }, 180_000);

  // Last: it stops the companion.
  it('a tab whose page started (or whose problem ended) follows the global badge: the companion going away shows "off" there too', async () => {
    const page = await world.open('chatgpt');
    await firstScanDone(page, 15_000);
    const tabId = await tabIdOf(world, page);
    // The page starting told the badge it has no problem; the tab shows what the toolbar shows.
    await quietPeriod(1_500);
    expect(await badgeOn(world, tabId)).toBe('');
    await world.companion.stop();
    const worker = await world.browser.serviceWorker();
    const globalText = (): Promise<string> => worker.evaluate(() => (globalThis as unknown as { chrome: Chrome }).chrome.action.getBadgeText({}));
    await expect.poll(globalText, { timeout: 60_000 }).toBe('off');
    expect(await badgeOn(world, tabId)).toBe('off');
    await page.close();
  }, 90_000);
});
