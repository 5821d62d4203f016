import { useEffect, useRef, useState } from 'preact/hooks';
import { ApprovalCard, decideThenFocus, thenFocus, useFocusKeptInApprovals } from './approval-card';
import { t, tn } from './i18n';
import { companionAway, useLive, type Live, type LiveState } from './live';
import { PageHeader } from './page-header';
import { Sites, type SiteStore } from './site-cards';
import { trusted } from './trusted';

/**
 * The popup: connection, pairing as one short step (only while not paired), approvals waiting, a card per site with
 * its switches (advanced settings folded), the prompt library and the way to the side panel. Light and dark follow
 * the system. Stable selectors are listed in ui/README.md.
 */

export interface PopupDeps extends SiteStore {
  companionUrl: string;
  /** opens the side panel (Chrome) or sidebar (Firefox); undefined where neither exists */
  openSidePanel?: () => void;
  /** the "Enable on this site" button for the active tab, when it applies */
  enableHere?: { host: string; enable(): Promise<boolean> };
  /** the prompt library, built outside (its own module and tests) */
  prompts?: HTMLElement;
  /** the site doctor's view of the active tab */
  doctor?: preact.ComponentChildren;
  /** draws the popup again from fresh settings (a host just enabled gets its card) */
  refresh?: () => void;
}

function Pairing(props: { companionUrl: string; error: string; onPair: (code: string, url: string) => Promise<void> }) {
  const [code, setCode] = useState('');
  const [url, setUrl] = useState(props.companionUrl);
  // The code stays after a refusal, to be read and mended; once paired this step is not drawn at all.
  const pair = (): Promise<void> => props.onPair(code, url);
  return (
    <section class="card stack" aria-labelledby="pair-title">
      <h2 id="pair-title">{t('popup.pairTitle')}</h2>
      <ol class="muted" style="margin:0;padding-left:18px">
        <li>
          {t('popup.pairStep1')} <code>npm start</code>
        </li>
        <li>{t('popup.pairStep2')}</li>
      </ol>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (e.isTrusted) void pair();
        }}
      >
        <input
          id="pair-code"
          autocomplete="off"
          spellcheck={false}
          placeholder={t('popup.pairCode')}
          aria-label={t('popup.pairCode')}
          // a refused code is said in #error: read with the field, which is marked so
          aria-describedby="error"
          aria-invalid={props.error !== ''}
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
          style="flex:1"
        />
        <button id="pair-button" type="button" class="primary" onClick={trusted(() => void pair())}>
          {t('popup.pair')}
        </button>
      </form>
      <details>
        <summary>{t('popup.companionUrl')}</summary>
        <input id="companion-url" aria-label={t('popup.companionUrl')} value={url} onInput={(e) => setUrl(e.currentTarget.value)} style="width:100%;margin-top:6px" />
      </details>
    </section>
  );
}

export function PopupView(props: { state: LiveState; deps: PopupDeps; live: Pick<Live, 'decide' | 'pair' | 'unpair'> }) {
  const { state, deps, live } = props;
  const connection = state.connection?.state ?? 'connecting';
  const prompts = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (deps.prompts && prompts.current && !prompts.current.contains(deps.prompts)) prompts.current.append(deps.prompts);
  }, [deps.prompts]);
  const [enableHere, setEnableHere] = useState(deps.enableHere);
  const keepFocus = useFocusKeptInApprovals(state.approvals, () => document.querySelector('#open-sidepanel'));
  const approvalsRead = state.read.includes('approvals');
  return (
    <main class="stack" style="padding:12px;gap:12px">
      <PageHeader connection={state.connection} error={state.error} />
      {connection === 'unpaired' && (
        <Pairing
          companionUrl={deps.companionUrl}
          error={state.error}
          // paired, the step goes with the focus on it: the focus to the connection's state, which says what came of it
          onPair={(code, url) => thenFocus(live.pair(code, url), () => document.getElementById('connection'))}
        />
      )}
      {deps.openSidePanel && (
        <button id="open-sidepanel" type="button" class="row" onClick={trusted(deps.openSidePanel)}>
          <span>{t('popup.openSidePanel')}</span>
          <span class="spacer" />
          {/* no count while the list was never read from the companion: a 0 there said what nobody knew */}
          {approvalsRead && (
            <span class="count" data-zero={String(state.approvals.length === 0)} aria-label={tn('popup.approvalsWaiting', state.approvals.length)}>
              {state.approvals.length}
            </span>
          )}
        </button>
      )}
      {/* a card that comes or goes while the popup is open is said: the cards and the count beside the button are only drawn */}
      <p class="sr-only" role="status" id="approvals-said">
        {state.loaded && approvalsRead ? tn('popup.approvalsWaiting', state.approvals.length) : ''}
      </p>
      {state.approvals.length > 0 && (
        <section class="stack" aria-labelledby="approvals-title">
          <h2 id="approvals-title">{t('popup.approvals')}</h2>
          <div id="approvals" class="stack" onFocusIn={keepFocus}>
            {state.approvals.map((a) => (
              <ApprovalCard
                key={a.id}
                approval={a}
                compact
                away={companionAway(state)}
                // the focus goes to the next card, after the last to the side panel's button with its count: never to a decision
                onDecide={(d) => decideThenFocus(state.approvals, a, () => live.decide(a, d), () => document.querySelector('#open-sidepanel'))}
              />
            ))}
          </div>
        </section>
      )}
      {deps.doctor}
      <section class="stack" aria-labelledby="sites-title">
        <h2 id="sites-title">{t('popup.sites')}</h2>
        <Sites deps={deps} />
        {enableHere && (
          <button
            id="enable-here"
            type="button"
            onClick={trusted(
              () =>
                void enableHere.enable().then((done) => {
                  if (!done) return;
                  setEnableHere(undefined);
                  deps.refresh?.();
                }),
            )}
          >
            {t('popup.enableHere')} ({enableHere.host})
          </button>
        )}
      </section>
      <div ref={prompts} />
      {connection !== 'unpaired' && <ForgetToken companionUrl={state.connection?.companionUrl || deps.companionUrl} unpair={() => live.unpair()} />}
    </main>
  );
}

/**
 * The connection's details with Forget token. Forgetting cannot be undone here (pairing again needs a new code from
 * the terminal): it asks first, and asks again after a pairing (drawn anew, not left asking from before). Forgotten,
 * this goes with the focus on its button: the focus to the connection's state, which says it is not paired.
 */
function ForgetToken(props: { companionUrl: string; unpair: () => Promise<void> }) {
  const [forgetting, setForgetting] = useState(false);
  const forget = (): void => void thenFocus(props.unpair(), () => document.getElementById('connection'));
  return (
    <details>
      <summary>{t('popup.connectionDetails')}</summary>
      <div class="row" style="padding-top:6px">
        <span class="mono">{props.companionUrl}</span>
        <span class="spacer" />
        <button id="unpair-button" type="button" onClick={trusted(() => (forgetting ? forget() : setForgetting(true)))}>
          {t(forgetting ? 'popup.unpairConfirm' : 'popup.unpair')}
        </button>
      </div>
    </details>
  );
}

export function Popup({ live, deps }: { live: Live; deps: PopupDeps }) {
  const state = useLive(live);
  return <PopupView state={state} deps={deps} live={live} />;
}
