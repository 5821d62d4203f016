import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { t } from '../../extension/ui/i18n';
import { CANDIDATE_MAX_MS } from '../../extension/content/page-decide';
import { STUCK_SIGNAL_MS } from '../../extension/content/page-doctor';
import { RunLedger } from '../../extension/scanner/blocks';
import { chatgpt, generic } from '../../extension/sites';
import { APPROVAL, LIVE_SEND_ICON, LIVE_STOP_ICON, READ, LIST, WRITE, SERVE_PLAN, SERVE_PROGRAM, assistantRow, buildPage, catchChipRoots, chipStates, clickChip, deepseekReadingItsComposer, memoryArea, renderReply, start, stopPages, trusted, until, userRow, type Harness } from './page-harness';
import { messageIn, useLocale } from './i18n-fake';

/**
 * Issue 10 on a DeepSeek-like page: a reply the person stopped (a trusted click on the site's stop control, or
 * Escape) never auto-runs nor auto-submits; a reply that ended inside its last block (the page shows the unfinished
 * fence closed) neither; an auto_coder plan found outside a code block never auto-runs. A Run click still works.
 */

afterEach(stopPages);

const roots = catchChipRoots();

function chips(): Element[] {
  return Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
}

function noteOf(chip: Element | undefined): string | null {
  return chip?.getAttribute('data-chatbridge-note') ?? null;
}

/** The person presses the site's stop control (DeepSeek: the send control showing the stop icon). */
function pressStop(h: Harness, how: 'trusted' | 'script' = 'trusted'): void {
  const icon = h.page.send.querySelector('svg') ?? h.page.send;
  const click = new MouseEvent('click', { bubbles: true });
  icon.dispatchEvent(how === 'trusted' ? trusted(click) : click);
}

function pressEscape(): void {
  document.body.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
}

type Part = string | { lang: string; code: string };

/** A reply starts generating (the site shows its row and the stop control). */
async function begin(h: Harness): Promise<HTMLElement> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  return answer;
}

/** The page shows the reply's text so far (DeepSeek draws an unfinished fence as a finished code block). */
async function show(h: Harness, answer: HTMLElement, parts: Part[], ms = 50): Promise<void> {
  renderReply(answer, parts);
  h.clock.now += ms;
  await h.settle();
}

/** Generation ends (stopped or not), and the page has had time to decide the reply. */
async function end(h: Harness): Promise<void> {
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  h.clock.now += 10_000;
  await h.settle();
}

const CUT = '{"jsonrpc":"2.0","id":"call-009","method":"tools/call","params":{"name":"fs.read","arguments":{';
const PLAN = '#####--{"metadata":{"step_id":"s1","reason":"r","summary":""},"type":"operate","file_operations":[{"action_type":"read_file","path":"a.txt"}]}--#####';

const failed = (text: string) => (): RunResponse => ({ runId: 'run-1', status: 'error', resultText: text, auditId: 'a' });

