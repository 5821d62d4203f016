import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { grantsConversationWide } from '../../shared/conversation-key';
import type { Approval, ApprovalDecision } from '../companion/api-types';
import type { DiffView } from './diff-view';
import { riskName, t } from './i18n';
import { approvalTitle, approvalWarning } from './preview-words';
import { trusted } from './trusted';

let loadedDiffView: typeof DiffView | undefined;

/**
 * The diff renderer (diff2html and highlight.js, most of a page's weight) is loaded when a diff is first shown, so a
 * popup with nothing to approve never loads it. Until then the diff is shown as plain text.
 */
function LazyDiff({ diff, label, toolArguments }: { diff: string; label: string; toolArguments: boolean }) {
  const [View, setView] = useState(() => loadedDiffView);
  useEffect(() => {
    if (View) return;
    void import('./diff-view').then((module) => {
      loadedDiffView = module.DiffView;
      setView(() => module.DiffView);
    });
  }, [View]);
  return View ? <View diff={diff} label={label} toolArguments={toolArguments} /> : <pre class="diff" data-diff="plain">{diff}</pre>;
}

/**
 * Decides `approval`, then puts the focus, gone with its card, on the next card (or the one before), else on
 * `fallback`: never onto a button, so a second press of Enter decides nothing. Left alone if the person has moved it.
 */
export function decideThenFocus(approvals: readonly Approval[], approval: Approval, decide: () => Promise<void>, fallback?: () => HTMLElement | null): void {
  const ids = approvals.map((a) => a.id);
  const at = ids.indexOf(approval.id);
  const next = ids[at + 1] ?? ids[at - 1];
  void decide().then(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    (next === undefined ? fallback?.() : document.querySelector<HTMLElement>(`[data-approval="${next}"]`))?.focus();
  });
}

/**
 * A card that goes while the focus is in it — decided elsewhere (on its chip, in the popup or the panel, through the
 * companion) or expired — hands the focus to the card after it (or the one before), else to `fallback`, as a decision
 * made on the card itself does: the browser would drop it to the page's body, where a screen reader starts again from
 * the top. Left alone if the focus is elsewhere. Returns the `focusin` handler for the element that holds the cards.
 */
export function useFocusKeptInApprovals(approvals: readonly Approval[], fallback: () => HTMLElement | null): (event: FocusEvent) => void {
  const focused = useRef<string | undefined>(undefined);
  const shown = useRef<string[]>([]);
  useLayoutEffect(() => {
    const before = shown.current;
    const ids = approvals.map((a) => a.id);
    shown.current = ids;
    const gone = focused.current;
    if (gone === undefined || ids.includes(gone)) return;
    focused.current = undefined;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const at = before.indexOf(gone);
    const next = [...before.slice(at + 1), ...before.slice(0, Math.max(at, 0)).reverse()].find((id) => ids.includes(id));
    (next === undefined ? fallback() : document.querySelector<HTMLElement>(`[data-approval="${CSS.escape(next)}"]`))?.focus();
  }, [approvals]);
  return (event) => {
    focused.current = (event.target as Element | null)?.closest?.('[data-approval]')?.getAttribute('data-approval') ?? undefined;
  };
}

/**
 * After `action`, the focus it took from its button (gone with its row, or disabled once done) goes to `target`, which
 * says what became of it: it dropped to the page's body, where a screen reader starts again from the top. Left alone
 * if the person has moved it.
 */
export function thenFocus(action: void | Promise<void>, target: () => HTMLElement | null): Promise<void> {
  return Promise.resolve(action).then(() => {
    const active = document.activeElement as HTMLElement | null;
    if (active && active !== document.body && active.isConnected && !(active instanceof HTMLButtonElement && active.disabled)) return;
    target()?.focus();
  });
}

/**
 * One approval waiting for the person: what would happen (each action of a plan with its class, the command and
 * its working directory, the diff of every file), then Approve / Approve for this conversation / Deny.
 * Stable selectors: `[data-approval=<id>]`, buttons `[data-decision=approve|approve-conversation|deny]`.
 */
