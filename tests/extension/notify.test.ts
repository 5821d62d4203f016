import { afterEach, describe, expect, it } from 'vitest';
import {
  approvalIdOf,
  approvalsToNotify,
  isInFront,
  noticeId,
  noticesToClear,
  panelPathFor,
  type PendingApproval,
  type TabFacts,
} from '../../extension/companion/notify';
import { latestWaitingBlock } from '../../extension/content/run-latest';
import type { MessageRecord, TrackedBlock } from '../../extension/content/page-context';
import { approvalFromHash } from '../../extension/ui/side-panel';
import { LIST, READ, assistantRow, buildPage, renderReply, start, stopPages, until, userRow } from './page-harness';

const approval = (id: string, conversationId = 'c1', state = 'pending'): PendingApproval => ({ id, state, site: 'chatgpt', conversationId });
const FOCUSED = 7;

describe('which approval notifies', () => {
  const tabs: Record<string, TabFacts> = {
    front: { tabId: 1, windowId: FOCUSED, active: true },
    behind: { tabId: 2, windowId: FOCUSED, active: false },
    otherWindow: { tabId: 3, windowId: 8, active: true },
  };
  const cases: Array<[string, TabFacts | undefined, number | null, boolean]> = [
    ['its tab is the selected tab of the focused window: the chip shows it, no notification', tabs.front, FOCUSED, false],
    ['its tab is behind another tab', tabs.behind, FOCUSED, true],
    ['its tab is selected in a window without the focus', tabs.otherWindow, FOCUSED, true],
    ['the person is in another program (no browser window focused)', tabs.front, null, true],
    ['its tab is unknown or closed', undefined, FOCUSED, true],
  ];
  it.each(cases)('%s', (_, tab, focused, notifies) => {
    const chosen = approvalsToNotify({ pending: [approval('a1')], notified: new Set(), tabOf: () => tab, focusedWindowId: focused });
    expect(chosen.map((a) => a.id)).toEqual(notifies ? ['a1'] : []);
    expect(isInFront(tab, focused)).toBe(!notifies);
  });

  it('once per approval, and only while it is pending', () => {
    const pending = [approval('a1'), approval('a2'), approval('a3', 'c1', 'approved'), approval('a4', 'c1', 'expired')];
    const chosen = approvalsToNotify({ pending, notified: new Set(['a1']), tabOf: () => tabs.behind, focusedWindowId: FOCUSED });
    expect(chosen.map((a) => a.id)).toEqual(['a2']);
  });

  it('each approval is judged by its own tab', () => {
    const pending = [approval('a1', 'in-front'), approval('a2', 'behind')];
    const chosen = approvalsToNotify({
      pending,
      notified: new Set(),
      tabOf: (a) => (a.conversationId === 'in-front' ? tabs.front : tabs.behind),
      focusedWindowId: FOCUSED,
    });
    expect(chosen.map((a) => a.id)).toEqual(['a2']);
  });

  it('a decided or expired approval takes its notification off the screen', () => {
    expect(noticesToClear(['a1', 'a2', 'a3'], [approval('a2'), approval('a3', 'c1', 'denied')])).toEqual(['a1', 'a3']);
    expect(noticesToClear([], [approval('a1')])).toEqual([]);
  });

  it('a notification id names its approval; others are not ours; the panel opens on that approval', () => {
    expect(approvalIdOf(noticeId('appr-123'))).toBe('appr-123');
    expect(approvalIdOf('some-other-extension-id')).toBeNull();
    expect(approvalIdOf(noticeId(''))).toBeNull();
    const path = panelPathFor('appr-123');
    expect(path).toBe('sidepanel.html#approval=appr-123');
    expect(approvalFromHash(path.slice(path.indexOf('#')))).toBe('appr-123');
  });
});

describe('which block is the latest waiting one (the keyboard command)', () => {
  afterEach(() => document.body.replaceChildren());

  let n = 0;
  function message(role: 'assistant' | 'user', blocks: Array<Partial<TrackedBlock> & { complete?: boolean }>): Pick<MessageRecord, 'el' | 'role' | 'blocks'> {
    const el = document.createElement('div');
    el.id = `m${(n += 1)}`;
    document.body.append(el);
    return {
      el,
      role,
      blocks: blocks.map((b, index) => ({
        block: { kind: 'mcp-request', complete: b.complete ?? true } as TrackedBlock['block'],
        index,
        key: `${el.id}|${index}`,
        state: b.state ?? 'ready',
        chip: null,
        anchor: null,
        ranBefore: b.ranBefore ?? false,
        reruns: 0,
      })),
    };
  }

  it('the lowest ready block on the page, by document order (not the order the records were made)', () => {
    const first = message('assistant', [{}, {}]);
    const second = message('assistant', [{}, { state: 'done' }]);
    expect(latestWaitingBlock([second, first])?.tracked.key).toBe(`${second.el.id}|0`);
    // a message re-rendered higher up (a virtual list) is still judged by where it is
    document.body.append(first.el);
    expect(latestWaitingBlock([second, first])?.tracked.key).toBe(`${first.el.id}|1`);
  });

  it('skips blocks that ran before, are still being written, are not ready, are in a person\'s message or left the page', () => {
    const waiting = message('assistant', [{}]);
    const later = [
      message('assistant', [{ ranBefore: true }]),
      message('assistant', [{ complete: false, state: 'writing' }]),
      message('assistant', [{ state: 'approval' }, { state: 'running' }, { state: 'failed' }, { state: 'unreadable' }]),
      message('user', [{}]),
    ];
    const gone = message('assistant', [{}]);
    gone.el.remove();
    expect(latestWaitingBlock([waiting, ...later, gone])?.tracked.key).toBe(`${waiting.el.id}|0`);
    expect(latestWaitingBlock(later)).toBeNull();
    expect(latestWaitingBlock([])).toBeNull();
  });
});

describe('the keyboard command on a page', () => {
  afterEach(stopPages);

  it('runs the latest block waiting for Run, once; then says nothing is waiting', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const older = assistantRow();
    renderReply(older.answer, ['old reply', { lang: 'mcp-request', code: READ }]);
    const newer = assistantRow();
    renderReply(newer.answer, ['newer reply', { lang: 'mcp-request', code: LIST }]);
    page.list.append(older.row, newer.row);
    const h = start(page);
    await h.settle();
    expect(h.runs).toEqual([]); // history: nothing ran by itself
    const reply = await h.ctl.runLatest();
    expect(reply).toMatchObject({ ok: true, kind: 'mcp-request' });
    await until(() => h.runs.length === 1);
    expect(h.runs[0]?.text).toContain('call-002');
    await until(() => newer.row.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-state') === 'done');
    // the older block is the latest waiting one now
    expect(await h.ctl.runLatest()).toMatchObject({ ok: true });
    await until(() => h.runs.length === 2);
    expect(h.runs[1]?.text).toContain('call-001');
    await until(() => older.row.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-state') === 'done');
    const none = await h.ctl.runLatest();
    expect(none).toEqual({ ok: false, error: 'no block is waiting for Run on this DeepSeek page' });
    expect(h.runs).toHaveLength(2);
  });
});