describe('page: a reply the person stopped', () => {
  it('a trusted click on the stop control: nothing runs, nothing is sent, the chip offers Run — and the next reply runs as usual', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl']);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('');
    const [chip] = chips();
    expect(chip?.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chip?.getAttribute('data-chatbridge-actions')).toBe('run');
    expect(noteOf(chip)).toBe(t('note.stopped'));

    const next = await begin(h);
    await show(h, next, [{ lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it('Run on a complete block of a stopped reply types the result into the box and does not send it', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    clickChip(roots, chips()[0], 'run');
    await until(() => h.page.state() === 'RESULT[mcp-request:1]');
    await until(() => noteOf(chips()[0]) === t('note.insertedStopped'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
  });

  it("a stopped reply's result typed in by Run is never sent along with a later reply's result", async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    clickChip(roots, chips()[0], 'run');
    await until(() => h.page.state() === 'RESULT[mcp-request:1]');
    // The person leaves it there and asks again another way (an edited message, a regenerate): a new reply runs.
    const next = await begin(h);
    await show(h, next, [{ lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.runs.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('RESULT[mcp-request:1]\n\nRESULT[mcp-request:2]');
    await until(() => noteOf(chips()[1]) === t('note.insertedAfterUnsent'));
    // The person sends the box; the next result is sent as usual.
    h.page.send.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const third = await begin(h);
    await show(h, third, [{ lang: 'mcp-request', code: WRITE.replace('call-009', 'call-010') }]);
    await end(h);
    await until(() => h.page.submitted.length === 2);
    expect(h.page.submitted[1]).toBe('RESULT[mcp-request:3]');
  });

  it('Run on a stopped reply, its approval decided after a reload: the result is typed in and not sent', async () => {
    const area = memoryArea();
    let decided = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
      getRun: (runId: string): RunResponse =>
        decided
          ? { runId, status: 'done', resultText: 'WRITTEN', auditId: 'a' }
          : { runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' },
    };
    const h = start(buildPage(), { area, script });
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: WRITE }, 'And then I will']);
    pressStop(h);
    await end(h);
    clickChip(roots, chips()[0], 'run');
    await until(() => chipStates().includes('approval'));
    const pendingKey = 'ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = h.page.list.innerHTML;
    stopPages();
    // Reloaded while the card waits; the person approves in the side panel.
    const page = buildPage();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const again = start(page, { area, script });
    await again.settle();
    await until(() => chipStates().includes('approval'));
    decided = true;
    again.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => page.state() === 'WRITTEN' || page.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
    expect(page.state()).toBe('WRITTEN');
    expect(noteOf(chips()[0])).toBe(t('note.insertedStopped'));
  });

  it('a stopped reply is still stopped after a reload (messages keyed by position), though the list mounts fewer rows: Run types the result in', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area });
    h.page.list.append(userRow('hello'), userRow('earlier'));
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = Array.from(h.page.list.children).slice(-2).map((row) => row.outerHTML).join('');
    stopPages();

    // Reloaded: the list mounts only the last two rows, so the reply's place among the rows is another.
    const page = buildPage();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const again = start(page, { area });
    again.clock.now += 60_000;
    await again.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => page.state() === 'RESULT[mcp-request:1]' || page.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
  });

  it("a reply stopped by another tab's Stop is still stopped after this tab's reload (messages keyed by position)", async () => {
    const area = memoryArea();
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will'];
    // The tab where the person presses Stop, closed before the reply ended there.
    const here = start(buildPage(), { area });
    const answer = await begin(here);
    await show(here, answer, parts);
    pressStop(here);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stopPages();

    const other = start(buildPage(), { area });
    const mirrored = await begin(other);
    await show(other, mirrored, parts);
    await end(other);
    expect(other.runs).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = other.page.list.innerHTML;
    stopPages();

    const page = buildPage();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    start(page, { area });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
  });

  it("a reply stopped in one conversation is not taken for a reply with the same text in the next conversation opened in the tab (messages keyed by position)", async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area });
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }]);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = Array.from(h.page.list.children).map((row) => row.outerHTML).join('');
    stopPages();

    // Reloaded: the stopped reply is known by its text.
    const page = buildPage();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const again = start(page, { area });
    again.clock.now += 60_000;
    await again.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));

    // The person opens another conversation, whose model began with the same call: that reply was never stopped.
    again.navigate('/a/chat/s/0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9');
    page.list.replaceChildren();
    await again.settle();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await again.settle();
    again.clock.now += 5_000;
    await again.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.history'));
    clickChip(roots, chips()[0], 'run');
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['RESULT[mcp-request:1]']);

    // Back in the first conversation: its reply is still the stopped one.
    again.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    page.list.replaceChildren();
    await again.settle();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await again.settle();
    again.clock.now += 5_000;
    await again.settle();
    await until(() => noteOf(chips()[0]) === t('note.stopped'));
  });

  it('after a reload, a reply with other text at the stopped reply\'s place is not taken for it (messages keyed by position)', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    stopPages();

    // Another reply now sits where the stopped one was (a virtual list with other rows mounted).
    const page = buildPage();
    const other = assistantRow();
    renderReply(other.answer, ['Listing.', { lang: 'mcp-request', code: LIST }]);
    page.list.append(userRow('do it'), other.row);
    start(page, { area });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(noteOf(chips()[0])).not.toBe(t('note.stopped'));
  });

  it('a reply the person stopped in another tab of the conversation, its result arriving here: typed in, not sent', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    // The other tab tells the conversation's ledger that the person stopped this reply there.
    const reply = h.ctl.records().find((r) => r.role === 'assistant')!;
    await new RunLedger(area).markStopped('3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8', `p:${reply.position}`, h.clock.now);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.state() === 'FINAL');
    await until(() => noteOf(chips()[0]) === t('note.insertedStopped'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual([]);
  });

  it('a Stop pressed in another tab on a site whose messages have no ids (keyed by position): nothing runs here, and the next reply runs', async () => {
    const area = memoryArea();
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl'];
    // The tab where the person presses Stop. Its list holds an earlier exchange the other tab does not show (a
    // virtual list with other rows mounted): the reply's position differs between the tabs.
    const here = start(buildPage(), { area });
    here.page.list.append(userRow('hello'), userRow('earlier'));
    const answer = await begin(here);
    await show(here, answer, parts);
    pressStop(here);
    await end(here);
    expect(here.runs).toEqual([]);
    stopPages();

    // The conversation's other tab, which the site streamed the same reply to, from the same moment on.
    const other = start(buildPage(), { area });
    const mirrored = await begin(other);
    await show(other, mirrored, parts);
    await end(other);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.runs).toEqual([]);
    expect(other.page.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));

    // The Stop was for that reply: the next one runs as usual.
    const next = await begin(other);
    await show(other, next, [{ lang: 'mcp-request', code: LIST }]);
    await end(other);
    await until(() => other.page.submitted.length === 1);
    expect(other.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it("Stop pressed before the reply's row is drawn (the site shows its stop control from the send on): the reply drawn after it is stopped", async () => {
    const h = start(buildPage());
    await h.settle();
    h.page.list.append(userRow('do it'));
    h.page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    pressStop(h);
    // What the model wrote before the Stop reached it is drawn afterwards.
    const { row, answer } = assistantRow();
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.page.list.append(row);
    h.clock.now += 50;
    await h.settle();
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
  });

  it("Stop pressed before the reply's row is drawn as a person presses it (the click a moment after the press) in a new chat: the control that is also send is not taken for a send, and the reply drawn after it is stopped", async () => {
    const h = start(buildPage(), { pathname: '/' });
    await h.settle();
    h.page.list.append(userRow('do it'));
    h.page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    const icon = h.page.send.querySelector('svg')!;
    icon.dispatchEvent(trusted(new PointerEvent('pointerdown', { bubbles: true })));
    h.clock.now += 120;
    icon.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    // What the model wrote before the Stop reached it is drawn afterwards.
    const { row, answer } = assistantRow();
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.page.list.append(row);
    h.clock.now += 50;
    await h.settle();
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
  });

  it("Stop pressed before the reply's row is drawn holds in the conversation's other tab too (messages keyed by position)", async () => {
    const area = memoryArea();
    const here = start(buildPage(), { area });
    await here.settle();
    here.page.list.append(userRow('do it'));
    here.page.setGenerating(true);
    here.clock.now += 50;
    await here.settle();
    pressStop(here);
    const stoppedAt = here.clock.now;
    const { row, answer } = assistantRow();
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    here.page.list.append(row);
    here.clock.now += 50;
    await here.settle();
    await end(here);
    expect(here.runs).toEqual([]);
    stopPages();

    // The other tab, which the site showed the person's message and then the reply: the row came after the Stop.
    const other = start(buildPage(), { area });
    await other.settle();
    other.page.list.append(userRow('do it'));
    other.page.setGenerating(true);
    await other.settle();
    other.clock.now = stoppedAt + 100;
    const mirrored = assistantRow();
    renderReply(mirrored.answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    other.page.list.append(mirrored.row);
    await other.settle();
    await end(other);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.runs).toEqual([]);
    expect(other.page.submitted).toEqual([]);
  });

  it("a Stop pressed in another tab just before the person's next message arrived does not stop that message's reply (messages keyed by position)", async () => {
    const area = memoryArea();
    const here = start(buildPage(), { area });
    const answer = await begin(here);
    await show(here, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl']);
    pressStop(here);
    const stoppedAt = here.clock.now;
    await end(here);
    stopPages();

    // The other tab: the person's next message arrives a moment after the Stop, and its reply after it.
    const other = start(buildPage(), { area });
    await other.settle();
    other.clock.now = stoppedAt + 100;
    const next = await begin(other);
    await show(other, next, [{ lang: 'mcp-request', code: LIST }]);
    await end(other);
    await until(() => other.page.submitted.length === 1);
    expect(other.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it('Stop pressed before any reply was drawn does not stop the reply to the next message', async () => {
    const h = start(buildPage());
    await h.settle();
    h.page.list.append(userRow('do it'));
    h.page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    pressStop(h);
    await end(h);
    // The person asks again (Enter in the box): its reply runs as usual.
    h.page.type('try again');
    h.page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    h.page.type('');
    const next = await begin(h);
    await show(h, next, [{ lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it('a Stop pressed in a tab reloaded while the reply was being written (there it is history) holds in the tab that sees it live', async () => {
    const area = memoryArea();
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl'];
    // The reloaded tab: the reply was already on the page when it loaded, still being written.
    const reloaded = buildPage();
    const { row, answer } = assistantRow();
    renderReply(answer, parts);
    reloaded.list.append(userRow('do it'), row);
    reloaded.setGenerating(true);
    const here = start(reloaded, { area });
    await here.settle();
    here.clock.now += 50;
    pressStop(here);
    await end(here);
    expect(here.runs).toEqual([]);
    stopPages();

    // The conversation's other tab, which saw the reply arrive.
    const other = start(buildPage(), { area });
    const mirrored = await begin(other);
    await show(other, mirrored, parts);
    await end(other);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.runs).toEqual([]);
    expect(other.page.submitted).toEqual([]);
  });

  for (const when of ['once the site no longer writes it', 'while the site still writes it'] as const) {
    it(`a reply still being written when the page loaded (there it is history), stopped here, Run clicked ${when}: its chip says it was stopped, and the result is typed in, not sent`, async () => {
      const reloaded = buildPage();
      const { row, answer } = assistantRow();
      renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl']);
      reloaded.list.append(userRow('do it'), row);
      reloaded.setGenerating(true);
      const h = start(reloaded);
      await h.settle();
      h.clock.now += 50;
      pressStop(h);
      // What the model wrote before the Stop reached it, drawn after it.
      await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me explain']);
      if (when === 'while the site still writes it') clickChip(roots, chips()[0], 'run');
      await end(h);
      if (when === 'once the site no longer writes it') {
        expect(noteOf(chips()[0])).toBe(t('note.stopped'));
        clickChip(roots, chips()[0], 'run');
      }
      await until(() => h.page.state() === 'RESULT[mcp-request:1]');
      await until(() => noteOf(chips()[0]) === t('note.insertedStopped'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(h.page.submitted).toEqual([]);
    });
  }

  it("a reply another tab of the conversation ran: this tab shows that run's result in the chip, and puts nothing into the chat", async () => {
    const area = memoryArea();
    const conversation = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    const h = start(buildPage(), { area, script: { getRun: (runId) => ({ runId, status: 'done', resultText: 'RESULT FROM THE OTHER TAB', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    // The other tab decided the reply first: it claimed the block, ran it and already put its result into the chat.
    const key = chips()[0]!.getAttribute('data-chatbridge-key')!;
    const other = new RunLedger(area);
    await other.add(conversation, [key]);
    await other.startedRun(conversation, [key], 'run-9', 'normal', h.clock.now);
    await other.delivered(conversation, [key]);
    await end(h);
    const block = () => h.ctl.records().flatMap((r) => r.blocks)[0];
    await until(() => block()?.preview === 'RESULT FROM THE OTHER TAB');
    expect(chips()[0]?.getAttribute('data-chatbridge-state')).toBe('done');
    expect(chips()[0]?.getAttribute('data-chatbridge-actions')).toBe('rerun');
    expect(noteOf(chips()[0])).toBe(t('note.ranElsewhere'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.state()).toBe('');
    expect(h.page.submitted).toEqual([]);
  });

  it('a reply regenerated in place that writes the block this tab already ran: "already ran", not another tab\'s run', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, script: { getRun: (runId) => ({ runId, status: 'done', resultText: `RESULT OF ${runId}`, auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    // Regenerate: the site writes the reply again from the start in the same message, with the same block.
    h.page.setGenerating(true);
    await show(h, answer, ['Let me']);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => noteOf(chips()[0]) === t('note.alreadyRan'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(noteOf(chips()[0])).toBe(t('note.alreadyRan'));
    expect(h.runs).toHaveLength(1);
    expect(h.page.submitted).toHaveLength(1);
  });

  it("a Stop pressed in another tab's new chat (neither has a conversation id yet) does not stop this one's reply", async () => {
    const area = memoryArea();
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl'];
    const here = start(buildPage(), { area, pathname: '/' });
    const answer = await begin(here);
    await show(here, answer, parts);
    pressStop(here);
    await end(here);
    stopPages();

    // Another tab, another new chat, at the same time: another conversation.
    const other = start(buildPage(), { area, pathname: '/' });
    const reply = await begin(other);
    await show(other, reply, [{ lang: 'mcp-request', code: LIST }]);
    await end(other);
    await until(() => other.page.submitted.length === 1);
    expect(other.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it("a block another tab's new chat ran is not shown as this new chat's run (both have no conversation id yet)", async () => {
    const area = memoryArea();
    const script = { getRun: (runId: string): RunResponse => ({ runId, status: 'done', resultText: `RESULT OF ${runId}`, auditId: 'a' }) };
    const here = start(buildPage(), { area, pathname: '/', script });
    const answer = await begin(here);
    await show(here, answer, [{ lang: 'mcp-request', code: READ }]);
    await end(here);
    await until(() => here.page.submitted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stopPages();

    const other = start(buildPage(), { area, pathname: '/', script });
    const reply = await begin(other);
    await show(other, reply, [{ lang: 'mcp-request', code: READ }]);
    await end(other);
    // Its own run, its own result: nothing of the other chat's run.
    await until(() => other.page.submitted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(other.runs).toHaveLength(1);
    expect(noteOf(chips()[0])).not.toBe(t('note.ranElsewhere'));
    expect(other.page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  it("the same block written in another tab's new chat runs there too (neither chat has an id yet; both are keyed by position)", async () => {
    const area = memoryArea();
    const here = start(buildPage(), { area, pathname: '/' });
    const answer = await begin(here);
    await show(here, answer, [{ lang: 'mcp-request', code: READ }]);
    await end(here);
    await until(() => here.page.submitted.length === 1);
    const first = here.runs[0]!.context.conversationId;
    stopPages();

    // Another tab, its own new chat: the model starts it with the same call, in the same place.
    const other = start(buildPage(), { area, pathname: '/' });
    const reply = await begin(other);
    await show(other, reply, [{ lang: 'mcp-request', code: READ }]);
    await end(other);
    await until(() => other.page.submitted.length === 1);
    expect(other.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    expect(other.runs[0]!.context.conversationId).not.toBe(first);
  });

  it("Stop inside a block's JSON (the page shows the fence closed): Run sends it as it stands, the chat gets nothing", async () => {
    const h = start(buildPage(), { script: { respond: failed('PARSE_ERROR: mcp-request is not JSON') } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: CUT }]);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stoppedInBlock'));
    expect(chips()[0]?.getAttribute('data-chatbridge-actions')).toBe('run');

    clickChip(roots, chips()[0], 'run');
    await until(() => chipStates().includes('failed'));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + CUT + '\n```']);
    await until(() => noteOf(chips()[0]) === t('note.cutNotDelivered'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.page.state()).toBe('');
    expect(h.page.submitted).toEqual([]);
  });

  it('a stopped reply whose last block never closed shows it cannot run', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Planning.', '#####--{"type":"operate","file_operations":[']);
    pressStop(h);
    await end(h);
    expect(chipStates()).toEqual(['writing']);
    expect(noteOf(chips()[0])).toBe(t('note.stoppedIncomplete'));
  });

  it('a click a page script dispatches on the stop control is not the person stopping the reply', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }]);
    pressStop(h, 'script');
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(1);
  });

  it('Escape while the reply streams stops it when the reply ends right after', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }, 'more to co']);
    pressEscape();
    await end(h);
    expect(h.runs).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
  });

  for (const escape of ['stopped', 'closed a menu'] as const) {
    it(`an Escape in another tab of the conversation that ${escape === 'stopped' ? 'stopped the reply holds here before that tab decided the reply: nothing runs, nothing is sent' : 'did not stop the reply (it went on streaming) stops nothing here'} (messages keyed by position)`, async () => {
      const area = memoryArea();
      const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl'];
      const written: Part[] = escape === 'stopped' ? parts : [...parts.slice(0, 2), 'While that runs, let me explain the plan step by step.'];
      // The tab where the person presses Escape while the reply streams, and which goes away (closed, reloaded)
      // before it decides the reply: the site ends the reply in every tab.
      const here = start(buildPage(), { area });
      const answer = await begin(here);
      await show(here, answer, parts);
      pressEscape();
      await here.settle();
      stopPages();

      // The conversation's other tab, which the site streamed the same reply to.
      const other = start(buildPage(), { area });
      const mirrored = await begin(other);
      await show(other, mirrored, parts);
      if (escape === 'closed a menu') await show(other, mirrored, written, 5_000);
      await end(other);
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (escape === 'stopped') {
        expect(other.runs).toEqual([]);
        expect(other.page.submitted).toEqual([]);
        expect(noteOf(chips()[0])).toBe(t('note.stopped'));
      } else {
        await until(() => other.page.submitted.length === 1);
        expect(other.runs).toHaveLength(1);
      }
    });
  }

  it('Escape that did not stop the reply (it went on streaming) is not a stop', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Let me think']);
    pressEscape();
    await show(h, answer, ['Let me think about it.', { lang: 'mcp-request', code: READ }], 5_000);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(1);
  });
});


describe('page: a run that began before the person pressed Stop, whose result comes after it', () => {
  it('the real result of an approval decided after the Stop is typed in, never sent', async () => {
    const h = start(buildPage(), {
      settings: { approvalWaitMs: 100 },
      script: { respond: () => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }), approvals: [APPROVAL] },
    });
    const answer = await begin(h);
    await show(h, answer, ['Writing it.', { lang: 'mcp-request', code: WRITE }]);
    await end(h);
    // Nobody decided within the site's wait: the pending answer went to the chat (auto-submit is on).
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
    // The model answers that; the person presses Stop on that reply.
    const next = await begin(h);
    await show(h, next, ['Waiting for your approval, meanwhile I will']);
    pressStop(h);
    await end(h);
    // Later the write is approved (side panel): its result must not be sent after the person's Stop.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await until(() => h.page.textarea.value === 'WRITTEN LATER' || h.page.submitted.length > 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
  });

  for (const escape of ['stopped', 'closed a menu'] as const) {
    it(`an Escape that ${escape === 'stopped' ? 'stopped the reply being written: the real result is typed in, never sent' : 'did not stop the reply being written (it went on streaming): the real result is sent'}`, async () => {
      const h = start(buildPage(), {
        settings: { approvalWaitMs: 100 },
        script: { respond: () => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }), approvals: [APPROVAL] },
      });
      const answer = await begin(h);
      await show(h, answer, ['Writing it.', { lang: 'mcp-request', code: WRITE }]);
      await end(h);
      await until(() => h.page.submitted.length === 1);
      // The model answers the pending answer; the person presses Escape while it writes.
      const next = await begin(h);
      await show(h, next, ['Waiting for your approval, meanwhile']);
      pressEscape();
      if (escape === 'closed a menu') await show(h, next, ['Waiting for your approval, meanwhile I will explain the plan step by step.'], 5_000);
      await end(h);
      h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
      await until(() => h.page.textarea.value === 'WRITTEN LATER' || h.page.submitted.length > 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(h.page.submitted).toEqual(escape === 'stopped' ? ['PENDING[ap-1]'] : ['PENDING[ap-1]', 'WRITTEN LATER']);
    });
  }

  it('…also when the tab was reloaded after the Stop: the result followed after the reload is typed in, not sent', async () => {
    const area = memoryArea();
    let decided = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
      getRun: (runId: string): RunResponse =>
        decided
          ? { runId, status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' }
          : { runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' },
    };
    const h = start(buildPage(), { area, settings: { approvalWaitMs: 100 }, script });
    const answer = await begin(h);
    await show(h, answer, ['Writing it.', { lang: 'mcp-request', code: WRITE }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    const next = await begin(h);
    await show(h, next, ['Waiting for your approval, meanwhile I will']);
    pressStop(h);
    await end(h);
    const pendingKey = 'ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = h.page.list.innerHTML;
    const later = h.clock.now + 1_000;
    stopPages();
    // The person reloads the tab; then approves the write in the side panel.
    const page = buildPage();
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const again = start(page, { area, settings: { approvalWaitMs: 100 }, script });
    again.clock.now = later;
    await again.settle();
    await until(() => chipStates().includes('approval'));
    decided = true;
    again.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await until(() => page.textarea.value === 'WRITTEN LATER' || page.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
    expect(page.textarea.value).toBe('WRITTEN LATER');
  });
});

describe("page: Stop on the chip of an auto-run reply's block whose turn has not come", () => {
  it('the block is not started when the block before it ends: its chip offers Run, and the blocks before it are delivered', async () => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: n === 1 ? 'running' : 'done', resultText: `RESULT ${n}`, auditId: 'a' }) },
    });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then the folder.', { lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.runs.length === 1);
    // The second block waits for the first one's long run; the person stops it on its chip.
    await until(() => roots.get(chips()[1]!)?.querySelector('button[data-action="stop"]') != null);
    clickChip(roots, chips()[1], 'stop');
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'RESULT 1', auditId: 'a' } } });
    await until(() => h.page.submitted.length > 0 || h.runs.length > 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
    expect(h.page.submitted).toEqual(['RESULT 1']);
    expect(chips()[1]?.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chips()[1]?.getAttribute('data-chatbridge-actions')).toBe('run');
    expect(noteOf(chips()[1])).toBe(t('note.notStartedAfterStop'));
    // Never run: the ledger does not keep it as run (after a reload its chip offers Run, not Re-run).
    const ran = await new RunLedger(area).ranKeys('3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    expect(ran.has(h.ctl.records().find((r) => r.blocks.length === 2)!.blocks[1]!.key)).toBe(false);
    // Run on it later runs it.
    clickChip(roots, chips()[1], 'run');
    await until(() => h.runs.length === 2);
  });
});

describe('page: a reply that ended inside its last block, without a stop', () => {
  it('runs and sends nothing — its complete blocks wait too — and says which block was cut', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: READ }, 'then', { lang: 'mcp-request', code: CUT }]);
    await end(h);
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
    const [first, second] = chips();
    expect(noteOf(first)).toBe(t('note.endedEarly'));
    expect(noteOf(second)).toBe(t('note.endedInBlock'));
    expect(chipStates()).toEqual(['ready', 'ready']);
  });

  for (const site of [undefined, deepseekReadingItsComposer]) {
    it(`a block Run while the reply was written, the reply then ending inside its next block (its send control back early): the result is typed in, not sent${site ? ' — also where the result goes into the box while the reply is written' : ''}`, async () => {
      const h = start(buildPage(), { settings: { autoRun: false }, ...(site ? { site } : {}) });
      const answer = await begin(h);
      await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then']);
      clickChip(roots, chips()[0], 'run');
      await until(() => h.runs.length === 1);
      await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then', { lang: 'mcp-request', code: CUT }]);
      await end(h);
      await until(() => h.page.state() === 'RESULT[mcp-request:1]');
      await until(() => noteOf(chips()[0]) === t('note.insertedEnded'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(h.page.submitted).toEqual([]);
      expect(noteOf(chips()[1])).toBe(t('note.endedInBlock'));
    });
  }

  it("JSON the model closed but wrote wrong still goes to the companion, so its error answer can correct the model", async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'mcp-request', code: '{"jsonrpc": "2.0", "id": "x", "method": tools/call}' }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(1);
  });
});

describe('page: an auto_coder plan found outside a code block', () => {
  it('never auto-runs; its chip says the page may have changed its text; a Run click runs it and sends the result', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading the file.', PLAN]);
    await end(h);
    expect(h.runs).toEqual([]);
    expect(chipStates()).toEqual(['ready']);
    expect(noteOf(chips()[0])).toBe(t('note.unfenced'));

    clickChip(roots, chips()[0], 'run');
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.kind)).toEqual(['autocoder']);
    expect(h.page.submitted).toEqual(['RESULT[autocoder:1]']);
  });

  it('the same plan in a code block (shown verbatim) auto-runs as before', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading the file.', { lang: 'json', code: PLAN }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.kind)).toEqual(['autocoder']);
  });
});

