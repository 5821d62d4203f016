import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import type { Block } from '../../shared/protocols/types';
import { serializeMessage } from '../../extension/scanner/serialize';
import type { Site } from '../../extension/sites/define-site';

/** Saved-DOM fixtures of the site modules: tests/fixtures/sites/<site id>/<date>-<state>.html. */
export const FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures', 'sites');

export interface FoundBlock {
  kind: string;
  language: string;
  id: unknown;
  partial: boolean;
}

export interface Expectation {
  site: Site;
  pathname: string;
  /** The full address, for sites that keep the conversation in the query. */
  href?: string;
  roles: Array<'user' | 'assistant'>;
  conversationId: string | null;
  /** The site's own signal; undefined where the page gives none (text stability decides). */
  generating: boolean | undefined;
  editorTag: string;
  /** Block payloads found in assistant answers, in page order (reasoning and tool-call decoys must not be here). */
  answerBlocks: FoundBlock[];
  keys: string[];
  sendButton: 'enabled' | 'disabled' | 'absent';
}

export function loadFixture(file: string): Document {
  document.open();
  document.write(readFileSync(join(FIXTURE_DIR, file), 'utf8'));
  document.close();
  return document;
}

export function answerBlocks(site: Site, root: ParentNode): FoundBlock[] {
  const found: FoundBlock[] = [];
  for (const message of site.messages(root)) {
    if (message.role !== 'assistant') continue;
    const answer = site.answerRoot(message.el);
    if (!answer) continue;
    const serialized = serializeMessage(answer, site);
    for (const block of findBlocks(serialized.markdown)) {
      const code = serialized.segments.find((s) => s.code && s.start <= block.start && s.end >= block.end)?.code;
      found.push({
        kind: block.kind,
        language: code?.language ?? '',
        id: (block.payload as { id?: unknown } | undefined)?.id,
        partial: code?.partial !== undefined,
      });
    }
  }
  return found;
}

/** The ids of every block in the first assistant message read whole, reasoning included (proves decoys are real). */
export function idsReadingEverything(site: Site, root: ParentNode): unknown[] {
  const assistant = site.messages(root).find((m) => m.role === 'assistant');
  if (!assistant) return [];
  const everything = serializeMessage(assistant.el, { ...site, skipSelector: '[data-chatbridge-chip]' });
  return findBlocks(everything.markdown).map((b) => (b.payload as { id?: unknown } | undefined)?.id);
}

/** The same five checks for every fixture: messages, answer blocks, composer controls, conversation id, stop control. */
export function describeFixtures(expected: Record<string, Expectation>): void {
  for (const [file, want] of Object.entries(expected)) {
    describe(file, () => {
      it('finds the messages with their roles and stable keys', () => {
        const doc = loadFixture(file);
        const messages = want.site.messages(doc);
        expect(messages.map((m) => m.role)).toEqual(want.roles);
        expect(messages.map((m, i) => want.site.messageKey(m.el, i))).toEqual(want.keys);
        for (const m of messages) expect(m.el.matches(want.site.messageSelector)).toBe(true);
      });

      it('reads blocks from answers only, never from reasoning, tool calls or user messages', () => {
        const doc = loadFixture(file);
        expect(answerBlocks(want.site, doc)).toEqual(want.answerBlocks);
      });

      it('finds the editor, the send control and the generating state', () => {
        const doc = loadFixture(file);
        const editor = want.site.editor(doc);
        expect(editor?.tagName).toBe(want.editorTag);
        expect(editor?.className ?? '').not.toMatch(/ql-clipboard/);
        expect(want.site.isGenerating(doc)).toBe(want.generating);
        const send = want.site.sendButton(doc);
        const state = !send ? 'absent' : want.site.isSendDisabled(send) ? 'disabled' : 'enabled';
        expect(state).toBe(want.sendButton);
      });

      it('reads the conversation id from the URL', () => {
        const location = want.href ? { pathname: want.pathname, href: want.href } : { pathname: want.pathname };
        expect(want.site.conversationId(location)).toBe(want.conversationId);
      });

      it('finds the stop control the person clicks while a reply is generated, and none otherwise', () => {
        const doc = loadFixture(file);
        const stop = want.site.stopControl(doc);
        expect(stop !== null).toBe(want.generating === true);
        // The stop control is the page's own, never something inside a message.
        if (stop) for (const m of want.site.messages(doc)) expect(m.el.contains(stop)).toBe(false);
      });
    });
  }
}

