import { useEffect, useState } from 'preact/hooks';
import type { DoctorAnswer } from '../doctor/answer';
import { reportText, type Attempt, type DoctorReport } from '../doctor/report';
import { t, tn } from './i18n';
import { trusted } from './trusted';

/**
 * The popup's site doctor for the active tab: what the site module found (messages, the last reply's code blocks,
 * the chat box and its family, the send control, the generating signal), how the last insert and submit went, the
 * problems the page reported, and "Copy a report" (the report plus a sanitized outline of the page, never its text).
 * Stable selectors (ui/README.md): `#doctor[data-state]`, `[data-doctor-row=<name>][data-ok]`, `[data-doctor-problem]`,
 * `#doctor-copy`, `#doctor-status`.
 */

export interface DoctorViewDeps {
  /** The active tab's doctor answer (with the outline when asked); null when chatbridge does not run there. */
  load(outline: boolean): Promise<DoctorAnswer | null>;
  copy(text: string): Promise<void>;
  version: string;
  /** How often the report is read again while the popup is open (ms; 0 = once). */
  refreshMs?: number;
  /**
   * What chatbridge's settings say of the tab's site, for a tab it does not run in: switched on, switched off, or on
   * without the browser's access to it; absent for a site it does not know (the popup offers "Enable on this site").
   */
  site?: 'on' | 'off' | 'no-access';
}

/** Why chatbridge does not run in the tab, and what to do, as far as its settings tell. */
const NOT_RUNNING = {
  on: 'doctor.notRunningReload',
  off: 'doctor.notRunningOff',
  'no-access': 'doctor.notRunningNoAccess',
} as const;

type Loaded = { state: 'loading' } | { state: 'absent' } | { state: 'report'; report: DoctorReport };

export function DoctorView({ deps }: { deps: DoctorViewDeps }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [status, setStatus] = useState('');
  useEffect(() => {
    let live = true;
    const read = (): void => {
      deps.load(false).then(
        (answer) => live && setLoaded(answer ? { state: 'report', report: answer.report } : { state: 'absent' }),
        () => live && setLoaded({ state: 'absent' }),
      );
    };
    read();
    const refresh = deps.refreshMs ?? 2_000;
    const timer = refresh > 0 ? setInterval(read, refresh) : undefined;
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [deps]);

  const copyReport = async (): Promise<void> => {
    try {
      const answer = await deps.load(true);
      if (!answer) throw new Error('no answer');
      await deps.copy(reportText(answer.report, answer.outline ?? '', deps.version, new Date()));
      setStatus(t('doctor.copied'));
    } catch {
      setStatus(t('doctor.copyFailed'));
    }
  };

  if (loaded.state !== 'report') {
    return (
      <section id="doctor" class="card stack" data-state={loaded.state} aria-labelledby="doctor-title">
        <h2 id="doctor-title">{t('doctor.title')}</h2>
        <p class="muted" style="margin:0">{loaded.state === 'loading' ? t('doctor.loading') : t(deps.site ? NOT_RUNNING[deps.site] : 'doctor.notRunning')}</p>
      </section>
    );
  }
  const { report } = loaded;
  const reply = report.lastReply;
  const problems = report.problems;
  // What the running page checks itself is marked when it says it is missing: an empty new chat has no messages, and
  // some sites draw no send control while the box is empty. On a page chatbridge does not run, what is not found is.
  const missing = (code: string, found: boolean): boolean => !found && (!report.running || problems.some((p) => p.code === code));
  const sendMissing = missing('no-send-control', report.send.found) || (!report.send.found && !report.composer.found);
  return (
    <section id="doctor" class="card stack" data-state={problems.length > 0 ? 'problem' : 'ok'} aria-labelledby="doctor-title">
      <h2 id="doctor-title">{t('doctor.title')}</h2>
      {problems.length > 0 ? (
        <div role="alert">
          <ul class="warn" style="margin:0;padding-left:18px">
            {problems.map((p) => (
              <li data-doctor-problem={p.code}>{p.message}</li>
            ))}
          </ul>
        </div>
      ) : (
        report.running && report.composer.found && <p class="muted" style="margin:0">{t('doctor.allFound')}</p>
      )}
      {!report.running && <p class="muted" style="margin:0">{t('doctor.off')}</p>}
      <dl class="doctor-rows" style="display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0">
        <Row name="site" label={t('doctor.site')} ok value={`${report.site.generic ? t('doctor.generic') : report.site.name} — ${report.host}`} />
        <Row
          name="messages"
          label={t('doctor.messages')}
          ok={!missing('no-messages', report.messages.count > 0)}
          value={t('doctor.messagesValue', [report.messages.count, report.messages.user, tn('doctor.replies', report.messages.assistant)])}
        />
        <Row
          name="last-reply"
          label={t('doctor.lastReply')}
          ok={
            reply === null ||
            // The page also names code it reads without the label that makes it a call (only it parses blocks).
            (reply.answerFound && reply.unrecognized === 0 && !(reply.blocks ?? []).some((b) => b.unreadable) && !problems.some((p) => p.code === 'code-unreadable'))
          }
          value={
            reply === null
              ? t('doctor.none')
              : !reply.answerFound
                ? t('doctor.noAnswer')
                : t('doctor.lastReplyValue', [tn('doctor.codeBlocksRead', reply.codeBlocks), tn('doctor.blocksFound', reply.blocks?.length ?? 0)]) +
                  (reply.unrecognized > 0 ? ` · ${tn('doctor.detailCodeMarkup', reply.unrecognized)}` : '')
          }
        />
        <Row
          name="composer"
          label={t('doctor.composer')}
          ok={report.composer.found}
          value={report.composer.found ? `${t('doctor.found')}: ${report.composer.element ?? ''} · ${report.composer.family}` : `${t('doctor.notFound')} · ${report.composer.family}`}
        />
        <Row
          name="send"
          label={t('doctor.send')}
          ok={!sendMissing}
          value={
            report.send.found
              ? report.send.disabled
                ? t('doctor.sendDisabled')
                : t('doctor.sendEnabled')
              : sendMissing
                ? t('doctor.notFound')
                : report.stopControl
                  ? t('doctor.sendIsStop')
                  : t('doctor.sendNotShown')
          }
        />
        <Row
          name="generating"
          label={t('doctor.generating')}
          ok
          value={report.generating === 'yes' ? t('doctor.generatingYes') : report.generating === 'no' ? t('doctor.generatingNo') : t('doctor.generatingNone')}
        />
        <Row name="insert" label={t('doctor.lastInsert')} ok={report.lastInsert?.ok !== false} value={attemptWords(report.lastInsert)} />
        <Row name="submit" label={t('doctor.lastSubmit')} ok={report.lastSubmit?.ok !== false} value={attemptWords(report.lastSubmit)} />
      </dl>
      <div class="row">
        <button id="doctor-copy" type="button" onClick={trusted(() => void copyReport())}>
          {t('doctor.copyReport')}
        </button>
        <span id="doctor-status" class="muted" role="status">
          {status}
        </span>
      </div>
    </section>
  );
}

function Row(props: { name: string; label: string; value: string; ok: boolean }) {
  return (
    <>
      <dt class="muted">{props.label}</dt>
      <dd data-doctor-row={props.name} data-ok={String(props.ok)} class={props.ok ? '' : 'warn'} style="margin:0">
        {props.value}
      </dd>
    </>
  );
}

function attemptWords(attempt: Attempt | null): string {
  if (attempt === null) return t('doctor.notYet');
  return attempt.ok ? t('doctor.verified', [attempt.method ?? '']) : (attempt.reason ?? t('doctor.notFound'));
}