describe('page: a second auto_coder plan in one reply', () => {
  it('only the first runs; the second is never sent (alone it would parse as a first plan) and offers no Run', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    const second = PLAN.replace('"s1"', '"s2"').replace('a.txt', 'b.txt');
    await show(h, answer, ['First:', { lang: 'json', code: PLAN }, 'and then:', { lang: 'json', code: second }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]!.text).toContain('"s1"');
    const chip = chips()[1];
    expect(noteOf(chip)).toMatch(/only the first plan in a reply runs/);
    expect(() => clickChip(roots, chip, 'run')).toThrow(/no run button/);
    // The page is healthy: a plan the protocol leaves unrun is no code the page failed to show.
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    expect(h.ctl.doctor().problems).toEqual([]);
  });

  it("the chip says why in the person's language", async () => {
    useLocale('zh_CN');
    const h = start(buildPage());
    const answer = await begin(h);
    const second = PLAN.replace('"s1"', '"s2"').replace('a.txt', 'b.txt');
    await show(h, answer, ['First:', { lang: 'json', code: PLAN }, 'and then:', { lang: 'json', code: second }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(noteOf(chips()[1])).toBe(messageIn('zh_CN', 'reason.laterPlan'));
    expect(noteOf(chips()[1])).toMatch(/^已忽略/);
  });
});

describe('page: a JSON-RPC request in a ```json block', () => {
  it('is never sent and offers no Run, its chip saying why; one with its label on the next line runs', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['The request:', { lang: 'json', code: READ }]);
    await end(h);
    const [chip] = chips();
    expect(noteOf(chip)).toBe(t('reason.unlabelledCall'));
    expect(() => clickChip(roots, chip, 'run')).toThrow(/no run button/);
    expect(h.runs).toEqual([]);
    expect(h.ctl.doctor().problems).toEqual([]);

    const next = await begin(h);
    await show(h, next, [{ lang: '', code: `mcp-request\n${LIST}` }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual([`\`\`\`\nmcp-request\n${LIST}\n\`\`\``]);
  });
});

describe("page: auto_coder's runtime feedback after the person pressed Stop", () => {
  it('no more feedback is sent, and the final result is typed in, not sent', async () => {
    const h = start(buildPage(), {
      settings: { feedbackIntervalMs: 60 },
      script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }), programs: [SERVE_PROGRAM] },
    });
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'json', code: SERVE_PLAN }]);
    await end(h);
    await until(() => h.runs.length === 1);
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'first line\n', offset: 0 } });
    await until(() => h.page.submitted.length === 1);
    // The model answers the feedback; the person stops that reply.
    const reply = await begin(h);
    await show(h, reply, ['The server is starting']);
    pressStop(h);
    await end(h);
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'second\n', offset: 11 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toHaveLength(1);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.textarea.value.includes('FINAL'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.page.submitted).toHaveLength(1);
  });

  it('a Stop pressed in another tab of the conversation ends the feedback here too: none is typed in after it', async () => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      settings: { feedbackIntervalMs: 60 },
      script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }), programs: [SERVE_PROGRAM] },
    });
    const answer = await begin(h);
    await show(h, answer, [{ lang: 'json', code: SERVE_PLAN }]);
    await end(h);
    await until(() => h.runs.length === 1);
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'first line\n', offset: 0 } });
    await until(() => h.page.submitted.length === 1);
    // The person stops the model's answer to that feedback in the conversation's other tab.
    h.clock.now += 1_000;
    await new RunLedger(area).markStopped('3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8', 'p:9', h.clock.now);
    h.clock.now += 100;
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'second\n', offset: 11 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toHaveLength(1);
    expect(h.page.textarea.value).toBe('');
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.textarea.value === 'FINAL');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.page.submitted).toHaveLength(1);
  });
});

