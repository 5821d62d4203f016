import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Approval, ApprovalDecision, AuditItem, GrantItem, JournalItem, ProgramItem } from '../companion/api-types';
import { revealHidden } from '../../shared/reveal-hidden';
import { ERROR_CODES } from '../../shared/errors';
import type { RecentRun } from '../messaging';
import { ApprovalCard, decideThenFocus, thenFocus, useFocusKeptInApprovals } from './approval-card';
import { clockTime, duration, safeLink, shortId } from './format';
import { riskName, t, tn, type MessageKey } from './i18n';
import { AUDIT_LIMIT, companionAway, useLive, type EndedProgram, type Live, type LivePart, type LiveState } from './live';
import { PageHeader } from './page-header';
import { trusted } from './trusted';

/**
 * The side panel (Chrome's side panel, Firefox's sidebar): the work that needs room. Approvals with their diffs,
 * what was approved for a whole conversation (each to be forgotten), running programs with live output and Stop, recent runs, the journal with Undo, the audit log with a search.
 * Opened on one approval by the address `sidepanel.html#approval=<id>` (the card is scrolled to and focused).
 * Stable selectors are listed in ui/README.md.
 */

export interface PanelActions {
  decide(approval: Approval, decision: ApprovalDecision): void;
  /** resolved once the lists show what it did */
  forgetGrant(grant: GrantItem): void | Promise<void>;
  /** resolved once the lists show what it did */
  undo(journalId: string): void | Promise<void>;
  stopProgram(programId: string): void;
}

const AUDIT_SHOWN = 200;

