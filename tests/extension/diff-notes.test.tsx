import { afterEach, describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../companion/approvals/store';
import { capPreview } from '../../companion/plans/preview-diff';
import { binaryChange, unifiedDiff } from '../../companion/tools/define-handler';
import { DiffView } from '../../extension/ui/diff-view';
import { chipWithRoot } from './chip-root';
import { useLocale } from './i18n-fake';
import { mount, unmountAll } from './preact-mount';

/**
 * The companion's notes in a card's diff — a file too large or too different to diff, text written over or appended
 * to a binary file, a diff cut to size — are made by the companion's own functions here, and read on the card in the
 * person's language: a Chinese card said them in English.
 */

afterEach(() => {
  useLocale('en');
  unmountAll();
});

/** A diff the store cut to the size a card holds, with its note. */
function cutByTheStore(diff: string): string {
  const store = createApprovalStore({ ttlMs: 60_000 });
  const { approval } = store.create({
    runId: 'r-1',
    site: 'chatgpt',
    conversationId: 'c-1',
    tool: 'fs.write',
    risk: 'write',
    args: { path: '/w/a.txt' },
    preview: { title: 'Overwrite /w/a.txt', paths: ['/w/a.txt'], diff },
  });
  store.close();
  return approval.preview.diff!;
}

const changed = '--- /w/c.txt\n+++ /w/c.txt\n@@ -1,1 +1,1 @@\n-c old\n+c new\n';
const big = 'x'.repeat(1_100_000);

describe("the companion's notes on a card's diff", () => {
  it("are said in Chinese on a Chinese card, the drawn changes beside them kept", () => {
    const notes = [
      unifiedDiff('/w/big.bin.txt', '/w/big.bin.txt', big, `${big}y`),
      unifiedDiff('/w/d.txt', '/w/d.txt', 'a\n', 'b\n', 3, Date.now() - 1),
      binaryChange('/w/logo.png', 12, false),
      binaryChange('/w/data.bin', 3, true),
      capPreview(changed, 40),
    ].join('\n'); // as fs.writeBatch joins its files' diffs
    const diff = cutByTheStore(`${changed}${notes}${'+y\n'.repeat(70_000)}`);
    useLocale('zh_CN');
    const root = mount(<DiffView diff={diff} drawnLines={20} />);
    const text = [...root.querySelectorAll('[data-diff="text"]')].map((el) => el.textContent).join('\n');
    expect(text).toContain('（文件太大，无法在此显示差异：改动前 1100000 个字符，改动后 1100001 个字符）');
    expect(text).toContain('（改动太多，1 秒内无法在此算出差异：改动前 2 个字符，改动后 2 个字符）');
    expect(text).toContain('（二进制文件 /w/logo.png 将被替换为 12 个字符的文本）');
    expect(text).toContain('（将向二进制文件 /w/data.bin 追加 3 个字符的文本）');
    // cut by a plan's preview and by the store, each said the same way
    expect(text.match(/…（还有 \d+ 个字符的差异未显示）/g)).toHaveLength(2);
    expect(text).not.toMatch(/too large|too different|binary file|characters of diff not shown|preview cut/);
    expect(root.querySelector('.d2h-diff-tbody')?.textContent).toContain('c new');
  });

  it('are the same words in English, and an MCP tool\'s arguments that read like one are shown as they are sent', () => {
    const note = binaryChange('/w/logo.png', 12, false);
    expect(mount(<DiffView diff={note} />).textContent).toBe(note);
    useLocale('zh_CN');
    const args = `{\n  "text": "x"\n}\n${note}`;
    expect(mount(<DiffView diff={args} toolArguments />).textContent).toBe(args);
  });
});

describe("the companion's notes on a chip's approval card", () => {
  // the chip in the chat page drew its diff line by line as the companion sent it: the notes stayed English there
  it('are said in Chinese on a Chinese page, the changes beside them kept; an MCP tool\'s arguments are shown as sent', () => {
    const notes = [
      unifiedDiff('/w/big.bin.txt', '/w/big.bin.txt', big, `${big}y`),
      binaryChange('/w/logo.png', 12, false),
      binaryChange('/w/data.bin', 3, true),
      capPreview(changed, 40),
    ].join('\n');
    const diff = `${changed}${notes}`;
    useLocale('zh_CN');
    const { chip, root } = chipWithRoot();
    const approval = { tool: 'fs.writeBatch', title: '写入 3 个文件', paths: ['/w/c.txt'], diff };
    chip.update({ kind: 'mcp-request', state: 'approval', actions: ['stop'], approval });
    const text = root.querySelector('.card pre')!.textContent!;
    expect(text).toContain('（文件太大，无法在此显示差异：改动前 1100000 个字符，改动后 1100001 个字符）');
    expect(text).toContain('（二进制文件 /w/logo.png 将被替换为 12 个字符的文本）');
    expect(text).toContain('（将向二进制文件 /w/data.bin 追加 3 个字符的文本）');
    expect(text).toMatch(/…（还有 \d+ 个字符的差异未显示）/);
    expect(text).not.toMatch(/too large|binary file|characters of diff not shown/);
    expect(root.querySelector('.card pre .ins')?.textContent).toBe('+c new\n');
    const note = binaryChange('/w/logo.png', 12, false);
    chip.update({ kind: 'mcp-request', state: 'approval', actions: ['stop'], approval: { tool: 'notes.add', title: 'notes.add', paths: [], diff: note, arguments: true } });
    expect(root.querySelector('.card pre')!.textContent).toBe(`${note}\n`);
  });
});