describe('page: a stopped reply the site mounts again (virtual list, branch arrows)', () => {
  /** A DeepSeek row as the virtual list held it before 2026-10-04: wrapped in a keyed item (the module keys on it). */
  function keyed(row: HTMLElement, key: string): HTMLElement {
    const item = document.createElement('div');
    item.setAttribute('data-virtual-list-item-key', key);
    item.append(row);
    return item;
  }

  /** The person's question and a reply the site is writing, each in its keyed item. */
  async function keyedReply(h: Harness): Promise<{ item: HTMLElement; answer: HTMLElement }> {
    h.page.list.append(keyed(userRow('do it'), 'u1'));
    const first = assistantRow();
    h.page.setGenerating(true);
    const item = keyed(first.row, 'a1');
    h.page.list.append(item);
    await h.settle();
    return { item, answer: first.answer };
  }

  /** The virtual list unmounts the reply's item when it scrolls away, then mounts it again: a new element, same key. */
  async function mountAgain(h: Harness, item: HTMLElement, parts: Part[]): Promise<HTMLElement> {
    item.remove();
    h.clock.now += 2_000;
    await h.settle();
    const again = assistantRow();
    renderReply(again.answer, parts);
    h.page.list.append(keyed(again.row, 'a1'));
    h.clock.now += 500;
    await h.settle();
    h.clock.now += 10_000;
    await h.settle();
    return again.row;
  }

  it('scrolled away and back after the person stopped it: still nothing runs, nothing is sent', async () => {
    const h = start(buildPage());
    const first = await keyedReply(h);
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl'];
    await show(h, first.answer, parts);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);

    await mountAgain(h, first.item, parts);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });

  it('a reply that ran, mounted again: nothing runs again, its chip offers Re-run and the keyboard command skips it', async () => {
    // Auto-submit off: the result waits in the box, so the reply is still the newest message when it is mounted again.
    const h = start(buildPage(), { settings: { autoSubmit: false } });
    const first = await keyedReply(h);
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }];
    await show(h, first.answer, parts);
    await end(h);
    await until(() => h.page.state() === 'RESULT[mcp-request:1]');

    const again = await mountAgain(h, first.item, parts);
    await until(() => again.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-actions') === 'rerun');
    expect(await h.ctl.runLatest()).toMatchObject({ ok: false });
    expect(h.runs).toHaveLength(1);
    expect(h.page.submitted).toEqual([]);
  });

  it('a reply decided while auto-run was off stays decided when mounted again after auto-run is turned on', async () => {
    const h = start(buildPage(), { settings: { autoRun: false } });
    const first = await keyedReply(h);
    const parts: Part[] = ['Reading it.', { lang: 'mcp-request', code: READ }, 'Tell me if I should.'];
    await show(h, first.answer, parts);
    await end(h);
    expect(h.runs).toEqual([]);

    // Later the person turns auto-run on (for the replies to come), and scrolls: the row is mounted again.
    h.settings.autoRun = true;
    await mountAgain(h, first.item, parts);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });
});

/**
 * A ChatGPT-like page (chatgpt site module): turns holding `[data-message-author-role]` messages, the 2024 code block
 * (header label + `code.language-*`), a composer form whose trailing button is the stop button while a reply streams
 * and the send button only while the box holds text.
 */
function chatgptPage(): {
  thread: HTMLElement;
  textarea: HTMLTextAreaElement;
  submitted: string[];
  setGenerating(on: boolean): void;
  stop(): HTMLElement | null;
} {
  const thread = document.createElement('div');
  const form = document.createElement('form');
  form.setAttribute('data-type', 'unified-composer');
  const textarea = document.createElement('textarea');
  textarea.name = 'prompt-textarea';
  const slot = document.createElement('div');
  form.append(textarea, slot);
  const submitted: string[] = [];
  let generating = false;
  const sync = (): void => {
    slot.replaceChildren();
    const button = document.createElement('button');
    button.type = 'button';
    if (generating) {
      button.setAttribute('data-testid', 'stop-button');
      button.setAttribute('aria-label', 'Stop streaming');
    } else if (textarea.value.trim() !== '') {
      button.id = 'composer-submit-button';
      button.setAttribute('data-testid', 'send-button');
      button.setAttribute('aria-label', 'Send prompt');
      button.addEventListener('click', () => {
        submitted.push(textarea.value);
        thread.append(chatgptTurn('user', `u-${submitted.length + 10}`, textarea.value));
        textarea.value = '';
        sync();
      });
    } else button.setAttribute('aria-label', 'Start Voice');
    slot.append(button);
  };
  textarea.addEventListener('input', sync);
  sync();
  document.body.replaceChildren(thread, form);
  return {
    thread,
    textarea,
    submitted,
    setGenerating(on) {
      generating = on;
      sync();
    },
    stop: () => slot.querySelector('[data-testid="stop-button"]'),
  };
}

function chatgptTurn(role: 'user' | 'assistant', id: string, text = ''): HTMLElement {
  const turn = document.createElement('article');
  turn.setAttribute('data-testid', `conversation-turn-${id}`);
  turn.setAttribute('data-turn', role);
  turn.append(chatgptMessage(role, id, text));
  return turn;
}

function chatgptMessage(role: 'user' | 'assistant', id: string, text = ''): HTMLElement {
  const message = document.createElement('div');
  message.setAttribute('data-message-author-role', role);
  message.setAttribute('data-message-id', id);
  const body = document.createElement('div');
  body.className = role === 'assistant' ? 'markdown prose' : 'whitespace-pre-wrap';
  body.textContent = text;
  message.append(body);
  return message;
}

function chatgptAnswer(message: HTMLElement, parts: Part[]): void {
  message.querySelector('.markdown')!.replaceChildren(
    ...parts.map((part) => {
      if (typeof part === 'string') return Object.assign(document.createElement('p'), { textContent: part });
      const pre = document.createElement('pre');
      pre.innerHTML = '<div><div class="flex items-center"></div><div class="sticky"><button>Copy code</button></div><div class="overflow-y-auto"><code></code></div></div>';
      pre.querySelector('.flex')!.textContent = part.lang;
      const code = pre.querySelector('code')!;
      code.className = `hljs language-${part.lang}`;
      code.textContent = part.code;
      return pre;
    }),
  );
}

describe('page: a ChatGPT temporary chat (it never gets a conversation id) left for an old conversation', () => {
  it("the result of a write approved after the person opened the old conversation is never typed in there", async () => {
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
    };
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/', href: 'https://chatgpt.com/?temporary-chat=true', settings: { approvalWaitMs: 100 }, script });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'write it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Writing it.', { lang: 'mcp-request', code: WRITE }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    // The write waits for the person's approval; its answer "pending" went in.
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['PENDING[ap-1]']);

    // The person opens an old conversation from the sidebar: the site shows it, with its own chat box.
    h.navigate('/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70');
    page.thread.replaceChildren(chatgptTurn('user', 'u-0', 'an old question'), chatgptTurn('assistant', 'a-0', 'an old answer'));
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    // Decided in the side panel while the person reads the old conversation.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.clock.now += 2_000;
    await h.settle();
    expect(page.submitted).toEqual(['PENDING[ap-1]']);
    expect(page.textarea.value).toBe('');
  });
});

describe('page: a second ChatGPT temporary chat opened at the same address (neither gets a conversation id)', () => {
  it("the result of a write approved in the first is never typed into the second, whose own first reply runs and is sent", async () => {
    const script = {
      respond: (run: { text: string }, n: number): RunResponse =>
        run.text.includes('fs.write')
          ? { runId: `run-${n}`, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }
          : { runId: `run-${n}`, status: 'done', resultText: `READ ${n}`, auditId: 'a' },
      approvals: [APPROVAL],
    };
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/', href: 'https://chatgpt.com/?temporary-chat=true', settings: { approvalWaitMs: 100 }, script });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'write it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Writing it.', { lang: 'mcp-request', code: WRITE }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['PENDING[ap-1]']);

    // The person opens a new temporary chat: the site empties the page and keeps the address.
    page.thread.replaceChildren();
    h.clock.now += 2_000;
    await h.settle();
    // Decided in the side panel while the person is in the new chat.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.clock.now += 2_000;
    await h.settle();
    expect(page.submitted).toEqual(['PENDING[ap-1]']);
    expect(page.textarea.value).toBe('');

    // The new chat's own first reply, keyed by its own ids, runs and is sent as usual.
    page.thread.append(chatgptTurn('user', 'u-1', 'read it'));
    page.setGenerating(true);
    const next = chatgptTurn('assistant', 'a-1');
    page.thread.append(next);
    await h.settle();
    chatgptAnswer(next.querySelector<HTMLElement>('[data-message-author-role]')!, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => page.submitted.length === 2);
    expect(page.submitted).toEqual(['PENDING[ap-1]', 'READ 2']);
    expect(h.runs[1]!.context.conversationId).not.toBe(h.runs[0]!.context.conversationId);
  });
});

