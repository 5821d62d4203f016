import { afterEach, describe, expect, it } from 'vitest';
import { CHIP_COLORS, CHIP_KEYS, keyTarget, type ChipAction, type ChipModel } from '../../extension/ui/chip';
import { chipWithRoot } from './chip-root';
import { readPageTheme, watchPageTheme } from '../../extension/ui/page-theme';
import { READ, assistantRow, buildPage, renderReply, start, stopPages, trusted, userRow } from './page-harness';
import { contrast } from './contrast';
import { useLocale } from './i18n-fake';

/** A key pressed by a person while the chip (or a button in it) has the focus. */
function press(target: EventTarget, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  // the person put the focus there: a press of their pointer on the chip
  target.dispatchEvent(trusted(new PointerEvent('pointerdown', { bubbles: true, composed: true })));
  const event = trusted(new KeyboardEvent('keydown', { key, bubbles: true, composed: true, cancelable: true, ...init }));
  target.dispatchEvent(event);
  return event;
}

const APPROVAL: ChipModel = {
  kind: 'mcp-request',
  state: 'approval',
  actions: ['stop'],
  approval: { tool: 'fs.write', title: 'write a.txt', paths: ['/w/a.txt'], diff: '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new' },
};

afterEach(() => {
  stopPages();
  document.body.replaceChildren();
  document.documentElement.className = '';
  document.documentElement.removeAttribute('style');
  document.body.removeAttribute('data-ds-dark-theme');
});

