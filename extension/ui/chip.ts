import type { BlockState } from '../scanner/blocks';
import { t, type MessageKey } from './i18n';
import { diffNotesWorded } from './preview-words';

/**
 * The chip under one block: state (colour and icon), Run / Stop / Re-run, the result preview (folded) and the
 * approval card, in a CLOSED shadow root so page scripts can neither read nor click into it. Only trusted input
 * (`event.isTrusted`) acts: clicks, and the keyboard shortcuts while the chip has the focus. The host element carries
 * the state for tests and assistive tech, and the page's theme (`data-chatbridge-theme`): see ui/README.md.
 */

export type ChipAction = 'run' | 'stop' | 'rerun' | 'approve' | 'approve-conversation' | 'deny' | 'insert' | 'copy';

/** What a chip's row offers (the approval card's decisions are drawn with the card). */
export type RowAction = 'run' | 'stop' | 'rerun' | 'insert' | 'copy';

export interface ChipApproval {
  /** the companion's note that the preview held characters a person cannot see (shown as ⟨U+XXXX⟩ in it) */
  warning?: string | undefined;
  tool: string;
  title: string;
  paths: string[];
  diff?: string | undefined;
  command?: string | undefined;
  cwd?: string | undefined;
  /** the files the command runs as code, pinned by the companion as the card shows them */
  runs?: string[] | undefined;
  /** what the command runs that the companion cannot pin, as written (`$SCRIPT`): the person reads it themselves */
  unpinned?: string[] | undefined;
  /** the diff's place holds the arguments of a tool of the person's MCP server, not changes: named so */
  arguments?: boolean | undefined;
  /** a plan's actions, each with its class: the card lists every one */
  actions?: Array<{ risk: string; label: string }> | undefined;
  /** false in a chat without a conversation id yet, where the companion grants nothing conversation-wide */
  conversationWide?: boolean | undefined;
}

export interface ChipModel {
  kind: string;
  state: BlockState;
  /** `insert` and `copy`: a result neither the chat box nor the clipboard took, which the block still owes the chat */
  actions: RowAction[];
  note?: string | undefined;
  preview?: string | undefined;
  approval?: ChipApproval | undefined;
  /** the latest progress a running call reported (an MCP server's tool): shown under the row while it runs */
  progress?: ChipProgress | undefined;
  /**
   * Why the companion cannot be reached (chatbridge is disconnected from it, or not paired), in the person's words, as
   * the page's connection badge says it: Run and the approval's decisions would not reach it. They stay in sight,
   * aria-disabled (the focus keeps its place), say why, and do nothing.
   */
  away?: string | undefined;
}

export interface ChipProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface Chip {
  host: HTMLElement;
  update(model: ChipModel): void;
  remove(): void;
}

/** The keys a focused chip answers to (no modifier): one letter per action, P folds the result open and shut. */
export const CHIP_KEYS: Record<ChipAction | 'fold', string> = {
  run: 'R',
  rerun: 'R',
  stop: 'S',
  approve: 'A',
  'approve-conversation': 'C',
  deny: 'D',
  insert: 'I',
  copy: 'Y',
  fold: 'P',
};

const QUIET_STATES: ReadonlySet<BlockState> = new Set(['queued', 'running', 'done']);
const QUIET_DRAW_MS = 250;
/** The states a chip tells a screen reader of when its block reaches one: each asks something of the person, or ends. */
const TOLD_STATES: ReadonlySet<BlockState> = new Set(['approval', 'done', 'failed', 'unreadable']);

// 16×16 glyphs drawn on the state's colour: [path, filled].
const ICONS: Record<BlockState, [string, boolean]> = {
  writing: ['M4.5 8h.01M8 8h.01M11.5 8h.01', false],
  ready: ['M6.2 4.8v6.4L11.2 8z', true],
  queued: ['M8 4.6V8l2.4 1.6', false],
  running: ['M8 3.5a4.5 4.5 0 1 1-4.5 4.5', false],
  approval: ['M6.3 5v6M9.7 5v6', false],
  done: ['M4.6 8.3l2.3 2.3 4.5-4.8', false],
  failed: ['M5.4 5.4l5.2 5.2M10.6 5.4l-5.2 5.2', false],
  unreadable: ['M8 4.5v4.2M8 11.3v.2', false],
};

