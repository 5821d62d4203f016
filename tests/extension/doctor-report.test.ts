import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerDoctor, doctorAnswerSchema } from '../../extension/doctor/answer';
import { replyCodeProblem } from '../../extension/doctor/reply-code';
import {
  OUTLINE_MAX_ELEMENTS,
  buildReport,
  doctorReportSchema,
  outlineOf,
  problemFor,
  reportText,
  topProblem,
  type DoctorPageState,
} from '../../extension/doctor/report';
import { SITES, chatgpt, deepseek, generic } from '../../extension/sites';
import { defineSite, outermost } from '../../extension/sites/define-site';
import { LAYOUTS, SITE_OF, renderLikeSite } from './render-like-site';
import { FIXTURE_DIR, loadFixture } from './site-fixtures';

/**
 * The site doctor's report (extension/doctor/report.ts) against saved DOM and hand-built pages: what it finds, the
 * problems it names, and the outline "Copy a report" puts on the clipboard — which must never carry a message's text,
 * anything typed into a box, or a link, title or image that could hold either.
 */

const SECRETS = ['sk-proj-SECRETinMessage1234567890', 'hunter2-typed-in-the-box', 'ghp_SecretDraftInEditable0000', 'AKIAINPUTVALUESECRET', 'placeholder-secret', 'title-secret', 'link-secret', 'alt-secret', 'option-secret'];

/** A chat page whose every text, value and free-form attribute holds a secret. */
function secretPage(): void {
  document.body.innerHTML = `
    <main class="chat" role="main">
      <article data-role="user" class="message user"><p>my key is ${SECRETS[0]}</p></article>
      <article data-role="assistant" class="message assistant" data-testid="reply-1">
        <p>Here: <code>${SECRETS[0]}</code></p>
        <pre><code class="language-bash">export KEY=${SECRETS[0]}</code></pre>
        <a href="https://example.com/?k=${SECRETS[6]}" aria-label="open ${SECRETS[6]}">a link</a>
        <img src="/x.png?${SECRETS[7]}" alt="${SECRETS[7]}">
      </article>
      <nav aria-label="History"><a href="/c/1" title="${SECRETS[5]}">${SECRETS[0]}</a></nav>
    </main>
    <form class="composer">
      <textarea id="prompt" placeholder="${SECRETS[4]}" aria-label="Message"></textarea>
      <div contenteditable="true" class="ProseMirror" data-placeholder="${SECRETS[4]}">${SECRETS[2]}</div>
      <input type="text" name="q" value="${SECRETS[3]}">
      <select aria-label="Model"><option>${SECRETS[8]}</option></select>
      <button type="submit" aria-label="Send message" disabled></button>
    </form>
    <script>var leaked = "${SECRETS[0]}";</script>
    <style>.x::after { content: "${SECRETS[0]}"; }</style>`;
  // What a person typed is a property, not an attribute: set it the way typing does.
  (document.querySelector('textarea') as HTMLTextAreaElement).value = SECRETS[1]!;
  (document.querySelector('input') as HTMLInputElement).value = SECRETS[3]!;
}

const RUNNING: DoctorPageState = {
  running: true,
  lastInsert: { ok: true, method: 'native-setter', at: 1 },
  lastSubmit: { ok: false, reason: 'the send button never became available; pressed Enter, nothing was sent', at: 2 },
  lastReplyBlocks: [{ kind: 'mcp-request', state: 'done' }],
  problems: [problemFor('submit-unverified')],
};