describe('chip states', () => {
  const states: Array<[ChipModel['state'], ChipModel['actions']]> = [
    ['writing', []],
    ['ready', ['run']],
    ['queued', ['stop']],
    ['running', ['stop']],
    ['approval', ['stop']],
    ['done', ['rerun']],
    ['failed', ['rerun']],
    ['unreadable', []],
  ];
  it.each(states)('%s: drawn with its colour class, an icon and its buttons', async (state, actions) => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'flycode-call', state, actions });
    // queued/running/done are drawn after a quiet moment
    await new Promise((resolve) => setTimeout(resolve, 300));
    const box = root.querySelector('.chip')!;
    expect(box.classList.contains(`s-${state}`)).toBe(true);
    expect(root.querySelector('.icon svg path')?.getAttribute('d')).toMatch(/^M/);
    expect(root.querySelector('.icon')?.getAttribute('aria-hidden')).toBe('true');
    expect(Array.from(root.querySelectorAll('.row button')).map((b) => b.getAttribute('data-action'))).toEqual(actions);
    expect(chip.host.getAttribute('role')).toBe('group');
    expect(chip.host.tabIndex).toBe(0);
  });

  it("tells a screen reader when its block comes to wait for an approval and when it ends, not of a block found so", async () => {
    const { chip, root } = chipWithRoot();
    const said = () => root.querySelector('[role="status"]')!.textContent;
    chip.update({ kind: 'mcp-request', state: 'running', actions: ['stop'] });
    expect(said()).toBe('');
    chip.update(APPROVAL);
    expect(said()).toBe('chatbridge mcp-request: waiting for approval. fs.write: write a.txt');
    chip.update({ kind: 'mcp-request', state: 'done', actions: ['rerun'], note: 'result sent' });
    expect(said()).toBe('chatbridge mcp-request: done. result sent');
    // the same again (a scan of the message) is not said twice; the live region is the same element throughout
    const region = root.querySelector('[role="status"]')!;
    const changes: MutationRecord[] = [];
    const watching = new MutationObserver((records) => changes.push(...records));
    watching.observe(region, { childList: true, characterData: true, subtree: true });
    chip.update({ kind: 'mcp-request', state: 'done', actions: ['rerun'], note: 'result sent', preview: 'OK' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    watching.disconnect();
    expect(changes).toEqual([]);
    expect(root.querySelector('[role="status"]')).toBe(region);
    expect(said()).toBe('chatbridge mcp-request: done. result sent');
    // a chip drawn for a block already done (the conversation's history) says nothing
    const history = chipWithRoot();
    history.chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], note: 'NOT_FOUND' });
    history.chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], note: 'NOT_FOUND', preview: 'x' });
    expect(history.root.querySelector('[role="status"]')!.textContent).toBe('');
  });

  it('every button names its key, in its title and aria-keyshortcuts; the host lists the keys it answers to now', () => {
    const { chip, root } = chipWithRoot();
    chip.update(APPROVAL);
    const buttons = Array.from(root.querySelectorAll('button'));
    expect(buttons.map((b) => [b.getAttribute('data-action'), b.getAttribute('aria-keyshortcuts')])).toEqual([
      ['stop', 'S'],
      ['approve', 'A'],
      ['approve-conversation', 'C'],
      ['deny', 'D'],
    ]);
    expect(buttons.find((b) => b.getAttribute('data-action') === 'approve')?.title).toBe('Approve (A)');
    expect(chip.host.getAttribute('aria-keyshortcuts')).toBe('S A C D');
    expect(chip.host.title).toBe('Keys (when the chip has the focus): S Stop · A Approve · C Approve for this conversation · D Deny');
    chip.update({ kind: 'mcp-request', state: 'writing', actions: [] });
    expect(chip.host.hasAttribute('aria-keyshortcuts')).toBe(false);
    expect(chip.host.hasAttribute('title')).toBe(false);
  });

  it('colours the diff in the approval card by line, as text', () => {
    const { chip, root } = chipWithRoot();
    chip.update({ ...APPROVAL, approval: { ...APPROVAL.approval!, diff: '--- a\n+++ b\n@@ -1 +1 @@\n-<b>old</b>\n+<i>new</i>' } });
    expect(root.querySelector('.card pre .del')?.textContent).toBe('-<b>old</b>\n');
    expect(root.querySelector('.card pre .ins')?.textContent).toBe('+<i>new</i>\n');
    expect(root.querySelector('.card pre .hunk')?.textContent).toBe('@@ -1 +1 @@\n');
    expect(root.querySelector('.card b, .card i')).toBeNull();
  });

  it('names each box that scrolls, as it is a keyboard stop: the diff, an MCP tool\'s arguments, the command, the paths, the result', () => {
    const { chip, root } = chipWithRoot();
    const names = (): Array<string | null> => [...root.querySelectorAll('pre')].map((pre) => (pre.tabIndex === 0 ? pre.getAttribute('aria-label') : 'not a stop'));
    chip.update(APPROVAL);
    expect(names()).toEqual(['The changes, file by file']);
    chip.update({ ...APPROVAL, approval: { ...APPROVAL.approval!, tool: 'notes.add', diff: '{\n  "text": "hi"\n}', arguments: true } });
    expect(names()).toEqual(['The arguments the tool is called with']);
    chip.update({ ...APPROVAL, approval: { tool: 'shell.exec', title: 'Run npm test', paths: [], command: 'npm test', cwd: '/w' } });
    expect(names()).toEqual(['The command and where it runs']);
    // the scripts the command runs, pinned by the companion, are named under it
    chip.update({ ...APPROVAL, approval: { tool: 'process.run', title: 'Run bash', paths: [], command: '"bash" "run.sh"', cwd: '/w', runs: ['/w/run.sh'] } });
    expect(root.querySelector('pre')!.textContent).toBe('$ "bash" "run.sh"\n(in /w)\n(runs, as it is now: /w/run.sh)');
    // and what it runs that the companion cannot pin
    chip.update({ ...APPROVAL, approval: { tool: 'shell.exec', title: 'Run', paths: [], command: 'bash $SCRIPT', cwd: '/w', unpinned: ['$SCRIPT'] } });
    // in plain words, with no brackets inside the line's own
    expect(root.querySelector('pre')!.textContent).toBe(
      '$ bash $SCRIPT\n(in /w)\n(part of this command is known only when it runs, so chatbridge cannot show what it runs or check it for changes; look at it yourself before you approve: $SCRIPT)',
    );
    useLocale('zh_CN');
    chip.update({ ...APPROVAL, approval: { tool: 'shell.exec', title: 'Run', paths: [], command: 'cd $X && make -f $MK', cwd: '/w', unpinned: ['cd $X', '$MK'] } });
    expect(root.querySelector('pre')!.textContent).toBe(
      '$ cd $X && make -f $MK\n(目录 /w)\n(此命令的一部分要到运行时才确定，chatbridge 无法显示它运行的内容，也无法检查其是否被改动；批准前请自己查看：cd $X, $MK)',
    );
    useLocale('en');
    chip.update({ ...APPROVAL, approval: { tool: 'fs.read', title: 'Read 2 files', paths: ['/w/a', '/w/b'] } });
    expect(names()).toEqual(['The paths']);
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: 'NOT_FOUND' });
    expect(names()).toEqual(['Result']);
    useLocale('zh_CN');
    const zh = chipWithRoot();
    zh.chip.update({ ...APPROVAL, approval: { tool: 'shell.exec', title: 'Run npm test', paths: [], command: 'npm test', cwd: '/w' } });
    expect(zh.root.querySelector('pre')!.getAttribute('aria-label')).toBe('命令及其运行位置');
  });

  it('puts the companion\'s warning about hidden characters first in the card, as an alert; none without one', () => {
    const { chip, root } = chipWithRoot();
    chip.update(APPROVAL);
    expect(root.querySelector('.card .warning')).toBeNull();
    const warning = 'This holds a character you could not see (U+202E RIGHT-TO-LEFT OVERRIDE); <b>each</b> is shown as ⟨U+…⟩.';
    chip.update({ ...APPROVAL, approval: { ...APPROVAL.approval!, warning } });
    const first = root.querySelector('.card')?.firstElementChild;
    expect(first?.className).toBe('warning');
    expect(first?.getAttribute('role')).toBe('alert');
    expect(first?.textContent).toBe(warning);
    expect(root.querySelector('.card b')).toBeNull();
  });
});

