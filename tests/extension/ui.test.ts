import { describe, expect, it } from 'vitest';
import { createChip, type ChipAction } from '../../extension/ui/chip';
import { chipWithRoot } from './chip-root';
import { languageFor, t, uiLanguage } from '../../extension/ui/i18n';
import { LOCALES, useLocale } from './i18n-fake';
import { createIndicator } from '../../extension/ui/indicator';
import { closedDetail } from '../../extension/companion/socket';

describe('chip', () => {
  it('keeps its buttons in a closed shadow root and shows state on the host', () => {
    const chip = createChip(document, () => undefined);
    document.body.replaceChildren(chip.host);
    chip.update({ kind: 'mcp-request', state: 'ready', actions: ['run'], note: 'from earlier in the chat' });
    expect(chip.host.shadowRoot).toBeNull();
    expect(chip.host.querySelector('button')).toBeNull();
    expect(chip.host.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chip.host.getAttribute('data-chatbridge-kind')).toBe('mcp-request');
    expect(chip.host.getAttribute('data-chatbridge-actions')).toBe('run');
    expect(chip.host.getAttribute('data-chatbridge-note')).toBe('from earlier in the chat');
    expect(chip.host.getAttribute('aria-label')).toMatch(/^chatbridge mcp-request: /);
    const boxes = JSON.parse(chip.host.getAttribute('data-chatbridge-buttons')!) as Array<{ action: string }>;
    expect(boxes.map((b) => b.action)).toEqual(['run']);
  });

  it('publishes the approval card buttons for trusted clicks by coordinates', () => {
    const chip = createChip(document, () => undefined);
    document.body.replaceChildren(chip.host);
    chip.update({
      kind: 'mcp-request',
      state: 'approval',
      actions: ['stop'],
      approval: { tool: 'fs.write', title: 'write a.txt', paths: ['/w/a.txt'], diff: '--- a.txt\n+++ a.txt\n+hello' },
    });
    const boxes = JSON.parse(chip.host.getAttribute('data-chatbridge-buttons')!) as Array<{ action: string }>;
    expect(boxes.map((b) => b.action)).toEqual(['stop', 'approve', 'approve-conversation', 'deny']);
  });

  it("a plan's approval card lists every action with its class, its commands and its diff", () => {
    const { chip, root } = chipWithRoot(() => undefined);
    chip.update({
      kind: 'autocoder',
      state: 'approval',
      actions: ['stop'],
      approval: {
        tool: 'autocoder',
        title: 'auto_coder plan s1: 2 file changes, 1 program',
        paths: ['/w/package.json', '/w/notes.txt'],
        diff: '--- a/package.json\n+++ b/package.json\n+evil',
        command: 'tests: npm test',
        cwd: '/w',
        actions: [
          { risk: 'write', label: 'create_file package.json' },
          { risk: 'delete', label: 'delete_file notes.txt' },
          { risk: 'exec', label: 'run tests: npm test' },
        ],
      },
    });
    expect(Array.from(root.querySelectorAll('.card .actions li')).map((li) => li.textContent)).toEqual([
      '[write] create_file package.json',
      '[delete] delete_file notes.txt',
      '[exec] run tests: npm test',
    ]);
    const text = root.querySelector('.card')!.textContent!;
    expect(text).toContain('$ tests: npm test');
    expect(text).toContain('+evil');
  });

  it("on a Chinese screen the card names each action's class and the working directory in Chinese", () => {
    useLocale('zh_CN');
    const { chip, root } = chipWithRoot(() => undefined);
    chip.update({
      kind: 'autocoder',
      state: 'approval',
      actions: ['stop'],
      approval: {
        tool: 'autocoder',
        title: 'auto_coder plan s1: 1 file change, 1 program',
        paths: ['/w/a.txt'],
        command: 'tests: npm test',
        cwd: '/w',
        actions: [
          { risk: 'write', label: 'create_file a.txt' },
          { risk: 'exec', label: 'run tests: npm test' },
        ],
      },
    });
    expect(Array.from(root.querySelectorAll('.card .actions li')).map((li) => li.textContent)).toEqual(['[写入] create_file a.txt', '[执行] run tests: npm test']);
    expect(root.querySelector('.card pre')!.textContent).toBe('$ tests: npm test\n(目录 /w)');
  });

  it('ignores clicks a page script dispatches (attack: page clicks Approve)', () => {
    const actions: ChipAction[] = [];
    // Reach into the closed root the way only our own code could, to dispatch at the real button.
    const { chip, root } = chipWithRoot((a) => actions.push(a));
    chip.update({ kind: 'mcp-request', state: 'approval', actions: [], approval: { tool: 'shell.exec', title: 'rm', paths: [], command: 'rm -rf ~', cwd: '/w' } });
    const approve = root.querySelector<HTMLButtonElement>('button[data-action="approve"]')!;
    approve.click();
    approve.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    chip.host.click();
    expect(actions).toEqual([]);
  });

  it("draws a run's passing states after a quiet moment, while the host tells the state at once", async () => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'mcp-request', state: 'ready', actions: ['run'] });
    expect(root.querySelector('button')?.getAttribute('data-action')).toBe('run');
    chip.update({ kind: 'mcp-request', state: 'running', actions: ['stop'] });
    chip.update({ kind: 'mcp-request', state: 'done', actions: ['rerun'], preview: 'ok' });
    expect(chip.host.getAttribute('data-chatbridge-state')).toBe('done');
    expect(chip.host.getAttribute('data-chatbridge-actions')).toBe('rerun');
    expect(root.querySelector('button')?.getAttribute('data-action')).toBe('run');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(root.querySelector('button')?.getAttribute('data-action')).toBe('rerun');
    expect(root.querySelector('pre')?.textContent).toBe('ok');
    // A state that needs the person is drawn at once.
    chip.update({ kind: 'mcp-request', state: 'approval', actions: ['stop'], approval: { tool: 'fs.write', title: 'a.txt', paths: ['/w/a.txt'] } });
    expect(root.querySelector('button[data-action="approve"]')).not.toBeNull();
  });

  it('renders result text as text, never as markup', async () => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'flycode-call', state: 'done', actions: ['rerun'], preview: '<img src=x onerror=alert(1)>' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(root.querySelector('img')).toBeNull();
    expect(root.querySelector('pre')!.textContent).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('indicator', () => {
  it('shows the connection state on its host', () => {
    const indicator = createIndicator(document);
    document.body.replaceChildren(indicator.host);
    indicator.update('disconnected', 'companion at http://127.0.0.1:17890 is not reachable');
    expect(indicator.host.getAttribute('data-chatbridge-connection')).toBe('disconnected');
    indicator.update('connected');
    expect(indicator.host.getAttribute('data-chatbridge-connection')).toBe('connected');
  });

  it("says why it is not connected where a mouse, the keyboard and a screen reader reach it, in the person's language", () => {
    useLocale('zh_CN');
    // what the socket closing means and what to do, its code as a detail (it said '(closed (1006))' in English)
    const AWAY_TIP =
      '本地助手没有响应：请在这台电脑上启动它（在 chatbridge 文件夹中运行 npm start）；chatbridge 会自动重新连接。' +
      '无法连接到本地助手：它没有运行、已经停止，或这台电脑上有程序拦截了它的地址。（详细信息：WebSocket 1006）';
    const original = Element.prototype.attachShadow;
    let root: ShadowRoot | null = null;
    Element.prototype.attachShadow = function (init) {
      root = original.call(this, init);
      return root;
    };
    const indicator = createIndicator(document);
    Element.prototype.attachShadow = original;
    document.body.replaceChildren(indicator.host);
    const shadow = root as unknown as ShadowRoot;
    const badge = () => shadow.querySelector<HTMLElement>('[data-badge]')!;
    const tip = () => shadow.getElementById(badge().getAttribute('aria-describedby') ?? '');

    indicator.update('disconnected', closedDetail(1006, ''));
    expect(badge().textContent).toBe('chatbridge 未连接');
    expect(badge().tabIndex).toBe(0);
    expect(tip()?.textContent).toBe(AWAY_TIP);
    // shown on hover and on keyboard focus, not only as a title a pointer-events:none badge never showed
    const css = shadow.querySelector('style')!.textContent!;
    expect(css).toMatch(/\[data-badge\]\[data-hover\] \+ \[role="tooltip"\][^{]*\[data-badge\]:focus-visible \+ \[role="tooltip"\][^{]*\{[^}]*display: block/);
    // a tip with nothing in it (connected while the badge keeps the focus) is not drawn as an empty box
    expect(css.slice(0, css.indexOf('display: block'))).not.toMatch(/\+ \[role="tooltip"\]:not\(\[data-dismissed\]\)[ ,{]/);
    // the pointer goes through to the site's own control in that corner (a help button, a narrow window's Send):
    // hovering is the pointer over the badge's box
    expect(getComputedStyle(indicator.host).pointerEvents).toBe('none');
    expect(getComputedStyle(badge()).pointerEvents).not.toBe('auto');
    badge().getBoundingClientRect = () => new DOMRect(900, 700, 80, 20);
    const pointer = (x: number, y: number) => window.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y }));
    pointer(940, 710);
    expect(badge().hasAttribute('data-hover')).toBe(true);
    pointer(940, 650);
    expect(badge().hasAttribute('data-hover')).toBe(false);

    // Escape hides the tip and, like a key the chip takes, does not reach the page
    const reached: string[] = [];
    document.addEventListener('keydown', (event) => reached.push(event.key));
    badge().dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    expect(tip()?.hasAttribute('data-dismissed')).toBe(true);
    expect(reached).toEqual([]);
    // the socket trying again while the companion is away (every 1 to 30 s) neither brings the tip back nor hides it
    indicator.update('connecting');
    expect(tip()?.hasAttribute('data-dismissed')).toBe(true);
    expect(badge().textContent).toBe('chatbridge 未连接');
    indicator.update('disconnected', closedDetail(1006, ''));
    expect(tip()?.hasAttribute('data-dismissed')).toBe(true);
    badge().dispatchEvent(new FocusEvent('blur'));
    expect(tip()?.hasAttribute('data-dismissed')).toBe(false);
    pointer(940, 710);
    indicator.update('connecting');
    expect(badge().hasAttribute('data-hover')).toBe(true);
    expect(tip()?.textContent).toBe(AWAY_TIP);
    pointer(940, 650);

    indicator.update('unpaired', t('conn.tokenRefused'));
    expect(tip()?.textContent).toBe(t('conn.tokenRefused'));
    indicator.update('unpaired');
    expect(tip()?.textContent).toBe(t('conn.notPaired'));
    // connected, there is nothing more to say: no keyboard stop on every chat page, and clicks pass through
    indicator.update('connected');
    expect(badge().tabIndex).toBe(-1);
    expect(badge().hasAttribute('aria-describedby')).toBe(false);
    pointer(940, 710);
    expect(badge().hasAttribute('data-hover')).toBe(false);
  });
});

describe('i18n', () => {
  it('has every English message in Chinese, none empty', () => {
    expect(Object.keys(LOCALES).sort()).toEqual(['en', 'zh_CN']);
    expect(Object.keys(LOCALES.zh_CN!).sort()).toEqual(Object.keys(LOCALES.en!).sort());
    for (const [key, value] of Object.entries(LOCALES.zh_CN!)) expect(value.message.trim(), key).not.toBe('');
  });
  it('follows the browser language: zh-* reads Chinese, anything else English', () => {
    expect(languageFor('zh-CN')).toBe('zh');
    expect(languageFor('zh-Hant-TW')).toBe('zh');
    expect(languageFor('en-US')).toBe('en');
    expect(languageFor(undefined)).toBe('en');
    expect(t('action.approve')).toBe('Approve');
    expect(uiLanguage()).toBe('en');
    useLocale('zh_CN');
    expect(t('action.approve')).toBe('批准');
    expect(uiLanguage()).toBe('zh');
  });
});
