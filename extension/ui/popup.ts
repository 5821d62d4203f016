import { browser } from 'wxt/browser';
import { ask, type ConnectionInfo } from '../messaging';
import { companionUrl, genericHosts } from '../settings';
import { SITES } from '../sites';
import { h, onTrustedClick } from './dom';
import { t, uiLanguage } from './i18n';
import { browserPromptsDeps } from './prompts-browser';
import { promptsView } from './prompts-view';
import { siteSettingsView } from './site-settings-view';

/**
 * The popup: pairing, connection, per-site settings, pending approvals, recent runs and changes with undo, running
 * programs with Stop. Element ids are stable (see ui/README.md) so end-to-end tests can drive it.
 */
export async function renderPopup(root: HTMLElement, signal: AbortSignal): Promise<void> {
  document.documentElement.lang = uiLanguage();
  const status = h('div', { id: 'connection', 'data-state': 'connecting' }, '…');
  const error = h('div', { id: 'error', class: 'error', role: 'alert' });
  const code = h('input', { id: 'pair-code', placeholder: t('popup.pairCode'), autocomplete: 'off', size: '10' });
  const url = h('input', { id: 'companion-url', value: await companionUrl.getValue(), size: '24' });
  const pair = h('button', { id: 'pair-button', type: 'button' }, t('popup.pair'));
  const unpair = h('button', { id: 'unpair-button', type: 'button' }, t('popup.unpair'));
  const approvals = h('ul', { id: 'approvals' });
  const runs = h('ul', { id: 'runs' });
  const changes = h('ul', { id: 'changes' });
  const programs = h('ul', { id: 'programs' });
  const sites = h('div', { id: 'sites' });

  const fail = (e: unknown): void => {
    error.textContent = `${t('popup.error')}: ${e instanceof Error ? e.message : String(e)}`;
  };
  const showConnection = (info: ConnectionInfo): void => {
    status.setAttribute('data-state', info.state);
    status.textContent = t(`conn.${info.state}`) + (info.detail ? ` — ${info.detail}` : '');
  };

  onTrustedClick(pair, async () => {
    error.textContent = '';
    try {
      showConnection(await ask('pair', { code: code.value, companionUrl: url.value }));
      code.value = '';
      await refresh();
    } catch (e) {
      fail(e);
    }
  });
  onTrustedClick(unpair, async () => {
    try {
      showConnection(await ask('unpair', {}));
    } catch (e) {
      fail(e);
    }
  });

  root.replaceChildren(
    h('h1', {}, t('popup.title')),
    status,
    h('div', { class: 'pair' }, code, pair, unpair),
    h('details', {}, h('summary', {}, t('popup.companionUrl')), url),
    error,
    h('h2', {}, t('popup.approvals')),
    approvals,
    h('h2', {}, t('popup.programs')),
    programs,
    h('h2', {}, t('popup.runs')),
    runs,
    h('h2', {}, t('popup.changes')),
    changes,
    h('h2', {}, t('popup.sites')),
    sites,
  );

  for (const site of SITES) sites.append(await siteSettingsView(site.id, site.name));
  for (const host of await genericHosts.getValue()) sites.append(await siteSettingsView(host, host));
  sites.append(await enableHereButton());
  root.append(promptsView(browserPromptsDeps(uiLanguage())).element);

  const list = <T>(target: HTMLElement, items: T[], row: (item: T) => HTMLElement): void => {
    target.replaceChildren(...(items.length ? items.map(row) : [h('li', { class: 'none' }, t('popup.none'))]));
  };

  const refresh = async (): Promise<void> => {
    try {
      showConnection(await ask('connection', {}));
    } catch (e) {
      fail(e);
      return;
    }
    const [pending, recent, journal, running] = await Promise.all([
      ask('approvals', {}).catch(() => []),
      ask('recent-runs', {}).catch(() => []),
      ask('journal', {}).catch(() => []),
      ask('programs', {}).catch(() => []),
    ]);
    list(approvals, pending.filter((a) => a.state === 'pending'), (a) => {
      const decide = (decision: 'approve' | 'approve-conversation' | 'deny', label: string): HTMLElement => {
        const b = h('button', { type: 'button', 'data-decision': decision }, label);
        onTrustedClick(b, async () => {
          try {
            await ask('decide', { id: a.id, decision, argsHash: a.argsHash });
            await refresh();
          } catch (e) {
            fail(e);
          }
        });
        return b;
      };
      return h(
        'li',
        { 'data-approval': a.id },
        h('strong', {}, `${a.tool}: ${a.preview.title}`),
        // a plan's card lists every action with its class, then its commands, then the diff of every file
        ...(a.preview.actions ? [h('ul', { 'data-actions': '' }, ...a.preview.actions.map((act) => h('li', {}, `[${act.risk}] ${act.label}`)))] : []),
        ...(a.preview.command !== undefined ? [h('pre', {}, `$ ${a.preview.command}\n(in ${a.preview.cwd ?? ''})`)] : []),
        ...(a.preview.diff !== undefined ? [h('pre', {}, a.preview.diff)] : []),
        ...(a.preview.command === undefined && a.preview.diff === undefined ? [h('pre', {}, a.preview.paths.join('\n'))] : []),
        decide('approve', t('action.approve')),
        decide('approve-conversation', t('action.approveConversation')),
        decide('deny', t('action.deny')),
      );
    });
    list(programs, running.filter((p) => p.status === 'running'), (p) => {
      const stop = h('button', { type: 'button', 'data-program': p.id }, t('popup.stop'));
      onTrustedClick(stop, async () => {
        try {
          await ask('stop-program', { id: p.id });
          await refresh();
        } catch (e) {
          fail(e);
        }
      });
      return h('li', {}, h('code', {}, `${p.name}: ${p.command}`), stop);
    });
    const undoButton = (entry: (typeof journal)[number], attribute: string): HTMLElement => {
      const undo = h('button', { type: 'button', [attribute]: entry.id, disabled: entry.state !== 'applied' }, t('popup.undo'));
      onTrustedClick(undo, async () => {
        try {
          await ask('undo', { id: entry.id });
          await refresh();
        } catch (e) {
          fail(e);
        }
      });
      return undo;
    };
    // A run that changed files carries its journal entry's Undo right in its row.
    list(runs, recent.slice(0, 10), (r) => {
      const entry = journal.find((j) => j.origin?.runId === r.runId);
      return h(
        'li',
        { 'data-run': r.runId, 'data-status': r.status },
        `${new Date(r.at).toLocaleTimeString()} ${r.site} ${r.kind} — ${r.status} `,
        entry ? undoButton(entry, 'data-undo-run') : null,
      );
    });
    list(changes, journal.slice(0, 10), (entry) => h('li', {}, `${entry.label} (${entry.state}) `, undoButton(entry, 'data-undo')));
  };

  await refresh();
  const timer = setInterval(() => void refresh(), 2_000);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}

/** "Enable on this site": asks for the tab's host permission, then the generic adapter runs there. */
async function enableHereButton(): Promise<HTMLElement> {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true }).catch(() => []);
  const tabUrl = tab?.url ? safeUrl(tab.url) : null;
  const host = tabUrl && (tabUrl.protocol === 'https:' || tabUrl.protocol === 'http:') ? tabUrl.host : null;
  if (!host || SITES.some((s) => s.hosts.includes(host))) return h('span');
  const hosts = await genericHosts.getValue();
  if (hosts.includes(host)) return h('span');
  const button = h('button', { id: 'enable-here', type: 'button' }, `${t('popup.enableHere')} (${host})`);
  onTrustedClick(button, async () => {
    const granted = await browser.permissions.request({ origins: [`${tabUrl!.protocol}//${host}/*`] });
    if (granted) await genericHosts.setValue([...hosts, host]);
    button.remove();
  });
  return button;
}

function safeUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
