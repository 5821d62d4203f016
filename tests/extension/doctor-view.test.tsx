import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { DoctorAnswer } from '../../extension/doctor/answer';
import { buildReport, problemFor, type DoctorReport } from '../../extension/doctor/report';
import { chatgpt } from '../../extension/sites';
import { DoctorView, type DoctorViewDeps } from '../../extension/ui/doctor-view';
import { useLocale } from './i18n-fake';
import { loadFixture } from './site-fixtures';

/** The popup's site doctor view (extension/ui/doctor-view.tsx) in each state, and "Copy a report". */

function report(over: Partial<DoctorReport> = {}): DoctorReport {
  return {
    site: { id: 'generic', name: 'Other site', editorFamily: 'unknown', generic: true },
    host: 'chat.example.org',
    running: true,
    messages: { count: 4, user: 2, assistant: 2 },
    lastReply: { answerFound: true, codeBlocks: 1, pres: 1, unrecognized: 0, blocks: [{ kind: 'mcp-request', state: 'done' }] },
    composer: { found: true, family: 'unknown', element: 'textarea#prompt', kind: 'textarea' },
    send: { found: true, disabled: false },
    generating: 'no-signal',
    stopControl: false,
    lastInsert: { ok: true, method: 'native-setter', at: 1 },
    lastSubmit: { ok: true, method: 'click', at: 2 },
    problems: [],
    ...over,
  };
}

let host: HTMLElement | null = null;
afterEach(() => {
  if (host) render(null, host);
  host?.remove();
  host = null;
});

