import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalSchema, type Approval, type ApprovalDecision, type AuditItem, type JournalItem, type ProgramItem } from '../../extension/companion/api-types';
import type { ConnectionInfo, PagePush, RecentRun, RequestMap, RequestType } from '../../extension/messaging';
import type { PreviewHeading } from '../../shared/api';
import { ApprovalCard } from '../../extension/ui/approval-card';
import { UNSAVED_CONVERSATION_PREFIX } from '../../shared/conversation-key';
import { AUDIT_LIMIT, createLive, type LiveSource, type LiveState } from '../../extension/ui/live';
import { OptionsView } from '../../extension/ui/options';
import { PopupView, type PopupDeps } from '../../extension/ui/popup';
import { approvalFromHash, SidePanel, SidePanelView, type PanelActions } from '../../extension/ui/side-panel';
import { defaultSiteSettings, type SiteSettings } from '../../extension/site-settings';
import { closedDetail } from '../../extension/companion/socket';
import { useLocale } from './i18n-fake';
import { mount, unmountAll } from './preact-mount';

// ------------------------------------------------------------------------------------------------ fixtures

const DIFF = '--- /w/a.txt\n+++ /w/a.txt\n@@ -1,1 +1,1 @@\n-old line\n+<img src=x onerror="alert(1)"> new line\n';

function approval(over: Partial<Approval> = {}): Approval {
  return {
    id: 'confirm-1',
    runId: 'run-1',
    site: 'chatgpt',
    conversationId: 'c-1',
    tool: 'fs.write',
    risk: 'write',
    argsHash: 'a'.repeat(64),
    preview: { title: 'Overwrite /w/a.txt', paths: ['/w/a.txt'], diff: DIFF },
    createdAt: '2026-11-23T10:00:00.000Z',
    expiresAt: '2026-11-23T10:05:00.000Z',
    state: 'pending',
    ...over,
  };
}

const EXEC = approval({ id: 'confirm-2', tool: 'shell.exec', risk: 'exec', preview: { title: 'Run npm test', paths: [], command: 'npm test', cwd: '/w/app' } });

const PROGRAM: ProgramItem = {
  id: 'p-1',
  name: 'dev',
  command: 'npm run dev',
  cwd: '/w',
  origin: { runId: 'run-3', site: 'deepseek', conversationId: 'c-2' },
  status: 'running',
  startedAt: '2026-11-23T10:00:00.000Z',
};

const RUN: RecentRun = {
  runId: 'run-1',
  status: 'done',
  kind: 'mcp-request',
  site: 'chatgpt',
  conversationId: 'c-1',
  at: Date.parse('2026-11-23T10:00:00.000Z'),
  preview: '```mcp-request …',
  url: 'https://chatgpt.com/c/c-1',
  result: 'WRITE_SUCCESS',
  endedAt: Date.parse('2026-11-23T10:00:01.500Z'),
};

const JOURNAL: JournalItem = {
  id: 'j-1',
  time: '2026-11-23T10:00:01.000Z',
  label: 'fs.write /w/a.txt',
  origin: { runId: 'run-1', site: 'chatgpt', conversationId: 'c-1' },
  paths: ['/w/a.txt'],
  state: 'applied',
};

function audit(over: Partial<AuditItem>): AuditItem {
  return {
    time: '2026-11-23T10:00:01.000Z',
    auditId: 'a-1',
    runId: 'run-1',
    site: 'chatgpt',
    conversationId: 'c-1',
    kind: 'mcp-request',
    tool: 'fs.write',
    paths: ['/w/a.txt'],
    commands: [],
    decision: 'approve',
    outcome: 'ok',
    durationMs: 1500,
    ...over,
  };
}

const CONNECTED: ConnectionInfo = { state: 'connected', companionUrl: 'http://127.0.0.1:17890' };

function state(over: Partial<LiveState> = {}): LiveState {
  const read: LiveState['read'] = ['approvals', 'grants', 'programs', 'runs', 'journal', 'audit'];
  return { connection: CONNECTED, approvals: [], grants: [], programs: [], ended: [], runs: [], journal: [], audit: [], output: {}, loaded: true, read, error: '', ...over };
}