describe('site doctor: the outline never carries text', () => {
  it('no message text, typed value, placeholder, title, link, image or script text reaches the outline or the copied report', () => {
    secretPage();
    const outline = outlineOf(document.body);
    const report = buildReport(generic, document, RUNNING, 'chat.example.org');
    const copied = reportText(report, outline, '0.1.0', new Date('2026-11-24T10:00:00Z'));
    for (const secret of SECRETS) {
      expect(outline).not.toContain(secret);
      expect(copied).not.toContain(secret);
      expect(JSON.stringify(report)).not.toContain(secret);
    }
    // What it does keep: structure and the labels of controls.
    expect(outline).toContain('main.chat[role=main]');
    expect(outline).toContain('article.message.assistant[data-testid=reply-1][data-role=assistant]');
    expect(outline).toContain('textarea#prompt[aria-label="Message"]');
    expect(outline).toContain('div.ProseMirror[contenteditable=true]');
    expect(outline).toContain('button[type=submit][disabled][aria-label="Send message"]');
    expect(outline).toContain('code.language-bash');
    // A link's label may be a conversation's title (written from its text): only controls' labels are kept.
    expect(outline).not.toContain('open ');
    expect(outline).not.toContain('script');
  });

  it('a value that does not look like a name is left out, even in an attribute it keeps', () => {
    document.body.innerHTML = '<div data-testid="turn: the password is hunter2, ok?" class="ok bad{class} x" id="has space"></div><button aria-label="Copy">c</button>';
    const outline = outlineOf(document.body);
    expect(outline).toBe('body\n  div.ok.x[data-testid]\n  button[aria-label="Copy"]');
  });

  it('runs of identical siblings are one line with a count; a huge page says how much it left out', () => {
    document.body.innerHTML = `<ul class="list">${'<li class="row"><span class="dot"></span></li>'.repeat(40)}</ul>`;
    expect(outlineOf(document.body)).toBe('body\n  ul.list\n    li.row ×40\n      span.dot');
    document.body.innerHTML = `<div>${'<p class="x"><b></b></p>'.repeat(OUTLINE_MAX_ELEMENTS)}</div>`;
    const outline = outlineOf(document.body);
    expect(outline).toMatch(/… \d+ more elements not shown$/);
    expect(outline.split('\n').length).toBeLessThan(OUTLINE_MAX_ELEMENTS);
  });

  it("the chips and indicator are named, not walked", () => {
    document.body.innerHTML = '<div data-chatbridge-chip=""><span>secret result text</span></div><div data-chatbridge-indicator=""></div>';
    expect(outlineOf(document.body)).toBe('body\n  div [chatbridge chip]\n  div [chatbridge indicator]');
  });
});