describe('chip keyboard shortcuts', () => {
  it('R runs a ready block; keys with a modifier, repeats and other keys do nothing and stay with the page', () => {
    const actions: ChipAction[] = [];
    const { chip } = chipWithRoot((a) => actions.push(a));
    chip.update({ kind: 'mcp-request', state: 'ready', actions: ['run'] });
    expect(press(chip.host, 'r', { ctrlKey: true }).defaultPrevented).toBe(false);
    expect(press(chip.host, 'r', { metaKey: true }).defaultPrevented).toBe(false);
    expect(press(chip.host, 'r', { repeat: true }).defaultPrevented).toBe(false);
    expect(press(chip.host, 'x').defaultPrevented).toBe(false);
    expect(press(chip.host, 'a').defaultPrevented).toBe(false); // nothing to approve
    expect(press(chip.host, 'Enter').defaultPrevented).toBe(false);
    expect(actions).toEqual([]);
    const taken = press(chip.host, 'R');
    expect(taken.defaultPrevented).toBe(true);
    expect(actions).toEqual(['run']);
  });

  it('a key a page script dispatches does nothing (attack: page presses A on the approval)', () => {
    const actions: ChipAction[] = [];
    const { chip } = chipWithRoot((a) => actions.push(a));
    chip.update(APPROVAL);
    chip.host.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
    chip.host.dispatchEvent(new KeyboardEvent('keydown', { key: 'c', bubbles: true }));
    expect(actions).toEqual([]);
  });

  it('a person\'s key on a chip a page script focused does nothing (attack: the page moves the focus onto the approval while the person types)', () => {
    const actions: ChipAction[] = [];
    const { chip } = chipWithRoot((a) => actions.push(a));
    chip.update(APPROVAL);
    // the page's own script: the host is in its DOM and focusable
    chip.host.focus();
    expect(document.activeElement).toBe(chip.host);
    // the person, typing "a…" into what they take for the chat box
    for (const key of ['a', 'c']) {
      const event = trusted(new KeyboardEvent('keydown', { key, bubbles: true, composed: true, cancelable: true }));
      chip.host.dispatchEvent(event);
      expect(event.defaultPrevented, key).toBe(false);
    }
    expect(actions).toEqual([]);
    // the page intercepting the person's Tab and focusing the chip itself is no better
    const tab = trusted(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }));
    document.body.addEventListener('keydown', (event) => {
      event.preventDefault();
      chip.host.blur();
      chip.host.focus();
    }, { once: true });
    document.body.dispatchEvent(tab);
    expect(document.activeElement).toBe(chip.host);
    chip.host.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'a', bubbles: true, composed: true, cancelable: true })));
    expect(actions).toEqual([]);
    // the person's own Tab onto the chip (the browser moves the focus as the Tab's default action): keys work
    chip.host.blur();
    const own = trusted(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }));
    document.body.dispatchEvent(own);
    chip.host.focus();
    chip.host.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'a', bubbles: true, composed: true, cancelable: true })));
    expect(actions).toEqual(['approve']);
  });

  it('A, C and D decide an approval; S stops', () => {
    for (const [key, action] of [['a', 'approve'], ['c', 'approve-conversation'], ['d', 'deny'], ['s', 'stop']] as const) {
      const actions: ChipAction[] = [];
      const { chip } = chipWithRoot((a) => actions.push(a));
      chip.update(APPROVAL);
      press(chip.host, key);
      expect(actions, key).toEqual([action]);
    }
  });

  it('R on a finished block asks first, like the button: the second R runs it again', () => {
    const actions: ChipAction[] = [];
    const { chip, root } = chipWithRoot((a) => actions.push(a));
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: 'boom' });
    press(chip.host, 'r');
    expect(actions).toEqual([]);
    expect(root.querySelector('button[data-action="rerun"]')?.textContent).toContain('Run again?');
    press(chip.host, 'r');
    expect(actions).toEqual(['rerun']);
  });

  it('keys pressed on a focused button inside the chip reach it too; the focus survives a redraw', () => {
    const actions: ChipAction[] = [];
    const { chip, root } = chipWithRoot((a) => actions.push(a));
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'] });
    const rerun = root.querySelector<HTMLButtonElement>('button[data-action="rerun"]')!;
    rerun.focus();
    press(rerun, 'r');
    // redrawn as "Run again?": the new button has the focus
    const again = root.querySelector<HTMLButtonElement>('button[data-action="rerun"]')!;
    expect(again).not.toBe(rerun);
    expect(root.activeElement).toBe(again);
    press(again, 'r');
    expect(actions).toEqual(['rerun']);
  });

  it('while the companion cannot be reached, Run and the approval\'s buttons and keys do nothing and say why; Stop still acts', () => {
    const actions: ChipAction[] = [];
    const { chip, root } = chipWithRoot((a) => actions.push(a));
    const away = "not paired: open chatbridge's popup and type the pairing code the companion printed";
    chip.update({ ...APPROVAL, away });
    const said = "This cannot be decided now. Not paired: open chatbridge's popup and type the pairing code the companion printed. Once chatbridge is connected again, the chip shows where the run stands.";
    expect(root.querySelector('.away')?.textContent).toBe(said);
    expect(chip.host.getAttribute('data-chatbridge-away')).toBe(said);
    for (const action of ['approve', 'approve-conversation', 'deny'] as const) {
      const button = root.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`)!;
      expect(button.getAttribute('aria-disabled'), action).toBe('true');
      expect(button.getAttribute('aria-describedby'), action).toBe('away');
      button.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true, composed: true })));
      press(chip.host, CHIP_KEYS[action]);
    }
    expect(actions).toEqual([]);
    expect(chip.host.getAttribute('aria-keyshortcuts')).toBe('S');
    press(chip.host, 's');
    expect(actions).toEqual(['stop']);

    actions.length = 0;
    chip.update({ kind: 'mcp-request', state: 'ready', actions: ['run'], away });
    expect(root.querySelector('.away')?.textContent).toBe("This cannot run now. Not paired: open chatbridge's popup and type the pairing code the companion printed.");
    expect(root.querySelector('button[data-action="run"]')!.getAttribute('aria-disabled')).toBe('true');
    press(chip.host, 'r');
    expect(actions).toEqual([]);
    expect(keyTarget({ kind: 'mcp-request', state: 'ready', actions: ['run'], away }, 'r')).toBeNull();
    // Connected again: the same chip acts.
    chip.update({ kind: 'mcp-request', state: 'ready', actions: ['run'] });
    expect(root.querySelector('.away')).toBeNull();
    expect(chip.host.hasAttribute('data-chatbridge-away')).toBe(false);
    expect(root.querySelector('button[data-action="run"]')!.hasAttribute('aria-disabled')).toBe(false);
    press(chip.host, 'r');
    expect(actions).toEqual(['run']);
  });

  it('keyTarget: only what the chip offers now', () => {
    const ready: ChipModel = { kind: 'axon', state: 'ready', actions: ['run'] };
    expect(keyTarget(ready, 'r')).toBe('run');
    expect(keyTarget(ready, 's')).toBeNull();
    expect(keyTarget(ready, 'p')).toBeNull();
    expect(keyTarget({ ...ready, state: 'done', actions: ['rerun'], preview: 'x' }, 'R')).toBe('rerun');
    expect(keyTarget({ ...ready, state: 'done', actions: ['rerun'], preview: 'x' }, 'P')).toBe('fold');
    expect(keyTarget({ ...APPROVAL, approval: undefined }, 'a')).toBeNull();
    expect(keyTarget(null, 'r')).toBeNull();
    expect(keyTarget(ready, 'ArrowRight')).toBeNull();
    expect(new Set(Object.values(CHIP_KEYS)).size).toBe(8); // run and rerun share R, every other key is its own
  });
});

describe('chip result fold', () => {
  it('the result is folded at first; P and a click on its summary open and shut it, and it stays open across redraws', async () => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: '\nfirst line of the answer\nsecond' });
    const details = (): HTMLDetailsElement => root.querySelector('details')!;
    expect(details().open).toBe(false);
    expect(chip.host.getAttribute('data-chatbridge-preview')).toBe('folded');
    expect(root.querySelector('summary .snippet')?.textContent).toBe('first line of the answer');
    expect(root.querySelector('summary .tag')?.textContent).toBe('Result');
    expect(root.querySelector('summary')?.getAttribute('aria-keyshortcuts')).toBe('P');
    press(chip.host, 'p');
    expect(details().open).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the toggle event is async
    expect(chip.host.getAttribute('data-chatbridge-preview')).toBe('open');
    // A new note redraws the chip: the person's choice holds.
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: '\nfirst line of the answer\nsecond', note: 'result sent' });
    expect(details().open).toBe(true);
    press(chip.host, 'P');
    expect(details().open).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(chip.host.getAttribute('data-chatbridge-preview')).toBe('folded');
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'] });
    expect(chip.host.hasAttribute('data-chatbridge-preview')).toBe(false);
  });

  it("the folded line shows the answer's first line of content, not its fence", () => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: '```mcp-response\n{"jsonrpc":"2.0","id":"call-1"}\n```' });
    expect(root.querySelector('summary .snippet')?.textContent).toBe('{"jsonrpc":"2.0","id":"call-1"}');
  });

  it('a long result is shown whole, in a box the keyboard scrolls too', () => {
    const { chip, root } = chipWithRoot();
    chip.update({ kind: 'mcp-request', state: 'failed', actions: ['rerun'], preview: 'x'.repeat(5000) });
    expect(root.querySelector('details pre')!.textContent).toBe('x'.repeat(5000));
    expect(root.querySelector<HTMLElement>('details pre')!.tabIndex).toBe(0);
  });
});

describe('page theme', () => {
  it("reads ChatGPT's class on <html>, DeepSeek's attribute on <body>, an inline color-scheme, then the system", () => {
    expect(readPageTheme(document)).toBe('light'); // happy-dom's system preference is light
    document.documentElement.className = 'dark';
    expect(readPageTheme(document)).toBe('dark');
    document.documentElement.className = 'light';
    document.body.setAttribute('data-ds-dark-theme', 'dark');
    expect(readPageTheme(document)).toBe('light'); // <html> says it first
    document.documentElement.className = '';
    expect(readPageTheme(document)).toBe('dark');
    document.body.removeAttribute('data-ds-dark-theme');
    document.documentElement.setAttribute('style', 'color-scheme: dark;');
    expect(readPageTheme(document)).toBe('dark');
    document.documentElement.setAttribute('style', 'color-scheme: light dark;');
    expect(readPageTheme(document)).toBe('light');
    document.documentElement.removeAttribute('style');
  });

  it('a page that names no theme is read by the background it paints, before the system preference', () => {
    document.body.style.backgroundColor = 'rgb(18, 18, 20)';
    expect(readPageTheme(document)).toBe('dark');
    document.body.style.backgroundColor = 'rgba(0, 0, 0, 0)'; // transparent: <html> or the system decides
    document.documentElement.style.backgroundColor = '#fdfdfd';
    expect(readPageTheme(document)).toBe('light');
    document.documentElement.style.backgroundColor = '';
    document.body.style.backgroundColor = '#212121';
    document.documentElement.className = 'light'; // a named theme still comes first
    expect(readPageTheme(document)).toBe('light');
    document.documentElement.className = '';
    document.body.style.backgroundColor = '';
    expect(readPageTheme(document)).toBe('light');
  });

  it('reports a switch once, and nothing after its signal aborted', async () => {
    const seen: string[] = [];
    const controller = new AbortController();
    expect(watchPageTheme(controller.signal, document, (theme) => seen.push(theme))).toBe('light');
    document.documentElement.className = 'dark';
    await new Promise((resolve) => setTimeout(resolve, 10));
    document.documentElement.classList.add('other');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['dark']);
    controller.abort();
    document.documentElement.className = 'light';
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['dark']);
  });
});

describe('chips on a page follow its theme', () => {
  it("a DeepSeek-like page switched to dark and back: every chip's host says so, new chips too", async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const first = assistantRow();
    renderReply(first.answer, ['old reply', { lang: 'mcp-request', code: READ }]);
    page.list.append(first.row);
    const h = start(page);
    await h.settle();
    const chipOf = (row: Element): Element => row.querySelector('[data-chatbridge-chip]')!;
    expect(chipOf(first.row).getAttribute('data-chatbridge-theme')).toBe('light');
    document.body.setAttribute('data-ds-dark-theme', 'dark');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(chipOf(first.row).getAttribute('data-chatbridge-theme')).toBe('dark');
    const second = assistantRow();
    renderReply(second.answer, ['another', { lang: 'mcp-request', code: READ }]);
    page.list.append(second.row);
    await h.settle();
    expect(chipOf(second.row).getAttribute('data-chatbridge-theme')).toBe('dark');
    document.body.removeAttribute('data-ds-dark-theme');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect([chipOf(first.row), chipOf(second.row)].map((c) => c.getAttribute('data-chatbridge-theme'))).toEqual(['light', 'light']);
  });
});

describe('chip colours', () => {
  it.each(['light', 'dark'] as const)('%s: every text on its surface reads at 4.5:1, every state glyph at 3:1', (theme) => {
    const c = CHIP_COLORS[theme];
    const text: Array<[string, string, string]> = [
      ['text', c.fg, c.bg], ['note', c.muted, c.bg], ['result', c.fg, c.code], ['button', c.fg, c.btn], ['card', c.fg, c['warn-bg']],
      ['state running', c.blue, c.bg], ['state done', c.green, c.bg], ['state failed', c.red, c.bg], ['state approval', c.amber, c.bg],
      ['Stop / Deny', c.red, c.btn], ['Run / Approve', '#ffffff', c.go],
      ['key hint on Run', '#ffffff', c.go], ['key hint on other buttons', c.muted, c.btn],
      ['diff +', c.green, c.code], ['diff -', c.red, c.code], ['diff @@', c.blue, c.code], ['summary', c.muted, c.bg],
    ];
    for (const [what, fg, bg] of text) expect(contrast(fg, bg), `${theme} ${what}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    for (const state of ['blue', 'green', 'red', 'amber', 'grey'] as const) {
      expect(contrast(c.glyph, c[state]), `${theme} glyph on ${state}`).toBeGreaterThanOrEqual(3);
    }
  });
});