export function ApprovalCard(props: {
  approval: Approval;
  onDecide: (decision: ApprovalDecision) => void;
  /** the popup shows the diff folded; the side panel open */
  compact?: boolean;
  focused?: boolean;
  /**
   * The companion cannot be reached (disconnected, not paired): a decision would not reach it. The card stays to be
   * read, its buttons say why they do nothing (aria-disabled, not disabled: the focus keeps its place on them).
   */
  away?: boolean;
}) {
  const { approval: a, compact } = props;
  const { preview } = a;
  const title = approvalTitle(preview);
  const warning = approvalWarning(preview);
  // a tool of the person's MCP server is shown its arguments in the diff's place: they are no changes, and are not called so
  const args = preview.heading?.kind === 'mcp';
  const diff = preview.diff !== undefined && <LazyDiff diff={preview.diff} label={t(args ? 'panel.arguments' : 'panel.diff')} toolArguments={args} />;
  // Folded (the popup), the diff is shown before anything is approved: the first Approve opens it, the next decides.
  const folds = compact === true && preview.diff !== undefined;
  const [seen, setSeen] = useState(!folds);
  // A folded diff is drawn once opened: drawn folded, the popup's cards of long diffs held it for seconds as it opened,
  // though the person had not asked to see any of them.
  const [unfolded, setUnfolded] = useState(false);
  const fold = useRef<HTMLDetailsElement>(null);
  const card = useRef<HTMLElement>(null);
  const away = props.away === true;
  const decide = (decision: ApprovalDecision): void => {
    if (!away) props.onDecide(decision);
  };
  const approve = (decision: 'approve' | 'approve-conversation') => (): void => {
    if (seen) return decide(decision);
    setSeen(true);
    const details = fold.current;
    if (!details) return;
    details.open = true;
    setUnfolded(true);
    // on the card a second Enter does nothing; on the fold's summary it would fold the diff again
    card.current?.focus();
    details.scrollIntoView?.({ block: 'nearest' });
  };
  // Each button is described by what it decides: with several cards, a screen reader going from button to button
  // heard "Approve" and "Deny" alone, the card they belong to nowhere in what it said.
  const describedBy = (ids: string[]): string => [`title-${a.id}`, ...ids, ...(away ? [`away-${a.id}`] : [])].join(' ');
  return (
    <article
      ref={card}
      class={`card stack${props.focused ? ' focused' : ''}`}
      data-approval={a.id}
      aria-label={`${t('panel.approval')}: ${a.tool} — ${title}`}
      tabIndex={-1}
    >
      <div class="row">
        <span class="tag" data-risk={a.risk}>{riskName(a.risk)}</span>
        <strong class="mono">{a.tool}</strong>
        <span class="spacer" />
        <span class="muted">{a.site}</span>
      </div>
      {warning !== undefined && (
        <p class="warning" role="alert" data-warning="">
          {warning}
        </p>
      )}
      <div data-title="" id={`title-${a.id}`}>
        {title}
      </div>
      {preview.actions && (
        <ul class="stack" data-actions="" style="margin:0;padding-left:16px">
          {preview.actions.map((action) => (
            <li>
              <span class="tag" data-risk={action.risk}>{riskName(action.risk)}</span> {action.label}
            </li>
          ))}
        </ul>
      )}
      {preview.command !== undefined && (
        <div class="command" data-command="">
          <pre>$ {preview.command}</pre>
          <div class="muted mono">
            {t('panel.cwd')}: {preview.cwd ?? ''}
          </div>
          {preview.runs !== undefined && (
            <div class="muted mono" data-runs="">
              {t('panel.runs')}: {preview.runs.join(', ')}
            </div>
          )}
          {preview.unpinned !== undefined && (
            <div class="muted mono" data-unpinned="">
              {t('panel.unpinned', [preview.unpinned.join(', ')])}
            </div>
          )}
        </div>
      )}
      {diff &&
        (folds ? (
          <details
            ref={fold}
            onToggle={(e) => {
              if (!e.currentTarget.open) return;
              setUnfolded(true);
              setSeen(true);
            }}
          >
            <summary>{t(args ? 'panel.showArguments' : 'panel.showDiff')}</summary>
            {unfolded && diff}
          </details>
        ) : (
          diff
        ))}
      {!seen && (
        <p class="muted" id={`read-first-${a.id}`} data-read-first="">
          {t(args ? 'panel.readArgumentsFirst' : 'panel.readFirst')}
        </p>
      )}
      {preview.command === undefined && preview.diff === undefined && preview.paths.length > 0 && <pre class="command">{preview.paths.join('\n')}</pre>}
      {away && (
        <p class="warn" id={`away-${a.id}`} data-away="" style="margin:0">
          {t('panel.decideWhenConnected')}
        </p>
      )}
      <div class="row">
        <button
          type="button"
          class="primary"
          data-decision="approve"
          aria-disabled={away || undefined}
          aria-describedby={describedBy(seen ? [] : [`read-first-${a.id}`])}
          onClick={trusted(approve('approve'))}
        >
          {t('action.approve')}
        </button>
        {grantsConversationWide(a.conversationId) && (
          <button
            type="button"
            data-decision="approve-conversation"
            aria-disabled={away || undefined}
            aria-describedby={describedBy(seen ? [] : [`read-first-${a.id}`])}
            onClick={trusted(approve('approve-conversation'))}
          >
            {t('action.approveConversation')}
          </button>
        )}
        <button type="button" class="danger" data-decision="deny" aria-disabled={away || undefined} aria-describedby={describedBy([])} onClick={trusted(() => decide('deny'))}>
          {t('action.deny')}
        </button>
      </div>
    </article>
  );
}
