import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { t } from '../../extension/ui/i18n';
import { READ, LIST, assistantRow, buildPage, catchChipRoots, chipStates, clickChip, renderReply, start, stopPages, trusted, until, userRow, type Harness } from './page-harness';

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
  });
});
