import type { BlockState } from '../scanner/blocks';
import { t, type MessageKey } from './i18n';

/**
 * The chip under one block: state, Run / Stop / Re-run, a result preview and the approval card, in a CLOSED shadow
 * root so page scripts can neither read nor click into it. Only trusted clicks (`event.isTrusted`) act.
 * The host element carries the state for tests and assistive tech: see ui/README.md.
 */

export type ChipAction = 'run' | 'stop' | 'rerun' | 'approve' | 'approve-conversation' | 'deny';

export interface ChipApproval {
  tool: string;
  title: string;
  paths: string[];
  diff?: string | undefined;
  command?: string | undefined;
  cwd?: string | undefined;
  /** a plan's actions, each with its class: the card lists every one */
  actions?: Array<{ risk: string; label: string }> | undefined;
}

export interface ChipModel {
  kind: string;
  state: BlockState;
  actions: Array<'run' | 'stop' | 'rerun'>;
  note?: string | undefined;
  preview?: string | undefined;
  approval?: ChipApproval | undefined;
  /** the latest progress a running call reported (an MCP server's tool): shown under the row while it runs */
  progress?: ChipProgress | undefined;
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

const PREVIEW_CHARS = 600;
const QUIET_STATES: ReadonlySet<BlockState> = new Set(['queued', 'running', 'done']);
const QUIET_DRAW_MS = 250;

const STYLE = `
:host { all: initial; display: block; margin: 6px 0; font: 12px/1.4 system-ui, sans-serif; color: #1f2328; }
.row { display: flex; align-items: center; gap: 6px; min-height: 28px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #8c959f; flex: none; }
.dot.running, .dot.queued { background: #0969da; } .dot.done { background: #1a7f37; } .dot.failed, .dot.unreadable { background: #cf222e; }
.dot.approval { background: #bf8700; } .dot.writing { background: #d0d7de; }
.label { font-weight: 600; } .state { color: #57606a; }
button { font: inherit; height: 26px; min-width: 64px; padding: 0 10px; border-radius: 6px; border: 1px solid #d0d7de; background: #f6f8fa; cursor: pointer; }
button.primary { background: #1f883d; color: #fff; border-color: #1a7f37; } button.danger { background: #cf222e; color: #fff; border-color: #a40e26; }
.note { color: #57606a; margin: 2px 0 0 14px; }
details { margin: 2px 0 0 14px; } pre { white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; background: #f6f8fa; padding: 6px; margin: 4px 0; border-radius: 6px; }
.card { border: 1px solid #bf8700; border-radius: 8px; padding: 8px; margin: 4px 0 0 14px; background: #fff8c5; }
.card .buttons { display: flex; gap: 6px; margin-top: 6px; flex-wrap: wrap; }
.card .actions { margin: 4px 0; padding-left: 18px; }
.progress { display: flex; align-items: center; gap: 6px; color: #57606a; margin: 2px 0 0 14px; } .progress progress { width: 120px; }
`;

export function createChip(doc: Document, onAction: (action: ChipAction) => void): Chip {
  const host = doc.createElement('div');
  host.setAttribute('data-chatbridge-chip', '');
  const root = host.attachShadow({ mode: 'closed' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  const body = doc.createElement('div');
  root.append(style, body);
  let confirmingRerun = false;
  let current: ChipModel | null = null;

  const button = (action: ChipAction, label: string, className = ''): HTMLButtonElement => {
    const b = doc.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.className = className;
    b.setAttribute('data-action', action);
    b.addEventListener('click', (event) => {
      // Page scripts can dispatch synthetic clicks on anything they can reach; only a person's click counts.
      if (!event.isTrusted) return;
      event.preventDefault();
      event.stopPropagation();
      // A button still on screen from a state the block has left (drawing waits a moment) does nothing.
      if (!offers(current, action)) return;
      if (action === 'rerun' && !confirmingRerun) {
        confirmingRerun = true;
        if (current) show(current, true);
        return;
      }
      confirmingRerun = false;
      onAction(action);
    });
    return b;
  };

  /** The host's attributes, what tests and assistive tech read: cheap, nothing on the page is styled by them. */
  const describe = (model: ChipModel): void => {
    host.setAttribute('data-chatbridge-state', model.state);
    host.setAttribute('data-chatbridge-kind', model.kind);
    host.setAttribute('data-chatbridge-actions', model.actions.join(' '));
    host.setAttribute('aria-label', `chatbridge ${model.kind}: ${t(`state.${model.state}` as MessageKey)}`);
    if (model.note) host.setAttribute('data-chatbridge-note', model.note);
    else host.removeAttribute('data-chatbridge-note');
    const progress = shownProgress(model);
    if (progress) host.setAttribute('data-chatbridge-progress', progressText(progress));
    else host.removeAttribute('data-chatbridge-progress');
  };

  const draw = (model: ChipModel): void => {
    const row = doc.createElement('div');
    row.className = 'row';
    const dot = doc.createElement('span');
    dot.className = `dot ${model.state}`;
    const label = doc.createElement('span');
    label.className = 'label';
    label.textContent = model.kind;
    const state = doc.createElement('span');
    state.className = 'state';
    state.textContent = t(`state.${model.state}` as MessageKey);
    row.append(dot, label, state);
    for (const action of model.actions) {
      if (action === 'run') row.append(button('run', t('action.run'), 'primary'));
      if (action === 'stop') row.append(button('stop', t('action.stop'), 'danger'));
      if (action === 'rerun') row.append(button('rerun', confirmingRerun ? t('action.confirmRerun') : t('action.rerun')));
    }
    const parts: HTMLElement[] = [row];
    if (model.note) {
      const note = doc.createElement('div');
      note.className = 'note';
      note.textContent = model.note;
      parts.push(note);
    }
    const progress = shownProgress(model);
    if (progress) parts.push(progressLine(doc, progress));
    if (model.approval && model.state === 'approval') parts.push(approvalCard(doc, model.approval, t, button));
    if (model.preview) {
      const details = doc.createElement('details');
      const summary = doc.createElement('summary');
      summary.textContent = model.preview.split('\n')[0]?.slice(0, 80) ?? '';
      const pre = doc.createElement('pre');
      pre.textContent = model.preview.length > PREVIEW_CHARS ? `${model.preview.slice(0, PREVIEW_CHARS)}…` : model.preview;
      details.append(summary, pre);
      parts.push(details);
    }
    body.replaceChildren(...parts);
    publishButtonBoxes(host, root);
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
    current = model;
    describe(model);
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
      host.remove();
    },
  };
}

function offers(model: ChipModel | null, action: ChipAction): boolean {
  if (!model) return false;
  if (action === 'approve' || action === 'approve-conversation' || action === 'deny') return model.state === 'approval' && model.approval !== undefined;
  return model.actions.includes(action);
}

function approvalCard(
  doc: Document,
  approval: ChipApproval,
  t: (key: MessageKey) => string,
  button: (action: ChipAction, label: string, className?: string) => HTMLButtonElement,
): HTMLElement {
  const card = doc.createElement('div');
  card.className = 'card';
  const title = doc.createElement('div');
  title.className = 'label';
  title.textContent = `${approval.tool}: ${approval.title}`;
  card.append(title);
  if (approval.actions && approval.actions.length > 0) {
    const list = doc.createElement('ul');
    list.className = 'actions';
    for (const action of approval.actions) {
      const item = doc.createElement('li');
      item.textContent = `[${action.risk}] ${action.label}`;
      list.append(item);
    }
    card.append(list);
  }
  if (approval.command !== undefined) {
    const pre = doc.createElement('pre');
    pre.textContent = `$ ${approval.command}${approval.cwd ? `\n(in ${approval.cwd})` : ''}`;
    card.append(pre);
  }
  if (approval.diff !== undefined) {
    const pre = doc.createElement('pre');
    pre.textContent = approval.diff;
    card.append(pre);
  } else if (approval.command === undefined && approval.paths.length > 0) {
    const pre = doc.createElement('pre');
    pre.textContent = approval.paths.join('\n');
    card.append(pre);
  }
  const buttons = doc.createElement('div');
  buttons.className = 'buttons';
  buttons.append(
    button('approve', t('action.approve'), 'primary'),
    button('approve-conversation', t('action.approveConversation')),
    button('deny', t('action.deny'), 'danger'),
  );
  card.append(buttons);
  return card;
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