describe('site doctor: the report', () => {
  it('on a saved ChatGPT page: messages and roles, the last reply, the ProseMirror composer, the send control', () => {
    const doc = loadFixture('chatgpt/2025-09-hljs-idle.html');
    const report = buildReport(chatgpt, doc, null, 'chatgpt.com');
    expect(doctorReportSchema.parse(report)).toEqual(report);
    expect(report.site).toEqual({ id: 'chatgpt', name: chatgpt.name, editorFamily: 'prosemirror', generic: false });
    expect(report.running).toBe(false);
    expect(report.messages.count).toBeGreaterThan(0);
    expect(report.messages.user + report.messages.assistant).toBe(report.messages.count);
    expect(report.lastReply).toMatchObject({ answerFound: true, blocks: null });
    // ChatGPT's code blocks are its `pre`s: every one is recognized.
    expect(report.lastReply!.codeBlocks).toBe(report.lastReply!.pres);
    expect(report.composer).toMatchObject({ found: true, family: 'prosemirror', kind: 'contenteditable' });
    expect(report.composer.element).toMatch(/^div#prompt-textarea$/);
    expect(report.generating).toBe('no');
  });

  it('a page whose composer is gone says so; the generic adapter says it has no generating signal', () => {
    secretPage();
    document.querySelector('form')!.remove();
    const report = buildReport(generic, document, null, 'chat.example.org');
    expect(report.composer).toEqual({ found: false, family: 'unknown' });
    expect(report.send).toEqual({ found: false });
    expect(report.generating).toBe('no-signal');
    expect(report.site.generic).toBe(true);
  });

  it("carries the page's own record: last insert and submit, blocks, problems", () => {
    secretPage();
    const report = buildReport(generic, document, RUNNING, 'chat.example.org');
    expect(report.running).toBe(true);
    expect(report.lastSubmit).toMatchObject({ ok: false });
    expect(report.lastReply?.blocks).toEqual([{ kind: 'mcp-request', state: 'done' }]);
    expect(report.problems.map((p) => p.code)).toEqual(['submit-unverified']);
    const text = reportText(report, '', '0.1.0', new Date(0));
    expect(text).toContain('last submit: NOT verified: the send button never became available');
    expect(text).toContain('composer: found, div (contenteditable)');
  });

  it("the content script's answer carries the outline only when asked, and passes the background's schema", () => {
    secretPage();
    const plain = answerDoctor({ type: 'chatbridge-doctor', outline: false }, generic, document, null, 'chat.example.org');
    expect(plain.outline).toBeUndefined();
    const full = answerDoctor({ type: 'chatbridge-doctor', outline: true }, generic, document, RUNNING, 'chat.example.org');
    expect(doctorAnswerSchema.parse(full)).toEqual(full);
    expect(full.outline).toContain('textarea#prompt');
  });
});

describe('site doctor: problems', () => {
  it('a finished reply: code the module cannot read, an answer it cannot find, a block shown only in part', () => {
    const { row, answer } = (() => {
      const row = document.createElement('div');
      row.className = 'ds-message';
      const answer = document.createElement('div');
      answer.className = 'ds-markdown';
      row.append(answer);
      document.body.replaceChildren(row);
      return { row, answer };
    })();
    // A module that knows only `.md-code-block` (the built-in ones all fall back to any `pre`): a bare `pre` is a
    // shape it does not know.
    const strict = defineSite({ ...deepseek, codeBlockSelector: '.md-code-block' });
    answer.innerHTML = '<p>text</p><pre><code>echo hi</code></pre>';
    expect(replyCodeProblem(strict, row, [])).toMatchObject({ code: 'code-unreadable', message: expect.stringContaining('1 code block') });
    answer.innerHTML = '<div class="md-code-block"><pre>echo hi</pre></div>';
    expect(replyCodeProblem(deepseek, row, [])).toBeNull();
    expect(replyCodeProblem(deepseek, row, [{ unreadable: 'the code viewer shows 3 of 40 lines' }])).toMatchObject({ message: expect.stringContaining('3 of 40') });
    answer.className = 'renamed';
    expect(replyCodeProblem(deepseek, row, [])).toMatchObject({ code: 'code-unreadable', message: expect.stringContaining('answer was not found') });
    answer.innerHTML = '<p>no code at all</p>';
    expect(replyCodeProblem(deepseek, row, [])).toBeNull();
  });

  it('every site module: a redesign that draws code blocks without a `pre` is named, not passed over in silence', () => {
    const checked = new Set<string>();
    for (const site of SITES.filter((s) => s.hosts.length > 0)) {
      for (const file of readdirSync(join(FIXTURE_DIR, site.id))) {
        const doc = loadFixture(`${site.id}/${file}`);
        for (const message of site.messages(doc).filter((m) => m.role === 'assistant')) {
          const answer = site.answerRoot(message.el);
          const blocks = answer ? outermost(Array.from(answer.querySelectorAll(site.codeBlockSelector))).filter((b) => site.codeText(b).text.trim() !== '') : [];
          if (blocks.length === 0) continue;
          // The page as saved: its code is read, nothing to say — also where the build puts no language in the page
          // (HuggingChat 2026, in its module's contract): a call there is offered with Run (Site.labelHidden).
          expect(replyCodeProblem(site, message.el, []), `${site.id}/${file}`).toBeNull();
          // The same reply drawn by a new build: a header and a `code` element in new wrappers, no `pre` anywhere.
          for (const block of blocks) {
            const redrawn = doc.createElement('div');
            redrawn.className = 'code-viewer-2027';
            redrawn.innerHTML = '<div class="code-header"><span>json</span><button>Copy</button></div><div class="code-body"><code></code></div>';
            redrawn.querySelector('code')!.textContent = site.codeText(block).text;
            block.replaceWith(redrawn);
          }
          expect(replyCodeProblem(site, message.el, []), `${site.id}/${file}`).toMatchObject({
            code: 'code-unreadable',
            message: expect.stringContaining("in a shape this site's module does not know"),
          });
          checked.add(site.id);
        }
      }
    }
    expect([...checked].sort()).toEqual(SITES.filter((s) => s.hosts.length > 0).map((s) => s.id).sort());
  });

  it('every site module: a redesign that draws code blocks as rows of lines, with neither a `pre` nor a `code`, is named', () => {
    // How highlighters draw a block when the page gives them no pre: Ace's viewer, prism-react-renderer and Shiki with
    // div tags, each line an element of its own.
    const RENDERINGS: Record<string, (lines: string[]) => string> = {
      ace: (lines) =>
        `<div class="ace_editor ace-tm"><div class="ace_scroller"><div class="ace_content"><div class="ace_text-layer">${lines.map((l) => `<div class="ace_line">${l}</div>`).join('')}</div></div></div></div>`,
      prism: (lines) => `<div class="prism-code language-json">${lines.map((l) => `<div class="token-line"><span class="token plain">${l}</span></div>`).join('')}</div>`,
      shiki: (lines) => `<div class="shiki github-dark" tabindex="0"><div class="code-rows">${lines.map((l) => `<span class="line">${l}</span>`).join('')}</div></div>`,
    };
    const checked = new Set<string>();
    for (const [name, render] of Object.entries(RENDERINGS)) {
      for (const site of SITES.filter((s) => s.hosts.length > 0)) {
        // One saved layout per site (the newest with a finished reply): the rule is the doctor's, not the module's.
        for (const file of readdirSync(join(FIXTURE_DIR, site.id)).filter((f) => f.includes('idle')).slice(-1)) {
          const doc = loadFixture(`${site.id}/${file}`);
          for (const message of site.messages(doc).filter((m) => m.role === 'assistant')) {
            const answer = site.answerRoot(message.el);
            const blocks = answer ? outermost(Array.from(answer.querySelectorAll(site.codeBlockSelector))) : [];
            if (!blocks.some((b) => site.codeText(b).text.trim() !== '')) continue;
            for (const block of blocks) {
              const redrawn = doc.createElement('div');
              redrawn.className = 'code-viewer-2027';
              const lines = site.codeText(block).text.split('\n').map((line) => line.replace(/&/g, '&amp;').replace(/</g, '&lt;'));
              redrawn.innerHTML = `<div class="code-header"><span>json</span><button>Copy</button></div>${render(lines)}`;
              block.replaceWith(redrawn);
            }
            expect(answer!.querySelectorAll(`${site.codeBlockSelector}, code`).length, `${name}: ${site.id}/${file}`).toBe(0);
            expect(replyCodeProblem(site, message.el, []), `${name}: ${site.id}/${file}`).toMatchObject({
              code: 'code-unreadable',
              message: expect.stringContaining("in a shape this site's module does not know"),
            });
            checked.add(`${name} ${site.id}`);
          }
        }
      }
    }
    expect(checked.size).toBe(Object.keys(RENDERINGS).length * SITES.filter((s) => s.hosts.length > 0).length);
    // A block of several lines drawn as rows of line elements in the page's own wrapper (rehype-pretty-code's data-line).
    const row = document.createElement('div');
    row.className = 'ds-message';
    row.innerHTML = '<div class="ds-markdown"><p>Run:</p><div class="snippet-2027"><span data-line="">npm ci</span><span data-line="">npm test</span></div></div>';
    document.body.replaceChildren(row);
    expect(replyCodeProblem(deepseek, row, [])).toMatchObject({ code: 'code-unreadable' });
    // Prose is no code: one line element in a paragraph, or verses in a stanza.
    row.innerHTML = '<div class="ds-markdown"><p><span class="line">Roses are red</span></p><div class="stanza"><span class="verse">one</span><span class="verse">two</span></div></div>';
    expect(replyCodeProblem(deepseek, row, [])).toBeNull();
  });

  it('every site module: a redesign that draws code blocks inside a web component (an open shadow root) is named, not passed over in silence', () => {
    const checked = new Set<string>();
    for (const site of SITES.filter((s) => s.hosts.length > 0)) {
      for (const file of readdirSync(join(FIXTURE_DIR, site.id))) {
        const doc = loadFixture(`${site.id}/${file}`);
        for (const message of site.messages(doc).filter((m) => m.role === 'assistant')) {
          const answer = site.answerRoot(message.el);
          const blocks = answer ? outermost(Array.from(answer.querySelectorAll(site.codeBlockSelector))) : [];
          if (!blocks.some((b) => site.codeText(b).text.trim() !== '')) continue;
          // The same reply drawn by a new build: each block, as it was, inside a code viewer component's shadow root,
          // where no selector of the page reaches (nor the module's).
          for (const block of blocks) {
            const viewer = doc.createElement('code-viewer');
            block.replaceWith(viewer);
            viewer.attachShadow({ mode: 'open' }).append(block);
          }
          expect(answer!.querySelectorAll(site.codeBlockSelector).length, `${site.id}/${file}`).toBe(0);
          expect(replyCodeProblem(site, message.el, []), `${site.id}/${file}`).toMatchObject({
            code: 'code-unreadable',
            message: expect.stringContaining("in a shape this site's module does not know"),
          });
          checked.add(site.id);
        }
      }
    }
    expect([...checked].sort()).toEqual(SITES.filter((s) => s.hosts.length > 0).map((s) => s.id).sort());
    // A component holding no code (an icon, a citation card) is none; inline code in one is no block either.
    const row = document.createElement('div');
    row.className = 'ds-message';
    row.innerHTML = '<div class="ds-markdown"><p>See the <cite-card></cite-card> and <icon-x></icon-x>.</p></div>';
    document.body.replaceChildren(row);
    row.querySelector('cite-card')!.attachShadow({ mode: 'open' }).innerHTML = '<a href="/s/1">source</a> <code>npm test</code> first';
    row.querySelector('icon-x')!.attachShadow({ mode: 'open' }).innerHTML = '<svg></svg>';
    expect(replyCodeProblem(deepseek, row, [])).toBeNull();
  });

  it("every site module: a redesign that drops a call's language label is named, not passed over in silence", () => {
    const checked = new Set<string>();
    const offered = new Set<string>();
    for (const site of SITES.filter((s) => s.hosts.length > 0)) {
      // Finished replies (a reply still being written may hold half a call).
      for (const file of readdirSync(join(FIXTURE_DIR, site.id)).filter((f) => f.includes('idle'))) {
        const doc = loadFixture(`${site.id}/${file}`);
        for (const message of site.messages(doc).filter((m) => m.role === 'assistant')) {
          const answer = site.answerRoot(message.el);
          const calls = answer ? outermost(Array.from(answer.querySelectorAll(site.codeBlockSelector))).filter((b) => site.codeLanguage(b) === 'mcp-request') : [];
          if (calls.length === 0) continue;
          // The label gone wherever a page puts it: a language- class, a data attribute, a header's text.
          for (const block of calls) {
            const scope = block.parentElement ?? block;
            for (const el of Array.from(scope.querySelectorAll('*'))) {
              for (const name of ['data-language', 'data-test-language']) el.removeAttribute(name);
              for (const token of Array.from(el.classList)) if (token.startsWith('language-')) el.classList.remove(token);
              if (el.children.length === 0 && el.textContent?.trim().toLowerCase() === 'mcp-request') el.textContent = '';
            }
          }
          if (calls.some((b) => site.codeLanguage(b) !== '')) continue;
          // A module that says its page hides labels (HuggingChat) offers such a call with Run: nothing to name.
          if (calls.every((b) => site.labelHidden?.(b) === true)) {
            expect(replyCodeProblem(site, message.el, []), `${site.id}/${file}`).toBeNull();
            offered.add(site.id);
            continue;
          }
          expect(replyCodeProblem(site, message.el, []), `${site.id}/${file}`).toMatchObject({
            code: 'code-unreadable',
            message: expect.stringContaining('without the language label'),
          });
          checked.add(site.id);
        }
      }
    }
    // Every module whose fixtures label a call, but for those whose page hides every label (HuggingChat).
    expect([...offered]).toEqual(['huggingchat']);
    expect([...checked].sort()).toEqual(SITES.filter((s) => s.hosts.length > 0 && !offered.has(s.id)).map((s) => s.id).sort());
  });

  it("an Axon plan whose act label a redesign dropped is named: its statements cannot be told from code", () => {
    // Seed 003's plan: the act fence names the act, the fences after it are its parameters.
    const plan = ['Writing the file.', '', '~~~~~act', 'write_file', '~~~~~', '~~~~~path', 'docs/example.md', '~~~~~']
      .concat(['~~~~~content', '# Guide', '~~~~~', ''])
      .join('\n');
    for (const layout of LAYOUTS) {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(plan, layout);
      document.body.replaceChildren(root);
      // As the site draws it: the act is read, nothing to say.
      expect(replyCodeProblem(site, message, []), layout).toBeNull();
      // The labels gone wherever the layout puts them: a language- class, a header's text.
      for (const el of Array.from(message.querySelectorAll('*'))) {
        for (const token of Array.from(el.classList)) if (token.startsWith('language-')) el.classList.remove(token);
        if (el.children.length === 0 && ['act', 'path', 'content'].includes(el.textContent?.trim() ?? '')) el.textContent = '';
      }
      const blocks = outermost(Array.from(site.answerRoot(message)!.querySelectorAll(site.codeBlockSelector)));
      expect(blocks.map((b) => site.codeLanguage(b)), layout).toEqual(['', '', '']);
      expect(replyCodeProblem(site, message, []), layout).toMatchObject({
        code: 'code-unreadable',
        message: expect.stringContaining('without the language label'),
      });
      // A block of plain code that only holds an act's name, with no parameters after it, is no plan: nothing to say.
      const lone = renderLikeSite('Call it like this:\n\n```\nwrite_file\n```\n', layout);
      document.body.replaceChildren(lone.root);
      expect(replyCodeProblem(site, lone.message, []), layout).toBeNull();
      // The filesystem MCP server's write_file tool named in a plain block, its examples after it in labelled blocks:
      // the site shows labels, so no act fence lost one. Nothing to say.
      const tool = renderLikeSite(
        'The tool to call is:\n\n```\nwrite_file\n```\n\nwith these arguments:\n\n```json\n{"path": "notes.txt", "content": "hi"}\n```\n\nIt answers:\n\n```json\n{"ok": true}\n```\n',
        layout,
      );
      document.body.replaceChildren(tool.root);
      expect(replyCodeProblem(site, tool.message, []), layout).toBeNull();
    }
  });

  it('the generic adapter names unreadable code while a modal hides the page (aria-hidden above the reply, as Radix UI does)', () => {
    const page = document.createElement('div');
    const row = document.createElement('article');
    page.append(row);
    document.body.replaceChildren(page);
    const expected = (html: string): unknown => {
      row.innerHTML = html;
      page.removeAttribute('aria-hidden');
      const shown = replyCodeProblem(generic, row, []);
      const lastReply = buildReport(generic, document, RUNNING, 'chat.example.org').lastReply;
      page.setAttribute('aria-hidden', 'true');
      expect(replyCodeProblem(generic, row, [])).toEqual(shown);
      expect(buildReport(generic, document, RUNNING, 'chat.example.org').lastReply).toEqual(lastReply);
      return shown;
    };
    // A redesign that draws code without a `pre`, and a call whose language label is gone.
    expect(expected('<p>text</p><div class="viewer"><code>echo a\necho b</code></div>')).toMatchObject({ message: expect.stringContaining('1 code block') });
    expect(expected('<pre><code>{"jsonrpc": "2.0", "id": "call-001", "method": "tools/call", "params": {"name": "fs.read", "arguments": {"path": "a.txt"}}}</code></pre>')).toMatchObject({ message: expect.stringContaining('without the language label') });
    // What the reply itself hides stays skipped.
    expect(expected('<div aria-hidden="true"><div class="viewer"><code>echo a\necho b</code></div></div>')).toBeNull();
  });

  it('inline code in a reply is no code block: nothing to say', () => {
    const row = document.createElement('div');
    row.className = 'ds-message';
    row.innerHTML =
      '<div class="ds-markdown"><p>Run <code>npm test</code> first.</p><ul><li><code>README.md</code></li></ul><div>see <code>a.ts</code></div><p><code>x</code></p></div>';
    document.body.replaceChildren(row);
    expect(replyCodeProblem(deepseek, row, [])).toBeNull();
  });

  it('the badge shows what keeps results out of the chat first', () => {
    const code = problemFor('code-unreadable');
    const submit = problemFor('submit-unverified');
    const none = problemFor('no-composer');
    expect(topProblem([code, submit])).toBe(submit);
    expect(topProblem([code, none, submit])).toBe(none);
    expect(topProblem([])).toBeNull();
  });
});
