import { afterEach, describe, expect, it } from 'vitest';
import { t } from '../../extension/ui/i18n';
import { buildPage, catchChipRoots, clickChip, LIST, start, stopPages, streamReply, until } from './page-harness';
import { findBlocks } from '../../shared/protocols';
import { mayHoldBlocks, serializeMessage } from '../../extension/scanner/serialize';
import { holdsHidden } from '../../shared/reveal-hidden';
import { chatgpt, deepseek, gemini, huggingchat } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { decideAutoRun } from '../../extension/scanner/blocks';
import { replyCodeProblem } from '../../extension/doctor/reply-code';
import { defineSite } from '../../extension/sites/define-site';

/**
 * Pages that do not show the fence tag as written: Gemini labels some unknown tags "Code snippet" (a ```webmcp fence,
 * code-index 59530579061), HuggingChat's 2026 builds draw no language at all. A seed's ```mcp-request call drawn so
 * is offered with Run and never runs by itself; on pages that show labels, a block with none stays an inert example.
 */
const CALL = { jsonrpc: '2.0', id: '1', method: 'tools/call', params: { name: 'fs.ls', arguments: { path: '.' } } };
const TEXT = JSON.stringify(CALL, null, 2);

afterEach(() => {
  stopPages();
  document.body.replaceChildren();
});
const roots = catchChipRoots();

function chip(): Element {
  const found = document.querySelector('[data-chatbridge-chip]');
  if (!found) throw new Error('no chip on the page');
  return found;
}

function el(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Gemini's code-block (gemini.ts DOM contract) with the label the page drew. */
function geminiReply(label: string): Element {
  const host = el('code-block');
  const block = el('div', { class: 'code-block' });
  const decoration = el('div', { class: 'code-block-decoration header-formatted gds-title-s' });
  decoration.append(el('span', {}, label));
  const buttons = el('div', { class: 'buttons' });
  buttons.append(el('button', { 'aria-label': 'Copy code' }));
  decoration.append(buttons);
  const inner = el('div', { class: 'formatted-code-block-internal-container' });
  const pre = el('pre');
  pre.append(el('code', { 'data-test-id': 'code-content', class: 'code-container formatted' }, `${TEXT}\n`));
  inner.append(pre);
  block.append(decoration, inner);
  host.append(block);
  const markdown = el('div', { class: 'markdown markdown-main-panel' });
  markdown.append(host);
  const content = el('message-content', { id: 'message-content-id-r_0123456789abcdef' });
  content.append(markdown);
  const response = el('model-response');
  response.append(content);
  document.body.append(response);
  return response;
}

/** A pre > code with or without a language class, in the message structure of `site`. */
function preReply(site: Site, language: string): Element {
  const pre = el('pre');
  pre.append(el('code', language ? { class: `hljs language-${language}` } : { class: 'hljs' }, TEXT));
  if (site === huggingchat) {
    const prose = el('div', { class: 'prose' });
    const group = el('div', { class: 'group relative' });
    group.append(pre);
    prose.append(group);
    const message = el('div', { 'data-message-role': 'assistant', 'data-message-id': 'm1' });
    message.append(prose);
    document.body.append(message);
    return message;
  }
  const message = el('div', { 'data-message-author-role': 'assistant', 'data-message-id': 'm1' });
  const markdown = el('div', { class: 'markdown prose' });
  markdown.append(pre);
  message.append(markdown);
  document.body.append(message);
  return message;
}

function blocksOf(site: Site, message: Element) {
  return findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
}

describe('a tools/call alone in a code block whose page hid its label', () => {
  it('Gemini "Code snippet": offered with Run, never run by itself', () => {
    const blocks = blocksOf(gemini, geminiReply('Code snippet'));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'mcp-request', complete: true, labelHidden: true, payload: CALL });
    expect(blocks[0]?.inert).toBeUndefined();
    expect(blocks[0]?.error).toBeUndefined();
    const decision = decideAutoRun({
      siteEnabled: true, autoRun: true, role: 'assistant', origin: 'live', complete: true, replyFinished: true, inLedger: false,
      loopGuard: { ok: true }, labelHidden: blocks[0]?.labelHidden,
    });
    expect(decision).toEqual({ run: false, reason: 'label-hidden' });
  });

  it.each(['代码段', 'Fragmento de código', 'コード スニペット', 'Фрагмент кода'])(
    'Gemini in another language, "Code snippet" drawn as %j: offered with Run, and the doctor names no fault',
    (label) => {
      // the label's first word was taken for the fence tag: no block at all, and the doctor said nothing
      const message = geminiReply(label);
      const blocks = blocksOf(gemini, message);
      expect(blocks).toMatchObject([{ kind: 'mcp-request', complete: true, labelHidden: true, payload: CALL }]);
      expect(blocks[0]?.error).toBeUndefined();
      expect(gemini.codeLanguage(message.querySelector('code-block')!)).toBe('');
      expect(replyCodeProblem(gemini, message, [])).toBeNull();
    },
  );

  it('Gemini: a tag shown as written and a language\'s name are read whatever language the copy button speaks', () => {
    const shown = geminiReply('mcp-request');
    shown.querySelector('button')!.append(el('span', {}, '复制代码'));
    expect(gemini.codeLanguage(shown.querySelector('code-block')!)).toBe('mcp-request');
    expect(gemini.labelHidden!(shown.querySelector('code-block')!)).toBe(false);
    expect(blocksOf(gemini, shown)).toMatchObject([{ kind: 'mcp-request', payload: CALL }]);
    expect(blocksOf(gemini, shown)[0]?.labelHidden).toBeUndefined();
    document.body.replaceChildren();
    expect(gemini.codeLanguage(geminiReply('C++').querySelector('code-block')!)).toBe('C++');
  });

  it('Gemini "JSON": the page showed the tag as written, a ```json example stays inert', () => {
    expect(blocksOf(gemini, geminiReply('JSON'))).toMatchObject([{ kind: 'mcp-request', inert: 'unlabelled-call' }]);
  });

  it('HuggingChat with no language in the page: offered with Run; with a language class, as written', () => {
    expect(blocksOf(huggingchat, preReply(huggingchat, ''))).toMatchObject([{ kind: 'mcp-request', labelHidden: true, payload: CALL }]);
    document.body.replaceChildren();
    const shown = blocksOf(huggingchat, preReply(huggingchat, 'json'));
    expect(shown).toMatchObject([{ kind: 'mcp-request', inert: 'unlabelled-call' }]);
    expect(shown[0]?.labelHidden).toBeUndefined();
  });

  it.each(['h3', 'h2', 'h6'])('HuggingChat: a %s right before the block is prose, no label of it', (heading) => {
    // "### Usage" above the block made "Usage" its language: no block at all, and the doctor said nothing
    const message = preReply(huggingchat, '');
    const group = message.querySelector('.group')!;
    group.before(el(heading, {}, 'Usage'));
    expect(huggingchat.codeLanguage(message.querySelector('pre')!)).toBe('');
    expect(blocksOf(huggingchat, message)).toMatchObject([{ kind: 'mcp-request', labelHidden: true, payload: CALL }]);
  });

  it('a site that shows labels: a block with none is still the inert example', () => {
    const blocks = blocksOf(chatgpt, preReply(chatgpt, ''));
    expect(blocks).toMatchObject([{ kind: 'mcp-request', inert: 'unlabelled-call' }]);
    expect(blocks[0]?.labelHidden).toBeUndefined();
  });
});