/** The element of a list whose `attribute` is `value`. */
function rowOf(attribute: string, value: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[${attribute}="${CSS.escape(value)}"]`);
}

function Section(props: { id: string; title: MessageKey; count?: number; children: preact.ComponentChildren }) {
  return (
    <section class="stack" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} tabIndex={-1}>
        {t(props.title)}
        {props.count !== undefined && (
          <span class="count" data-zero={String(props.count === 0)}>
            {props.count}
          </span>
        )}
      </h2>
      {props.children}
    </section>
  );
}

/**
 * What an empty list says: `…` until the first answer, then that it holds nothing — or, while it was never read from
 * the companion (not running or not paired when the page opened), that it could not be read: "No changes yet" there
 * said what nobody knew.
 */
function Empty({ loaded, read = true, text }: { loaded: boolean; read?: boolean; text: MessageKey }) {
  return <p class="empty">{!loaded ? '…' : read ? t(text) : t('panel.notRead')}</p>;
}

/** How a program ended, in the person's words. */
function endedWords(ended: EndedProgram): string {
  const code = ended.returncode ?? '—';
  switch (ended.status) {
    case 'completed':
      return t('panel.programCompleted', [code]);
    case 'failure':
      return t('panel.programFailed', [code]);
    case 'timeout':
      return t('panel.programTimeout');
    case 'terminated':
      return t('panel.programTerminated');
  }
}

/** Programs whose running card held the focus when it went (Stop pressed, or it ended while its output was read). */
const focusedWhenEnded = new Set<string>();

/**
 * A running program with its live output and Stop; one that ended, with how, its output kept. A running card goes
 * when its program ends, and its ended card is drawn in another list: the focus it held (on Stop, on the output) goes
 * to the ended card, which says how it ended, not to the page's body.
 */
function ProgramCard(props: { program: ProgramItem; output: string; onStop?: () => void; ended?: EndedProgram }) {
  const { program: p, ended } = props;
  const card = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const element = card.current;
    if (ended) {
      if (!focusedWhenEnded.delete(p.id)) return;
      const active = document.activeElement;
      if (!active || active === document.body || !active.isConnected) element?.focus();
      return;
    }
    // run as the card goes, while it is still in the page with the focus in it
    return () => {
      if (element?.contains(document.activeElement)) focusedWhenEnded.add(p.id);
    };
  }, [ended === undefined]);
  return (
    <article ref={card} class="card stack" data-program={p.id} data-ended={ended?.status} tabIndex={-1} aria-label={`${t('panel.program')}: ${p.name}`}>
      <div class="row">
        <strong>{p.name}</strong>
        <span class="muted">{clockTime(p.startedAt)}</span>
        <span class="spacer" />
        {ended ? (
          <span class="status" data-status={ended.status === 'completed' && ended.returncode === 0 ? 'done' : 'error'}>
            {endedWords(ended)}
          </span>
        ) : (
          <button type="button" class="danger" data-stop-program={p.id} onClick={trusted(() => props.onStop?.())}>
            {t('action.stop')}
          </button>
        )}
      </div>
      <div class="command">
        <pre>$ {revealHidden(p.command)}</pre>
        <div class="muted mono">
          {t('panel.cwd')}: {revealHidden(p.cwd, { oneLine: true })}
        </div>
      </div>
      <pre class="output" data-output={p.id} tabIndex={0} aria-label={`${t('panel.output')}: ${p.name}`}>
        {props.output || t('panel.noOutputYet')}
      </pre>
    </article>
  );
}

/**
 * A conversation's id, shown by its start where it is long: a button that shows it whole (and back), named with the
 * whole id, so a keyboard and a screen reader reach all of it, not only a pointer's hover title.
 */
function ConversationId({ id }: { id: string }) {
  const [whole, setWhole] = useState(false);
  const shown = revealHidden(id, { oneLine: true });
  const short = shortId(shown, 14);
  if (short === shown) return <span class="mono">{shown}</span>;
  return (
    <button
      type="button"
      class="mono conversation-id"
      data-conversation-id=""
      aria-expanded={whole}
      aria-label={t('panel.conversationId', [shown])}
      title={shown}
      onClick={() => setWhole(!whole)}
    >
      {whole ? shown : short}
    </button>
  );
}

/** One "Approve for this conversation": the tool and its class (named as the approval card names them), where. */
function GrantRow(props: { grant: GrantItem; onForget: () => void | Promise<void> }) {
  const { grant: g } = props;
  const what = revealHidden(`${g.tool} (${riskName(g.risk)}) — ${g.site} · ${g.conversationId}`, { oneLine: true });
  return (
    <li class="row" data-grant={JSON.stringify([g.site, g.conversationId, g.tool, g.risk])}>
      <strong class="mono">{revealHidden(g.tool, { oneLine: true })}</strong>
      <span class="tag" data-risk={g.risk}>
        {riskName(g.risk)}
      </span>
      <span class="muted">{g.site}</span>
      <span class="muted">
        <ConversationId id={g.conversationId} />
      </span>
      <span class="spacer" />
      <button
        type="button"
        data-forget-grant=""
        aria-label={`${t('panel.forgetGrant')}: ${what}`}
        // the row goes: the focus to the heading, which counts what is left
        onClick={trusted(() => thenFocus(props.onForget(), () => document.getElementById('grants-title')))}
      >
        {t('panel.forgetGrant')}
      </button>
    </li>
  );
}

function RunRow(props: {
  run: RecentRun;
  audit: AuditItem | undefined;
  /**
   * the tool the run's approval card asks for, while it waits (no audit record is written before the run ends), where
   * the companion did not name it on the run (one from before it did)
   */
  asking: string | undefined;
  entry: JournalItem | undefined;
  onUndo: (id: string) => void | Promise<void>;
}) {
  const { run: r, audit, entry } = props;
  const link = safeLink(r.url);
  const took = audit?.durationMs ?? (r.endedAt !== undefined ? r.endedAt - r.at : undefined);
  return (
    <article class="card stack" data-run={r.runId} data-status={r.status} tabIndex={-1}>
      <div class="row">
        <span class="status" data-status={r.status}>
          {t(`run.${r.status}`)}
        </span>
        <strong class="mono">{audit?.tool ?? r.tool ?? props.asking ?? r.kind}</strong>
        <span class="muted">{duration(took)}</span>
        <span class="spacer" />
        <span class="muted">{clockTime(r.at)}</span>
      </div>
      <div class="row muted">
        <span>{r.site}</span>
        <ConversationId id={r.conversationId} />
        {link && (
          <a href={link} target="_blank" rel="noreferrer" data-run-link={r.runId}>
            {t('panel.openChat')}
          </a>
        )}
        <span class="spacer" />
        {entry && (
          <button type="button" data-undo-run={entry.id} disabled={entry.state !== 'applied'} onClick={trusted(() => thenFocus(props.onUndo(entry.id), () => rowOf('data-run', r.runId)))}>
            {t('popup.undo')}
          </button>
        )}
      </div>
      {r.result && (
        <details>
          <summary>{t('panel.result')}</summary>
          <pre class="output">{r.result}</pre>
          {r.resultCut !== undefined && <p class="muted">{tn('panel.resultCut', r.resultCut)}</p>}
        </details>
      )}
    </article>
  );
}

const JOURNAL_STATE: Record<JournalItem['state'], MessageKey> = {
  applied: 'journal.applied',
  undone: 'journal.undone',
  'rolled-back': 'journal.rolledBack',
};

function JournalRow(props: { entry: JournalItem; onUndo: () => void | Promise<void> }) {
  const { entry: j } = props;
  return (
    <li class="stack" data-journal={j.id} data-state={j.state} tabIndex={-1}>
      <div class="row">
        <span class="muted">{clockTime(j.time)}</span>
        <span>{revealHidden(j.label, { oneLine: true })}</span>
        <span class="tag">{t(JOURNAL_STATE[j.state])}</span>
        <span class="spacer" />
        {/* once undone the button is disabled: the focus to the row, which says so */}
        <button type="button" data-undo={j.id} disabled={j.state !== 'applied'} onClick={trusted(() => thenFocus(props.onUndo(), () => rowOf('data-journal', j.id)))}>
          {t('popup.undo')}
        </button>
      </div>
      {/* which files Undo puts back: every change of a tool has the same label */}
      <div class="muted mono" data-journal-paths>
        {j.paths.map((p) => (
          <div>{revealHidden(p, { oneLine: true })}</div>
        ))}
      </div>
    </li>
  );
}

const DECISIONS: Readonly<Record<string, MessageKey>> = {
  auto: 'auditDecision.auto',
  approve: 'auditDecision.approve',
  'approve-conversation': 'auditDecision.approveConversation',
  'conversation-grant': 'auditDecision.conversationGrant',
  deny: 'auditDecision.deny',
  expired: 'auditDecision.expired',
  'policy-deny': 'auditDecision.policyDeny',
  none: 'auditDecision.none',
};

/** An audit record's decision in the person's words; one this page does not know, as the companion wrote it. */
function decisionWords(decision: string): string {
  const key = DECISIONS[decision];
  return key ? t(key) : decision;
}

/** An audit record's outcome (ok, pending or an error code) in the person's words; an unknown code as it is. */
function outcomeWords(outcome: string): string {
  if (outcome === 'ok' || outcome === 'pending' || Object.hasOwn(ERROR_CODES, outcome)) return t(`outcome.${outcome}` as MessageKey);
  return outcome;
}

/** Every field a person might search the audit log by (the decision and outcome as written and as shown), in one lower-case string. */
function auditText(record: AuditItem): string {
  const { decision, outcome } = record;
  return [record.time, record.site, record.conversationId, record.kind, record.tool, decision, decisionWords(decision), outcome, outcomeWords(outcome), ...record.paths, ...record.commands]
    .join(' ')
    .toLowerCase();
}

export function AuditLog(props: { records: AuditItem[]; loaded: boolean; read?: boolean }) {
  const [query, setQuery] = useState('');
  const matches = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return props.records.filter((record) => {
      const text = auditText(record);
      return words.every((word) => text.includes(word));
    });
  }, [props.records, query]);
  // The panel reads the newest AUDIT_LIMIT records: with that many, the log likely holds older ones no search here finds.
  const count =
    props.records.length >= AUDIT_LIMIT
      ? t('panel.auditMatchesNewest', [matches.length, props.records.length])
      : t('panel.auditMatches', [matches.length, tn('panel.records', props.records.length)]);
  // A screen reader is told the count as the answer to a search, not each time a run adds a record (every block run
  // would be said, as '12 of 12 records', wherever the person is in the panel): said anew only when the words change.
  const [said, setSaid] = useState('');
  useEffect(() => setSaid(query.trim() ? count : ''), [query]);
  return (
    <div class="stack">
      <input
        id="audit-search"
        type="search"
        placeholder={t('panel.auditSearch')}
        aria-label={t('panel.auditSearch')}
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      <div class="muted" id="audit-count">
        {props.read === false ? '' : count}
      </div>
      <p class="sr-only" role="status" id="audit-said">
        {said}
      </p>
      <div id="audit">
        {matches.length === 0 ? (
          <Empty loaded={props.loaded} read={props.read !== false} text="panel.noAudit" />
        ) : (
          <ul class="stack plain">
          {matches.slice(0, AUDIT_SHOWN).map((r) => (
            <li key={r.auditId} class="card" data-audit={r.auditId} data-outcome={r.outcome}>
              <div class="row">
                <span class="muted">{clockTime(r.time)}</span>
                <strong class="mono">{r.tool}</strong>
                <span class="tag">{decisionWords(r.decision)}</span>
                <span class="status" data-status={r.outcome === 'ok' ? 'done' : r.outcome === 'pending' ? 'pending' : 'error'}>
                  {outcomeWords(r.outcome)}
                </span>
                <span class="spacer" />
                <span class="muted">{duration(r.durationMs)}</span>
              </div>
              <div class="muted mono">
                {/* whole, on its own line: a button in each of up to 200 records would be as many more stops for the Tab key */}
                {r.site} · {revealHidden(r.conversationId, { oneLine: true })}
                {[...r.paths, ...r.commands].map((p) => (
                  <div>{revealHidden(p, { oneLine: true })}</div>
                ))}
              </div>
            </li>
          ))}
          </ul>
        )}
        {/* the records past those drawn are not there to scroll to: said, with how to reach them */}
        {matches.length > AUDIT_SHOWN && (
          <p class="muted" data-audit-more="">
            {t('panel.auditMore', [AUDIT_SHOWN, matches.length])}
          </p>
        )}
      </div>
    </div>
  );
}

export function SidePanelView(props: {
  state: LiveState;
  actions: PanelActions;
  focusApproval?: string | undefined;
  /** the approval the panel was opened on (a notification's click) was not waiting when the list was read */
  focusGone?: boolean;
}) {
  const { state, actions } = props;
  const auditByRun = new Map(state.audit.map((record) => [record.runId, record]));
  const askingByRun = new Map(state.approvals.map((approval) => [approval.runId, approval.tool]));
  const journalByRun = new Map(state.journal.filter((j) => j.origin).map((j) => [j.origin!.runId, j]));
  // a program that ended is shown with the ended ones even before the companion's list has let it go
  const endedIds = new Set(state.ended.map((e) => e.program.id));
  const running = state.programs.filter((p) => !endedIds.has(p.id));
  const keepFocus = useFocusKeptInApprovals(state.approvals, () => document.getElementById('approvals-title'));
  const away = companionAway(state);
  /** whether a list was read from the companion: until it is, it has no count and says it could not be read */
  const read = (part: LivePart): boolean => state.read.includes(part);
  return (
    <main class="stack" style="padding:12px;gap:16px">
      <PageHeader connection={state.connection} error={state.error} pairElsewhere />
      <Section id="approvals" title="popup.approvals" count={read('approvals') ? state.approvals.length : undefined}>
        {/* a card that comes or goes while the person is elsewhere in the panel is said, as the count is only drawn */}
        <p class="sr-only" role="status" id="approvals-said">
          {state.loaded && read('approvals') ? tn('popup.approvalsWaiting', state.approvals.length) : ''}
        </p>
        {props.focusGone && (
          <p class="warn" id="approval-gone" role="status" style="margin:0">
            {t('panel.openedApprovalGone')}
          </p>
        )}
        <div id="approvals" class="stack" onFocusIn={keepFocus}>
          {state.approvals.length === 0 ? (
            <Empty loaded={state.loaded} read={read('approvals')} text="panel.noApprovals" />
          ) : (
            // Every list is keyed: a row never takes over another's buttons when one comes or goes above it (a focused
            // Approve, Undo or Stop would act on another approval, change or program).
            state.approvals.map((a) => (
              <ApprovalCard key={a.id} approval={a} focused={a.id === props.focusApproval} away={away} onDecide={(d) => actions.decide(a, d)} />
            ))
          )}
        </div>
      </Section>
      <Section id="grants" title="panel.grants" count={read('grants') ? state.grants.length : undefined}>
        <div id="grants">
          {state.grants.length === 0 ? (
            <Empty loaded={state.loaded} read={read('grants')} text="panel.noGrants" />
          ) : (
            <ul class="stack plain">
              {state.grants.map((g) => (
                <GrantRow key={JSON.stringify([g.site, g.conversationId, g.tool, g.risk])} grant={g} onForget={() => actions.forgetGrant(g)} />
              ))}
            </ul>
          )}
        </div>
      </Section>
      <Section id="programs" title="popup.programs" count={read('programs') ? running.length : undefined}>
        <div id="programs" class="stack">
          {running.length === 0 ? (
            <Empty loaded={state.loaded} read={read('programs')} text="panel.noPrograms" />
          ) : (
            running.map((p) => <ProgramCard key={p.id} program={p} output={state.output[p.id] ?? ''} onStop={() => actions.stopProgram(p.id)} />)
          )}
        </div>
        {state.ended.length > 0 && (
          <section class="stack" id="programs-ended" aria-labelledby="programs-ended-title">
            <h3 id="programs-ended-title">{t('panel.programsEnded')}</h3>
            {state.ended.map((e) => (
              <ProgramCard key={e.program.id} program={e.program} output={state.output[e.program.id] ?? ''} ended={e} />
            ))}
          </section>
        )}
      </Section>
      <Section id="runs" title="popup.runs">
        <div id="runs" class="stack">
          {state.runs.length === 0 ? (
            <Empty loaded={state.loaded} read={read('runs')} text="panel.noRuns" />
          ) : (
            state.runs.slice(0, 30).map((r) => (
              <RunRow key={r.runId} run={r} audit={auditByRun.get(r.runId)} asking={askingByRun.get(r.runId)} entry={journalByRun.get(r.runId)} onUndo={actions.undo} />
            ))
          )}
        </div>
      </Section>
      <Section id="changes" title="popup.changes">
        <div id="changes">
          {state.journal.length === 0 ? (
            <Empty loaded={state.loaded} read={read('journal')} text="panel.noChanges" />
          ) : (
            <ul class="stack plain">
              {state.journal.map((j) => (
                <JournalRow key={j.id} entry={j} onUndo={() => actions.undo(j.id)} />
              ))}
            </ul>
          )}
        </div>
      </Section>
      <Section id="audit-log" title="panel.audit">
        <AuditLog records={state.audit} loaded={state.loaded} read={read('audit')} />
      </Section>
    </main>
  );
}

/** `#approval=<id>` in the panel's address: the approval to show first. */
export function approvalFromHash(hash: string): string | undefined {
  const match = /^#approval=([\w-]{1,200})$/.exec(hash);
  return match?.[1];
}

/** The side panel wired to the background. */
export function SidePanel({ live }: { live: Live }) {
  const state = useLive(live);
  const [focus, setFocus] = useState(() => approvalFromHash(location.hash));
  useEffect(() => {
    const onHash = (): void => setFocus(approvalFromHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const present = focus !== undefined && state.approvals.some((a) => a.id === focus);
  // Opened on an approval (a notification clicked) that no longer waits — decided on its chip or in the popup, or
  // expired — the panel says so: it showed the other cards, or none, and nothing of the one the person came for.
  const shown = useRef<string | undefined>(undefined);
  if (present) shown.current = focus;
  const focusGone = focus !== undefined && !present && shown.current !== focus && state.loaded && state.read.includes('approvals');
  useEffect(() => {
    if (!present) return;
    const card = document.querySelector<HTMLElement>(`[data-approval="${focus}"]`);
    card?.scrollIntoView({ block: 'start' });
    card?.focus();
  }, [focus, present]);
  /**
   * After a decision the focus, gone with the card, goes to the next card (or the one before), after the last to the
   * approvals' heading with its count: never to a button.
   */
  const decide = (approval: Approval, decision: ApprovalDecision): void =>
    decideThenFocus(state.approvals, approval, () => live.decide(approval, decision), () => document.getElementById('approvals-title'));
  return (
    <SidePanelView
      state={state}
      focusApproval={focus}
      focusGone={focusGone}
      actions={{ decide, forgetGrant: (g) => live.forgetGrant(g), undo: (id) => live.undo(id), stopProgram: (id) => void live.stopProgram(id) }}
    />
  );
}