/**
 * The chip's colours on a light and on a dark page (CSS variables on the host, switched by `data-chatbridge-theme`).
 * Text pairs keep 4.5:1 and the icons' glyphs 3:1 on their state's colour (checked in tests/extension/chip.test.ts);
 * on a dark page the state colours are bright, so the glyphs are dark.
 */
export const CHIP_COLORS = {
  light: {
    fg: '#1f2328', muted: '#59636e', bg: '#ffffff', line: '#d1d9e0', code: '#f6f8fa', btn: '#f6f8fa',
    blue: '#0969da', green: '#1a7f37', red: '#cf222e', amber: '#9a6700', grey: '#6e7781',
    go: '#1a7f37', 'warn-bg': '#fff8c5', 'warn-line': '#d4a72c', focus: '#0969da', glyph: '#ffffff',
  },
  dark: {
    fg: '#e6edf3', muted: '#9198a1', bg: '#1e2227', line: '#3d444d', code: '#151b23', btn: '#2a3038',
    blue: '#4493f8', green: '#3fb950', red: '#ff7b72', amber: '#d29922', grey: '#6e7681',
    go: '#1f7a33', 'warn-bg': '#272115', 'warn-line': '#9e6a03', focus: '#4493f8', glyph: '#0d1117',
  },
} as const;

const cssVariables = (colors: Record<string, string>): string =>
  Object.entries(colors)
    .map(([name, value]) => `--${name}: ${value};`)
    .join(' ');

const STYLE = `
:host { all: initial; display: block; margin: 6px 0; font: 12px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  ${cssVariables(CHIP_COLORS.light)} color-scheme: light; color: var(--fg); }
:host([data-chatbridge-theme="dark"]) { ${cssVariables(CHIP_COLORS.dark)} color-scheme: dark; }
:host(:focus) { outline: none; } :host(:focus-visible) .chip { outline: 2px solid var(--focus); outline-offset: 1px; }
.chip { --accent: var(--grey); box-sizing: border-box; width: fit-content; max-width: 100%; background: var(--bg);
  border: 1px solid var(--line); border-left: 3px solid var(--accent); border-radius: 8px; padding: 3px 8px 3px 6px;
  overflow-wrap: anywhere; }
.s-queued, .s-running { --accent: var(--blue); } .s-done { --accent: var(--green); } .s-failed, .s-unreadable { --accent: var(--red); }
.s-approval { --accent: var(--amber); } .s-ready { --accent: var(--fg); }
.row { display: flex; align-items: center; flex-wrap: wrap; gap: 4px 8px; min-height: 28px; }
.icon { width: 16px; height: 16px; flex: none; border-radius: 50%; background: var(--accent); display: grid; place-items: center; }
.s-ready .icon { background: var(--green); } .s-writing .icon { background: var(--grey); }
.icon svg { width: 16px; height: 16px; stroke: var(--glyph); stroke-width: 1.8; stroke-linecap: round; stroke-linejoin: round; fill: none; }
.icon svg.filled { fill: var(--glyph); }
.s-running .icon svg { animation: spin 1s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .s-running .icon svg { animation: none; } }
.label { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11.5px; }
.state { color: var(--accent); font-weight: 500; } .s-ready .state, .s-writing .state { color: var(--muted); }
.buttons { display: flex; gap: 6px; flex-wrap: wrap; }
button { font: inherit; font-weight: 500; height: 26px; min-width: 64px; padding: 0 10px; border-radius: 6px;
  border: 1px solid var(--line); background: var(--btn); color: var(--fg); cursor: pointer; white-space: nowrap; }
button:hover { border-color: var(--muted); }
button.primary { background: var(--go); color: #fff; border-color: transparent; }
button.danger { color: var(--red); }
button:focus-visible, summary:focus-visible, pre:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
kbd { font: 10px/1 ui-monospace, monospace; color: var(--muted); margin-left: 6px; } button.primary kbd { color: inherit; }
.note { color: var(--muted); margin: 0 0 3px 24px; max-width: 72ch; } .note.away { color: var(--fg); }
button[aria-disabled="true"] { opacity: .55; cursor: default; } button[aria-disabled="true"]:hover { border-color: var(--line); }
.said { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.progress { display: flex; align-items: center; gap: 6px; color: var(--muted); margin: 0 0 3px 24px; } .progress progress { width: 120px; }
.card { border: 1px solid var(--warn-line); border-radius: 6px; padding: 6px 8px; margin: 2px 0 4px 24px; background: var(--warn-bg); }
.card .title { font-weight: 600; overflow-wrap: anywhere; } .card .buttons { margin-top: 6px; }
.card .actions { margin: 4px 0; padding-left: 18px; }
.card .warning { color: var(--red); font-weight: 600; margin-bottom: 4px; overflow-wrap: anywhere; }
pre { font: 11.5px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-word;
  max-height: 240px; overflow: auto; background: var(--code); color: var(--fg); border: 1px solid var(--line); padding: 6px 8px; margin: 4px 0; border-radius: 6px; }
.ins { color: var(--green); } .del { color: var(--red); } .hunk { color: var(--blue); }
details { margin: 0 0 3px 24px; }
summary { list-style: none; display: flex; align-items: center; gap: 6px; cursor: pointer; color: var(--muted); border-radius: 4px; }
summary::-webkit-details-marker { display: none; }
summary::before { content: ""; border: 4px solid transparent; border-left: 5px solid currentColor; border-right: 0; transition: transform .1s; }
details[open] > summary::before { transform: rotate(90deg); }
.tag { font-weight: 600; color: var(--fg); } .snippet { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 56ch; }
details[open] .snippet { display: none; }
`;