describe('a zero-width character in a label the page draws', () => {
  it.each([['after', 'mcp-request\u200B'], ['before', '\u200Bmcp-request'], ['a word joiner after', 'mcp-request\u2060']])(
    'Gemini: one %s the tag is no part of it — the call is found, and never runs by itself',
    (_where, label) => {
      // the reply was skipped before it was read (mayHoldBlocks) and its fence's label was not mcp-request: no block
      const message = geminiReply(label);
      const answer = gemini.answerRoot(message)!;
      expect(mayHoldBlocks(answer, answer.textContent ?? '', gemini)).toBe(true);
      const blocks = blocksOf(gemini, message);
      expect(blocks).toMatchObject([{ kind: 'mcp-request', complete: true, payload: CALL }]);
      expect(blocks[0]?.error).toBeUndefined();
      expect(holdsHidden(blocks[0]!.raw)).toBe(true);
    },
  );
});

describe('page: a call in a code block whose page hid its label', () => {
  it('never runs by itself, with auto-run on; its chip says the page hid the label, and Run runs it', async () => {
    const h = start(buildPage(), { site: { ...deepseek, labelHidden: () => true }, settings: { autoRun: true } });
    await streamReply(h, [{ lang: '', code: LIST }]);
    await until(() => chip().getAttribute('data-chatbridge-state') === 'ready');
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(chip().getAttribute('data-chatbridge-note')).toBe(t('note.labelHidden'));
    clickChip(roots, chip(), 'run');
    await until(() => h.runs.length === 1);
    expect(h.runs.map((r) => [r.kind, r.text])).toEqual([['mcp-request', `\`\`\`label-hidden-by-page\n${LIST}\n\`\`\``]]);
  });
});

describe('page: a flycode-call in a ```json block', () => {
  it('is never sent and offers no Run, its chip saying why (it gave no block: nothing happened, nothing said why)', async () => {
    const h = start(buildPage());
    await streamReply(h, ['The call:', { lang: 'json', code: '{"id":"call-001","tool":"fs.read","args":{"path":"README.md"}}' }]);
    await until(() => document.querySelector('[data-chatbridge-chip]') !== null);
    await h.settle();
    expect(chip().getAttribute('data-chatbridge-note')).toBe(t('reason.unlabelledFlycodeCall'));
    expect(() => clickChip(roots, chip(), 'run')).toThrow(/no run button/);
    expect(h.runs).toEqual([]);
  });
});