describe('page: the person edits their message while a ChatGPT reply\'s run goes on (another branch)', () => {
  it("the old branch's result is never typed into the new one; switched back to the old branch, it is typed in there, not sent", async () => {
    const conversation = '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70';
    const page = chatgptPage();
    const h = start(page as never, {
      site: chatgpt,
      pathname: conversation,
      href: `https://chatgpt.com${conversation}`,
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: 'running', resultText: '', auditId: 'a' }) },
    });
    await h.settle();
    const turn = async (userId: string, replyId: string, parts: Part[]): Promise<HTMLElement[]> => {
      const asked = chatgptTurn('user', userId, 'read it');
      const answer = chatgptTurn('assistant', replyId);
      page.thread.append(asked);
      page.setGenerating(true);
      page.thread.append(answer);
      await h.settle();
      chatgptAnswer(answer.querySelector<HTMLElement>('[data-message-author-role]')!, parts);
      h.clock.now += 50;
      await h.settle();
      page.setGenerating(false);
      h.clock.now += 500;
      await h.settle();
      return [asked, answer];
    };
    const old = await turn('u-1', 'a-1', ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    // The read is slow; the person edits their message meanwhile: the site draws the new branch in the old one's place.
    for (const el of old) el.remove();
    await turn('u-2', 'a-2', ['The answer, with no call.']);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'OLD RESULT', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.clock.now += 2_000;
    await h.settle();
    expect(page.submitted).toEqual([]);
    expect(page.textarea.value).toBe('');

    // The branch arrows under the person's message: the old branch is shown again (its messages drawn anew).
    page.thread.replaceChildren(chatgptTurn('user', 'u-1', 'read it'), chatgptTurn('assistant', 'a-1'));
    chatgptAnswer(page.thread.querySelector<HTMLElement>('[data-message-id="a-1"]')!, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await h.settle();
    await until(() => page.textarea.value === 'OLD RESULT');
    await until(() => chips()[0]?.getAttribute('data-chatbridge-note') === t('note.insertedBranch'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
  });
});

describe("page: a ChatGPT reply stopped while the page showed its placeholder (request-placeholder-…, keyed by its turn)", () => {
  /** The person's message and the reply's placeholder, the stop button shown; the person presses Stop. */
  const stopOnPlaceholder = async (h: Harness, page: ReturnType<typeof chatgptPage>, n: number): Promise<HTMLElement> => {
    page.thread.append(chatgptTurn('user', `u-${n}`, 'do it'));
    const turn = document.createElement('section');
    turn.setAttribute('data-testid', `conversation-turn-${n}`);
    turn.setAttribute('data-turn', 'assistant');
    turn.setAttribute('data-turn-id', `turn-${n}`);
    const placeholder = chatgptMessage('assistant', `request-placeholder-${n}`);
    turn.append(placeholder);
    page.setGenerating(true);
    page.thread.append(turn);
    h.clock.now += 50;
    await h.settle();
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    return placeholder;
  };
  const ended = async (h: Harness, page: ReturnType<typeof chatgptPage>): Promise<void> => {
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
  };

  for (const path of ['/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70', '/']) {
    it(`the reply drawn under its own id in the placeholder's place is stopped: nothing runs, nothing is sent (${path === '/' ? 'a new chat' : 'a conversation'})`, async () => {
      const page = chatgptPage();
      const h = start(page as never, { site: chatgpt, pathname: path, href: `https://chatgpt.com${path}` });
      await h.settle();
      const placeholder = await stopOnPlaceholder(h, page, 1);
      // What the model wrote before the Stop reached it, drawn as the reply's own message in the placeholder's place.
      const real = chatgptMessage('assistant', 'a-1');
      chatgptAnswer(real, ['Reading it.', { lang: 'mcp-request', code: READ }]);
      placeholder.replaceWith(real);
      h.clock.now += 50;
      await h.settle();
      await ended(h, page);
      expect(h.runs).toEqual([]);
      expect(page.submitted).toEqual([]);
      expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    });
  }

  it("a placeholder stopped before the model wrote anything, then the person's edited message: its reply runs and is sent", async () => {
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    const placeholder = await stopOnPlaceholder(h, page, 1);
    // The site takes the empty reply out and draws the person's edited message in the turn's place, and its reply.
    placeholder.closest('section')!.remove();
    page.thread.lastElementChild!.remove();
    page.thread.append(chatgptTurn('user', 'u-2', 'do it, please'));
    const turn = chatgptTurn('assistant', 'a-2');
    page.thread.append(turn);
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Listing it.', { lang: 'mcp-request', code: LIST }]);
    h.clock.now += 6_000;
    await h.settle();
    await ended(h, page);
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });
});

describe('page: a ChatGPT turn written as several assistant messages (a tool step between them)', () => {
  it('the person stops the turn while its second message streams: the first message\'s result is never sent', async () => {
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    const turn = document.createElement('section');
    turn.setAttribute('data-testid', 'conversation-turn-2');
    turn.setAttribute('data-turn', 'assistant');
    turn.setAttribute('data-turn-id', 'turn-2');
    const first = chatgptMessage('assistant', 'a-1');
    turn.append(first);
    page.setGenerating(true);
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(first, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then I will search.']);
    h.clock.now += 50;
    await h.settle();
    // The model goes on in a second message of the same turn (after a search step).
    const second = chatgptMessage('assistant', 'a-2');
    turn.append(second);
    chatgptAnswer(second, ['Searching for more']);
    h.clock.now += 100;
    await h.settle();
    h.clock.now += 100;
    await h.settle();

    // The person presses Stop while the turn still streams.
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    h.clock.now += 10_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
  });

  it("the person stops the turn while the first message's blocks are being claimed: none of them starts, nothing is sent", async () => {
    const base = memoryArea();
    let page!: ReturnType<typeof chatgptPage>;
    let stopped = false;
    // The Stop comes while the claim writes the ledger: after it read the Stops, before anything was started.
    const area: typeof base = {
      ...base,
      set: async (items) => {
        if (!stopped && Object.keys(items).some((key) => key.startsWith('ledger:c:'))) {
          stopped = true;
          page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
        }
        return base.set(items);
      },
    };
    page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    const turn = document.createElement('section');
    turn.setAttribute('data-testid', 'conversation-turn-2');
    turn.setAttribute('data-turn', 'assistant');
    turn.setAttribute('data-turn-id', 'turn-2');
    const first = chatgptMessage('assistant', 'a-1');
    turn.append(first);
    page.setGenerating(true);
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(first, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then the folder.', { lang: 'mcp-request', code: LIST }]);
    h.clock.now += 50;
    await h.settle();
    const second = chatgptMessage('assistant', 'a-2');
    turn.append(second);
    chatgptAnswer(second, ['Searching for more']);
    h.clock.now += 100;
    await h.settle();
    h.clock.now += 100;
    await h.settle();
    await until(() => stopped);
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toEqual([]);
    expect(page.submitted).toEqual([]);
    expect(chips().slice(0, 2).map((c) => c.getAttribute('data-chatbridge-actions'))).toEqual(['run', 'run']);
    expect(noteOf(chips()[0])).toBe(t('note.notStartedAfterStop'));
  });

  it("the person stops the turn while the first message's first block runs: its next block is not started (after a reload, not taken for one that ran)", async () => {
    const area = memoryArea();
    const page = chatgptPage();
    const h = start(page as never, {
      area,
      site: chatgpt,
      pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70',
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: n === 1 ? 'running' : 'done', resultText: `RESULT ${n}`, auditId: 'a' }) },
    });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    const turn = document.createElement('section');
    turn.setAttribute('data-testid', 'conversation-turn-2');
    turn.setAttribute('data-turn', 'assistant');
    turn.setAttribute('data-turn-id', 'turn-2');
    const first = chatgptMessage('assistant', 'a-1');
    turn.append(first);
    page.setGenerating(true);
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(first, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Then the folder.', { lang: 'mcp-request', code: LIST }, 'Then I will search.']);
    h.clock.now += 50;
    await h.settle();
    const second = chatgptMessage('assistant', 'a-2');
    turn.append(second);
    chatgptAnswer(second, ['Searching for more']);
    h.clock.now += 100;
    await h.settle();
    h.clock.now += 100;
    await h.settle();
    await until(() => h.runs.length === 1);

    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    // The first block's long run ends after the Stop.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'RESULT 1', auditId: 'a' } } });
    await until(() => noteOf(chips()[0]) === t('note.insertedStopped'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
    expect(page.submitted).toEqual([]);
    expect(chips()[1]?.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chips()[1]?.getAttribute('data-chatbridge-actions')).toBe('run');
    expect(noteOf(chips()[1])).toBe(t('note.notStartedAfterStop'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rows = page.thread.innerHTML;
    stopPages();
    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    start(again as never, { area, site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The first block ran (Re-run, after a question); the second never did: Run, as before the reload.
    expect(chips().map((c) => c.getAttribute('data-chatbridge-actions'))).toEqual(['rerun', 'run']);
  });
});

describe('page: a ChatGPT reply the person stopped, after the tab is reloaded', () => {
  it('its chip still says the reply was stopped, and Run types the result in without sending it', async () => {
    const area = memoryArea();
    const page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    h.clock.now += 50;
    await h.settle();
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    expect(h.runs).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = page.thread.innerHTML;
    const later = h.clock.now + 60_000;
    stopPages();

    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const reloaded = start(again as never, { area, site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    reloaded.clock.now = later;
    await reloaded.settle();
    await until(() => noteOf(chips()[0]) === t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => again.textarea.value === 'RESULT[mcp-request:1]');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.insertedStopped'));
  });
});

describe("page: DeepSeek's live send/stop icons (both a single <path>) while the person types the next message", () => {
  const live = { stop: LIVE_STOP_ICON, send: LIVE_SEND_ICON };

  it('nothing runs while the reply still streams, though the box holds a draft', async () => {
    const h = start(buildPage(live));
    const answer = await begin(h);
    h.page.type('and after that, summarize');
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl']);
    h.clock.now += 1_000;
    await h.settle();
    expect(h.runs).toEqual([]);
  });

  it('a result typed in while a reply streams is never "sent" with a click on the stop control', async () => {
    // (A module that reads its composer types a result in while a reply streams; DeepSeek's own keeps one out of the box
    // until the reply ends: page-deliver-attachment.test.ts.)
    const h = start(buildPage(live), { site: deepseekReadingItsComposer, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    // The person asks something else meanwhile; that reply streams.
    const next = await begin(h);
    await show(h, next, ['Let me think about that']);
    let clicksWhileGenerating = 0;
    h.page.send.addEventListener('click', () => {
      if (h.page.send.querySelector('path[d^="M2 4.88"]')) clicksWhileGenerating += 1;
    });
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.textarea.value === 'FINAL');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(clicksWhileGenerating).toBe(0);
    // The reply ends: the result goes.
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['FINAL']);
  });

  it('a reply that begins while the page reads the ledger before the send click: the click never lands on the stop control', async () => {
    // The ledger read before the click takes a moment; meanwhile a message sent from the conversation's other tab makes
    // the site stream a reply here too (the send control shows stop).
    const area = memoryArea();
    /** Reads of the Stops left before the one the reply begins during: the check before the wait, then the one before the click. */
    let readsLeft = Number.POSITIVE_INFINITY;
    const slow: typeof area = {
      ...area,
      get: async (keys) => {
        if (keys.some((key) => key.startsWith('ledger:s:')) && --readsLeft === 0) h.page.setGenerating(true);
        return area.get(keys);
      },
    };
    const h = start(buildPage(live), { area: slow, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    let clicksWhileGenerating = 0;
    h.page.send.addEventListener('click', () => {
      if (h.page.send.querySelector('path[d^="M2 4.88"]')) clicksWhileGenerating += 1;
    });
    readsLeft = 2;
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => readsLeft <= 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.textarea.value).toBe('FINAL');
    expect(clicksWhileGenerating).toBe(0);
    // That reply ends: the result goes.
    h.page.setGenerating(false);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['FINAL']);
  });

  it('a Stop pressed here while the page reads the ledger before the send click: the result is typed in, not sent', async () => {
    // Meanwhile a message sent from the conversation's other tab starts a reply here, and the person stops it at once:
    // the send control is send again by the time the read is answered.
    const area = memoryArea();
    let readsLeft = Number.POSITIVE_INFINITY;
    const slow: typeof area = {
      ...area,
      get: async (keys) => {
        if (keys.some((key) => key.startsWith('ledger:s:')) && --readsLeft === 0) {
          h.page.setGenerating(true);
          pressStop(h);
          h.page.setGenerating(false);
        }
        return area.get(keys);
      },
    };
    const h = start(buildPage(live), { area: slow, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    readsLeft = 2;
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.submitted.length > 0 || noteOf(chips()[0]) === t('note.insertedStopped'));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.textarea.value).toBe('FINAL');
    expect(noteOf(chips()[0])).toBe(t('note.insertedStopped'));
  });

  it('the person writes into the box while a typed-in result waits for the reply to end: neither is sent', async () => {
    // (A module that reads its composer types a result in while a reply streams; DeepSeek's own keeps one out of the box
    // until the reply ends: page-deliver-attachment.test.ts.)
    const h = start(buildPage(live), { site: deepseekReadingItsComposer, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    const next = await begin(h);
    await show(h, next, ['Let me think about that']);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.textarea.value === 'FINAL');
    // The person adds a question of their own under the result while the reply still streams.
    h.page.type('FINAL\n\nand what does it say about tests?');
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('FINAL\n\nand what does it say about tests?');
    expect(noteOf(chips()[0])).toBe(t('note.inserted'));
  });

  it('Stop pressed while the box holds a draft is the person stopping the reply: nothing runs, nothing is sent', async () => {
    const h = start(buildPage(live));
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs, let me expl']);
    h.page.type('and after that, summarize');
    pressStop(h);
    await end(h);
    // The person sends the draft; our result never follows it.
    h.page.send.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    h.clock.now += 10_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual(['and after that, summarize']);
  });
});

describe("page: a site whose 'writing' signal stays on after the reply ended (Gemini's stuck stop icon)", () => {
  it('after a minute without a change the doctor says so; the reply ending clears it', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Done.']);
    h.clock.now += STUCK_SIGNAL_MS - 1_000;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(h.ctl.doctor().problems).toEqual([]);
    h.clock.now += 1_000;
    await until(() => h.ctl.doctor().problems.some((p) => p.code === 'writing-signal-stuck'), 3_000);
    expect(h.runs).toEqual([]);
    await end(h);
    await until(() => h.runs.length === 1);
    await until(() => h.ctl.doctor().problems.length === 0, 3_000);
  });
});

describe('page: a ChatGPT page whose stop button changed (the site doctor)', () => {
  it('a reply streams in after a send while the module no longer finds the stop button: nothing runs, and the doctor says why; a reply seen being written ends it', async () => {
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    // The person asks: a trusted Enter in the box.
    page.textarea.value = 'do it';
    page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    page.textarea.value = '';
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    const streamReply = async (n: number): Promise<void> => {
      const turn = document.createElement('section');
      turn.setAttribute('data-testid', `conversation-turn-${n}`);
      turn.setAttribute('data-turn-id', `turn-${n}`);
      const reply = chatgptMessage('assistant', `a-${n}`);
      turn.append(reply);
      page.thread.append(turn);
      await h.settle();
      for (const parts of [['Reading'], ['Reading it.', { lang: 'mcp-request', code: READ }], ['Reading it.', { lang: 'mcp-request', code: READ }, 'Done.']] as Part[][]) {
        chatgptAnswer(reply, parts);
        h.clock.now += 200;
        await h.settle();
      }
    };
    page.setGenerating(true);
    // The site renamed its stop button: same place, same role, a new test id and label.
    const stop = page.stop()!;
    stop.setAttribute('data-testid', 'composer-stop-button');
    stop.setAttribute('aria-label', 'Stop generating');
    await streamReply(2);
    page.setGenerating(false);
    expect(h.ctl.doctor().problems).toEqual([]);
    h.clock.now += CANDIDATE_MAX_MS;
    page.thread.append(document.createComment('a change, so the page looks again'));
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.ctl.doctor().problems.map((p) => p.code)).toEqual(['no-writing-signal']);
    // The next reply the module sees being written (the site's button as the module knows it): the problem is over.
    page.setGenerating(true);
    await streamReply(3);
    expect(h.ctl.doctor().problems).toEqual([]);
    page.setGenerating(false);
  });
});

describe('page: a ChatGPT reply stopped in a new chat before the chat had its id, after the tab is reloaded', () => {
  it('its chip still says the reply was stopped, and Run types the result in without sending it', async () => {
    const area = memoryArea();
    const page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: '/' });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    h.clock.now += 50;
    await h.settle();
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    // The site gives the new chat its address only then (and draws the page again).
    h.navigate('/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70');
    page.thread.append(chatgptTurn('user', 'u-2'));
    page.thread.lastElementChild!.remove();
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = page.thread.innerHTML;
    const later = h.clock.now + 60_000;
    stopPages();

    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const reloaded = start(again as never, { area, site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    reloaded.clock.now = later;
    await reloaded.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => again.textarea.value === 'RESULT[mcp-request:1]' || again.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.submitted).toEqual([]);
  });
});

describe('page: a reply stopped in a new chat before the chat had its id, after the tab is reloaded (messages keyed by position)', () => {
  it('its chip still says the reply was stopped, and Run types the result in without sending it', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, pathname: '/' });
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);
    // The site gives the new chat its address only then.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    h.page.list.append(userRow('next'));
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = Array.from(h.page.list.children).slice(0, 2).map((row) => row.outerHTML).join('');
    stopPages();

    // Reloaded under the id: the list mounts the stopped exchange after an earlier row, so the reply's place is another.
    const page = buildPage();
    page.list.innerHTML = userRow('hello').outerHTML + rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const again = start(page, { area });
    again.clock.now += 60_000;
    await again.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => page.state() === 'RESULT[mcp-request:1]' || page.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
  });
});

describe("page: a ChatGPT reply stopped before its row was drawn, after the tab is reloaded", () => {
  it('its chip still says the reply was stopped, and Run types the result in without sending it', async () => {
    const area = memoryArea();
    const conversation = '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70';
    const page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: conversation });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    // The person presses Stop while the page shows only their message; the reply drawn right after is stopped.
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    const turn = chatgptTurn('assistant', 'a-1');
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    page.thread.append(turn);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rows = page.thread.innerHTML;
    const later = h.clock.now + 60_000;
    stopPages();

    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const reloaded = start(again as never, { area, site: chatgpt, pathname: conversation });
    reloaded.clock.now = later;
    await reloaded.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => again.textarea.value === 'RESULT[mcp-request:1]' || again.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.submitted).toEqual([]);
  });
});