async function mount(deps: Partial<DoctorViewDeps> & Pick<DoctorViewDeps, 'load'>): Promise<HTMLElement> {
  host = document.createElement('div');
  document.body.append(host);
  await act(async () => {
    render(<DoctorView deps={{ copy: async () => undefined, version: '0.1.0', refreshMs: 0, ...deps }} />, host!);
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
  await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
  return host;
}

const row = (root: Element, name: string): HTMLElement => root.querySelector(`[data-doctor-row="${name}"]`) as HTMLElement;

function trustedClick(el: Element): void {
  const event = new MouseEvent('click', { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'isTrusted', { value: true });
  el.dispatchEvent(event);
}

describe('doctor view', () => {
  it('everything found: each row ok, "Everything this site needs was found"', async () => {
    const root = await mount({ load: async () => ({ report: report() }) });
    expect(root.querySelector('#doctor')?.getAttribute('data-state')).toBe('ok');
    expect(root.textContent).toContain('Everything this site needs was found');
    for (const name of ['messages', 'last-reply', 'composer', 'send', 'insert', 'submit']) expect(row(root, name).getAttribute('data-ok')).toBe('true');
    expect(row(root, 'composer').textContent).toBe('found: textarea#prompt · unknown');
    expect(row(root, 'generating').textContent).toContain('none on this site');
    expect(row(root, 'submit').textContent).toBe('verified (click)');
  });

  it('an empty new chat whose site draws no send control while the box is empty: nothing marked', async () => {
    const empty = report({ messages: { count: 0, user: 0, assistant: 0 }, lastReply: null, send: { found: false }, lastInsert: null, lastSubmit: null });
    const root = await mount({ load: async () => ({ report: empty }) });
    expect(root.querySelector('#doctor')?.getAttribute('data-state')).toBe('ok');
    for (const name of ['messages', 'last-reply', 'composer', 'send', 'insert', 'submit']) expect(row(root, name).getAttribute('data-ok'), name).toBe('true');
    expect(row(root, 'send').textContent).toBe('not shown while the chat box is empty');
    render(null, host!);
    const writing = await mount({ load: async () => ({ report: { ...empty, stopControl: true, generating: 'yes' } }) });
    expect(row(writing, 'send')).toMatchObject({ textContent: 'the stop control stands in its place while a reply is written' });
    expect(row(writing, 'send').getAttribute('data-ok')).toBe('true');
    render(null, host!);
    // The running page's checks say when either is missing: then the row is marked.
    const missing = report({ ...empty, problems: [problemFor('no-messages'), problemFor('no-send-control')] });
    const again = await mount({ load: async () => ({ report: missing }) });
    for (const name of ['messages', 'send']) expect(row(again, name).getAttribute('data-ok'), name).toBe('false');
    expect(row(again, 'send').textContent).toBe('NOT found');
  });

  it('a page whose composer was removed and whose submit was not verified: the problems in plain words, rows marked', async () => {
    const root = await mount({
      load: async () => ({
        report: report({
          composer: { found: false, family: 'prosemirror' },
          send: { found: false },
          lastSubmit: { ok: false, reason: 'the send button never became available; pressed Enter, nothing was sent', at: 3 },
          problems: [problemFor('no-composer'), problemFor('submit-unverified')],
        }),
      }),
    });
    expect(root.querySelector('#doctor')?.getAttribute('data-state')).toBe('problem');
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('no chat box found on this page');
    expect(root.querySelector('[data-doctor-problem="submit-unverified"]')?.textContent).toContain('press Enter');
    expect(row(root, 'composer').getAttribute('data-ok')).toBe('false');
    expect(row(root, 'composer').textContent).toBe('NOT found · prosemirror');
    expect(row(root, 'submit').textContent).toContain('send button never became available');
  });

  it('code the module could not read marks the last reply', async () => {
    const root = await mount({ load: async () => ({ report: report({ messages: { count: 2, user: 1, assistant: 1 }, lastReply: { answerFound: true, codeBlocks: 0, pres: 2, unrecognized: 2, blocks: [] } }) }) });
    expect(row(root, 'last-reply').getAttribute('data-ok')).toBe('false');
    // a count's words follow it
    expect(row(root, 'last-reply').textContent).toBe("0 code blocks read, 0 blocks found · 2 code blocks in a shape this site's module does not know");
    expect(row(root, 'messages').textContent).toBe('2 (1 yours, 1 reply)');
  });

  it("a reply whose code blocks lost their language label: the last reply is marked, as the page's problem says", async () => {
    const problem = problemFor('code-unreadable', "1 code block without the language label this site's module reads");
    const lastReply = { answerFound: true, codeBlocks: 1, pres: 1, unrecognized: 0, blocks: [] };
    const root = await mount({ load: async () => ({ report: report({ lastReply, problems: [problem] }) }) });
    expect(root.querySelector('[data-doctor-problem="code-unreadable"]')?.textContent).toBe(problem.message);
    expect(row(root, 'last-reply').getAttribute('data-ok')).toBe('false');
  });

  it('a saved ChatGPT page whose code a new build draws without a `pre`: the last reply is marked and says how many', async () => {
    const doc = loadFixture('chatgpt/2026-10-search-unit-idle.html');
    const pre = doc.querySelector('[data-chatgpt-search-unit-key$=":assistant"] pre')!;
    const redrawn = doc.createElement('div');
    redrawn.innerHTML = '<div class="code-header">json</div><div class="code-body"><code></code></div>';
    redrawn.querySelector('code')!.textContent = chatgpt.codeText(pre).text;
    pre.replaceWith(redrawn);
    const built = buildReport(chatgpt, doc, null, 'chatgpt.com');
    const root = await mount({ load: async () => ({ report: built }) });
    expect(row(root, 'last-reply').getAttribute('data-ok')).toBe('false');
    expect(row(root, 'last-reply').textContent).toBe("0 code blocks read, 0 blocks found · 1 code block in a shape this site's module does not know");
  });

  it('a tab chatbridge does not run in, and a site switched off', async () => {
    const absent = await mount({ load: async () => null });
    expect(absent.querySelector('#doctor')?.getAttribute('data-state')).toBe('absent');
    expect(absent.textContent).toContain('chatbridge is not running in this tab');
    render(null, absent);
    const off = await mount({ load: async () => ({ report: report({ running: false, lastInsert: null, lastSubmit: null }) }) });
    expect(off.textContent).toContain('This site is off');
    expect(row(off, 'insert').textContent).toBe('not yet');
  });

  it('"Copy a report" asks for the outline and copies the report with it; says so', async () => {
    const copied: string[] = [];
    const asked: boolean[] = [];
    const load = async (outline: boolean): Promise<DoctorAnswer> => {
      asked.push(outline);
      return { report: report(), ...(outline ? { outline: 'body\n  main.chat' } : {}) };
    };
    const root = await mount({ load, copy: async (text) => void copied.push(text) });
    await act(async () => {
      trustedClick(root.querySelector('#doctor-copy')!);
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    expect(asked).toEqual([false, true]);
    expect(copied).toHaveLength(1);
    expect(copied[0]).toContain('site: Other site (generic, generic adapter) on chat.example.org');
    expect(copied[0]).toMatch(/page outline .*\nbody\n {2}main\.chat$/);
    expect(root.querySelector('#doctor-status')?.textContent).toContain('never its text');
  });

  it('in Chinese', async () => {
    useLocale('zh_CN');
    const root = await mount({ load: async () => ({ report: report({ problems: [problemFor('no-composer')] }) }) });
    expect(root.querySelector('#doctor-title')?.textContent).toBe('网站诊断');
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('找不到输入框');
    // A site chatbridge has no module for is named in the person's words, not by the adapter's English name.
    expect(row(root, 'site').textContent).toBe('通用适配 — chat.example.org');
  });
});
