import { describe, expect, it } from 'vitest';
import { BADGE_COLORS, BADGE_TEXT_COLOR, badgeFor, createBadge, type BadgeApi } from '../../extension/companion/badge';
import { contrast } from './contrast';
import { useLocale } from './i18n-fake';

describe('toolbar badge: what it shows', () => {
  it('approvals waiting first, as a number; past 99 it says 99+', () => {
    expect(badgeFor({ approvals: 2, connection: 'connected', problem: { code: 'NO_EDITOR', message: 'no chat box' } })).toMatchObject({
      state: 'approvals',
      text: '2',
      color: BADGE_COLORS.approvals,
      title: 'chatbridge: 2 approvals waiting',
    });
    expect(badgeFor({ approvals: 1, connection: 'connected' }).title).toBe('chatbridge: 1 approval waiting');
    expect(badgeFor({ approvals: 150, connection: 'connected' }).text).toBe('99+');
  });
  it('a companion away says "off", an unpaired one "?", whatever else', () => {
    expect(badgeFor({ approvals: 3, connection: 'disconnected' })).toMatchObject({ state: 'offline', text: 'off' });
    expect(badgeFor({ approvals: 0, connection: 'unpaired', problem: { code: 'X', message: 'y' } })).toMatchObject({ state: 'unpaired', text: '?' });
  });
  it('"off" is in the person\'s language: a Chinese toolbar showed the English word', () => {
    useLocale('zh_CN');
    expect(badgeFor({ approvals: 3, connection: 'disconnected' })).toMatchObject({ state: 'offline', text: '离线', title: 'chatbridge：无法连接本地助手' });
  });
  it("the site doctor's problem on a tab shows as ! with the problem in the title", () => {
    expect(badgeFor({ approvals: 0, connection: 'connected', problem: { code: 'NO_EDITOR', message: 'no chat box found' } })).toMatchObject({
      state: 'problem',
      text: '!',
      title: 'chatbridge: problem on this page: no chat box found',
    });
  });
  it('nothing when all is well or while connecting; bad counts count as none', () => {
    expect(badgeFor({ approvals: 0, connection: 'connected' }).text).toBe('');
    expect(badgeFor({ approvals: 0, connection: 'connecting' }).text).toBe('');
    expect(badgeFor({ approvals: Number.NaN, connection: 'connected' }).text).toBe('');
    expect(badgeFor({ approvals: -4, connection: 'connected' }).text).toBe('');
  });
  it("every badge's words read at 4.5:1 on its colour, with the words' colour chosen here, not left to the browser", () => {
    for (const [state, color] of Object.entries(BADGE_COLORS)) {
      expect(contrast(BADGE_TEXT_COLOR, color), `${state}: ${BADGE_TEXT_COLOR} on ${color}`).toBeGreaterThanOrEqual(4.5);
    }
    const set: Array<{ color: string; tabId?: number }> = [];
    const badge = createBadge({ setBadgeText: () => undefined, setBadgeBackgroundColor: () => undefined, setTitle: () => undefined, setBadgeTextColor: (d) => void set.push(d) });
    badge.setConnection('connected');
    badge.setProblem(3, { code: 'NO_EDITOR', message: 'no chat box' });
    expect(set).toEqual([{ color: BADGE_TEXT_COLOR }, { color: BADGE_TEXT_COLOR, tabId: 3 }]);
  });
  it('the title is in the browser language', () => {
    useLocale('zh_CN');
    expect(badgeFor({ approvals: 1, connection: 'connected' }).title).toBe('chatbridge：1 个操作等待批准');
  });
});

describe('toolbar badge: applied through the action API', () => {
  function recorder(): BadgeApi & { texts: Array<{ text: string; tabId?: number }> } {
    const texts: Array<{ text: string; tabId?: number }> = [];
    return {
      texts,
      setBadgeText: (details) => void texts.push(details),
      setBadgeBackgroundColor: () => undefined,
      setTitle: () => undefined,
    };
  }

  it('counts up and down globally and keeps a tab with a problem in step', () => {
    const api = recorder();
    const badge = createBadge(api);
    badge.setConnection('connected');
    badge.setProblem(7, { code: 'NO_EDITOR', message: 'no chat box' });
    expect(api.texts.at(-1)).toEqual({ text: '!', tabId: 7 });
    badge.setApprovals(1);
    expect(api.texts.slice(-2)).toEqual([{ text: '1' }, { text: '1', tabId: 7 }]);
    badge.setApprovals(0);
    expect(api.texts.slice(-2)).toEqual([{ text: '' }, { text: '!', tabId: 7 }]);
    badge.setProblem(7, null);
    expect(api.texts.at(-1)).toEqual({ text: '', tabId: 7 });
    badge.setConnection('disconnected');
    expect(api.texts.slice(-2)).toEqual([{ text: 'off' }, { text: 'off', tabId: 7 }]);
    expect(badge.current(7).text).toBe('off');
  });

  it('a tab shows the global badge again once its problem is over, and on a page that started without one', () => {
    // As the browser draws it: a tab's own text, once set, over the global one.
    const api = recorder();
    const last = (tabId?: number): string | undefined => [...api.texts].reverse().find((d) => d.tabId === tabId)?.text;
    const shown = (tabId: number): string => last(tabId) ?? last() ?? '';
    const badge = createBadge(api);
    badge.setConnection('connected');
    // A chat page starts and says it has no problem; another's problem comes and goes.
    badge.setProblem(3, null);
    badge.setProblem(7, { code: 'no-composer', message: 'no chat box' });
    badge.setProblem(7, null);
    badge.setApprovals(2);
    expect(shown(3)).toBe('2');
    expect(shown(7)).toBe('2');
    badge.setApprovals(0);
    badge.setConnection('disconnected');
    expect(shown(3)).toBe('off');
    expect(shown(7)).toBe('off');
    // A closed tab is drawn no more.
    badge.forgetTab(3);
    const drawn = api.texts.length;
    badge.setConnection('unpaired');
    expect(api.texts.slice(drawn)).toEqual([{ text: '?' }, { text: '?', tabId: 7 }]);
  });

  it('repeating the same input draws nothing again; a closed tab is forgotten', () => {
    const api = recorder();
    const badge = createBadge(api);
    badge.setConnection('connected');
    const drawn = api.texts.length;
    badge.setApprovals(0);
    badge.setConnection('connected');
    expect(api.texts.length).toBe(drawn);
    badge.setProblem(3, { code: 'X', message: 'y' });
    badge.forgetTab(3);
    badge.setApprovals(2);
    expect(api.texts.at(-1)).toEqual({ text: '2' });
  });

  it('an action API that rejects (tab gone) does not throw', async () => {
    const badge = createBadge({
      setBadgeText: () => Promise.reject(new Error('No tab with id: 9')),
      setBadgeBackgroundColor: () => Promise.reject(new Error('No tab with id: 9')),
      setTitle: () => Promise.reject(new Error('No tab with id: 9')),
    });
    expect(() => badge.setProblem(9, { code: 'X', message: 'y' })).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
});