describe("page: a ChatGPT reply stopped before its row was drawn, in the conversation's other tab", () => {
  it('the other tab, which drew the row only after the Stop, neither runs the reply nor sends anything', async () => {
    const area = memoryArea();
    const conversation = '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70';
    // The tab where the person presses Stop while it shows only their message; the tab is closed right after.
    const page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: conversation });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    const stoppedAt = h.clock.now;
    await new Promise((resolve) => setTimeout(resolve, 50));
    stopPages();

    // The conversation's other tab: the person's message, then the reply the model wrote before the Stop reached it.
    const other = chatgptPage();
    const o = start(other as never, { area, site: chatgpt, pathname: conversation });
    await o.settle();
    o.clock.now = stoppedAt - 20;
    other.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    other.setGenerating(true);
    await o.settle();
    o.clock.now = stoppedAt + 100;
    const turn = chatgptTurn('assistant', 'a-1');
    chatgptAnswer(turn.querySelector<HTMLElement>('[data-message-author-role]')!, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    other.thread.append(turn);
    await o.settle();
    other.setGenerating(false);
    o.clock.now += 500;
    await o.settle();
    o.clock.now += 10_000;
    await o.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(o.runs).toEqual([]);
    expect(other.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));

    // That tab reloaded: the reply is still the stopped one, and Run types its result in without sending it.
    const rows = other.thread.innerHTML;
    const later = o.clock.now + 60_000;
    stopPages();
    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const reloaded = start(again as never, { area, site: chatgpt, pathname: conversation });
    reloaded.clock.now = later;
    await reloaded.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    clickChip(roots, chips()[0], 'run');
    await until(() => again.textarea.value === 'RESULT[mcp-request:1]' || again.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.submitted).toEqual([]);
  });
});