/** A click as a person's: happy-dom marks no event trusted, so the flag is set the way the browser would. */
function trustedClick(el: Element): void {
  const event = new MouseEvent('click', { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'isTrusted', { value: true });
  el.dispatchEvent(event);
}

/** Waits (re-rendering) until `selector` is in `root`: the diff renderer is loaded on first use. */
async function shown(root: Element, selector: string): Promise<Element> {
  for (let i = 0; i < 200; i += 1) {
    const found = root.querySelector(selector);
    if (found) return found;
    await act(async () => await new Promise((resolve) => setTimeout(resolve, 10)));
  }
  throw new Error(`${selector} never appeared`);
}

/** Opens the first folded diff in `root` as a person's click on its summary does. */
async function unfold(root: Element): Promise<void> {
  const details = root.querySelector('details')!;
  await act(async () => {
    details.open = true;
    details.dispatchEvent(new Event('toggle'));
  });
}

afterEach(() => {
  unmountAll();
});

// ------------------------------------------------------------------------------------------------ approval card

describe('approval card', () => {
  it('draws the diff with diff2html, the file content as text, and decides only on a trusted click', async () => {
    const decisions: string[] = [];
    const root = mount(<ApprovalCard approval={approval()} onDecide={(d) => decisions.push(d)} />);
    const card = root.querySelector('[data-approval="confirm-1"]')!;
    // plain text first, then diff2html once it is loaded
    expect(card.querySelector('[data-diff="plain"]')?.textContent).toBe(DIFF);
    await shown(card, '.d2h-ins');
    const text = (selector: string): string => [...card.querySelectorAll(selector)].map((el) => el.textContent).join('');
    expect(text('.d2h-ins')).toContain('<img src=x onerror="alert(1)"> new line');
    expect(text('.d2h-del')).toContain('old line');
    expect(card.querySelector('img')).toBeNull();
    (card.querySelector('[data-decision="approve"]') as HTMLButtonElement).click();
    expect(decisions).toEqual([]);
    for (const decision of ['approve', 'approve-conversation', 'deny']) trustedClick(card.querySelector(`[data-decision="${decision}"]`)!);
    expect(decisions).toEqual(['approve', 'approve-conversation', 'deny']);
  });

  it("the diff's file tag is in the person's language (diff2html writes English)", async () => {
    useLocale('zh_CN');
    const root = mount(<ApprovalCard approval={approval()} onDecide={() => undefined} />);
    const tag = await shown(root, '.d2h-tag');
    expect(tag.textContent).toBe('修改');
    useLocale('en');
    const en = mount(<ApprovalCard approval={approval()} onDecide={() => undefined} />);
    expect((await shown(en, '.d2h-tag')).textContent).toBe('changed');
    // a file the call creates: the companion diffs it from /dev/null, and the card says new
    const created = approval({ id: 'confirm-new', preview: { title: 'Create /w/new.txt', paths: ['/w/new.txt'], diff: '--- /dev/null\n+++ /w/new.txt\n@@ -0,0 +1,1 @@\n+hi\n' } });
    const fresh = mount(<ApprovalCard approval={created} onDecide={() => undefined} />);
    expect((await shown(fresh, '.d2h-tag')).textContent).toBe('new');
    // and a file a plan deletes, to /dev/null, is deleted (diff2html took both for renames)
    const removed = approval({ id: 'confirm-rm', preview: { title: 'plan', paths: ['/w/old.txt'], diff: '--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n' } });
    const gone = mount(<ApprovalCard approval={removed} onDecide={() => undefined} />);
    expect((await shown(gone, '.d2h-tag')).textContent).toBe('deleted');
  });

  it("an MCP server tool's arguments, which its card shows in place of a diff, are shown whole (diff2html drew nothing of them)", async () => {
    const args = JSON.stringify({ query: 'DROP TABLE users', database: 'prod' }, null, 2);
    const call = approval({ id: 'confirm-mcp', tool: 'db.query', risk: 'exec', preview: { title: 'db.query — MCP server "db", tool "query"', paths: [], diff: args } });
    const panel = mount(<ApprovalCard approval={call} onDecide={() => undefined} />);
    // once the diff renderer is loaded (until then the text is shown as it is)
    await shown(panel, '[data-approval="confirm-mcp"] [data-diff="text"]');
    expect(panel.querySelector('[data-approval="confirm-mcp"]')!.textContent).toContain('"query": "DROP TABLE users"');
    expect(panel.querySelector('[data-approval="confirm-mcp"]')!.textContent).toContain('"database": "prod"');
    // so is a file too large to diff here, with the reason
    const big = approval({ id: 'confirm-big', preview: { title: 'Overwrite /w/big.txt', paths: ['/w/big.txt'], diff: '--- /w/big.txt\n+++ /w/big.txt\n(too large to diff here: 3000000 characters before, 10 after)\n' } });
    const large = mount(<ApprovalCard approval={big} onDecide={() => undefined} />);
    expect((await shown(large, '[data-diff="text"]')).textContent).toContain('too large to diff here: 3000000 characters before, 10 after');
  });

  it("an MCP server tool's arguments are called arguments, not changes: the popup's fold, its read-first note and the box's name", async () => {
    const args = JSON.stringify({ query: 'DROP TABLE users' }, null, 2);
    const call = approval({ id: 'confirm-mcp', tool: 'db.query', risk: 'exec', preview: { title: 'db.query — MCP server "db", tool "query"', heading: { kind: 'mcp', server: 'db', tool: 'query' }, paths: [], diff: args } });
    const popup = mount(<ApprovalCard approval={call} onDecide={() => undefined} compact />);
    expect(popup.querySelector('summary')!.textContent).toBe('Show the arguments');
    expect(popup.querySelector('[data-read-first]')!.textContent).toBe('Approve opens the arguments first: read them, then approve.');
    await unfold(popup);
    expect((await shown(popup, '[data-diff="text"]')).getAttribute('aria-label')).toBe('The arguments the tool is called with');
    useLocale('zh_CN');
    const zh = mount(<ApprovalCard approval={call} onDecide={() => undefined} compact />);
    expect(zh.querySelector('summary')!.textContent).toBe('查看参数');
    // a change is still called one
    useLocale('en');
    const change = mount(<ApprovalCard approval={approval()} onDecide={() => undefined} compact />);
    expect(change.querySelector('summary')!.textContent).toBe('Show the changes');
    await unfold(change);
    expect((await shown(change, '[data-diff=""]')).getAttribute('aria-label')).toBe('The changes, file by file');
  });

  it('a file too large to diff beside one with changes, and a diff cut to size, still say so: diff2html draws only the changes', async () => {
    // fs.writeBatch (or a plan) that changes a small file and overwrites a large one; the companion cut the diff
    const diff =
      '--- /w/a.txt\n+++ /w/a.txt\n@@ -1,1 +1,1 @@\n-old line\n+new line\n' +
      '--- /w/big.txt\n+++ /w/big.txt\n(too large to diff here: 3000000 characters before, 10 after)\n' +
      '--- /w/c.txt\n+++ /w/c.txt\n@@ -1,1 +1,1 @@\n-c old\n+c new\n… (52000 more characters of diff not shown)';
    const batch = approval({ id: 'confirm-batch', tool: 'fs.writeBatch', preview: { title: 'Write 3 file(s) all-or-nothing', paths: ['/w/a.txt', '/w/big.txt', '/w/c.txt'], diff } });
    const root = mount(<ApprovalCard approval={batch} onDecide={() => undefined} />);
    const card = root.querySelector('[data-approval="confirm-batch"]')!;
    await shown(card, '.d2h-ins');
    const text = card.textContent!;
    expect(text).toContain('new line');
    expect(text).toContain('c new');
    expect(text).toContain('too large to diff here: 3000000 characters before, 10 after');
    expect(text).toContain('/w/big.txt');
    expect(text).toContain('52000 more characters of diff not shown');
    // in the order of the diff: the large file's reason between the two drawn files, the cut at the end
    const order = ['new line', 'too large to diff here', 'c new', '52000 more characters'].map((part) => text.indexOf(part));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('each button is described by the card it decides: with several cards, "Approve" and "Deny" alone named none', () => {
    const root = mount(
      <>
        <ApprovalCard approval={approval()} onDecide={() => undefined} />
        <ApprovalCard approval={EXEC} onDecide={() => undefined} compact />
      </>,
    );
    const description = (button: Element): string =>
      (button.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => root.querySelector(`#${id}`)?.textContent ?? `(no #${id})`)
        .join(' | ');
    for (const decision of ['approve', 'approve-conversation', 'deny']) {
      expect(description(root.querySelector(`[data-approval="confirm-1"] [data-decision="${decision}"]`)!), decision).toBe('Overwrite /w/a.txt');
      expect(description(root.querySelector(`[data-approval="confirm-2"] [data-decision="${decision}"]`)!), decision).toBe('Run npm test');
    }
  });

  it('offers no "approve for this conversation" in a chat without a conversation id (the companion grants nothing there)', () => {
    const root = mount(<ApprovalCard approval={approval({ conversationId: `${UNSAVED_CONVERSATION_PREFIX}/` })} onDecide={() => undefined} />);
    const decisions = [...root.querySelectorAll('[data-decision]')].map((button) => button.getAttribute('data-decision'));
    expect(decisions).toEqual(['approve', 'deny']);
  });

  it('shows the command and its working directory for exec, and every action of a plan with its class', () => {
    const plan = approval({
      id: 'confirm-3',
      tool: 'autocoder',
      preview: {
        title: 'plan',
        paths: [],
        actions: [
          { risk: 'write', label: 'create_file a.txt', decision: 'confirm' },
          { risk: 'exec', label: 'run tests: npm test', decision: 'confirm' },
        ],
      },
    });
    const root = mount(
      <>
        <ApprovalCard approval={EXEC} onDecide={() => undefined} />
        <ApprovalCard approval={plan} onDecide={() => undefined} />
      </>,
    );
    const exec = root.querySelector('[data-approval="confirm-2"] [data-command]')!;
    expect(exec.textContent).toContain('$ npm test');
    expect(exec.textContent).toContain('/w/app');
    expect([...root.querySelectorAll('[data-approval="confirm-3"] [data-actions] li')].map((li) => li.textContent)).toEqual([
      'write create_file a.txt',
      'exec run tests: npm test',
    ]);
    // the scripts the command runs, pinned by the companion, are named under it
    const script = approval({ id: 'confirm-4', preview: { title: 'Run bash', paths: [], command: '"bash" "run.sh"', cwd: '/w', runs: ['/w/run.sh'] } });
    const scripted = mount(<ApprovalCard approval={script} onDecide={() => undefined} />);
    expect(scripted.querySelector('[data-runs]')!.textContent).toBe('runs, as it is now: /w/run.sh');
    expect(root.querySelector('[data-runs]')).toBeNull();
    expect(root.querySelector('[data-unpinned]')).toBeNull();
    // and what it runs that the companion cannot pin (`bash $SCRIPT`)
    const unknown = approval({ id: 'confirm-5', preview: { title: 'Run', paths: [], command: 'bash $SCRIPT', cwd: '/w', unpinned: ['$SCRIPT'] } });
    const unknownCard = mount(<ApprovalCard approval={unknown} onDecide={() => undefined} />);
    expect(unknownCard.querySelector('[data-unpinned]')!.textContent).toBe(
      'part of this command is known only when it runs, so chatbridge cannot show what it runs or check it for changes; look at it yourself before you approve: $SCRIPT',
    );
    // a Chinese screen names the classes in Chinese, on the card, its actions and what was granted
    useLocale('zh_CN');
    const zh = mount(<ApprovalCard approval={plan} onDecide={() => undefined} />);
    expect([...zh.querySelectorAll('[data-actions] li')].map((li) => li.textContent)).toEqual(['写入 create_file a.txt', '执行 run tests: npm test']);
    expect(zh.querySelector('.row .tag')!.textContent).toBe('写入');
    expect(mount(<ApprovalCard approval={unknown} onDecide={() => undefined} />).querySelector('[data-unpinned]')!.textContent).toBe(
      '此命令的一部分要到运行时才确定，chatbridge 无法显示它运行的内容，也无法检查其是否被改动；批准前请自己查看：$SCRIPT',
    );
  });

  it('shows the companion\'s warning about hidden characters above the title, as an alert; none without one', () => {
    const warning = 'This holds 2 characters you could not see (U+202E RIGHT-TO-LEFT OVERRIDE ×2); each is shown as ⟨U+…⟩.';
    const root = mount(
      <>
        <ApprovalCard approval={approval()} onDecide={() => undefined} />
        <ApprovalCard approval={approval({ id: 'confirm-9', preview: { warning, title: 'Overwrite /w/a⟨U+202E⟩.txt', paths: [] } })} onDecide={() => undefined} />
      </>,
    );
    expect(root.querySelector('[data-approval="confirm-1"] [data-warning]')).toBeNull();
    const shown = root.querySelector('[data-approval="confirm-9"] [data-warning]')!;
    expect(shown.getAttribute('role')).toBe('alert');
    expect(shown.textContent).toBe(warning);
    expect(shown.nextElementSibling?.textContent).toBe('Overwrite /w/a⟨U+202E⟩.txt');
  });

  it("words the title and the hidden-characters warning in the person's language from the companion's facts", () => {
    const hidden = { warning: 'This holds a character you could not see (U+200B ZERO WIDTH SPACE); …', hidden: [{ codePoint: 0x200b, count: 1 }] };
    const write = approval({ preview: { ...hidden, title: 'Create /w/a⟨U+200B⟩.txt', heading: { kind: 'write', mode: 'create', path: '/w/a⟨U+200B⟩.txt' }, paths: [], diff: DIFF } });
    const shell = approval({ id: 'confirm-2', tool: 'shell.exec', risk: 'exec', preview: { title: 'Run in a shell (timeout 60000 ms)', heading: { kind: 'shell', timeoutMs: 60000 }, paths: [], command: 'npm test', cwd: '/w' } });
    const run = approval({ id: 'confirm-run', tool: 'process.run', risk: 'exec', preview: { title: 'Run pytest (timeout 30000 ms)', heading: { kind: 'run', program: 'pytest', timeoutMs: 30_000 }, paths: [], command: 'pytest', cwd: '/w' } });
    const older = approval({ id: 'confirm-3', preview: { title: 'Overwrite /w/b.txt', paths: ['/w/b.txt'] } });
    const cards = () => (
      <>
        <ApprovalCard approval={run} onDecide={() => undefined} />
        <ApprovalCard approval={write} onDecide={() => undefined} compact />
        <ApprovalCard approval={shell} onDecide={() => undefined} />
        <ApprovalCard approval={older} onDecide={() => undefined} />
      </>
    );
    useLocale('zh_CN');
    const zh = mount(cards());
    const title = (root: HTMLElement, id: string) => root.querySelector(`[data-approval="${id}"] [data-title]`)!.textContent;
    expect(title(zh, 'confirm-1')).toBe('新建 /w/a⟨U+200B⟩.txt');
    // a timeout in minutes or seconds, not 60000 ms
    expect(title(zh, 'confirm-2')).toBe('在 shell 中运行（超时 1 分钟）');
    expect(title(zh, 'confirm-run')).toBe('运行 pytest（超时 30 秒）');
    // a companion that sends no facts: its English title, as before
    expect(title(zh, 'confirm-3')).toBe('Overwrite /w/b.txt');
    // and one that sends a kind this extension does not know: the approval is kept, its English title shown
    const newer = approvalSchema.parse({ ...older, preview: { ...older.preview, heading: { kind: 'teleport', to: '/w' } } });
    expect(newer.preview.heading).toBeUndefined();
    expect(newer.preview.title).toBe('Overwrite /w/b.txt');
    expect(zh.querySelector('[data-approval="confirm-1"]')!.getAttribute('aria-label')).toContain('新建 /w/a⟨U+200B⟩.txt');
    expect(zh.querySelector('[data-approval="confirm-1"] [data-warning]')!.textContent).toBe(
      '这里有 1 个你看不见、或会改变周围文字显示方式的字符（U+200B 零宽空格）；每个都在所在位置显示为 ⟨U+…⟩。实际运行时它们原样保留。',
    );
    useLocale('en');
    const en = mount(cards());
    expect(title(en, 'confirm-1')).toBe('Create /w/a⟨U+200B⟩.txt');
    expect(title(en, 'confirm-2')).toBe('Run in a shell (timeout 1 min)');
    expect(title(en, 'confirm-run')).toBe('Run pytest (timeout 30 s)');

    // a removal and a move of a directory: what it covers, said in Chinese too
    useLocale('zh_CN');
    const rm = approval({ id: 'confirm-rm', tool: 'fs.rm', risk: 'delete', preview: { title: 'Delete /w/src — …', heading: { kind: 'delete', path: '/w/src', what: 'directory', entries: 12 }, paths: ['/w/src'] } });
    const mv = approval({ id: 'confirm-mv', preview: { title: 'Move /w/a → /w/b …', heading: { kind: 'move', from: '/w/a', to: '/w/b', overwrite: true, entries: 3 }, paths: ['/w/a', '/w/b'] } });
    const moved = mount(
      <>
        <ApprovalCard approval={rm} onDecide={() => undefined} />
        <ApprovalCard approval={mv} onDecide={() => undefined} />
      </>,
    );
    expect(title(moved, 'confirm-rm')).toBe('删除 /w/src —— 一个含 12 项的文件夹，其中没有受拒绝规则保护的路径；全部进入撤销回收站');
    const plan = approval({ id: 'confirm-plan', tool: 'autocoder', preview: { title: 'auto_coder plan s1: 2 file changes, 1 program', heading: { kind: 'autocoder', step: 's1', changes: 2, reads: 0, programs: 1 }, paths: [] } });
    const planned = mount(<ApprovalCard approval={plan} onDecide={() => undefined} />);
    expect(title(planned, 'confirm-plan')).toBe('auto_coder 计划 s1：改动 2 个文件，运行 1 个程序');
    const compare = approval({ id: 'confirm-cmp', tool: 'fs.diff', risk: 'read', preview: { title: 'Compare /w/a with the given content', heading: { kind: 'compare', left: '/w/a' }, paths: ['/w/a'] } });
    expect(title(mount(<ApprovalCard approval={compare} onDecide={() => undefined} />), 'confirm-cmp')).toBe('比较 /w/a 与给出的内容');
    expect(title(moved, 'confirm-mv')).toBe('移动 /w/a → /w/b（目标已存在时替换它） — 一个含 3 项的文件夹，其中没有受拒绝规则保护的路径');

    // in English, a count's words follow it as the companion's own titles do: no "file(s)"
    useLocale('en');
    const counted = (id: string, heading: PreviewHeading) => title(mount(<ApprovalCard approval={approval({ id, preview: { title: '…', heading, paths: [] } })} onDecide={() => undefined} />), id);
    expect(counted('c-plan', { kind: 'autocoder', step: 's1', changes: 2, reads: 1, programs: 1 })).toBe('auto_coder plan s1: 2 file changes, 1 read, 1 program');
    expect(counted('c-plan-1', { kind: 'autocoder', changes: 1, reads: 0, programs: 3 })).toBe('auto_coder plan: 1 file change, 3 programs');
    expect(counted('c-axon', { kind: 'axon', acts: 1, files: 2 })).toBe('Axon plan: 1 act, 2 files changed');
    expect(counted('c-batch', { kind: 'write-batch', files: 1 })).toBe('Write 1 file all-or-nothing');
    expect(counted('c-rm', { kind: 'delete', path: '/w/src', what: 'directory', entries: 1 })).toBe(
      'Delete /w/src — a directory with 1 entry, none protected by a deny glob; all of it goes to the undo trash',
    );
    expect(counted('c-mv', { kind: 'move', from: '/w/a | b', to: '/w/c', overwrite: false, entries: 2 })).toBe(
      'Move /w/a | b → /w/c — a directory with 2 entries, none protected by a deny glob',
    );
  });

  it("words the PromptX filesystem tool's title and a refused removal, move or mode change in the person's language", () => {
    const titled = (id: string, heading: unknown, title = 'English title') => {
      const parsed = approvalSchema.parse(approval({ id, preview: { title, heading: heading as PreviewHeading, paths: [] } }));
      expect(parsed.preview.heading, id).toEqual(heading);
      return mount(<ApprovalCard approval={parsed} onDecide={() => undefined} />).querySelector(`[data-approval="${id}"] [data-title]`)!.textContent;
    };
    const edit = { kind: 'filesystem', action: 'edit', paths: ['notes/a.md'] };
    const failing = { ...edit, fails: 'no match for the old text' };
    const sized = { kind: 'filesystem', action: 'list_with_sizes', paths: ['notes'] };
    const move = { kind: 'filesystem', action: 'move', paths: ['a.md', 'b.md'] };
    const rm = { kind: 'refused', change: 'remove', path: '/w/src', protected: '/w/src/.git', glob: '**/.git/**' };
    const mv = { kind: 'refused', change: 'move', path: '/w/a', to: '/w/b', overwrite: true, protected: '/w/a/.chatbridge' };
    const chmod = { kind: 'refused', change: 'chmod', path: '/w/big', mode: '700', current: '0755', limit: 10000 };
    const unread = { kind: 'refused', change: 'remove', path: '/w/x', reason: 'removing "/w/x": "/w/x/y" cannot be read (EACCES)' };
    useLocale('zh_CN');
    expect(titled('zh-edit', edit)).toBe('filesystem 工具：编辑 notes/a.md');
    expect(titled('zh-fails', failing)).toBe('filesystem 工具：编辑 notes/a.md（将会失败：no match for the old text）');
    expect(titled('zh-sized', sized)).toBe('filesystem 工具：列出（含大小） notes');
    expect(titled('zh-move', move)).toBe('filesystem 工具：移动 a.md → b.md');
    expect(titled('zh-rm', rm)).toBe('删除 /w/src —— 受保护：其中有“/w/src/.git”，它符合拒绝规则“**/.git/**”；这次调用会被拒绝');
    expect(titled('zh-mv', mv)).toBe(
      '移动 /w/a → /w/b（目标已存在时替换它） — 受保护：其中有“/w/a/.chatbridge”，那是 chatbridge 自己的数据文件夹或配置文件，无论配置如何，任何工具都不能读取或改动；这次调用会被拒绝',
    );
    expect(titled('zh-chmod', chmod)).toBe('chmod 700 /w/big（现在是 0755） — 其中超过 10000 项，太多而无法逐一对照拒绝规则检查；这次调用会被拒绝');
    expect(titled('zh-unread', unread)).toBe('删除 /w/x —— removing "/w/x": "/w/x/y" cannot be read (EACCES)；这次调用会被拒绝');
    // in English, as the companion's own titles read
    useLocale('en');
    expect(titled('en-fails', failing)).toBe('filesystem edit notes/a.md (will fail: no match for the old text)');
    expect(titled('en-sized', sized)).toBe('filesystem list_with_sizes notes');
    expect(titled('en-move', move)).toBe('filesystem move a.md → b.md');
    expect(titled('en-rm', rm)).toBe('Delete /w/src — protected: it holds "/w/src/.git", which matches the deny glob "**/.git/**"; the call will be refused');
    expect(titled('en-chmod', chmod)).toBe('chmod 700 /w/big (now 0755) — it holds more than 10000 entries, too many to check one by one against the deny globs; the call will be refused');
  });

  it("names the hidden characters in the person's language and counts them in words that follow the count", () => {
    const warned = (hidden: Array<{ codePoint: number; count: number }>) =>
      mount(<ApprovalCard approval={approval({ preview: { warning: 'This holds …', hidden, title: 'Overwrite /w/a.txt', paths: [] } })} onDecide={() => undefined} />)
        .querySelector('[data-warning]')!.textContent;
    useLocale('zh_CN');
    expect(warned([{ codePoint: 0x202e, count: 2 }, { codePoint: 0x200b, count: 1 }, { codePoint: 0xe0041, count: 1 }])).toBe(
      '这里有 4 个你看不见、或会改变周围文字显示方式的字符（U+200B 零宽空格，U+202E 从右到左强制 ×2，U+E0041）；每个都在所在位置显示为 ⟨U+…⟩。实际运行时它们原样保留。',
    );
    useLocale('en');
    expect(warned([{ codePoint: 0x1b, count: 1 }])).toBe(
      'This holds a character you could not see or that changes how the text around it is shown (U+001B ESCAPE); each is shown as ⟨U+…⟩ where it stands. What runs holds them as they are.',
    );
    expect(warned([{ codePoint: 0x202e, count: 2 }])).toMatch(/^This holds 2 characters you could not see or that change how the text around them is shown \(U\+202E RIGHT-TO-LEFT OVERRIDE ×2\)/);
  });

    it('every button has a name, in Chinese too', () => {
    useLocale('zh_CN');
    const root = mount(<ApprovalCard approval={approval()} onDecide={() => undefined} />);
    expect([...root.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['批准', '本对话内都批准', '拒绝']);
  });
});

// ------------------------------------------------------------------------------------------------ side panel

describe('side panel', () => {
  const calls: string[] = [];
  const actions: PanelActions = {
    decide: (a, d) => calls.push(`decide ${a.id} ${d}`),
    forgetGrant: (g) => void calls.push(`forget ${g.site} ${g.conversationId} ${g.tool} ${g.risk}`),
    undo: (id) => void calls.push(`undo ${id}`),
    stopProgram: (id) => calls.push(`stop ${id}`),
  };

  it('before the first answer: every section is there, holding its place', () => {
    const root = mount(<SidePanelView state={state({ loaded: false, connection: null })} actions={actions} />);
    expect(root.querySelector('#connection')!.getAttribute('data-state')).toBe('connecting');
    for (const id of ['approvals', 'grants', 'programs', 'runs', 'changes', 'audit']) expect(root.querySelector(`#${id}`), id).not.toBeNull();
    expect(root.querySelector('#approvals')!.textContent).toBe('…');
  });

  it('empty: says so in each section', () => {
    const root = mount(<SidePanelView state={state()} actions={actions} />);
    expect(root.querySelector('#approvals')!.textContent).toBe('Nothing waiting for you');
    expect(root.querySelector('#grants')!.textContent).toBe('Nothing approved for a whole conversation; every such call asks');
    expect(root.querySelector('#programs')!.textContent).toBe('No programs running');
    expect(root.querySelector('#runs')!.textContent).toBe('No runs yet');
    expect(root.querySelector('#changes')!.textContent).toBe('No file changes yet');
    expect(root.querySelector('#audit-count')!.textContent).toBe('0 of 0 records');
  });

  it('opened while the companion does not answer: a list never read says so, with no count, not that it holds nothing', () => {
    const away: ConnectionInfo = { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890', detail: closedDetail(1006, '') };
    // the recent runs are the extension's own record: read without the companion
    const root = mount(<SidePanelView state={state({ connection: away, read: ['runs'] })} actions={actions} />);
    const notRead = 'Not read: the companion has not answered since this page opened';
    for (const id of ['approvals', 'grants', 'programs', 'changes', 'audit']) expect(root.querySelector(`#${id}`)!.textContent, id).toBe(notRead);
    expect(root.querySelector('#runs')!.textContent).toBe('No runs yet');
    for (const id of ['approvals', 'grants', 'programs']) expect(root.querySelector(`#${id}-title .count`), id).toBeNull();
    expect(root.querySelector('#approvals-said')!.textContent).toBe('');
    expect(root.querySelector('#audit-count')!.textContent).toBe('');
    const popup = mount(
      <PopupView
        state={state({ connection: away, read: [] })}
        deps={{ sites: [], readSite: async (key) => defaultSiteSettings(key), writeSite: async () => undefined, companionUrl: '', openSidePanel: () => undefined }}
        live={{ decide: async () => undefined, pair: async () => undefined, unpair: async () => undefined }}
      />,
    );
    expect(popup.querySelector('#open-sidepanel .count')).toBeNull();
    expect(popup.querySelector('#approvals-said')!.textContent).toBe('');
    useLocale('zh_CN');
    const zh = mount(<SidePanelView state={state({ connection: away, read: [] })} actions={actions} />);
    expect(zh.querySelector('#changes')!.textContent).toBe('未读取到：此页面打开后本地助手还没有应答');
    useLocale('en');
  });

  it('not paired: the panel says where to pair (the popup has the pairing step itself, so it does not say it twice)', () => {
    const unpaired: ConnectionInfo = { state: 'unpaired', companionUrl: 'http://127.0.0.1:17890' };
    const panel = mount(<SidePanelView state={state({ connection: unpaired })} actions={actions} />);
    expect(panel.querySelector('#connection-hint')?.textContent).toBe("Pair in chatbridge's popup: click its icon in the toolbar and type the code the companion printed.");
    useLocale('zh_CN');
    const zh = mount(<SidePanelView state={state({ connection: unpaired })} actions={actions} />);
    expect(zh.querySelector('#connection-hint')?.textContent).toBe('请在 chatbridge 弹窗中配对：点击工具栏里的图标，输入本地助手显示的配对码。');
  });

  it('says how many approvals wait as they come and go, in a live region (the count beside the heading is only drawn)', () => {
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (over: Partial<LiveState>) => act(() => render(<SidePanelView state={state(over)} actions={actions} />, root));
    draw({ loaded: false });
    const said = root.querySelector('#approvals-said')!;
    expect(said.getAttribute('role')).toBe('status');
    expect(said.textContent).toBe('');
    draw({ approvals: [] });
    draw({ approvals: [approval()] });
    expect(root.querySelector('#approvals-said')).toBe(said);
    expect(said.textContent).toBe('1 approval waiting');
    draw({ approvals: [approval(), approval({ id: 'confirm-2' })] });
    expect(said.textContent).toBe('2 approvals waiting');
  });

  it("an approval decided elsewhere (its chip, the popup, the companion) or expired while the focus is in its card hands the focus to the next card, after the last to the heading, not to the page's body", () => {
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (approvals: Approval[]): void => {
      act(() => render(<SidePanelView state={state({ approvals })} actions={actions} />, root));
    };
    const [a, b, c] = [approval({ id: 'confirm-a' }), approval({ id: 'confirm-b' }), approval({ id: 'confirm-c' })];
    draw([a, b, c]);
    root.querySelector<HTMLElement>('[data-approval="confirm-b"] [data-decision="deny"]')!.focus();
    draw([a, c]);
    expect(document.activeElement).toBe(root.querySelector('[data-approval="confirm-c"]'));
    // the last one goes: the one before it
    draw([a]);
    expect(document.activeElement).toBe(root.querySelector('[data-approval="confirm-a"]'));
    draw([]);
    expect(document.activeElement).toBe(root.querySelector('#approvals-title'));
    // a card going while the focus is elsewhere takes nothing
    draw([a, b]);
    const search = root.querySelector<HTMLElement>('#audit-search')!;
    search.focus();
    draw([b]);
    expect(document.activeElement).toBe(search);
  });

  it("in the popup, an approval decided elsewhere while the focus is in its card hands it to the next card, after the last to the side panel's button", () => {
    const root = document.body.appendChild(document.createElement('div'));
    const deps = { sites: [], readSite: async () => defaultSiteSettings('chatgpt'), writeSite: async () => undefined, companionUrl: '', openSidePanel: () => undefined };
    const live = { decide: async () => undefined, pair: async () => undefined, unpair: async () => undefined };
    const draw = (approvals: Approval[]): void => {
      act(() => render(<PopupView state={state({ approvals })} deps={deps} live={live} />, root));
    };
    const [a, b] = [approval({ id: 'confirm-a' }), approval({ id: 'confirm-b' })];
    draw([a, b]);
    root.querySelector<HTMLElement>('[data-approval="confirm-a"] [data-decision="deny"]')!.focus();
    draw([b]);
    expect(document.activeElement).toBe(root.querySelector('[data-approval="confirm-b"]'));
    draw([]);
    expect(document.activeElement).toBe(root.querySelector('#open-sidepanel'));
  });

  it('Undo and Forget from the keyboard leave the focus on what says what became of it, not on the page\'s body', async () => {
    const grant = { site: 'chatgpt', conversationId: 'c-1', tool: 'fs.write', risk: 'write' as const };
    const root = document.body.appendChild(document.createElement('div'));
    let shown = state({ journal: [JOURNAL], runs: [RUN], grants: [grant] });
    const draw = (): void => {
      act(() => render(<SidePanelView state={shown} actions={done} />, root));
    };
    // as the live data does: the lists are drawn again with what the action did, then the action resolves
    const done: PanelActions = {
      ...actions,
      undo: async (id) => {
        shown = { ...shown, journal: shown.journal.map((j) => (j.id === id ? { ...j, state: 'undone' as const } : j)) };
        draw();
      },
      forgetGrant: async () => {
        shown = { ...shown, grants: [] };
        draw();
      },
    };
    draw();
    const undo = root.querySelector<HTMLButtonElement>('#changes [data-undo="j-1"]')!;
    undo.focus();
    await act(async () => trustedClick(undo));
    expect(undo.disabled).toBe(true);
    expect(document.activeElement).toBe(root.querySelector('#changes [data-journal="j-1"]'));
    expect(document.activeElement!.textContent).toContain('undone');
    const forget = root.querySelector<HTMLButtonElement>('#grants [data-forget-grant]')!;
    forget.focus();
    await act(async () => trustedClick(forget));
    expect(document.activeElement).toBe(root.querySelector('#grants-title'));
    // the run's own Undo: the focus to its run
    shown = { ...shown, journal: [JOURNAL] };
    draw();
    const runUndo = root.querySelector<HTMLButtonElement>('#runs [data-undo-run="j-1"]')!;
    runUndo.focus();
    await act(async () => trustedClick(runUndo));
    expect(document.activeElement).toBe(root.querySelector('#runs [data-run="run-1"]'));
  });

  it('Stop from the keyboard leaves the focus on the ended card that says how it ended, not on the page\'s body', () => {
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (over: Partial<LiveState>): void => {
      act(() => render(<SidePanelView state={state(over)} actions={actions} />, root));
    };
    draw({ programs: [PROGRAM], output: { 'p-1': 'listening on 5173\n' } });
    const stop = root.querySelector<HTMLButtonElement>('#programs [data-stop-program="p-1"]')!;
    stop.focus();
    act(() => trustedClick(stop));
    expect(calls).toContain('stop p-1');
    // the companion says it ended: its card is drawn among the ended ones, the running one goes
    const ended = { program: { ...PROGRAM, status: 'terminated' as const }, status: 'terminated' as const, returncode: null };
    draw({ programs: [PROGRAM], ended: [ended], output: { 'p-1': 'listening on 5173\n' } });
    const card = root.querySelector<HTMLElement>('#programs-ended [data-program="p-1"]')!;
    expect(document.activeElement).toBe(card);
    expect(card.textContent).toContain('stopped');
    // one that ends by itself while its output is read: the same; one ending while the focus is elsewhere takes nothing
    const other = { ...PROGRAM, id: 'p-2', name: 'test' };
    const third = { ...PROGRAM, id: 'p-3', name: 'lint' };
    draw({ programs: [other, third], ended: [ended] });
    // each output box is a keyboard stop named with its program: 'Output' alone, three times, told none apart
    expect([...root.querySelectorAll('[data-output]')].map((box) => box.getAttribute('aria-label'))).toEqual(['Output: test', 'Output: lint', 'Output: dev']);
    root.querySelector<HTMLElement>('#programs [data-output="p-2"]')!.focus();
    draw({ programs: [third], ended: [{ program: other, status: 'failure', returncode: 1 }, ended] });
    expect(document.activeElement).toBe(root.querySelector('#programs-ended [data-program="p-2"]'));
    const search = root.querySelector<HTMLElement>('#audit-search')!;
    search.focus();
    draw({ programs: [], ended: [{ program: third, status: 'completed', returncode: 0 }, { program: other, status: 'failure', returncode: 1 }, ended] });
    expect(document.activeElement).toBe(search);
  });

  it('a recent run waiting for approval names the tool its card asks for, not the block kind, before any audit record', () => {
    const waiting: RecentRun = { ...RUN, runId: 'run-7', status: 'pending', result: '' };
    const root = mount(<SidePanelView state={state({ runs: [waiting, { ...RUN, runId: 'run-8', status: 'pending', result: '' }], approvals: [approval({ id: 'confirm-7', runId: 'run-7', tool: 'shell.exec' })] })} actions={actions} />);
    expect(root.querySelector('[data-run="run-7"] strong')!.textContent).toBe('shell.exec');
    // nothing known of its tool yet: the kind of block, as before
    expect(root.querySelector('[data-run="run-8"] strong')!.textContent).toBe('mcp-request');
  });

  it('a recent run still running, with no card and no audit record yet, names the tool the companion says it runs', () => {
    const running: RecentRun = { ...RUN, runId: 'run-9', status: 'running', tool: 'shell.exec', result: '' };
    delete running.endedAt;
    const root = mount(<SidePanelView state={state({ runs: [running] })} actions={actions} />);
    expect(root.querySelector('[data-run="run-9"] strong')!.textContent).toBe('shell.exec');
  });

  it("a recent run's cut result says how much is not kept, its words following the count", () => {
    const root = mount(<SidePanelView state={state({ runs: [{ ...RUN, resultCut: 1 }, { ...RUN, runId: 'run-2', resultCut: 250 }] })} actions={actions} />);
    expect([...root.querySelectorAll('#runs [data-run] details p')].map((p) => p.textContent!.split(':')[0])).toEqual([
      '… 1 more character is not kept here',
      '… 250 more characters are not kept here',
    ]);
  });

  it("a long conversation id is reached whole by the keyboard and a screen reader: a run's, a grant's, an audit record's", () => {
    const id = '6801f3a2-9c1e-8008-b3f4-1c2d3e4f5a6b';
    const root = mount(
      <SidePanelView
        state={state({
          runs: [{ ...RUN, conversationId: id }],
          audit: [audit({ runId: 'run-9', conversationId: id })],
          grants: [{ site: 'chatgpt', conversationId: id, tool: 'fs.write', risk: 'write' }],
        })}
        actions={actions}
      />,
    );
    expect(root.querySelector('#audit [data-audit]')!.textContent).toContain(`chatgpt · ${id}`);
    for (const where of ['#runs', '#grants']) {
      const button = root.querySelector<HTMLButtonElement>(`${where} button[data-conversation-id]`)!;
      expect(button.textContent, where).toBe('6801f3a2-9c1e-…');
      expect(button.getAttribute('aria-label'), where).toBe(`Conversation ${id}`);
      expect(button.getAttribute('aria-expanded'), where).toBe('false');
      act(() => button.click());
      expect(button.textContent, where).toBe(id);
      expect(button.getAttribute('aria-expanded'), where).toBe('true');
    }
    // a short one is shown as it is
    const short = mount(<SidePanelView state={state({ runs: [RUN] })} actions={actions} />);
    expect(short.querySelector('#runs [data-conversation-id]')).toBeNull();
    expect(short.querySelector('#runs')!.textContent).toContain('c-1');
  });

  it('what was approved for a whole conversation is listed, each with a Forget that names it, in English and Chinese', () => {
    calls.length = 0;
    const grants = [
      { site: 'chatgpt', conversationId: 'c-1', tool: 'fs.write', risk: 'write' as const },
      { site: 'deepseek', conversationId: 'c-2', tool: 'shell.exec', risk: 'exec' as const },
    ];
    const root = mount(<SidePanelView state={state({ grants })} actions={actions} />);
    const rows = root.querySelectorAll('#grants [data-grant]');
    expect(rows).toHaveLength(2);
    expect(rows[1]!.textContent).toContain('shell.exec');
    expect(rows[1]!.textContent).toContain('deepseek');
    expect(root.querySelector('#grants-title .count')!.textContent).toBe('2');
    const forget = rows[1]!.querySelector<HTMLButtonElement>('[data-forget-grant]')!;
    expect(forget.getAttribute('aria-label')).toBe('Forget: shell.exec (exec) — deepseek · c-2');
    forget.click(); // not trusted: nothing
    expect(calls).toEqual([]);
    act(() => trustedClick(forget));
    expect(calls).toEqual(['forget deepseek c-2 shell.exec exec']);

    useLocale('zh_CN');
    const zh = mount(<SidePanelView state={state({ grants })} actions={actions} />);
    expect(zh.querySelector('#grants-title')!.textContent).toContain('已对整个对话批准');
    expect(zh.querySelector('[data-forget-grant]')!.textContent).toBe('撤销');
  });

  it('full: approvals with diffs, a program with its live output and Stop, runs with tool, duration, link and Undo, the journal', async () => {
    calls.length = 0;
    const root = mount(
      <SidePanelView
        state={state({
          approvals: [approval(), EXEC],
          programs: [PROGRAM],
          output: { 'p-1': 'listening on :5173\n' },
          runs: [RUN, { ...RUN, runId: 'run-9', url: 'javascript:alert(1)', status: 'error', result: '' }],
          journal: [JOURNAL, { ...JOURNAL, id: 'j-0', state: 'undone', origin: undefined }],
          audit: [audit({})],
        })}
        actions={actions}
        focusApproval="confirm-2"
      />,
    );
    expect(root.querySelectorAll('#approvals [data-approval]').length).toBe(2);
    expect(root.querySelector('[data-approval="confirm-2"]')!.classList.contains('focused')).toBe(true);
    await shown(root, '[data-approval="confirm-1"] .d2h-ins');
    expect(root.querySelector('[data-output="p-1"]')!.textContent).toBe('listening on :5173\n');
    trustedClick(root.querySelector('[data-stop-program="p-1"]')!);
    const run = root.querySelector('[data-run="run-1"]')!;
    expect(run.getAttribute('data-status')).toBe('done');
    expect(run.textContent).toContain('fs.write');
    expect(run.textContent).toContain('1.5 s');
    expect(run.querySelector('[data-run-link]')!.getAttribute('href')).toBe('https://chatgpt.com/c/c-1');
    expect(run.querySelector('details pre')!.textContent).toBe('WRITE_SUCCESS');
    // a run whose page address is not http(s) gets no link
    expect(root.querySelector('[data-run="run-9"] [data-run-link]')).toBeNull();
    trustedClick(run.querySelector('[data-undo-run="j-1"]')!);
    expect((root.querySelector('[data-undo="j-0"]') as HTMLButtonElement).disabled).toBe(true);
    trustedClick(root.querySelector('[data-undo="j-1"]')!);
    trustedClick(root.querySelector('[data-approval="confirm-2"] [data-decision="deny"]')!);
    expect(calls).toEqual(['stop p-1', 'undo j-1', 'undo j-1', 'decide confirm-2 deny']);
  });

  it("how long a run and an audited call took is said in the person's language, a whole minute without its 0 s and never as 60 s", () => {
    const took = (durationMs: number): string[] => {
      const root = mount(<SidePanelView state={state({ runs: [RUN], audit: [audit({ durationMs })] })} actions={actions} />);
      return [root.querySelector('[data-run="run-1"] .row > .muted')!.textContent!, root.querySelector('[data-audit="a-1"] .row > .muted:last-child')!.textContent!];
    };
    expect(took(994)).toEqual(['994 ms', '994 ms']);
    expect(took(1500)).toEqual(['1.5 s', '1.5 s']);
    expect(took(125_000)).toEqual(['2 min 5 s', '2 min 5 s']);
    expect(took(120_000)).toEqual(['2 min', '2 min']);
    // 1 min 59.6 s: not "1 min 60 s"
    expect(took(119_600)).toEqual(['2 min', '2 min']);
    // nor "60.0 s" or "1000 ms" just under the next unit
    expect(took(59_960)).toEqual(['1 min', '1 min']);
    expect(took(999.6)).toEqual(['1.0 s', '1.0 s']);
    useLocale('zh_CN');
    expect(took(994)).toEqual(['994 毫秒', '994 毫秒']);
    expect(took(1500)).toEqual(['1.5 秒', '1.5 秒']);
    expect(took(125_000)).toEqual(['2 分 5 秒', '2 分 5 秒']);
    expect(took(120_000)).toEqual(['2 分钟', '2 分钟']);
    useLocale('en');
  });

  it('a button keeps its own row when the lists change under it: a focused Undo, Stop or Forget never turns into another one', () => {
    const root = document.body.appendChild(document.createElement('div'));
    const grant = { site: 'chatgpt', conversationId: 'c-1', tool: 'fs.write', risk: 'write' as const };
    const draw = (over: Partial<LiveState>) => act(() => render(<SidePanelView state={state(over)} actions={actions} />, root));
    draw({ journal: [JOURNAL], programs: [PROGRAM], grants: [grant] });
    const undo = root.querySelector<HTMLButtonElement>('[data-undo="j-1"]')!;
    const stop = root.querySelector<HTMLButtonElement>('[data-stop-program="p-1"]')!;
    const forget = root.querySelector<HTMLButtonElement>('[data-forget-grant]')!;
    // A newer change, program and grant arrive above them (each list is newest first).
    draw({
      journal: [{ ...JOURNAL, id: 'j-2', label: 'fs.write /w/b.txt' }, JOURNAL],
      programs: [{ ...PROGRAM, id: 'p-2', name: 'tests' }, PROGRAM],
      grants: [{ ...grant, conversationId: 'c-2' }, grant],
    });
    expect(undo.getAttribute('data-undo')).toBe('j-1');
    expect(stop.getAttribute('data-stop-program')).toBe('p-1');
    expect(forget.closest('[data-grant]')?.getAttribute('data-grant')).toBe(JSON.stringify(['chatgpt', 'c-1', 'fs.write', 'write']));
  });

  it('each change to undo names the files it puts back: every write of a tool has the same label', () => {
    const root = mount(
      <SidePanelView
        state={state({
          journal: [
            { ...JOURNAL, id: 'j-2', label: 'filesystem write', paths: ['/w/b.txt'] },
            { ...JOURNAL, label: 'filesystem write', paths: ['/w/a.txt', '/w/notes\nforged line'] },
          ],
        })}
        actions={actions}
      />,
    );
    const paths = (id: string) => [...root.querySelectorAll(`[data-journal="${id}"] [data-journal-paths] > div`)].map((line) => line.textContent);
    expect(paths('j-2')).toEqual(['/w/b.txt']);
    expect(paths('j-1')).toEqual(['/w/a.txt', '/w/notes⟨U+000A⟩forged line']);
  });

  it('what a model chose shows its hidden characters: a change to undo, a running program, an audit record, each on its own line', () => {
    const root = mount(
      <SidePanelView
        state={state({
          journal: [{ ...JOURNAL, label: 'fs.write /w/notes\u202Etxt.exe' }],
          programs: [{ ...PROGRAM, command: 'ls \u2067; touch x # \u2069', cwd: '/w/a\nb' }],
          audit: [audit({ paths: ['/w/report\u001B]52;c;e30=\u0007.txt', '/w/notes\nforged line'] })],
        })}
        actions={actions}
      />,
    );
    expect(root.querySelector('[data-journal="j-1"]')?.textContent).toContain('fs.write /w/notes⟨U+202E⟩txt.exe');
    const program = root.querySelector('[data-program="p-1"] .command')!.textContent!;
    expect(program).toContain('$ ls ⟨U+2067⟩; touch x # ⟨U+2069⟩');
    expect(program).toContain('/w/a⟨U+000A⟩b');
    const record = root.querySelector('#audit [data-audit]')!.textContent!;
    expect(record).toContain('/w/report⟨U+001B⟩]52;c;e30=⟨U+0007⟩.txt');
    expect(record).toContain('/w/notes⟨U+000A⟩forged line');
    expect(root.textContent).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u202A-\u202E\u2066-\u2069]/u);
  });

  it('the audit log is searched by every word over every field', () => {
    const records = [
      audit({ auditId: 'a-1', tool: 'fs.write', paths: ['/w/notes.txt'] }),
      audit({ auditId: 'a-2', tool: 'shell.exec', paths: [], commands: ['npm test'], outcome: 'TIMEOUT', site: 'deepseek' }),
      audit({ auditId: 'a-3', tool: 'git.status', paths: [], decision: 'policy-deny', outcome: 'POLICY_BLOCKED' }),
    ];
    const root = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    const search = root.querySelector<HTMLInputElement>('#audit-search')!;
    const shown = (): string[] => [...root.querySelectorAll('#audit [data-audit]')].map((el) => el.getAttribute('data-audit')!);
    const type = (text: string): void => {
      act(() => {
        search.value = text;
        search.dispatchEvent(new Event('input', { bubbles: true }));
      });
    };
    expect(shown()).toEqual(['a-1', 'a-2', 'a-3']);
    type('npm');
    expect(shown()).toEqual(['a-2']);
    type('DEEPSEEK timeout');
    expect(shown()).toEqual(['a-2']);
    type('policy git');
    expect(shown()).toEqual(['a-3']);
    type('nothing-like-this');
    expect(shown()).toEqual([]);
    expect(root.querySelector('#audit-count')!.textContent).toBe('0 of 3 records');
    type('npm');
    expect(root.querySelector('#audit-count')!.textContent).toBe('1 of 3 records');
    const one = mount(<SidePanelView state={state({ audit: [records[0]!] })} actions={actions} />);
    expect(one.querySelector('#audit-count')!.textContent).toBe('1 of 1 record');
    useLocale('zh_CN');
    const zh = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    expect(zh.querySelector('#audit-count')!.textContent).toBe('3 条记录中的 3 条');
    useLocale('en');
  });

  it('the audit log says when it draws only the newest of the records that match, and how to reach the others', () => {
    const records = Array.from({ length: 260 }, (_, i) => audit({ auditId: `a-${i}`, tool: i % 2 === 0 ? 'fs.read' : 'fs.write' }));
    const root = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    expect(root.querySelectorAll('[data-audit]')).toHaveLength(200);
    expect(root.querySelector('#audit-count')!.textContent).toBe('260 of 260 records');
    expect(root.querySelector('[data-audit-more]')!.textContent).toBe('The newest 200 of these 260 records are shown: add words to the search to find the others');
    const search = root.querySelector<HTMLInputElement>('#audit-search')!;
    act(() => {
      search.value = 'fs.write';
      search.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(root.querySelectorAll('[data-audit]')).toHaveLength(130);
    expect(root.querySelector('[data-audit-more]')).toBeNull();
    useLocale('zh_CN');
    const zh = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    expect(zh.querySelector('[data-audit-more]')!.textContent).toBe('这 260 条记录只显示了最新的 200 条：在搜索框中多输入几个词可找到其余的');
    useLocale('en');
  });

  it('the audit log read to its limit says its count is of the newest records only, and where the older ones are', () => {
    const records = Array.from({ length: AUDIT_LIMIT }, (_, i) => audit({ auditId: `a-${i}` }));
    const root = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    expect(root.querySelector('#audit-count')!.textContent).toBe(
      `${AUDIT_LIMIT} of the newest ${AUDIT_LIMIT} records: older ones are not searched here (npx chatbridge audit --limit 10000 in the chatbridge folder lists them)`,
    );
    const fewer = mount(<SidePanelView state={state({ audit: records.slice(1) })} actions={actions} />);
    expect(fewer.querySelector('#audit-count')!.textContent).toBe(`${AUDIT_LIMIT - 1} of ${AUDIT_LIMIT - 1} records`);
  });

  it("the audit log's decisions and outcomes are in the person's language, and searched in it too", () => {
    useLocale('zh_CN');
    const records = [
      audit({ auditId: 'a-1', tool: 'fs.write', paths: ['/w/notes.txt'] }),
      audit({ auditId: 'a-2', tool: 'shell.exec', paths: [], commands: ['npm test'], decision: 'auto', outcome: 'TIMEOUT' }),
      audit({ auditId: 'a-3', tool: 'git.status', paths: [], decision: 'policy-deny', outcome: 'POLICY_BLOCKED' }),
      audit({ auditId: 'a-4', tool: 'fs.rm', paths: ['/w/x'], decision: 'deny', outcome: 'DENIED' }),
    ];
    const root = mount(<SidePanelView state={state({ audit: records })} actions={actions} />);
    const words = (id: string): string[] => [...root.querySelectorAll(`[data-audit="${id}"] .tag, [data-audit="${id}"] .status`)].map((el) => el.textContent!);
    expect(words('a-1')).toEqual(['已批准', '成功']);
    expect(words('a-2')).toEqual(['自动', '超时']);
    expect(words('a-3')).toEqual(['策略拒绝', '策略阻止']);
    expect(words('a-4')).toEqual(['已拒绝', '被拒绝']);
    const search = root.querySelector<HTMLInputElement>('#audit-search')!;
    act(() => {
      search.value = '超时';
      search.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect([...root.querySelectorAll('#audit [data-audit]')].map((el) => el.getAttribute('data-audit'))).toEqual(['a-2']);
  });

  it("the audit log's count is said as the answer to a search, not each time a run adds a record", () => {
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (records: AuditItem[]): void => {
      act(() => render(<SidePanelView state={state({ audit: records })} actions={actions} />, root));
    };
    const first = [audit({ auditId: 'a-1', tool: 'fs.write' })];
    draw(first);
    const live = [...root.querySelectorAll('[aria-live], [role="status"], [role="alert"]')].filter((el) => el.closest('#audit-log-title + *'));
    const spoken = (): string[] => live.map((el) => el.textContent!);
    expect(spoken()).toEqual(['']);
    // runs come in while the person is elsewhere in the panel: the visible count follows, nothing is said
    draw([audit({ auditId: 'a-2', tool: 'shell.exec', paths: [], commands: ['npm test'] }), ...first]);
    expect(root.querySelector('#audit-count')!.textContent).toBe('2 of 2 records');
    expect(spoken()).toEqual(['']);
    const search = root.querySelector<HTMLInputElement>('#audit-search')!;
    act(() => {
      search.value = 'shell';
      search.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(spoken()).toEqual(['1 of 2 records']);
    draw([audit({ auditId: 'a-3', tool: 'shell.exec', paths: [], commands: ['npm run lint'] }), audit({ auditId: 'a-2', tool: 'shell.exec', paths: [], commands: ['npm test'] }), ...first]);
    expect(root.querySelector('#audit-count')!.textContent).toBe('2 of 3 records');
    expect(spoken()).toEqual(['1 of 2 records']);
    act(() => {
      search.value = '';
      search.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(spoken()).toEqual(['']);
  });

  it('reads the approval to open on from its address, and nothing else', () => {
    expect(approvalFromHash('#approval=confirm-0123abcd')).toBe('confirm-0123abcd');
    expect(approvalFromHash('#approval=')).toBeUndefined();
    expect(approvalFromHash('#approval=a"]*')).toBeUndefined();
    expect(approvalFromHash('')).toBeUndefined();
  });
});

// ------------------------------------------------------------------------------------------------ popup

describe('popup', () => {
  function deps(over: Partial<PopupDeps> & { written?: string[] } = {}): PopupDeps {
    const written = over.written ?? [];
    const stored = new Map<string, SiteSettings>();
    return {
      sites: [
        { key: 'chatgpt', title: 'ChatGPT' },
        { key: 'chat.example.org', title: 'chat.example.org' },
      ],
      readSite: async (key) => stored.get(key) ?? defaultSiteSettings(key),
      writeSite: async (key, name, value) => void written.push(`${key}.${name}=${String(value)}`),
      companionUrl: 'http://127.0.0.1:17890',
      ...over,
    };
  }
  const live = { decide: async () => undefined, pair: async () => undefined, unpair: async () => undefined };

  it('not paired: the guided pairing step with the code field; paired: no code field, Forget token folded', () => {
    const pairs: string[] = [];
    const unpaired = mount(
      <PopupView state={state({ connection: { state: 'unpaired', companionUrl: '' } })} deps={deps()} live={{ ...live, pair: async (c, u) => void pairs.push(`${c}@${u}`) }} />,
    );
    expect(unpaired.querySelector('#connection')!.getAttribute('data-state')).toBe('unpaired');
    const code = unpaired.querySelector<HTMLInputElement>('#pair-code')!;
    act(() => {
      code.value = ' 123456 ';
      code.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => trustedClick(unpaired.querySelector('#pair-button')!));
    expect(pairs).toEqual([' 123456 @http://127.0.0.1:17890']);
    expect(unpaired.querySelector('details #companion-url')).not.toBeNull();
    expect(unpaired.querySelector('#unpair-button')).toBeNull();

    const paired = mount(<PopupView state={state()} deps={deps()} live={live} />);
    expect(paired.querySelector('#pair-code')).toBeNull();
    expect(paired.querySelector('details #unpair-button')).not.toBeNull();
    expect(paired.querySelector('#error')!.textContent).toBe('');
  });

  it('the command that starts the companion is introduced as a command, never read as the pairing code or as what chatbridge does by itself, in English and Chinese', () => {
    const away: ConnectionInfo = { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890' };
    /** The words just before the `npm start` in `holder` (the step, the hint). */
    const before = (holder: Element): string => {
      const code = holder.querySelector('code')!;
      expect(code.textContent).toBe('npm start');
      return holder.textContent!.slice(0, holder.textContent!.indexOf('npm start')).trim();
    };
    for (const [locale, run, pairingCode] of [
      ['en', /\brun$/, 'pairing code'],
      ['zh_CN', /运行$/, '配对码'],
    ] as const) {
      useLocale(locale);
      const popup = mount(<PopupView state={state({ connection: { state: 'unpaired', companionUrl: '' } })} deps={deps()} live={live} />);
      const steps = [...popup.querySelectorAll('[aria-labelledby="pair-title"] ol > li')];
      // the step with the command says to run it, and the code is the next step's: "…prints a pairing code: npm start" read as the code
      expect(before(steps[0]!)).toMatch(run);
      expect(steps[0]!.textContent).not.toContain(pairingCode);
      expect(steps[1]!.textContent).toContain(pairingCode);
      const hint = mount(<PopupView state={state({ connection: away })} deps={deps()} live={live} />);
      // "…connects again by itself: npm start" read as what chatbridge runs by itself
      expect(before(hint.querySelector('#connection-hint')!)).toMatch(run);
    }
    useLocale('en');
  });

  it('a pairing that fails keeps the code typed, so a slip in it can be seen and mended', async () => {
    const root = mount(<PopupView state={state({ connection: { state: 'unpaired', companionUrl: '' } })} deps={deps()} live={{ ...live, pair: async () => undefined }} />);
    const code = root.querySelector<HTMLInputElement>('#pair-code')!;
    act(() => {
      code.value = 'GGADXYNW';
      code.dispatchEvent(new Event('input', { bubbles: true }));
    });
    // live.pair shows the companion's refusal in #error and resolves; the popup stays on the pairing step.
    await act(async () => trustedClick(root.querySelector('#pair-button')!));
    expect(root.querySelector<HTMLInputElement>('#pair-code')!.value).toBe('GGADXYNW');
  });

  it('a refused code is read with its field, marked invalid; once paired the focus goes to the connection state, not the body', async () => {
    const root = document.body.appendChild(document.createElement('div'));
    let shown = state({ connection: { state: 'unpaired', companionUrl: '' } });
    const draw = (): void => {
      act(() => render(<PopupView state={shown} deps={deps()} live={{ ...live, pair }} />, root));
    };
    // as the live data does: the state is drawn with what the pairing did, then it resolves
    let accept = false;
    async function pair(): Promise<void> {
      shown = accept ? state({ connection: { state: 'connected', companionUrl: '' } }) : { ...shown, error: 'Wrong pairing code: 4 tries left' };
      draw();
    }
    draw();
    const code = root.querySelector<HTMLInputElement>('#pair-code')!;
    expect(code.getAttribute('aria-describedby')).toBe('error');
    expect(code.getAttribute('aria-invalid')).toBe('false');
    const button = root.querySelector<HTMLButtonElement>('#pair-button')!;
    button.focus();
    await act(async () => trustedClick(button));
    expect(root.querySelector(`#${code.getAttribute('aria-describedby')}`)!.textContent).toBe('Wrong pairing code: 4 tries left');
    expect(code.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(button);
    accept = true;
    await act(async () => trustedClick(button));
    expect(root.querySelector('#pair-code')).toBeNull();
    expect(document.activeElement).toBe(root.querySelector('#connection'));
    expect(document.activeElement!.textContent).toBe('chatbridge connected');
  });

  it('Forget token asks first: one click only asks, the second forgets (pairing again needs a new code)', () => {
    const calls: string[] = [];
    const root = mount(<PopupView state={state()} deps={deps()} live={{ ...live, unpair: async () => void calls.push('unpair') }} />);
    const button = root.querySelector<HTMLButtonElement>('#unpair-button')!;
    act(() => trustedClick(button));
    expect(calls).toEqual([]);
    expect(button.textContent).toBe('Forget the token? Pairing again needs a new code');
    act(() => trustedClick(button));
    expect(calls).toEqual(['unpair']);
  });

  it('Forget token asks first again after pairing anew in the same popup; forgotten, the focus goes to the connection state', async () => {
    const calls: string[] = [];
    const root = document.body.appendChild(document.createElement('div'));
    let shown = state();
    const draw = (): void => {
      act(() => render(<PopupView state={shown} deps={deps()} live={{ ...live, unpair, pair }} />, root));
    };
    // as the live data does: the state is drawn with what was done, then the action resolves
    async function unpair(): Promise<void> {
      calls.push('unpair');
      shown = state({ connection: { state: 'unpaired', companionUrl: '' } });
      draw();
    }
    async function pair(): Promise<void> {
      shown = state();
      draw();
    }
    draw();
    const forget = root.querySelector<HTMLButtonElement>('#unpair-button')!;
    act(() => trustedClick(forget));
    forget.focus();
    await act(async () => trustedClick(forget));
    expect(calls).toEqual(['unpair']);
    expect(document.activeElement).toBe(root.querySelector('#connection'));
    expect(document.activeElement!.textContent).toBe('chatbridge not paired');
    await act(async () => trustedClick(root.querySelector('#pair-button')!));
    const again = root.querySelector<HTMLButtonElement>('#unpair-button')!;
    expect(again.textContent).toBe('Forget token');
    act(() => trustedClick(again));
    expect(calls).toEqual(['unpair']);
    expect(again.textContent).toBe('Forget the token? Pairing again needs a new code');
  });

  it('site cards: switches disabled until the settings are read, then they write what the person sets; a number out of range is refused, saying why', async () => {
    const written: string[] = [];
    const root = mount(<PopupView state={state()} deps={deps({ written })} live={live} />);
    const enabled = (): HTMLInputElement => root.querySelector('[data-setting="chatgpt.enabled"]')!;
    expect(root.querySelectorAll('fieldset[data-site]').length).toBe(2);
    expect(enabled().disabled).toBe(true);
    await act(async () => await new Promise((resolve) => setTimeout(resolve, 0)));
    expect(enabled().disabled).toBe(false);
    expect(enabled().checked).toBe(true);
    expect(root.querySelector<HTMLInputElement>('[data-setting="chat.example.org.enabled"]')!.checked).toBe(false);
    const autoRun = root.querySelector<HTMLInputElement>('[data-setting="chatgpt.autoRun"]')!;
    expect(autoRun.getAttribute('role')).toBe('switch');
    act(() => autoRun.click());
    const wait = root.querySelector<HTMLInputElement>('[data-setting="chatgpt.approvalWaitMs"]')!;
    expect(wait.closest('details')).not.toBeNull();
    act(() => {
      wait.value = '30';
      wait.dispatchEvent(new Event('change', { bubbles: true }));
    });
    act(() => {
      wait.value = '99999';
      wait.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(written).toEqual(['chatgpt.autoRun=true', 'chatgpt.approvalWaitMs=30000']);
    // a number out of range is not saved, and the field says so, naming the number and the range
    const said = root.querySelector('[data-setting-error="chatgpt.approvalWaitMs"]')!;
    expect(said.textContent).toBe('"99999" is not a number of seconds from 5 to 3600; it stays 30');
    expect(said.getAttribute('role')).toBe('alert');
    expect(wait.getAttribute('aria-invalid')).toBe('true');
    expect(wait.getAttribute('aria-describedby')).toBe(said.id);
    expect(wait.value).toBe('30');
    // emptied (or typed as something the browser does not read as a number, whose value is then empty): not quoted as ""
    act(() => {
      wait.value = '';
      wait.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(root.querySelector('[data-setting-error="chatgpt.approvalWaitMs"]')!.textContent).toBe('Not a number of seconds from 5 to 3600; it stays 30');
    expect(wait.value).toBe('30');
    act(() => {
      wait.value = '60';
      wait.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(root.querySelector('[data-setting-error="chatgpt.approvalWaitMs"]')).toBeNull();
    expect(wait.getAttribute('aria-invalid')).toBe('false');
  });

  it('sites that were off when the popup opened are one row each, folded under More sites, and stay there when switched on', () => {
    const written: string[] = [];
    const initial = { chatgpt: defaultSiteSettings('chatgpt'), 'chat.example.org': defaultSiteSettings('chat.example.org') };
    const root = mount(<PopupView state={state()} deps={deps({ written, initial })} live={live} />);
    const more = root.querySelector('#more-sites')!;
    expect(more.querySelector('summary')!.textContent).toBe('More sites (1)');
    expect(more.querySelector('[data-site="chat.example.org"]')).not.toBeNull();
    expect(more.querySelector('[data-setting="chat.example.org.autoRun"]')).toBeNull();
    expect(root.querySelector('#sites > [data-site="chatgpt"] [data-setting="chatgpt.autoRun"]')).not.toBeNull();
    const enable = root.querySelector<HTMLInputElement>('[data-setting="chat.example.org.enabled"]')!;
    expect(enable.disabled).toBe(false);
    act(() => enable.click());
    expect(written).toEqual(['chat.example.org.enabled=true']);
    expect(more.querySelector('[data-setting="chat.example.org.autoRun"]')).not.toBeNull();
  });

  it('a site that is on without its host permission says so and asks again from Allow access', async () => {
    const asked: string[] = [];
    const initial = { chatgpt: defaultSiteSettings('chatgpt'), 'chat.example.org': { ...defaultSiteSettings('chat.example.org'), enabled: true } };
    const root = mount(
      <PopupView
        state={state()}
        deps={deps({ initial, missingAccess: ['chat.example.org'], allowAccess: async (key) => (asked.push(key), true) })}
        live={live}
      />,
    );
    expect(root.querySelector('[data-missing-access="chatgpt"]')).toBeNull();
    const allow = root.querySelector('[data-site="chat.example.org"] [data-allow-site="chat.example.org"]')!;
    expect(allow.textContent).toBe('Allow access');
    await act(async () => trustedClick(allow));
    expect(asked).toEqual(['chat.example.org']);
    expect(root.querySelector('[data-missing-access]')).toBeNull();
  });

  it('approvals waiting: the count on the side panel button and compact cards (diff folded, drawn once opened)', async () => {
    const opened: string[] = [];
    const root = mount(<PopupView state={state({ approvals: [approval()] })} deps={deps({ openSidePanel: () => opened.push('panel') })} live={live} />);
    const button = root.querySelector('#open-sidepanel')!;
    expect(button.querySelector('.count')!.textContent).toBe('1');
    expect(button.querySelector('.count')!.getAttribute('aria-label')).toBe('1 approval waiting');
    trustedClick(button);
    expect(opened).toEqual(['panel']);
    // folded, the diff is not drawn: the popup's cards of long diffs held it for seconds as it opened
    const card = root.querySelector('#approvals [data-approval="confirm-1"]')!;
    await act(async () => await new Promise((resolve) => setTimeout(resolve, 50)));
    expect(card.querySelector('details [data-diff]')).toBeNull();
    await unfold(card);
    await shown(card, 'details .d2h-ins');
  });

  it('says how many approvals wait as cards come and go while it is open, in a live region, in English and Chinese', () => {
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (over: Partial<LiveState>) => act(() => render(<PopupView state={state(over)} deps={deps({ openSidePanel: () => undefined })} live={live} />, root));
    draw({ loaded: false });
    const said = root.querySelector('#approvals-said')!;
    expect(said.getAttribute('role')).toBe('status');
    expect(said.textContent).toBe('');
    draw({ approvals: [] });
    draw({ approvals: [approval()] });
    expect(root.querySelector('#approvals-said')).toBe(said);
    expect(said.textContent).toBe('1 approval waiting');
    draw({ approvals: [approval(), approval({ id: 'confirm-2' })] });
    expect(said.textContent).toBe('2 approvals waiting');
    draw({ approvals: [] });
    expect(said.textContent).toBe('0 approvals waiting');
    useLocale('zh_CN');
    draw({ approvals: [approval()] });
    expect(said.textContent).toBe('1 个操作等待批准');
    useLocale('en');
  });

  it("a decided card goes with its buttons: the next approval's card never takes over a focused Approve", () => {
    const root = document.body.appendChild(document.createElement('div'));
    const both = [approval(), approval({ id: 'confirm-9', preview: { title: 'Overwrite /w/b.txt', paths: ['/w/b.txt'] } })];
    act(() => render(<PopupView state={state({ approvals: both })} deps={deps()} live={live} />, root));
    const approve = root.querySelector<HTMLButtonElement>('[data-approval="confirm-1"] [data-decision="approve"]')!;
    approve.focus();
    act(() => render(<PopupView state={state({ approvals: [both[1]!] })} deps={deps()} live={live} />, root));
    expect(approve.isConnected).toBe(false);
    expect(root.querySelector('[data-approval="confirm-9"] [data-decision="approve"]')).not.toBe(approve);
  });

  it("Approve on a card whose diff is folded shows the diff first: nothing is approved that was never seen", async () => {
    const decided: string[] = [];
    const root = mount(
      <PopupView state={state({ approvals: [approval(), EXEC] })} deps={deps()} live={{ ...live, decide: async (a, d) => void decided.push(`${a.id} ${d}`) }} />,
    );
    const card = root.querySelector('[data-approval="confirm-1"]')!;
    const details = card.querySelector('details')!;
    expect(details.open).toBe(false);
    await act(async () => trustedClick(card.querySelector('[data-decision="approve"]')!));
    expect(decided).toEqual([]);
    expect(details.open).toBe(true);
    // the focus goes to the card, where a second Enter does nothing (on the fold's summary it would fold the diff again)
    expect(document.activeElement).toBe(card);
    await shown(card, 'details .d2h-ins');
    await act(async () => trustedClick(card.querySelector('[data-decision="approve"]')!));
    expect(decided).toEqual(['confirm-1 approve']);
    // opened by the person, the diff was seen: Approve for this conversation decides at once; a command is shown whole
    const other = mount(<PopupView state={state({ approvals: [approval(), EXEC] })} deps={deps()} live={{ ...live, decide: async (a, d) => void decided.push(`${a.id} ${d}`) }} />);
    const folded = other.querySelector<HTMLDetailsElement>('[data-approval="confirm-1"] details')!;
    await act(async () => {
      folded.open = true;
      folded.dispatchEvent(new Event('toggle'));
    });
    await act(async () => trustedClick(other.querySelector('[data-approval="confirm-1"] [data-decision="approve-conversation"]')!));
    await act(async () => trustedClick(other.querySelector('[data-approval="confirm-2"] [data-decision="approve"]')!));
    expect(decided).toEqual(['confirm-1 approve', 'confirm-1 approve-conversation', 'confirm-2 approve']);
  });

  it('after a decision the focus goes to the next card, never onto its buttons; after the last, to the side panel button', async () => {
    const root = document.body.appendChild(document.createElement('div'));
    const both = [approval(), approval({ id: 'confirm-9', preview: { title: 'Overwrite /w/b.txt', paths: ['/w/b.txt'] } })];
    const draw = (approvals: Approval[]): void => {
      const decide = async (a: Approval): Promise<void> => draw(approvals.filter((x) => x.id !== a.id));
      act(() => render(<PopupView state={state({ approvals })} deps={deps({ openSidePanel: () => undefined })} live={{ ...live, decide }} />, root));
    };
    draw(both);
    const deny = root.querySelector<HTMLButtonElement>('[data-approval="confirm-1"] [data-decision="deny"]')!;
    deny.focus();
    await act(async () => trustedClick(deny));
    expect(document.activeElement).toBe(root.querySelector('[data-approval="confirm-9"]'));
    const last = root.querySelector<HTMLButtonElement>('[data-approval="confirm-9"] [data-decision="deny"]')!;
    last.focus();
    await act(async () => trustedClick(last));
    expect(root.querySelector('[data-approval]')).toBeNull();
    expect(document.activeElement).toBe(root.querySelector('#open-sidepanel'));
  });

  it('the enable-here button asks for the host and goes away once granted', async () => {
    const asked: string[] = [];
    const root = mount(
      <PopupView state={state()} deps={deps({ enableHere: { host: 'chat.example.net', enable: async () => (asked.push('asked'), true) } })} live={live} />,
    );
    expect(root.querySelector('#enable-here')!.textContent).toContain('chat.example.net');
    await act(async () => trustedClick(root.querySelector('#enable-here')!));
    expect(asked).toEqual(['asked']);
    expect(root.querySelector('#enable-here')).toBeNull();
  });

  it('the companion not answering: the popup and the side panel say where nothing answers and how to start it, in English and Chinese', () => {
    const away: ConnectionInfo = { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890', detail: closedDetail(1006, '') };
    const popup = mount(<PopupView state={state({ connection: away })} deps={deps()} live={live} />);
    const hint = popup.querySelector('#connection-hint');
    expect(hint?.textContent).toContain('http://127.0.0.1:17890');
    expect(hint?.textContent).toContain('npm start');
    // why the socket closed stays in the state's tooltip, not as a line under the hint
    expect(popup.querySelector('#connection-detail')).toBeNull();
    expect(popup.querySelector('#connection')!.getAttribute('title')).toBe(
      'It could not be reached: it is not running, it stopped, or something on this computer blocks its address. (details: WebSocket 1006)',
    );
    const panel = mount(<SidePanelView state={state({ connection: away })} actions={{ decide: () => undefined, forgetGrant: () => undefined, undo: () => undefined, stopProgram: () => undefined }} />);
    expect(panel.querySelector('#connection-hint')?.textContent).toBe(hint?.textContent);

    useLocale('zh_CN');
    const zh = mount(<PopupView state={state({ connection: away })} deps={deps()} live={live} />);
    expect(zh.querySelector('#connection-hint')?.textContent).toContain('本地助手');
    expect(zh.querySelector('#connection-hint')?.textContent).toContain('http://127.0.0.1:17890');
    // connected, connecting and not paired need no such line (not paired has its own steps)
    for (const connection of [CONNECTED, { ...away, state: 'connecting' as const }, { ...away, state: 'unpaired' as const }]) {
      expect(mount(<PopupView state={state({ connection })} deps={deps()} live={live} />).querySelector('#connection-hint')).toBeNull();
    }
  });

  it('Chinese when the browser is Chinese', () => {
    useLocale('zh_CN');
    const root = mount(<PopupView state={state({ connection: { state: 'unpaired', companionUrl: '' } })} deps={deps()} live={live} />);
    expect(root.querySelector('#pair-button')!.textContent).toBe('配对');
    expect(root.querySelector('#connection')!.textContent).toBe('chatbridge 未配对');
  });
});

describe('options', () => {
  it("the page's title, which names its tab and window, is in the person's language", () => {
    useLocale('zh_CN');
    const store = { sites: [], readSite: async (key: string) => defaultSiteSettings(key), writeSite: async () => undefined };
    document.title = 'chatbridge — settings';
    mount(<OptionsView store={store} companionUrl="http://127.0.0.1:17890" saveUrl={async () => undefined} />);
    expect(document.title).toBe('chatbridge — 设置');
  });

  it("an address that is not the companion's is refused in the person's language and not saved", () => {
    useLocale('zh_CN');
    const saved: string[] = [];
    const store = { sites: [], readSite: async (key: string) => defaultSiteSettings(key), writeSite: async () => undefined };
    const root = mount(<OptionsView store={store} companionUrl="http://127.0.0.1:17890" saveUrl={async (url) => void saved.push(url)} />);
    const input = root.querySelector<HTMLInputElement>('#companion-url')!;
    act(() => {
      input.value = 'https://example.com';
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(saved).toEqual([]);
    expect(root.querySelector('#error')!.textContent).toBe('“https://example.com”不是本地助手的地址：应为 http://127.0.0.1:端口（也可以用 localhost 或 [::1]）。');
    // the field itself is marked wrong, and its description is the error
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe('error');
    act(() => {
      input.value = 'http://localhost:17891/';
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(saved).toEqual(['http://localhost:17891']);
    expect(root.querySelector('#error')!.textContent).toBe('');
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });

  it('an address the browser could not save is said where it was typed', async () => {
    const store = { sites: [], readSite: async (key: string) => defaultSiteSettings(key), writeSite: async () => undefined };
    const root = mount(<OptionsView store={store} companionUrl="http://127.0.0.1:17890" saveUrl={async () => Promise.reject(new Error('QUOTA_BYTES quota exceeded'))} />);
    const input = root.querySelector<HTMLInputElement>('#companion-url')!;
    await act(async () => {
      input.value = 'http://127.0.0.1:17891';
      input.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(root.querySelector('#error')!.textContent).toBe('QUOTA_BYTES quota exceeded');
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });
});

// ------------------------------------------------------------------------------------------------ live data

describe('live data for the popup and side panel', () => {
  function fakeSource(answers: Partial<{ [T in RequestType]: RequestMap[T]['response'] }>): LiveSource & { push(p: PagePush): void; asked: string[] } {
    let listener: ((push: PagePush) => void) | null = null;
    const asked: string[] = [];
    return {
      asked,
      async ask(type) {
        asked.push(type);
        if (!(type in answers)) throw new Error(`${type}: companion not reachable`);
        return answers[type] as never;
      },
      connect(onPush) {
        listener = onPush;
        return () => (listener = null);
      },
      push: (p) => listener?.(p),
    };
  }

  it('knows which lists were read from the companion: none while it does not answer, each once it has', async () => {
    const answers: Partial<{ [T in RequestType]: RequestMap[T]['response'] }> = { connection: { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890' }, 'recent-runs': [] };
    const source = fakeSource(answers);
    const live = createLive(source, ['approvals', 'journal', 'runs'], { refreshMs: 60_000 });
    await live.refresh();
    expect(live.get()).toMatchObject({ loaded: true, read: ['runs'] });
    Object.assign(answers, { connection: CONNECTED, approvals: [], journal: [] });
    await live.refresh();
    expect(live.get().read).toEqual(['approvals', 'runs', 'journal']);
    // gone again, what was read stays read: the lists last read stay in sight
    delete answers.approvals;
    await live.refresh();
    expect(live.get().read).toEqual(['approvals', 'runs', 'journal']);
    live.close();
  });

  it('opened on an approval that no longer waits (a notification clicked after it was decided or expired), the side panel says so', async () => {
    const answers: Partial<{ [T in RequestType]: RequestMap[T]['response'] }> = { connection: CONNECTED, approvals: [approval({ id: 'confirm-8' })] };
    location.hash = '#approval=confirm-7';
    const live = createLive(fakeSource(answers), ['approvals'], { refreshMs: 60_000 });
    const root = document.body.appendChild(document.createElement('div'));
    act(() => render(<SidePanel live={live} />, root));
    await act(async () => await live.refresh());
    expect(root.querySelector('#approval-gone')?.textContent).toBe(
      'The approval this panel was opened on is no longer waiting: it was decided (on its chip, in the popup or here) or it expired. How its run went is under Recent runs.',
    );
    // opened on one that waits, and decided here: nothing is said of it when it goes
    answers.approvals = [approval({ id: 'confirm-7' })];
    await act(async () => await live.refresh());
    expect(root.querySelector('#approval-gone')).toBeNull();
    answers.approvals = [];
    await act(async () => await live.refresh());
    expect(root.querySelector('#approval-gone')).toBeNull();
    location.hash = '';
    live.close();
  });

  it('loads what the view asked for, appends live output, refreshes on an approval event', async () => {
    const source = fakeSource({ connection: CONNECTED, approvals: [approval(), approval({ id: 'done', state: 'approved' })], programs: [PROGRAM] });
    const live = createLive(source, ['approvals', 'programs'], { refreshMs: 60_000 });
    await live.refresh();
    expect(live.get().approvals.map((a) => a.id)).toEqual(['confirm-1']);
    expect(live.get().programs.map((p) => p.id)).toEqual(['p-1']);
    expect(source.asked).not.toContain('audit');
    source.push({ type: 'event', event: { type: 'program-output', programId: 'p-1', name: 'dev', stream: 'stdout', chunk: 'one\n', offset: 0 } });
    source.push({ type: 'event', event: { type: 'output-dropped', programId: 'p-1', name: 'dev', stream: 'stdout', offset: 4, dropped: 100 } });
    source.push({ type: 'event', event: { type: 'program-output', programId: 'p-1', name: 'dev', stream: 'stdout', chunk: 'two\n', offset: 104 } });
    expect(live.get().output['p-1']).toBe('one\n\n[… 100 bytes not shown …]\ntwo\n');
    // what was left out is said in the person's language (the program's own output is as it came)
    useLocale('zh_CN');
    source.push({ type: 'event', event: { type: 'output-dropped', programId: 'p-1', name: 'dev', stream: 'stdout', offset: 108, dropped: 7 } });
    expect(live.get().output['p-1']).toBe('one\n\n[… 100 bytes not shown …]\ntwo\n\n[… 另有 7 字节未显示 …]\n');
    const before = source.asked.filter((type) => type === 'approvals').length;
    source.push({ type: 'event', event: { type: 'approval', change: 'decided', approval: approval({ state: 'approved' }) } });
    await live.refresh();
    expect(source.asked.filter((type) => type === 'approvals').length).toBeGreaterThan(before);
    live.close();
  });

  it("a program that ends keeps its card in the side panel, with its output and how it ended, not gone the moment it ends", async () => {
    const programs = { current: [PROGRAM] };
    const source = fakeSource({ connection: CONNECTED });
    const ask = source.ask.bind(source);
    source.ask = (async (type: RequestType, request: never) => (type === 'programs' ? programs.current : ask(type, request))) as typeof source.ask;
    const live = createLive(source, ['programs'], { refreshMs: 60_000 });
    await live.refresh();
    const panel = (): HTMLElement => mount(<SidePanelView state={live.get()} actions={{ decide() {}, forgetGrant() {}, undo() {}, stopProgram() {} }} />);
    source.push({ type: 'event', event: { type: 'program-output', programId: 'p-1', name: 'dev', stream: 'stderr', chunk: 'error TS2322: Type string is not number\n', offset: 0 } });
    source.push({ type: 'event', event: { type: 'output-dropped', programId: 'p-1', name: 'dev', stream: 'stderr', offset: 40, dropped: 1 } });
    expect(live.get().output['p-1']).toContain('[… 1 byte not shown …]');
    expect(panel().querySelector('[data-output="p-1"]')!.textContent).toContain('error TS2322');
    // it exits: the companion lists it no more
    programs.current = [];
    const result = { status: 'failure' as const, returncode: 2, runtime: 1.5, truncated: false };
    source.push({ type: 'event', event: { type: 'program-exit', program: { ...PROGRAM, status: 'failure' }, result } });
    await live.refresh();
    const after = panel();
    expect(after.querySelector('#programs')!.textContent).toBe('No programs running');
    const ended = after.querySelector('#programs-ended [data-program="p-1"]')!;
    expect(ended.getAttribute('data-ended')).toBe('failure');
    expect(ended.querySelector('[data-output="p-1"]')!.textContent).toContain('error TS2322');
    expect(ended.querySelector('.status')!.textContent).toBe('failed, exit code 2');
    expect(ended.querySelector('[data-stop-program]')).toBeNull();
    useLocale('zh_CN');
    expect(panel().querySelector('#programs-ended .status')!.textContent).toBe('失败，退出码 2');
    // only the last few are kept
    for (let i = 0; i < 7; i += 1) {
      source.push({ type: 'event', event: { type: 'program-exit', program: { ...PROGRAM, id: `q-${i}`, status: 'completed' }, result: { ...result, status: 'completed', returncode: 0 } } });
    }
    expect(live.get().ended.map((e) => e.program.id)).toEqual(['q-6', 'q-5', 'q-4', 'q-3', 'q-2']);
    live.close();
  });

  it("the output of a program no longer listed as ended is let go: a panel left open does not keep every program's output", async () => {
    const source = fakeSource({ connection: CONNECTED, programs: [] });
    const live = createLive(source, ['programs'], { refreshMs: 60_000 });
    await live.refresh();
    const result = { status: 'completed' as const, returncode: 0, runtime: 1, truncated: false };
    for (let i = 0; i < 20; i += 1) {
      const programId = `q-${i}`;
      source.push({ type: 'event', event: { type: 'program-output', programId, name: 'build', stream: 'stdout', chunk: 'x'.repeat(1000), offset: 0 } });
      source.push({ type: 'event', event: { type: 'program-exit', program: { ...PROGRAM, id: programId, status: 'completed' }, result } });
    }
    // one still running keeps its output while the ended list moves on
    source.push({ type: 'event', event: { type: 'program-output', programId: 'p-1', name: 'dev', stream: 'stdout', chunk: 'ready\n', offset: 0 } });
    source.push({ type: 'event', event: { type: 'program-exit', program: { ...PROGRAM, id: 'q-20', status: 'completed' }, result } });
    expect(live.get().ended.map((e) => e.program.id)).toEqual(['q-20', 'q-19', 'q-18', 'q-17', 'q-16']);
    expect(Object.keys(live.get().output).sort()).toEqual(['p-1', 'q-16', 'q-17', 'q-18', 'q-19']);
    live.close();
  });

  it('the audit log is read again only after a run, a decision or an action, not on every refresh', async () => {
    const source = fakeSource({ connection: CONNECTED, audit: [audit({})] });
    const live = createLive(source, ['audit'], { refreshMs: 60_000 });
    await live.refresh();
    await live.refresh();
    await live.refresh();
    const audits = (): number => source.asked.filter((type) => type === 'audit').length;
    expect(audits()).toBe(1);
    expect(live.get().audit.length).toBe(1);
    source.push({ type: 'event', event: { type: 'run', run: { runId: 'run-2', status: 'done', resultText: 'ok', auditId: 'a-2' } } });
    await live.refresh();
    expect(audits()).toBe(2);
    await live.undo('j-1');
    expect(audits()).toBe(3);
    live.close();
  });

  it("the companion away: each of the socket's tries again is not shown, so the state's live region and the hint under it hold still", async () => {
    const connection = { current: CONNECTED };
    const source = fakeSource({});
    source.ask = (async (type: RequestType) => {
      if (type === 'connection') return connection.current;
      throw new Error(`${type}: companion not reachable`);
    }) as typeof source.ask;
    const live = createLive(source, [], { refreshMs: 60_000 });
    await live.refresh();
    const root = document.body.appendChild(document.createElement('div'));
    const draw = (): void => {
      act(() => render(<SidePanelView state={live.get()} actions={{ decide() {}, forgetGrant() {}, undo() {}, stopProgram() {} }} />, root));
    };
    const away: ConnectionInfo = { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890', detail: closedDetail(1006, '') };
    const trying: ConnectionInfo = { state: 'connecting', companionUrl: 'http://127.0.0.1:17890' };
    source.push({ type: 'connection', connection: away });
    draw();
    const pill = root.querySelector('#connection')!;
    expect(pill.textContent).toBe('chatbridge disconnected');
    // the socket tries again (as it does every 1 to 30 s), from a push and from a refresh
    source.push({ type: 'connection', connection: trying });
    draw();
    expect(pill.textContent).toBe('chatbridge disconnected');
    expect(root.querySelector('#connection-hint')).not.toBeNull();
    connection.current = trying;
    await live.refresh();
    draw();
    expect(pill.textContent).toBe('chatbridge disconnected');
    source.push({ type: 'connection', connection: away });
    source.push({ type: 'connection', connection: CONNECTED });
    draw();
    expect(pill.textContent).toBe('chatbridge connected');
    expect(root.querySelector('#connection-hint')).toBeNull();
    live.close();
  });

  it("approvals shown while the companion is away cannot be decided and say why; back, the cards are the companion's current ones", async () => {
    const companion: { up: boolean; approvals: Approval[]; connection: ConnectionInfo } = { up: true, approvals: [approval(), EXEC], connection: CONNECTED };
    const decided: string[] = [];
    // a list asked for while the companion is away fails once `fail` is called (the browser gives up on a refused or hung fetch)
    let fail: (() => void) | undefined;
    const source = fakeSource({});
    source.ask = (async (type: RequestType, request: never) => {
      if (type === 'connection') return companion.connection;
      if (!companion.up) {
        await new Promise<void>((resolve) => (fail = resolve));
        throw new Error(`${type}: companion not reachable`);
      }
      if (type === 'approvals') return companion.approvals;
      if (type === 'decide') return void decided.push((request as { id: string }).id);
      throw new Error(`${type}: not answered here`);
    }) as typeof source.ask;
    const live = createLive(source, ['approvals'], { refreshMs: 60_000 });
    await live.refresh();
    const panel = document.body.appendChild(document.createElement('div'));
    const popup = document.body.appendChild(document.createElement('div'));
    const draw = (): void => {
      const decide = (a: Approval, d: ApprovalDecision): void => void live.decide(a, d);
      act(() => render(<SidePanelView state={live.get()} actions={{ decide, forgetGrant() {}, undo() {}, stopProgram() {} }} />, panel));
      act(() => render(<PopupView state={live.get()} deps={{ sites: [], readSite: async () => defaultSiteSettings('chatgpt'), writeSite: async () => undefined, companionUrl: '' }} live={live} />, popup));
    };
    draw();
    for (const root of [panel, popup]) expect(root.querySelector('[data-approval="confirm-2"] [data-away]')).toBeNull();
    // the companion stops: its cards stay in sight, but a decision could not reach it
    companion.up = false;
    companion.connection = { state: 'disconnected', companionUrl: 'http://127.0.0.1:17890', detail: closedDetail(1006, '') };
    source.push({ type: 'connection', connection: companion.connection });
    draw();
    for (const root of [panel, popup]) {
      const card = root.querySelector('[data-approval="confirm-2"]')!;
      expect(card.querySelector('[data-away]')!.textContent).toBe(
        'chatbridge is not connected to the companion (its state is above), so this cannot be decided now; once it is, only what still waits is shown.',
      );
      for (const button of card.querySelectorAll('[data-decision]')) {
        expect(button.getAttribute('aria-disabled')).toBe('true');
        expect(button.getAttribute('aria-describedby')).toContain(card.querySelector('[data-away]')!.id);
      }
      // the keyboard keeps its place on a button it cannot use (a disabled one would drop the focus to the page's body)
      expect(card.querySelector<HTMLButtonElement>('[data-decision="approve"]')!.disabled).toBe(false);
      await act(async () => trustedClick(card.querySelector('[data-decision="approve"]')!));
      await act(async () => trustedClick(card.querySelector('[data-decision="deny"]')!));
    }
    expect(source.asked).not.toContain('decide');
    // a refresh is under way (the list asked for hangs) when the companion is back, having decided one meanwhile and
    // dropped the other (it restarted): the cards shown are its own, not those read before it went
    const stale = live.refresh();
    await act(async () => await new Promise((resolve) => setTimeout(resolve, 0)));
    companion.up = true;
    companion.approvals = [];
    companion.connection = CONNECTED;
    source.push({ type: 'connection', connection: CONNECTED });
    const back = live.refresh();
    fail?.();
    await stale;
    await back;
    draw();
    expect(live.get().approvals).toEqual([]);
    expect(panel.querySelector('[data-approval]')).toBeNull();
    expect(popup.querySelector('[data-approval]')).toBeNull();
    useLocale('zh_CN');
    companion.approvals = [EXEC];
    await live.refresh();
    companion.connection = { state: 'unpaired', companionUrl: 'http://127.0.0.1:17890' };
    source.push({ type: 'connection', connection: companion.connection });
    draw();
    expect(panel.querySelector('[data-approval="confirm-2"] [data-away]')!.textContent).toBe('chatbridge 未连接到本地助手（状态见上方），现在无法处理此审批；连接后只显示仍在等待的审批。');
    expect(decided).toEqual([]);
    live.close();
  });

  it("an action's error is shown and the lists stay when the companion goes away", async () => {
    const source = fakeSource({ connection: CONNECTED, approvals: [approval()] });
    const live = createLive(source, ['approvals'], { refreshMs: 60_000 });
    await live.refresh();
    await live.undo('j-404');
    expect(live.get().error).toBe('undo: companion not reachable');
    expect(live.get().approvals.length).toBe(1);
    live.close();
  });
});