describe('the site doctor on a page that hides labels', () => {
  it('a call offered with Run there is no fault; the same block on a module that says nothing of it still is', () => {
    // it said "its call is read as plain code" of a call the chip offered with Run
    const message = geminiReply('Code snippet');
    expect(replyCodeProblem(gemini, message, [])).toBeNull();
    const unaware = defineSite({ ...gemini, labelHidden: undefined });
    expect(replyCodeProblem(unaware, message, [])).toMatchObject({ code: 'code-unreadable', message: expect.stringContaining('1 code block') });
  });
});

describe('an Axon plan whose act label the page hides', () => {
  /** A write_file statement as three code blocks, each drawn by `block` (the page shows none of their labels). */
  const WRITE = [['act', 'write_file'], ['', 'notes/a.txt'], ['', 'one\n\ttwo  \n']] as const;

  function huggingchatPlan(): Element {
    const prose = el('div', { class: 'prose' });
    prose.append(el('p', {}, 'Writing the file:'));
    for (const [, text] of WRITE) {
      const group = el('div', { class: 'group relative' });
      const pre = el('pre');
      // marked gives the code without the fence's last line break
      pre.append(el('code', { class: 'hljs' }, text.replace(/\n$/, '')));
      group.append(el('button', { 'aria-label': 'Copy' }), pre);
      prose.append(group);
    }
    const message = el('div', { 'data-message-role': 'assistant', 'data-message-id': 'm1' });
    message.append(prose);
    document.body.append(message);
    return message;
  }

  function geminiPlan(actLabel: string): Element {
    const markdown = el('div', { class: 'markdown markdown-main-panel' });
    for (const [kind, text] of WRITE) {
      const host = el('code-block');
      const block = el('div', { class: 'code-block' });
      const decoration = el('div', { class: 'code-block-decoration header-formatted gds-title-s' });
      decoration.append(el('span', {}, kind === 'act' ? actLabel : '代码段'));
      const pre = el('pre');
      pre.append(el('code', { 'data-test-id': 'code-content', class: 'code-container formatted' }, `${text}${text.endsWith('\n') ? '' : '\n'}`));
      block.append(decoration, pre);
      host.append(block);
      markdown.append(host);
    }
    const content = el('message-content', { id: 'message-content-id-r_0123456789abcdef' });
    content.append(markdown);
    const response = el('model-response');
    response.append(content);
    document.body.append(response);
    return response;
  }

  it.each([
    ['HuggingChat (no language in the page)', huggingchat, huggingchatPlan],
    ['Gemini, the act block headed "Code snippet"', gemini, () => geminiPlan('Code snippet')],
    ['Gemini in Chinese, the act block headed "代码段"', gemini, () => geminiPlan('代码段')],
  ] as const)('%s: the statement is found, offered with Run and never run by itself; the doctor names no fault', (_name, site, page) => {
    // it was no statement at all (three plain code blocks): nothing ran, no Run was offered
    const message = page();
    const answer = site.answerRoot(message)!;
    expect(mayHoldBlocks(answer, answer.textContent ?? '', site)).toBe(true);
    const blocks = blocksOf(site, message);
    expect(blocks).toMatchObject([{ kind: 'axon', complete: true, labelHidden: true, payload: { acts: [{ act: 'write_file', args: ['notes/a.txt\n', 'one\n\ttwo  \n'] }] } }]);
    expect(blocks[0]?.error).toBeUndefined();
    // the companion reads the raw text the Run sends as the same statement
    expect(findBlocks(blocks[0]!.raw, 'axon')).toMatchObject([{ labelHidden: true, payload: blocks[0]!.payload }]);
    const decision = decideAutoRun({
      siteEnabled: true, autoRun: true, role: 'assistant', origin: 'live', complete: true, replyFinished: true, inLedger: false,
      loopGuard: { ok: true }, labelHidden: blocks[0]?.labelHidden,
    });
    expect(decision).toEqual({ run: false, reason: 'label-hidden' });
    expect(replyCodeProblem(site, message, [])).toBeNull();
  });

  it('an act\'s name alone in such a block, with no parameters after it, is no statement (a finished reply is not left writing)', () => {
    const prose = el('div', { class: 'prose' });
    const pre = el('pre');
    pre.append(el('code', { class: 'hljs' }, 'write_file'));
    prose.append(el('p', {}, 'The tool is'), pre, el('p', {}, 'and it takes a path.'));
    const message = el('div', { 'data-message-role': 'assistant', 'data-message-id': 'm1' });
    message.append(prose);
    document.body.append(message);
    expect(blocksOf(huggingchat, message)).toEqual([]);
  });

  it('a page that shows labels: a plain block holding an act\'s name is still no act fence', () => {
    const markdown = '```\nwrite_file\n```\n\n```\nnotes/a.txt\n```\n\n```\none\n```\n';
    expect(findBlocks(markdown, 'axon')).toEqual([]);
  });
});
