import { afterEach, describe, expect, it } from 'vitest';
import { DiffView, DRAWN_DIFF_LINES, shownParts } from '../../extension/ui/diff-view';
import { useLocale } from './i18n-fake';
import { mount, unmountAll } from './preact-mount';

/**
 * A card's diff of a long file: diff2html lays every line out as a table row, so a new file of 5 000 lines held the
 * side panel (and the popup, in the same process) for seconds before Approve or Deny answered. The first lines are
 * drawn, the rest shown as plain text, all of it there, and the card says so.
 */

const newFile = (lines: number): string =>
  `--- /dev/null\n+++ /w/big.ts\n@@ -0,0 +1,${lines} @@\n${Array.from({ length: lines }, (_, i) => `+const line${i} = ${i};`).join('\n')}\n`;

afterEach(() => {
  useLocale('en');
  unmountAll();
});

describe('a long diff on an approval card', () => {
  it('of a 5 000-line file has its first lines drawn and the rest shown as plain text, none left out', () => {
    const diff = newFile(5_000);
    const { parts, rest, restAt } = shownParts(diff);
    expect(parts.map((part) => part.drawn)).toEqual([true, false]);
    expect(parts[0]!.text.split('\n')).toHaveLength(3 + DRAWN_DIFF_LINES);
    expect(parts[0]!.text.endsWith(`+const line${DRAWN_DIFF_LINES - 1} = ${DRAWN_DIFF_LINES - 1};`)).toBe(true);
    expect(`${parts[0]!.text}\n${parts[1]!.text}`).toBe(diff.trimEnd());
    expect([rest, restAt]).toEqual([5_000 - DRAWN_DIFF_LINES, 1]);
  });

  it('draws only the lines it may and says, in English and Chinese, that the rest is plain text', () => {
    const root = mount(<DiffView diff={newFile(300)} drawnLines={20} />);
    // the hunk's header row and the lines drawn
    expect(root.querySelectorAll('.d2h-diff-tbody tr')).toHaveLength(21);
    expect(root.querySelector('.d2h-diff-tbody')?.textContent).toContain('const line19 = 19;');
    const plain = [...root.querySelectorAll('[data-diff="text"]')].map((el) => el.textContent).join('\n');
    for (const line of [20, 150, 299]) expect(plain).toContain(`+const line${line} = ${line};`);
    expect(plain).not.toContain('line19 =');
    const note = root.querySelector('[data-diff-rest]')!;
    expect(note.nextElementSibling?.getAttribute('data-diff')).toBe('text');
    expect(note.textContent).toBe(
      'The next 280 lines of this diff are shown as plain text, without colours: drawing every line of a diff this long would hold this page for seconds',
    );
    useLocale('zh_CN');
    const zh = mount(<DiffView diff={newFile(21)} drawnLines={20} />);
    expect(zh.querySelector('[data-diff-rest]')?.textContent).toBe('此差异接下来的 1 行以纯文本（不着色）显示：逐行绘制这么长的差异会让页面卡住数秒');
  });

  it('is cut after a line of a hunk, a later file drawn no more, and a short diff is drawn whole with nothing said', () => {
    const small = '--- /w/a.txt\n+++ /w/a.txt\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n';
    const { parts, rest, restAt } = shownParts(`${small}--- /w/b.txt\n+++ /w/b.txt\n@@ -1 +1 @@\n-b\n+c\n`, 2);
    expect(parts).toEqual([
      { drawn: true, text: '--- /w/a.txt\n+++ /w/a.txt\n@@ -1,2 +1,2 @@\n-old\n+new' },
      { drawn: false, text: ' same\n--- /w/b.txt\n+++ /w/b.txt\n@@ -1 +1 @@\n-b\n+c' },
    ]);
    expect([rest, restAt]).toEqual([6, 1]);
    expect(shownParts(small)).toEqual({ parts: [{ drawn: true, text: small.trimEnd() }], rest: 0, restAt: -1 });
    const root = mount(<DiffView diff={small} />);
    expect(root.querySelector('[data-diff-rest]')).toBeNull();
    // the hunk's header row and its three lines
    expect(root.querySelectorAll('.d2h-diff-tbody tr')).toHaveLength(4);
  });
});