describe('page: a stopped reply the person has the model continue', () => {
  it('the continued reply runs its new blocks once it ends; the block from before the Stop waits for Run', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);

    // "Continue": the site writes on in the same message, its stop control showing again.
    h.page.setGenerating(true);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list the folder.']);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list the folder.', { lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
    expect(chips()[0]?.getAttribute('data-chatbridge-actions')).toBe('run');
  });

  it("a stopped reply regenerated in the same message, its first version shown again (the site's arrows): nothing of it runs or is sent", async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    // "Regenerate": the site writes another version in the same message; its block runs and the result is sent.
    h.page.setGenerating(true);
    await show(h, answer, ['Let me']);
    await show(h, answer, ['Let me list it.', { lang: 'mcp-request', code: LIST }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    // The person looks at the first version again (< 1/2 >): its text in the same message, nothing being written.
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    await end(h);
    await until(() => noteOf(chips()[0]) === t('note.stopped'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
    expect(h.page.state()).toBe('');
    expect(chips()[0]?.getAttribute('data-chatbridge-actions')).toBe('run');
    // …and back to the second version: its block ran already.
    await show(h, answer, ['Let me list it.', { lang: 'mcp-request', code: LIST }]);
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toHaveLength(1);
    expect(h.page.submitted).toHaveLength(1);
  });

  it('a stopped reply regenerated in the same message: the block the new writing writes again runs once', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    expect(h.runs).toEqual([]);

    // "Regenerate": the site writes the reply again from its start in the same message.
    h.page.setGenerating(true);
    await show(h, answer, ['Let me']);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
  });

  it('a continued reply the person stops again: nothing runs, nothing is sent', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    h.page.setGenerating(true);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list', { lang: 'mcp-request', code: LIST }, 'and mo']);
    pressStop(h);
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });

  it('a late render after the Stop, the site not writing: still stopped', async () => {
    const h = start(buildPage());
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    pressStop(h);
    await end(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list', { lang: 'mcp-request', code: LIST }]);
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });
});

describe('page: a stopped ChatGPT reply the person has the model continue (messages with their own ids)', () => {
  it('the Stop the ledger keeps for the message does not stop what the model wrote after it', async () => {
    const page = chatgptPage();
    const h = start(page as never, { site: chatgpt, pathname: '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70' });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    const message = turn.querySelector<HTMLElement>('[data-message-author-role]')!;
    const step = async (parts: Part[]): Promise<void> => {
      chatgptAnswer(message, parts);
      h.clock.now += 50;
      await h.settle();
    };
    const finish = async (): Promise<void> => {
      page.setGenerating(false);
      h.clock.now += 500;
      await h.settle();
      h.clock.now += 10_000;
      await h.settle();
    };
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await finish();
    expect(h.runs).toEqual([]);

    page.setGenerating(true);
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list the folder.']);
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will list the folder.', { lang: 'mcp-request', code: LIST }]);
    await finish();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });

  it('after a reload, the continued reply is not taken for stopped: a run of its new block approved then is sent', async () => {
    const area = memoryArea();
    const conversation = '/c/6a1f0c2e-4b7d-4c3e-9f10-2b3c4d5e6f70';
    let decided = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
      getRun: (runId: string): RunResponse =>
        decided
          ? { runId, status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' }
          : { runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' },
    };
    const page = chatgptPage();
    const h = start(page as never, { area, site: chatgpt, pathname: conversation, settings: { approvalWaitMs: 100 }, script });
    await h.settle();
    page.thread.append(chatgptTurn('user', 'u-1', 'do it'));
    page.setGenerating(true);
    const turn = chatgptTurn('assistant', 'a-1');
    page.thread.append(turn);
    await h.settle();
    const message = turn.querySelector<HTMLElement>('[data-message-author-role]')!;
    const step = async (parts: Part[]): Promise<void> => {
      chatgptAnswer(message, parts);
      h.clock.now += 50;
      await h.settle();
    };
    const finish = async (): Promise<void> => {
      page.setGenerating(false);
      h.clock.now += 500;
      await h.settle();
      h.clock.now += 10_000;
      await h.settle();
    };
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will']);
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await finish();
    page.setGenerating(true);
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will write it.']);
    await step(['Reading it.', { lang: 'mcp-request', code: READ }, 'And then I will write it.', { lang: 'mcp-request', code: WRITE }]);
    await finish();
    // The write waits for the person's approval; its answer "pending" went in.
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + WRITE + '\n```']);
    const pendingKey = `ledger:r:${conversation.slice(3)}`;
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = page.thread.innerHTML;
    const later = h.clock.now + 1_000;
    stopPages();

    // The person reloads the tab, then approves the write.
    const again = chatgptPage();
    again.thread.innerHTML = rows;
    for (const chip of Array.from(again.thread.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const reloaded = start(again as never, { area, site: chatgpt, pathname: conversation, settings: { approvalWaitMs: 100 }, script });
    reloaded.clock.now = later;
    await reloaded.settle();
    await until(() => chipStates().includes('approval'));
    decided = true;
    reloaded.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await until(() => again.submitted.length > 0 || again.textarea.value === 'WRITTEN LATER');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.submitted).toEqual(['WRITTEN LATER']);
    expect(noteOf(chips()[1])).not.toBe(t('note.insertedStopped'));
    // The Stop itself is kept: a page loaded later still holds back a result whose run began before it.
    expect((await new RunLedger(area).stops(conversation.slice(3))).map((stop) => stop.key)).toEqual(['m:a-1']);
  });
});

describe('page: a site the person enabled that has no module of its own (the generic adapter)', () => {
  /**
   * A plain chat page: articles for messages, a textarea, a send button, and a Stop button while a reply streams
   * (`swap`: in the send button's place, as many pages draw it).
   */
  function plainPage(swap = false): { thread: HTMLElement; textarea: HTMLTextAreaElement; submitted: string[]; setGenerating(on: boolean): void; stop(): HTMLElement | null } {
    const thread = document.createElement('main');
    const form = document.createElement('form');
    const textarea = document.createElement('textarea');
    const send = document.createElement('button');
    send.type = 'submit';
    send.setAttribute('aria-label', 'Send');
    const stop = document.createElement('button');
    stop.type = 'button';
    stop.setAttribute('aria-label', 'Stop generating');
    stop.textContent = '■';
    const submitted: string[] = [];
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submitted.push(textarea.value);
      textarea.value = '';
    });
    form.append(textarea, send);
    // Another button whose name holds the word only inside another word.
    const app = Object.assign(document.createElement('button'), { type: 'button' });
    app.setAttribute('aria-label', 'Open the desktop app');
    document.body.replaceChildren(thread, form, app);
    return {
      thread,
      textarea,
      submitted,
      setGenerating(on) {
        if (on) form.append(stop);
        else stop.remove();
        if (swap && on) send.remove();
        else if (swap) form.append(send);
      },
      stop: () => (stop.isConnected ? stop : null),
    };
  }

  function article(role: 'user' | 'assistant', text = ''): HTMLElement {
    const el = document.createElement('article');
    el.setAttribute('data-role', role);
    el.textContent = text;
    return el;
  }

  /** The person asks in the page's box and presses Enter (a trusted keydown: the page's own send). */
  function personSends(textarea: HTMLTextAreaElement): void {
    textarea.value = 'read it';
    textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    textarea.value = '';
  }

  /** The reply streams in: a first word, then the read call with its words, 300 ms apart. */
  async function streamsRead(h: Harness, answer: HTMLElement): Promise<void> {
    reply(answer, 'Reading');
    h.clock.now += 300;
    await h.settle();
    reply(answer, 'Reading it now.', READ);
    h.clock.now += 300;
    await h.settle();
  }

  function reply(el: HTMLElement, prose: string, code?: string): void {
    el.replaceChildren(Object.assign(document.createElement('p'), { textContent: prose }));
    if (code === undefined) return;
    const pre = document.createElement('pre');
    const codeEl = document.createElement('code');
    codeEl.className = 'language-mcp-request';
    codeEl.textContent = code;
    pre.append(codeEl);
    el.append(pre);
  }

  it('a new chat opened with settings in its address (/?model=…) that the site moves to its own address while the first reply streams is the same chat: the reply runs and its result is sent', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/', href: 'https://chat.deepseek.com/?model=llama3', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    page.setGenerating(true);
    const answer = article('assistant');
    page.thread.append(answer);
    reply(answer, 'Reading');
    h.clock.now += 300;
    await h.settle();
    // The site gives the chat its address once it saved it.
    h.navigate('/c/7d1e2f30');
    reply(answer, 'Reading it now.', READ);
    h.clock.now += 300;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.context.conversationId)).toEqual(['chat.deepseek.com/c/7d1e2f30']);
  });

  it('a chat page at an address with settings of its own (/?theme=dark) that the site moves to the chat\'s address at the first send is the same chat: the reply runs and its result is sent', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/', href: 'https://chat.example.com/?theme=dark', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    // The site moves to the chat's own address first, then draws the person's message.
    h.navigate('/chat/7d1e2f30?theme=dark');
    page.thread.append(article('user', 'read it'));
    page.setGenerating(true);
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.context.conversationId)).toEqual(['chat.example.com/chat/7d1e2f30?theme=dark']);
  });

  it('a trusted click on the page\'s Stop button stops the reply: nothing runs, nothing is sent', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    // The person sends a question (Enter in the box); the reply streams in.
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    page.setGenerating(true);
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    reply(answer, 'Reading it now.', READ);
    answer.append(Object.assign(document.createElement('p'), { textContent: 'While that runs, let me expl' }));
    h.clock.now += 300;
    await h.settle();
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toEqual([]);
    expect(page.submitted).toEqual([]);
    expect(noteOf(chips()[0])).toBe(t('note.stopped'));
  });

  it("a reply decided while still written (its text sat still), in a chat whose address names none: the person's Stop holds for what the page draws of it after — nothing more runs, nothing is sent", async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/', href: 'https://chat.example.com/', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    page.setGenerating(true);
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    // The model pauses: the page shows its Stop button, and the text sits still long enough to be decided.
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.runs.length === 1);
    // The person presses Stop; the page then draws what the model wrote before the Stop reached it.
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    reply(answer, 'Reading it now.', READ);
    answer.append(Object.assign(document.createElement('p'), { textContent: 'Then the folder.' }));
    const pre = document.createElement('pre');
    pre.append(Object.assign(document.createElement('code'), { className: 'language-mcp-request', textContent: LIST }));
    answer.append(pre);
    page.setGenerating(false);
    h.clock.now += 300;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    expect(page.submitted).toEqual([]);
    expect(noteOf(chips()[1])).toBe(t('note.stopped'));
  });

  it('a result waiting in the box for the send button (a Stop button in its place while the next reply streams) is not sent once the person presses that Stop', async () => {
    const page = plainPage(true);
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
      getRun: (runId: string): RunResponse => ({ runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
    };
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 100 }, script });
    await h.settle();
    page.textarea.value = 'write it';
    page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    page.textarea.value = '';
    page.thread.append(article('user', 'write it'));
    const answer = article('assistant');
    page.thread.append(answer);
    reply(answer, 'Writing');
    h.clock.now += 300;
    await h.settle();
    reply(answer, 'Writing it.', WRITE);
    h.clock.now += 300;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    // The write waits for approval; its answer "pending" went in, and the model answers it.
    await until(() => page.submitted.length === 1);
    page.thread.append(article('user', 'PENDING[ap-1]'));
    page.setGenerating(true);
    const next = article('assistant');
    page.thread.append(next);
    reply(next, 'While the write waits, let me');
    h.clock.now += 300;
    await h.settle();
    // The person approves in the side panel: the real result is typed in, and waits for the send button.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => page.textarea.value === 'WRITTEN');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // …and presses Stop on the reply being written: the send button is back.
    page.stop()!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    page.setGenerating(false);
    await until(() => page.submitted.length > 1 || noteOf(chips()[0]) === t('note.insertedStopped'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual(['PENDING[ap-1]']);
    expect(page.textarea.value).toBe('WRITTEN');
    expect(noteOf(chips()[0])).toBe(t('note.insertedStopped'));
  });

  /** A write that waits for approval, written in a reply to the person's message, and its answer "pending" sent. */
  async function pendingWrite(page: ReturnType<typeof plainPage>, h: Harness): Promise<void> {
    page.textarea.value = 'write it';
    page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    page.textarea.value = '';
    page.thread.append(article('user', 'write it'));
    const answer = article('assistant');
    page.thread.append(answer);
    reply(answer, 'Writing');
    h.clock.now += 300;
    await h.settle();
    reply(answer, 'Writing it.', WRITE);
    h.clock.now += 300;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1);
  }
  const pendingScript = {
    respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
    approvals: [APPROVAL],
    getRun: (runId: string): RunResponse => ({ runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
  };

  it('chats a page keeps at hash routes (/#/chat/1, /#/chat/2) are two conversations: a result owed to one is never typed into the other', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/', href: 'https://chat.example.com/#/chat/1', settings: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 100 }, script: pendingScript });
    await h.settle();
    await pendingWrite(page, h);
    // The person opens another chat from the sidebar: the page draws it at its own hash route.
    h.navigate('/#/chat/2');
    page.thread.replaceChildren(article('user', 'an old question'), article('assistant', 'an old answer'));
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.clock.now += 2_000;
    await h.settle();
    expect(page.submitted).toEqual(['PENDING[ap-1]']);
    expect(page.textarea.value).toBe('');
    expect(h.runs[0]!.context.conversationId).toBe('chat.example.com/#/chat/1');
    // A route one level deep names no chat: NextChat keeps every chat at /#/chat.
    expect(generic.conversationId({ pathname: '/', href: 'https://chat.example.com/#/chat' })).toBeNull();
    expect(generic.conversationId({ pathname: '/chat', href: 'https://chat.example.com/chat#section-2' })).toBe('/chat');
  });

  it('chats a page names in its hash route\'s query (/#/chat?id=1, /#/chat?id=2) are two conversations: a result owed to one is never typed into the other', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/', href: 'https://chat.example.com/#/chat?id=1&t=1700000000', settings: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 100 }, script: pendingScript });
    await h.settle();
    await pendingWrite(page, h);
    // The person opens another chat from the sidebar: the page draws it at its own query.
    h.navigate('/#/chat?id=2');
    page.thread.replaceChildren(article('user', 'an old question'), article('assistant', 'an old answer'));
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.clock.now += 2_000;
    await h.settle();
    expect(page.submitted).toEqual(['PENDING[ap-1]']);
    expect(page.textarea.value).toBe('');
    // Named as the address's own query is: a parameter written anew at each message is left out.
    expect(h.runs[0]!.context.conversationId).toBe('chat.example.com/#/chat?id=1');
  });

  it("a page that writes a new value into its address's query at each message (?t=…) is still the same chat: the reply runs and its result is sent", async () => {
    const page = plainPage();
    page.thread.append(article('user', 'hello'), article('assistant', 'Hello! What shall I read?'));
    const h = start(page as never, { site: generic, pathname: '/chat/42', href: 'https://chat.example.com/chat/42?t=1700000000', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    h.navigate('/chat/42?t=1700000042');
    page.thread.append(article('user', 'read it'));
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.context.conversationId)).toEqual(['chat.example.com/chat/42']);
  });

  it('a result waits to be sent while the page shows its Stop button (the reply is still being written after a pause)', async () => {
    const page = plainPage();
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    page.setGenerating(true);
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    // The model pauses longer than the page waits for a reply's text to settle: the block runs, its Stop button stays.
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.textarea.value !== '' || page.submitted.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual([]);
    // The reply ends: the result goes.
    page.setGenerating(false);
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  /** A page whose one submit button is named Stop while a reply is written: pressed then, it stops that reply. */
  function oneButtonPage(): { thread: HTMLElement; textarea: HTMLTextAreaElement; submitted: string[]; stoppedByButton: number[]; setGenerating(on: boolean): void; stop(): HTMLElement | null } {
    const thread = document.createElement('main');
    const form = document.createElement('form');
    const textarea = document.createElement('textarea');
    const button = Object.assign(document.createElement('button'), { type: 'submit' });
    button.setAttribute('aria-label', 'Send');
    let generating = false;
    const submitted: string[] = [];
    const stoppedByButton: number[] = [];
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (generating) stoppedByButton.push(1);
      else {
        submitted.push(textarea.value);
        textarea.value = '';
      }
    });
    form.append(textarea, button);
    document.body.replaceChildren(thread, form);
    const setGenerating = (on: boolean): void => {
      generating = on;
      button.setAttribute('aria-label', on ? 'Stop generating' : 'Send');
    };
    return { thread, textarea, submitted, stoppedByButton, setGenerating, stop: () => (generating ? button : null) };
  }

  it('a result still waiting when the wait for the reply being written runs out is left in the box: the one button that sends is the Stop then, and is never pressed', async () => {
    const page = oneButtonPage();
    const { thread, textarea, submitted, stoppedByButton, setGenerating } = page;
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 100 }, script: pendingScript, deliverWaitMs: { writing: 300 } });
    await h.settle();
    await pendingWrite(page as never, h);
    // The model answers the pending answer at length; meanwhile the person approves the write.
    thread.append(article('user', 'PENDING[ap-1]'));
    setGenerating(true);
    const next = article('assistant');
    thread.append(next);
    reply(next, 'While the write waits, let me');
    h.clock.now += 300;
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => stoppedByButton.length > 0 || submitted.length > 1 || noteOf(chips()[0]) === t('note.insertedWriting'));
    expect(stoppedByButton).toEqual([]);
    expect(submitted).toEqual(['PENDING[ap-1]']);
    expect(textarea.value).toBe('WRITTEN');
    expect(noteOf(chips()[0])).toBe(t('note.insertedWriting'));
  });

  it("a reply that begins while the page reads the ledger before the send click: the click never lands on the page's one button, Stop by then", async () => {
    const page = oneButtonPage();
    const area = memoryArea();
    /** Reads of the Stops left before the one the reply begins during: the check before the wait, then the one before the click. */
    let readsLeft = Number.POSITIVE_INFINITY;
    const slow: typeof area = {
      ...area,
      get: async (keys) => {
        if (keys.some((key) => key.startsWith('ledger:s:')) && --readsLeft === 0) page.setGenerating(true);
        return area.get(keys);
      },
    };
    const script = { respond: (): RunResponse => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) };
    const h = start(page as never, { site: generic, pathname: '/chat/42', area: slow, settings: { enabled: true, autoRun: true, autoSubmit: true }, script });
    await h.settle();
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.runs.length === 1);
    readsLeft = 2;
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => readsLeft <= 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.textarea.value).toBe('FINAL');
    expect(page.stoppedByButton).toEqual([]);
    // That reply ends: the result goes.
    page.setGenerating(false);
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['FINAL']);
  });

  it('a Stop button the page keeps hidden while nothing is written (display: none, the hidden attribute) does not hold the result back', async () => {
    const page = plainPage();
    for (const hide of ['style', 'attribute'] as const) {
      const kept = Object.assign(document.createElement('button'), { type: 'button', textContent: '■' });
      kept.setAttribute('aria-label', 'Stop generating');
      if (hide === 'style') kept.style.display = 'none';
      else kept.hidden = true;
      document.body.append(kept);
    }
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    personSends(page.textarea);
    page.thread.append(article('user', 'read it'));
    const answer = article('assistant');
    page.thread.append(answer);
    await streamsRead(h, answer);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  it("a button named stop inside a message (a reply's 'Stop reading aloud') is not the page's Stop: a result after its click is sent", async () => {
    const page = plainPage();
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
      approvals: [APPROVAL],
      getRun: (runId: string): RunResponse => ({ runId, status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' }),
    };
    const h = start(page as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true, approvalWaitMs: 100 }, script });
    await h.settle();
    page.textarea.value = 'write it';
    page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    page.textarea.value = '';
    page.thread.append(article('user', 'write it'));
    const answer = article('assistant');
    page.thread.append(answer);
    reply(answer, 'Writing');
    h.clock.now += 300;
    await h.settle();
    reply(answer, 'Writing it.', WRITE);
    h.clock.now += 300;
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    // The write waits for approval; its answer "pending" went in.
    await until(() => page.submitted.length === 1);
    // The person has the reply read aloud, and stops the reading with the button the site draws in the reply.
    const reading = Object.assign(document.createElement('button'), { type: 'button', textContent: '■' });
    reading.setAttribute('aria-label', 'Stop reading aloud');
    answer.append(reading);
    await h.settle();
    reading.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    reading.remove();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => page.submitted.length === 2 || page.textarea.value === 'WRITTEN');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.submitted).toEqual(['PENDING[ap-1]', 'WRITTEN']);
  });
});