// ------------------------------------------------------------------------------------------- serializer round trip

const BLOCK_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'blocks');

/**
 * A handful of block fixtures covering every kind (`<function_calls>` in an xml block, in a paragraph and as fenced JSON
 * lines), nested fences, backticks in content, Chinese text and paths.
 */
export const ROUND_TRIP_FIXTURES = [
  'mcp-request/pretty-printed.md',
  'mcp-request/three-calls-run-in-order.md',
  'mcp-request/four-backtick-fence.md',
  'axon/axon-and-mcp-in-one-reply.md',
  'mcp-request/content-with-backticks-in-string.md',
  'mcp-request/seed000-fewshot-07-writebatch-html-css.md',
  'flycode-call/windows-path.md',
  'flycode-call/seed001-fewshot-05-write-append-chinese.md',
  'autocoder/inside-json-code-block.md',
  'axon/backtick-fences.md',
  'axon/chinese-path-and-content.md',
  'axon/seed003-write-markdown-with-backticks.md',
  'axon/replace-with-backticks-and-tildes.md',
  'function-calls/xml-multiline-and-cdata.md',
  'function-calls/xml-unfenced-paragraph.md',
  'function-calls/jsonl-fenced.md',
  'function-calls/xml-bare-invoke-in-code-block.md',
  'function-calls/xml-bare-invoke-in-paragraph.md',
  'function-calls/xml-wrapper-in-code-blocks-invoke-in-prose.md',
];

/** Markdown rendered the way one site shows a reply: its assistant message (answer + reasoning decoy) in a page root. */
export type RenderLikeSite = (markdown: string) => { site: Site; message: Element; root: HTMLElement };

function essence(blocks: Block[]): Array<{ kind: string; complete: boolean; unwrapped: boolean; quoted: boolean; payload: string }> {
  return blocks.map((b) => ({ kind: b.kind, complete: b.complete, unwrapped: b.unwrapped === true, quoted: b.quoted === true, payload: JSON.stringify(b.payload ?? null) }));
}

function roundTrip(markdown: string, render: RenderLikeSite): { serialized: string; blocks: Block[]; partial: boolean } {
  const { site, message, root } = render(markdown);
  document.body.replaceChildren(root);
  expect(site.messages(document).find((m) => m.el === message)?.role, 'the rendered reply is found as an assistant message').toBe('assistant');
  const answer = site.answerRoot(message);
  if (!answer) throw new Error(`no answer root found in the ${site.id} rendering`);
  const serialized = serializeMessage(answer, site);
  return { serialized: serialized.markdown, blocks: findBlocks(serialized.markdown), partial: serialized.segments.some((s) => s.code?.partial) };
}

/** findBlocks(serialize(renderLikeSite(md))) equals findBlocks(md) for every round-trip fixture, per rendering. */
export function describeRoundTrips(renderers: Record<string, RenderLikeSite>): void {
  for (const [name, render] of Object.entries(renderers)) {
    describe(name, () => {
      for (const fixture of ROUND_TRIP_FIXTURES) {
        it(fixture, () => {
          const markdown = readFileSync(join(BLOCK_FIXTURES, fixture), 'utf8');
          const original = findBlocks(markdown);
          expect(original.length, 'the fixture holds blocks').toBeGreaterThan(0);
          expect(original.every((b) => b.complete), 'the fixture holds only complete blocks').toBe(true);
          const { blocks, serialized, partial } = roundTrip(markdown, render);
          expect(essence(blocks), serialized).toEqual(essence(original));
          expect(partial).toBe(false);
        });
      }

      it('leaves the reasoning out (the decoy beside the answer is never read)', () => {
        expect(roundTrip('Nothing to run here.', render).blocks).toEqual([]);
      });
    });
  }
}