export function createChip(doc: Document, onAction: (action: ChipAction) => void): Chip {
  const host = doc.createElement('div');
  host.setAttribute('data-chatbridge-chip', '');
  // Focusable as one stop, so its keys work once a person tabs or clicks to it; the buttons inside are stops too.
  host.tabIndex = 0;
  host.setAttribute('role', 'group');
  const root = host.attachShadow({ mode: 'closed' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  const body = doc.createElement('div');
  // A screen reader is told when the block comes to wait for an approval or ends (the host's name changes silently):
  // a live region there from the start, as one made with its words is not read.
  const said = doc.createElement('div');
  said.className = 'said';
  said.setAttribute('role', 'status');
  root.append(style, body, said);
  let lastTold = '';
  let confirmingRerun = false;
  let previewOpen = false;
  let current: ChipModel | null = null;

  // The host is in the page's DOM: the page can make the card see-through, or draw a decoy over it that lets clicks
  // through, so the person approves without seeing what. An approval counts only while the browser says the chip is
  // seen whole (IntersectionObserver v2: opacity 1, no filter, nothing drawn over it). Browsers without it: not checked.
  const visibility = watchVisibility(host);

  /** A person asked for `action` (a trusted click or key): only what the chip offers now acts. */
  const act = (action: ChipAction): void => {
    // A button still on screen from a state the block has left (drawing waits a moment) does nothing.
    if (!offers(current, action)) return;
    if ((action === 'approve' || action === 'approve-conversation') && !visibility.seen()) {
      // half under the site's own header or composer is not seen whole either: brought into view for the next click,
      // and the card says why the click did nothing (a page that dims or covers it for good: the side panel approves)
      host.scrollIntoView({ block: 'center' });
      if (current) show({ ...current, note: t('note.approveUnseen') }, true);
      return;
    }
    if (action === 'rerun' && !confirmingRerun) {
      confirmingRerun = true;
      if (current) show(current, true);
      return;
    }
    confirmingRerun = false;
    onAction(action);
  };

  const button = (action: ChipAction, label: string, className = ''): HTMLButtonElement => {
    const b = doc.createElement('button');
    b.type = 'button';
    b.className = className;
    b.setAttribute('data-action', action);
    b.setAttribute('aria-keyshortcuts', CHIP_KEYS[action]);
    b.title = `${label} (${CHIP_KEYS[action]})`;
    const key = doc.createElement('kbd');
    key.setAttribute('aria-hidden', 'true');
    key.textContent = CHIP_KEYS[action];
    b.append(label, key);
    b.addEventListener('click', (event) => {
      // Page scripts can dispatch synthetic clicks on anything they can reach; only a person's click counts.
      if (!event.isTrusted) return;
      event.preventDefault();
      event.stopPropagation();
      act(action);
    });
    return b;
  };

  // The host is in the page's DOM: a page script can focus it (`host.focus()`) while the person types into what they
  // take for the chat box, and their next "a" would approve the card. Keys act only when the person brought the focus
  // here: a press of their pointer on the chip, or their Tab that the page did not take over (default prevented).
  let focusGrant: { by: 'pointer' } | { by: 'tab'; event: KeyboardEvent } | null = null;
  let redrawing = false;
  const tabs = watchTabs(doc);
  host.addEventListener('pointerdown', (event) => {
    if (event.isTrusted) focusGrant = { by: 'pointer' };
  }, true);
  host.addEventListener('focusin', () => {
    const tab = tabs.inFlight;
    if (tab) focusGrant = { by: 'tab', event: tab };
  });
  host.addEventListener('focusout', (event) => {
    if (redrawing) return;
    const to = event.relatedTarget;
    if (to instanceof Node && (to === host || root.contains(to))) return;
    focusGrant = null;
  });
  const focusedByPerson = (): boolean => {
    const grant = focusGrant;
    if (!grant) return false;
    return grant.by === 'pointer' || !grant.event.defaultPrevented;
  };

  host.addEventListener('keydown', (event) => {
    if (!event.isTrusted || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    if (!focusedByPerson()) return;
    const wanted = keyTarget(current, event.key);
    if (!wanted) return;
    // The sites move typing to their chat box; a key the chip takes stays with the chip.
    event.preventDefault();
    event.stopPropagation();
    if (wanted === 'fold') {
      const details = body.querySelector('details');
      if (details) details.open = !details.open;
      return;
    }
    act(wanted);
  });

  /** The host's attributes, what tests and assistive tech read: cheap, nothing on the page is styled by them. */
  const describe = (model: ChipModel, before: BlockState | undefined): void => {
    host.setAttribute('data-chatbridge-state', model.state);
    host.setAttribute('data-chatbridge-kind', model.kind);
    host.setAttribute('data-chatbridge-actions', model.actions.join(' '));
    const name = `chatbridge ${model.kind}: ${t(`state.${model.state}` as MessageKey)}`;
    const approval = model.state === 'approval' && model.approval ? `${model.approval.tool}: ${model.approval.title}` : undefined;
    const told = TOLD_STATES.has(model.state) ? [name, approval, model.note].filter(Boolean).join('. ') : '';
    // a block found so (history, a page loaded again) is not news: only what changes while the person is there
    if (before !== undefined && told && told !== lastTold) said.textContent = told;
    lastTold = told;
    host.setAttribute('aria-label', name);
    const away = awayLine(model);
    if (away !== null) host.setAttribute('data-chatbridge-away', away);
    else host.removeAttribute('data-chatbridge-away');
    if (model.note) host.setAttribute('data-chatbridge-note', model.note);
    else host.removeAttribute('data-chatbridge-note');
    const progress = shownProgress(model);
    if (progress) host.setAttribute('data-chatbridge-progress', progressText(progress));
    else host.removeAttribute('data-chatbridge-progress');
    describePreview();
    const keys = offeredKeys(model);
    if (keys.length > 0) {
      host.setAttribute('aria-keyshortcuts', [...new Set(keys.map(([key]) => key))].join(' '));
      host.title = `${t('chipView.keys')}: ${keys.map(([key, label]) => `${key} ${label}`).join(' · ')}`;
    } else {
      host.removeAttribute('aria-keyshortcuts');
      host.removeAttribute('title');
    }
  };

  const describePreview = (): void => {
    if (current?.preview) host.setAttribute('data-chatbridge-preview', previewOpen ? 'open' : 'folded');
    else host.removeAttribute('data-chatbridge-preview');
  };

  const draw = (model: ChipModel): void => {
    // Redrawing replaces the buttons: the focus goes back to the same action's button, or to the chip.
    const focused = root.activeElement;
    const focusedAction = focused?.getAttribute('data-action') ?? (focused?.tagName === 'SUMMARY' ? 'fold' : null);
    const chip = doc.createElement('div');
    chip.className = `chip s-${model.state}`;
    const row = doc.createElement('div');
    row.className = 'row';
    const label = doc.createElement('span');
    label.className = 'label';
    label.textContent = model.kind;
    const state = doc.createElement('span');
    state.className = 'state';
    state.textContent = t(`state.${model.state}` as MessageKey);
    row.append(stateIcon(doc, model.state), label, state);
    const buttons = doc.createElement('span');
    buttons.className = 'buttons';
    for (const action of model.actions) {
      if (action === 'run') buttons.append(button('run', t('action.run'), 'primary'));
      if (action === 'stop') buttons.append(button('stop', t('action.stop'), 'danger'));
      if (action === 'rerun') buttons.append(button('rerun', confirmingRerun ? t('action.confirmRerun') : t('action.rerun'), confirmingRerun ? 'primary' : ''));
      if (action === 'insert') buttons.append(button('insert', t('action.insert'), 'primary'));
      if (action === 'copy') buttons.append(button('copy', t('action.copy')));
    }
    if (buttons.childElementCount > 0) row.append(buttons);
    chip.append(row);
    if (model.note) {
      const note = doc.createElement('div');
      note.className = 'note';
      note.textContent = model.note;
      chip.append(note);
    }
    const progress = shownProgress(model);
    if (progress) chip.append(progressLine(doc, progress));
    const away = awayLine(model);
    if (away !== null) {
      const line = doc.createElement('div');
      line.className = 'note away';
      line.id = 'away';
      line.textContent = away;
      chip.append(line);
    }
    if (model.approval && model.state === 'approval') chip.append(approvalCard(doc, model.approval, t, button));
    if (model.preview) chip.append(previewFold(doc, model.preview));
    if (away !== null) {
      for (const b of Array.from(chip.querySelectorAll('button'))) {
        if (!NEEDS_COMPANION.has(b.getAttribute('data-action') as ChipAction)) continue;
        b.setAttribute('aria-disabled', 'true');
        b.setAttribute('aria-describedby', 'away');
      }
    }
    // The focus leaves with the replaced button and comes back at once: the person's grant stays (keys above).
    redrawing = true;
    try {
      body.replaceChildren(chip);
      if (focusedAction) {
        const again = focusedAction === 'fold' ? root.querySelector('summary') : root.querySelector(`[data-action="${focusedAction}"]`);
        ((again as HTMLElement | null) ?? host).focus({ preventScroll: true });
      }
    } finally {
      redrawing = false;
    }
    publishButtonBoxes(host, root);
  };

  /** The result, folded unless the person opened it (kept open across redraws). */
  const previewFold = (d: Document, preview: string): HTMLElement => {
    const details = d.createElement('details');
    details.open = previewOpen;
    const summary = d.createElement('summary');
    summary.setAttribute('aria-keyshortcuts', CHIP_KEYS.fold);
    const tag = d.createElement('span');
    tag.className = 'tag';
    tag.textContent = t('chipView.result');
    const snippet = d.createElement('span');
    snippet.className = 'snippet';
    // the answer's first line of content, past the fence the result is wrapped in
    snippet.textContent = preview.split('\n').find((line) => line.trim() !== '' && !/^\s*(```|~~~)/.test(line))?.slice(0, 120) ?? '';
    summary.append(tag, snippet);
    // Whole: where the chat box and the clipboard both refused it, the person copies it from here.
    const pre = scrollBox(d, t('chipView.result'));
    pre.textContent = preview;
    details.append(summary, pre);
    details.addEventListener('toggle', () => {
      previewOpen = details.open;
      describePreview();
    });
    return details;
  };

  // A scan updates every chip of a changed message; rebuilding one that would show the same thing is wasted work.
  // A run moves its chip through queued, running and done, usually within a moment, while its result is being typed
  // into the chat box: drawing each would make a long chat lay out again right then (30–40 ms on 1000 turns). Those
  // states are drawn once the chip has held one for QUIET_DRAW_MS; the host's attributes change at once.
  let shown = '';
  let drawTimer: ReturnType<typeof setTimeout> | undefined;
  const show = (model: ChipModel, atOnce = false): void => {
    const next = JSON.stringify([model, confirmingRerun]);
    if (next === shown) return;
    shown = next;
    const before = current?.state;
    current = model;
    visibility.watch(model.state === 'approval');
    describe(model, before);
    clearTimeout(drawTimer);
    if (QUIET_STATES.has(model.state) && !atOnce) drawTimer = setTimeout(() => draw(model), QUIET_DRAW_MS);
    else draw(model);
  };

  return {
    host,
    update(model) {
      if (model.state !== current?.state) confirmingRerun = false;
      show(model);
    },
    remove() {
      clearTimeout(drawTimer);
      visibility.watch(false);
      host.remove();
    },
  };
}

/** isVisible of IntersectionObserver v2 (Chromium); absent elsewhere. */
type VisibilityEntry = IntersectionObserverEntry & { isVisible?: boolean };
const TRACKS_VISIBILITY = typeof IntersectionObserverEntry !== 'undefined' && 'isVisible' in IntersectionObserverEntry.prototype;

/**
 * Whether the chip is seen whole, watched while it asks for an approval (tracking visibility costs the browser work
 * on every frame, so not for every chip of a long chat). Unknown until the browser's first answer: not seen.
 */
function watchVisibility(host: HTMLElement): { watch(on: boolean): void; seen(): boolean } {
  let observer: IntersectionObserver | null = null;
  let visible = false;
  return {
    watch(on) {
      if (!TRACKS_VISIBILITY || on === (observer !== null)) return;
      if (!on) {
        observer?.disconnect();
        observer = null;
        visible = false;
        return;
      }
      const options = { trackVisibility: true, delay: 100 } as IntersectionObserverInit;
      observer = new IntersectionObserver((entries) => {
        const last = entries[entries.length - 1] as VisibilityEntry | undefined;
        if (last) visible = last.isVisible === true;
      }, options);
      observer.observe(host);
    },
    seen: () => !TRACKS_VISIBILITY || visible,
  };
}

/**
 * The person's Tab being handled now, per document: the focus it moves (its default action) comes in the same task.
 * Listened for in the capture phase; a page that takes the Tab over prevents its default, and the grant it would give
 * is read at the chip's key, after the Tab's dispatch is over.
 */
const tabWatchers = new WeakMap<Document, { inFlight: KeyboardEvent | null }>();
function watchTabs(doc: Document): { inFlight: KeyboardEvent | null } {
  let watcher = tabWatchers.get(doc);
  if (watcher) return watcher;
  const state: { inFlight: KeyboardEvent | null } = { inFlight: null };
  watcher = state;
  tabWatchers.set(doc, state);
  doc.addEventListener(
    'keydown',
    (event) => {
      if (!event.isTrusted || event.key !== 'Tab') return;
      state.inFlight = event;
      setTimeout(() => {
        if (state.inFlight === event) state.inFlight = null;
      }, 0);
    },
    true,
  );
  return state;
}

/** What only the companion can do: nothing while it cannot be reached (ChipModel.away). Stop still ends a run's rest here. */
const NEEDS_COMPANION: ReadonlySet<ChipAction> = new Set(['run', 'rerun', 'approve', 'approve-conversation', 'deny']);

/** Why the chip's buttons do nothing while the companion cannot be reached, when it shows any of them. */
function awayLine(model: ChipModel): string | null {
  if (model.away === undefined) return null;
  // the badge's words, a sentence of their own here ("not paired: …" begins one)
  const said = model.away.trim().replace(/[.。]$/, '');
  const why = said.charAt(0).toUpperCase() + said.slice(1);
  if (model.state === 'approval' && model.approval) return t('chipView.decideWhenConnected', [why]);
  return model.actions.some((action) => NEEDS_COMPANION.has(action)) ? t('chipView.runWhenConnected', [why]) : null;
}

function offers(model: ChipModel | null, action: ChipAction): boolean {
  if (!model) return false;
  if (model.away !== undefined && NEEDS_COMPANION.has(action)) return false;
  if (action === 'approve-conversation' && model.approval?.conversationWide === false) return false;
  if (action === 'approve' || action === 'approve-conversation' || action === 'deny') return model.state === 'approval' && model.approval !== undefined;
  return model.actions.includes(action);
}

/** What a key pressed on the focused chip asks for, given what the chip offers now; null for any other key. */
export function keyTarget(model: ChipModel | null, key: string): ChipAction | 'fold' | null {
  if (!model || key.length !== 1) return null;
  const upper = key.toUpperCase();
  if (upper === CHIP_KEYS.fold) return model.preview ? 'fold' : null;
  const candidates: ChipAction[] = ['run', 'rerun', 'stop', 'approve', 'approve-conversation', 'deny', 'insert', 'copy'];
  return candidates.find((action) => CHIP_KEYS[action] === upper && offers(model, action)) ?? null;
}

/** The keys the chip answers to now, each with what it does, in the order they are shown. */
function offeredKeys(model: ChipModel): Array<[string, string]> {
  const labels: Record<ChipAction, MessageKey> = {
    run: 'action.run',
    rerun: 'action.rerun',
    stop: 'action.stop',
    approve: 'action.approve',
    'approve-conversation': 'action.approveConversation',
    deny: 'action.deny',
    insert: 'action.insert',
    copy: 'action.copy',
  };
  const keys: Array<[string, string]> = [];
  for (const action of Object.keys(labels) as ChipAction[]) if (offers(model, action)) keys.push([CHIP_KEYS[action], t(labels[action])]);
  if (model.preview) keys.push([CHIP_KEYS.fold, t('chipView.result')]);
  return keys;
}

function stateIcon(doc: Document, state: BlockState): HTMLElement {
  const icon = doc.createElement('span');
  icon.className = 'icon';
  icon.setAttribute('aria-hidden', 'true');
  const [d, filled] = ICONS[state] ?? ICONS.ready;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = doc.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  if (filled) svg.setAttribute('class', 'filled');
  const path = doc.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  svg.append(path);
  icon.append(svg);
  return icon;
}

function approvalCard(
  doc: Document,
  approval: ChipApproval,
  t: (key: MessageKey, substitutions?: Array<string | number>) => string,
  button: (action: ChipAction, label: string, className?: string) => HTMLButtonElement,
): HTMLElement {
  const card = doc.createElement('div');
  card.className = 'card';
  const title = doc.createElement('div');
  title.className = 'title';
  title.textContent = `${approval.tool}: ${approval.title}`;
  if (approval.warning !== undefined) {
    const warning = doc.createElement('div');
    warning.className = 'warning';
    warning.setAttribute('role', 'alert');
    warning.textContent = approval.warning;
    card.append(warning);
  }
  card.append(title);
  if (approval.actions && approval.actions.length > 0) {
    const list = doc.createElement('ul');
    list.className = 'actions';
    for (const action of approval.actions) {
      const item = doc.createElement('li');
      item.textContent = `[${t(`risk.${action.risk}` as MessageKey) || action.risk}] ${action.label}`;
      list.append(item);
    }
    card.append(list);
  }
  if (approval.command !== undefined) {
    const pre = scrollBox(doc, t('chipView.command'));
    const runs = approval.runs?.length ? `\n(${t('panel.runs')}: ${approval.runs.join(', ')})` : '';
    const unpinned = approval.unpinned?.length ? `\n(${t('panel.unpinned', [approval.unpinned.join(', ')])})` : '';
    pre.textContent = `$ ${approval.command}${approval.cwd ? `\n(${t('panel.cwd')} ${approval.cwd})` : ''}${runs}${unpinned}`;
    card.append(pre);
  }
  if (approval.diff !== undefined) {
    // the companion's notes in a diff (a file too large to diff, a binary file, a diff cut) in the person's language; an
    // MCP tool's arguments exactly as they are sent
    const diff = approval.arguments ? approval.diff : diffNotesWorded(approval.diff);
    card.append(diffBlock(doc, diff, t(approval.arguments ? 'panel.arguments' : 'panel.diff')));
  } else if (approval.command === undefined && approval.paths.length > 0) {
    const pre = scrollBox(doc, t('chipView.paths'));
    pre.textContent = approval.paths.join('\n');
    card.append(pre);
  }
  const buttons = doc.createElement('div');
  buttons.className = 'buttons';
  buttons.append(
    button('approve', t('action.approve'), 'primary'),
    ...(approval.conversationWide === false ? [] : [button('approve-conversation', t('action.approveConversation'))]),
    button('deny', t('action.deny'), 'danger'),
  );
  card.append(buttons);
  return card;
}

/**
 * A `pre` (at most 240 px high, scrolling past that) that is a keyboard stop, so its rest is reached without a mouse;
 * named for what it holds, as a screen reader reaching the stop says only its name (else an unnamed group).
 */
function scrollBox(doc: Document, name: string): HTMLPreElement {
  const pre = doc.createElement('pre');
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', name);
  return pre;
}

/** A unified diff with its added, removed and hunk lines coloured; every line is text. */
function diffBlock(doc: Document, diff: string, name: string): HTMLElement {
  const pre = scrollBox(doc, name);
  for (const line of diff.split('\n')) {
    const span = doc.createElement('span');
    const kind = line.startsWith('+++') || line.startsWith('---') ? '' : line.startsWith('+') ? 'ins' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    if (kind) span.className = kind;
    span.textContent = `${line}\n`;
    pre.append(span);
  }
  return pre;
}

/**
 * End-to-end tests click with real (trusted) input at coordinates; they read where each button is from this
 * attribute instead of piercing the closed root. Boxes are relative to the host's top-left corner, in CSS pixels.
 *
 * The actions are published at once with empty boxes; the boxes follow from an IntersectionObserver, which reports
 * them from the browser's own next layout. Reading them with getBoundingClientRect would force a layout of the whole
 * page instead, 10–30 ms on a long conversation, each time a chip changes.
 */
function publishButtonBoxes(host: HTMLElement, root: ShadowRoot): void {
  const buttons = Array.from(root.querySelectorAll('button'));
  const box = (b: Element, x = 0, y = 0, w = 0, h = 0) => ({ action: b.getAttribute('data-action'), x, y, w, h });
  host.setAttribute('data-chatbridge-buttons', JSON.stringify(buttons.map((b) => box(b))));
  const Observer = host.ownerDocument.defaultView?.IntersectionObserver;
  if (!Observer || buttons.length === 0) return;
  const observer = new Observer((entries) => {
    observer.disconnect();
    const rects = new Map(entries.map((entry) => [entry.target, entry.boundingClientRect]));
    const origin = rects.get(host);
    // Buttons re-rendered meanwhile have their own observer; only a complete, current set is published.
    if (!origin || !buttons.every((b) => b.isConnected && rects.has(b))) return;
    const boxes = buttons.map((b) => {
      const r = rects.get(b) as DOMRectReadOnly;
      return box(b, Math.round(r.left - origin.left), Math.round(r.top - origin.top), Math.round(r.width), Math.round(r.height));
    });
    host.setAttribute('data-chatbridge-buttons', JSON.stringify(boxes));
  });
  observer.observe(host);
  for (const b of buttons) observer.observe(b);
}

/** Progress shows only while the call runs. */
function shownProgress(model: ChipModel): ChipProgress | undefined {
  return model.state === 'running' ? model.progress : undefined;
}

/** `3/10 — indexing`, `42 — indexing` without a total. */
function progressText(progress: ChipProgress): string {
  const amount = progress.total === undefined ? String(progress.progress) : `${progress.progress}/${progress.total}`;
  return progress.message ? `${amount} — ${progress.message}` : amount;
}

function progressLine(doc: Document, progress: ChipProgress): HTMLElement {
  const line = doc.createElement('div');
  line.className = 'progress';
  const bar = doc.createElement('progress');
  // without a total the bar is indeterminate
  if (progress.total !== undefined && progress.total > 0) {
    bar.max = progress.total;
    bar.value = Math.min(progress.progress, progress.total);
  }
  const text = doc.createElement('span');
  text.textContent = progressText(progress);
  line.append(bar, text);
  return line;
}
