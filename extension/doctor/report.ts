import { z } from 'zod';
import type { DoctorProblem } from '../companion/badge';
import { EDITOR_FAMILIES, outermost, plainText, type Site } from '../sites/define-site';
import { t } from '../ui/i18n';

/**
 * The site doctor (issue 12): what the site module finds on the page the person is on — the messages, the last
 * reply's code blocks, the composer and its family, the send control, the generating signal — and how the last
 * insert and submit went. Pure: it reads the document through the site module and the page's own record of what it
 * did (`DoctorPageState`), so it is tested against saved DOM. The problems it names are what the chip and the
 * toolbar badge say when they happen (content/page-doctor.ts).
 *
 * Nothing here ever carries message text or what is typed in a box: counts, roles, tag names, classes, test ids and
 * the labels of controls only (`outlineOf`).
 */

/** How one insert or submit went: done (and how), or why not. */
export const attemptSchema = z.object({
  ok: z.boolean(),
  method: z.string().max(40).optional(),
  reason: z.string().max(300).optional(),
  at: z.number(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const PROBLEM_CODES = [
  'no-composer',
  'no-send-control',
  'no-messages',
  'no-answer',
  'insert-failed',
  'submit-unverified',
  'code-unreadable',
  'reasoning-unplaced',
  'no-writing-signal',
  'writing-signal-stuck',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

const problemSchema = z.object({ code: z.string().max(40), message: z.string().max(300) });

const blockSchema = z.object({ kind: z.string().max(40), state: z.string().max(40), unreadable: z.string().max(300).optional() });

/** What the running page knows beyond the DOM: its blocks, the last insert/submit, the problems it has seen. */
export interface DoctorPageState {
  /** the site is on here and chatbridge runs the page (otherwise only what the site module finds is shown) */
  running: boolean;
  lastInsert: Attempt | null;
  lastSubmit: Attempt | null;
  /** the blocks of the newest assistant reply, as the page tracks them */
  lastReplyBlocks: Array<z.infer<typeof blockSchema>> | null;
  problems: DoctorProblem[];
}

export const doctorReportSchema = z.object({
  site: z.object({
    id: z.string().max(60),
    name: z.string().max(80),
    editorFamily: z.enum(EDITOR_FAMILIES),
    generic: z.boolean(),
  }),
  host: z.string().max(260),
  running: z.boolean(),
  messages: z.object({ count: z.number().int().min(0), user: z.number().int().min(0), assistant: z.number().int().min(0) }),
  lastReply: z
    .object({
      /** the site module found the answer part of the newest reply (reasoning left out) */
      answerFound: z.boolean(),
      /** code blocks the site module recognizes in it */
      codeBlocks: z.number().int().min(0),
      /** `pre` elements in it (code the module may have missed) */
      pres: z.number().int().min(0),
      /** code drawn in it outside the module's code blocks (a `pre`, a code viewer, a block `code`): a changed markup */
      unrecognized: z.number().int().min(0),
      blocks: z.array(blockSchema).nullable(),
    })
    .nullable(),
  composer: z.object({
    found: z.boolean(),
    family: z.enum(EDITOR_FAMILIES),
    /** the element found, as `tag#id` (no text, no value) */
    element: z.string().max(80).optional(),
    kind: z.enum(['textarea', 'contenteditable', 'other']).optional(),
  }),
  send: z.object({ found: z.boolean(), disabled: z.boolean().optional() }),
  generating: z.enum(['yes', 'no', 'no-signal']),
  stopControl: z.boolean(),
  lastInsert: attemptSchema.nullable(),
  lastSubmit: attemptSchema.nullable(),
  problems: z.array(problemSchema),
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;

// ------------------------------------------------------------------------------------------------- problems

/** The problem in plain words, as the chip and the badge say it. */
export function problemFor(code: ProblemCode, detail?: string): DoctorProblem {
  const words: Record<ProblemCode, string> = {
    'no-composer': t('doctor.problemNoComposer'),
    'no-send-control': t('doctor.problemNoSendControl'),
    'no-messages': t('doctor.problemNoMessages'),
    'no-answer': t('doctor.problemNoAnswer'),
    'insert-failed': t('doctor.problemInsertFailed'),
    'submit-unverified': t('doctor.problemSubmitUnverified'),
    'code-unreadable': t('doctor.problemCodeUnreadable'),
    'reasoning-unplaced': t('doctor.problemReasoningUnplaced'),
    'no-writing-signal': t('doctor.problemNoWritingSignal'),
    'writing-signal-stuck': t('doctor.problemWritingSignalStuck'),
  };
  const message = detail ? `${words[code]} (${detail})` : words[code];
  return { code, message: message.slice(0, 300) };
}

/** Which problem the badge shows when there are several: the ones that keep results out of the chat first. */
export function topProblem(problems: DoctorProblem[]): DoctorProblem | null {
  const rank = (p: DoctorProblem): number => {
    const i = PROBLEM_CODES.indexOf(p.code as ProblemCode);
    return i < 0 ? PROBLEM_CODES.length : i;
  };
  return [...problems].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/** How many places an answer draws code outside the module's code blocks (DRAWN_CODE): a changed code block markup. */
export function unrecognizedCode(site: Site, answer: Element): number {
  return drawnCode(answer).filter((el) => !el.closest(site.codeBlockSelector) && !insideAnswer(el, answer, site.skipSelector)).length;
}

/**
 * Whether `el`, or what holds it inside `answer`, is an element `selector` names (what the module skips), as the
 * scanner reads the answer. What holds the answer says nothing of it: a modal menu or dialog (Radix UI's) marks the
 * whole page aria-hidden while it is open, and the generic adapter skips what is aria-hidden.
 */
export function insideAnswer(el: Element, answer: Element, selector: string): boolean {
  for (let up: Element | null = el; up && up !== answer; up = up.parentElement) if (up.matches(selector)) return true;
  return false;
}

/**
 * What a page draws code in, whatever its wrapper: a `pre`, a code viewer (CodeMirror, Monaco, Ace), a highlighter's
 * root (Shiki's, prism-react-renderer's) drawn in another element, or a `code` element
 * that is a block of its own — more than one line, a `language-` class, or all the text of the `div` holding it
 * (inline code sits in a paragraph's text). A redesign that drops the `pre` leaves one of these.
 */
const DRAWN_CODE = 'pre, .cm-content, .monaco-editor, .ace_editor, .shiki, .prism-code, code';
/**
 * An element a highlighter draws one code line in (Shiki, rehype-pretty-code, prism-react-renderer, remark-prism, Ace):
 * a page that gives its highlighter no `pre` (a `div` in its place) draws a block as rows of these and nothing else.
 */
const CODE_LINE = '.line, [data-line], .token-line, .code-line, .ace_line';
const CODE_LINES = CODE_LINE.split(', ').map((line) => `:scope > ${line}`).join(', ');

/**
 * The outermost elements of `root` that draw code (DRAWN_CODE). A web component that draws code in its open shadow root
 * (a code viewer element) is one of them: no selector of the page reaches into it, the module's neither, so its code is
 * never read. A closed shadow root shows nothing of itself (ours, the chips', are closed).
 */
export function drawnCode(root: Element | ShadowRoot): Element[] {
  const isBlock = (code: Element): boolean => {
    const text = plainText(code).trim();
    if (text === '') return false;
    if (text.includes('\n') || /(?:^|\s)language-/.test(code.className)) return true;
    const parent = code.parentElement;
    return parent !== null && parent.tagName === 'DIV' && (parent.textContent ?? '').trim() === (code.textContent ?? '').trim();
  };
  const drawn = Array.from(root.querySelectorAll(DRAWN_CODE)).filter((el) => el.tagName !== 'CODE' || isBlock(el));
  // A block drawn as rows of lines, with neither a pre nor a code: what holds two lines or more with text in them.
  const rows = new Set<Element>();
  const holders = new Set<Element>();
  for (const line of Array.from(root.querySelectorAll(CODE_LINE))) {
    const holder = line.parentElement;
    if (!holder || holders.has(holder)) continue;
    holders.add(holder);
    const lines = holder.querySelectorAll(CODE_LINES);
    if (lines.length >= 2 && Array.from(lines).filter((l) => (l.textContent ?? '').trim() !== '').length >= 2) rows.add(holder);
  }
  drawn.push(...rows);
  const hosts = shadowHosts(root).filter((host) => drawnCode(host.shadowRoot!).length > 0);
  if (hosts.length === 0 && rows.size === 0) return outermost(drawn);
  // in page order, as the elements found by one selector query are
  return outermost([...drawn, ...hosts].sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & 4 /* FOLLOWING */ ? -1 : 1)));
}

/** The elements under `root` with an open shadow root. */
function shadowHosts(root: Element | ShadowRoot): Element[] {
  const hosts: Element[] = [];
  const walker = (root.ownerDocument ?? document).createTreeWalker(root, 1 /* NodeFilter.SHOW_ELEMENT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if ((node as Element).shadowRoot) hosts.push(node as Element);
  return hosts;
}

// ------------------------------------------------------------------------------------------------- the report

/** The report for the page as it is now (`state` null: chatbridge does not run the page, only the module is asked). */
export function buildReport(site: Site, doc: Document, state: DoctorPageState | null, host: string): DoctorReport {
  const messages = safe(() => site.messages(doc), []);
  const user = messages.filter((m) => m.role === 'user').length;
  const newest = [...messages].reverse().find((m) => m.role === 'assistant');
  const editor = safe(() => site.editor(doc), null);
  const send = safe(() => site.sendButton(doc), null);
  const generating = safe(() => site.isGenerating(doc), undefined);
  const answer = newest ? safe(() => site.answerRoot(newest.el), null) : null;
  return {
    site: { id: site.id, name: site.name, editorFamily: site.editorFamily, generic: site.hosts.length === 0 },
    host: host.slice(0, 260),
    running: state?.running ?? false,
    messages: { count: messages.length, user, assistant: messages.length - user },
    lastReply: newest
      ? {
          answerFound: answer !== null,
          codeBlocks: answer ? safe(() => answer.querySelectorAll(site.codeBlockSelector).length, 0) : 0,
          pres: newest.el.querySelectorAll('pre').length,
          unrecognized: answer ? safe(() => unrecognizedCode(site, answer), 0) : 0,
          blocks: state?.lastReplyBlocks ?? null,
        }
      : null,
    composer: {
      found: editor !== null,
      family: site.editorFamily,
      ...(editor ? { element: elementName(editor), kind: editorKind(editor) } : {}),
    },
    send: send ? { found: true, disabled: safe(() => site.isSendDisabled(send), false) } : { found: false },
    generating: generating === undefined ? 'no-signal' : generating ? 'yes' : 'no',
    stopControl: safe(() => site.stopControl(doc), null) !== null,
    lastInsert: state?.lastInsert ?? null,
    lastSubmit: state?.lastSubmit ?? null,
    problems: (state?.problems ?? []).map((p) => ({ code: p.code.slice(0, 40), message: p.message.slice(0, 300) })),
  };
}

/** A site module's reader that throws (a page shape it never expected) counts as finding nothing. */
export function safe<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function editorKind(editor: HTMLElement): 'textarea' | 'contenteditable' | 'other' {
  if (editor.tagName === 'TEXTAREA' || editor.tagName === 'INPUT') return 'textarea';
  if (editor.isContentEditable || editor.hasAttribute('contenteditable')) return 'contenteditable';
  return 'other';
}

const NAME_TOKEN = /^[A-Za-z][\w:-]{0,59}$/;

/** `tag#id` of an element; an id that does not look like a name is left out. */
function elementName(el: Element): string {
  const id = el.getAttribute('id');
  return `${el.tagName.toLowerCase()}${id && NAME_TOKEN.test(id) ? `#${id}` : ''}`;
}

// ------------------------------------------------------------------------------------------------- the outline

/** Elements read for the outline at most, and how deep; past that the outline says how many it left out. */
export const OUTLINE_MAX_ELEMENTS = 3_000;
const OUTLINE_MAX_DEPTH = 60;
/** Whose subtree says nothing about the page's structure (or is ours). */
const NO_CHILDREN = new Set(['svg', 'math', 'canvas', 'video', 'audio', 'picture', 'iframe', 'object', 'select']);
const LEFT_OUT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'head', 'title', 'base']);
/** Controls: the only elements whose aria-label is copied (a button's "Send message"; never a link's text). */
const CONTROL = 'button, input, textarea, select, [role="button"], [role="textbox"], [contenteditable]';
/** Attributes whose values are structure, not content. */
const SHAPE_ATTRIBUTES = ['role', 'data-testid', 'data-message-author-role', 'data-role', 'data-author', 'data-is-streaming', 'data-lexical-editor', 'type'];
const CLASS_TOKEN = /^[\w:./[\]()%#!@&=,+-]{1,60}$/;
const VALUE_TOKEN = /^[\w:./ -]{1,60}$/;

/**
 * A sanitized outline of the page, one element per line, indented by depth: tag, id and classes (when they look like
 * names), role, test id and a few structural data attributes, whether it is editable or disabled, and the aria-label
 * of controls. Never text nodes, input values, placeholders, titles, links or image sources. Runs of identical
 * siblings are written once with `×N`.
 */
export function outlineOf(root: Element): string {
  let budget = OUTLINE_MAX_ELEMENTS;
  let leftOut = 0;
  const walk = (el: Element, depth: number): string[] => {
    const tag = el.tagName.toLowerCase();
    if (LEFT_OUT.has(tag)) return [];
    if (budget <= 0) {
      leftOut += 1 + el.querySelectorAll('*').length;
      return [];
    }
    budget -= 1;
    const line = describeElement(el);
    if (el.matches('[data-chatbridge-chip], [data-chatbridge-indicator]') || NO_CHILDREN.has(tag) || depth >= OUTLINE_MAX_DEPTH) return [line];
    const children: string[][] = [];
    for (const child of Array.from(el.children)) {
      const lines = walk(child, depth + 1);
      if (lines.length > 0) children.push(lines);
    }
    const out = [line];
    for (let i = 0; i < children.length; ) {
      const same = children[i]!.join('\n');
      let n = 1;
      while (i + n < children.length && children[i + n]!.join('\n') === same) n++;
      const [first, ...rest] = children[i]!;
      out.push(`  ${first}${n > 1 ? ` ×${n}` : ''}`, ...rest.map((l) => `  ${l}`));
      i += n;
    }
    return out;
  };
  const lines = walk(root, 0);
  if (leftOut > 0) lines.push(`… ${leftOut} more elements not shown`);
  return lines.join('\n');
}

function describeElement(el: Element): string {
  const tag = el.tagName.toLowerCase();
  if (el.matches('[data-chatbridge-chip]')) return `${tag} [chatbridge chip]`;
  if (el.matches('[data-chatbridge-indicator]')) return `${tag} [chatbridge indicator]`;
  let out = elementName(el);
  const classes = Array.from(el.classList).filter((c) => CLASS_TOKEN.test(c)).slice(0, 16);
  if (classes.length > 0) out += `.${classes.join('.')}`;
  for (const name of SHAPE_ATTRIBUTES) {
    const value = el.getAttribute(name);
    if (value === null) continue;
    const clean = value.trim();
    out += VALUE_TOKEN.test(clean) ? `[${name}=${clean}]` : `[${name}]`;
  }
  const editable = el.getAttribute('contenteditable');
  if (editable !== null) out += `[contenteditable=${editable === 'false' ? 'false' : 'true'}]`;
  if (el.hasAttribute('disabled')) out += '[disabled]';
  const ariaDisabled = el.getAttribute('aria-disabled');
  if (ariaDisabled === 'true') out += '[aria-disabled]';
  if (el.matches(CONTROL)) {
    const label = (el.getAttribute('aria-label') ?? '').replace(/\s+/g, ' ').replace(/"/g, "'").trim().slice(0, 60);
    if (label) out += `[aria-label="${label}"]`;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------- the text copied

/** What "Copy a report" puts on the clipboard: the report as plain lines, then the page's outline. */
export function reportText(report: DoctorReport, outline: string, extensionVersion: string, at: Date): string {
  const attempt = (a: Attempt | null): string => (a === null ? 'none yet' : a.ok ? `ok (${a.method ?? 'done'})` : `NOT verified: ${a.reason ?? 'no reason given'}`);
  const reply = report.lastReply;
  const lines = [
    `chatbridge ${extensionVersion} site doctor report, ${at.toISOString()}`,
    `site: ${report.site.name} (${report.site.id}${report.site.generic ? ', generic adapter' : ''}) on ${report.host}; chatbridge ${report.running ? 'runs here' : 'is off here'}`,
    `messages: ${report.messages.count} (${report.messages.user} user, ${report.messages.assistant} assistant)`,
    reply
      ? `last reply: answer ${reply.answerFound ? 'found' : 'NOT found'}, ${reply.codeBlocks} code block(s) recognized, ${reply.pres} pre element(s), ${reply.unrecognized} code block(s) NOT recognized` +
        (reply.blocks ? `, blocks: ${reply.blocks.map((b) => `${b.kind} ${b.state}${b.unreadable ? ` (${b.unreadable})` : ''}`).join('; ') || 'none'}` : '')
      : 'last reply: none',
    `composer: ${report.composer.found ? `found, ${report.composer.element ?? '?'} (${report.composer.kind ?? '?'})` : 'NOT found'}; family ${report.composer.family}`,
    `send control: ${report.send.found ? (report.send.disabled ? 'found, disabled' : 'found, enabled') : 'not found'}`,
    `generating signal: ${report.generating}; stop control ${report.stopControl ? 'showing' : 'not showing'}`,
    `last insert: ${attempt(report.lastInsert)}`,
    `last submit: ${attempt(report.lastSubmit)}`,
    `problems: ${report.problems.length === 0 ? 'none' : report.problems.map((p) => `${p.code}: ${p.message}`).join('; ')}`,
    '',
    'page outline (tag names, roles, test ids, classes, labels of controls; no text):',
    outline,
  ];
  return lines.join('\n');
}
