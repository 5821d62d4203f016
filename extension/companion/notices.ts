import { browser } from 'wxt/browser';
import { storage } from 'wxt/utils/storage';
import type { Approval } from './api-types';
import { t } from '../ui/i18n';
import { approvalTitle } from '../ui/preview-words';
import { approvalIdOf, approvalsToNotify, conversationKey, noticeId, noticesToClear, panelPathFor, type TabFacts } from './notify';

/**
 * Browser notifications for approvals waiting while their tab is not in front (the decision is notify.ts); a click
 * opens the side panel on that approval. The background tells it the pending approvals whenever it counts them, and
 * which tab each conversation's runs came from.
 */

export interface ApprovalNotices {
  /** The tab a run of this conversation came from (the background's `run` handler knows the sender). */
  rememberTab(site: string, conversationId: string, tab: { id?: number | undefined; windowId?: number | undefined }): void;
  /** The approvals as the companion lists them now: notifies the new ones, takes decided ones off the screen. */
  update(approvals: readonly Approval[]): Promise<void>;
  /** A click on a notification (the browser's onClicked calls it too). */
  clicked(notificationId: string): void;
}

/** Notified approvals survive a service worker restart, so one approval never notifies twice. */
const notifiedItem = storage.defineItem<string[]>('session:notified-approvals', { fallback: [] });
const NOTIFIED_KEPT = 200;

type PanelApis = {
  sidePanel?: { setOptions(options: { path: string }): Promise<void>; open(options: { windowId: number }): Promise<void> };
  sidebarAction?: { setPanel(details: { panel: string }): Promise<void>; open(): Promise<void> };
};

export function startApprovalNotices(signal: AbortSignal): ApprovalNotices {
  // Absent where the browser has no notifications (the permission is in the manifest for the ones that do).
  const api = browser.notifications as typeof browser.notifications | undefined;
  const tabs = new Map<string, { tabId: number; windowId: number }>();
  /** the window each shown notice's tab was in: the side panel opens there */
  const windows = new Map<string, number>();
  let updating: Promise<void> = Promise.resolve();

  const tabFacts = async (site: string, conversationId: string): Promise<TabFacts | undefined> => {
    const known = tabs.get(conversationKey(site, conversationId));
    if (!known) return undefined;
    const tab = await browser.tabs.get(known.tabId).catch(() => undefined);
    if (!tab || tab.id === undefined) return undefined;
    return { tabId: tab.id, windowId: tab.windowId ?? known.windowId, active: tab.active === true };
  };

  const apply = async (approvals: readonly Approval[]): Promise<void> => {
    if (!api) return;
    const notified = new Set(await notifiedItem.getValue().catch(() => [] as string[]));
    const shown = Object.keys(await api.getAll().catch(() => ({}))).flatMap((id) => approvalIdOf(id) ?? []);
    for (const id of noticesToClear(shown, approvals)) void api.clear(noticeId(id)).catch(() => undefined);
    const focused = await browser.windows.getLastFocused().catch(() => undefined);
    const facts = new Map<string, TabFacts | undefined>();
    for (const a of approvals) if (a.state === 'pending') facts.set(a.id, await tabFacts(a.site, a.conversationId));
    const fresh = approvalsToNotify({
      pending: approvals,
      notified,
      tabOf: (a) => facts.get(a.id),
      focusedWindowId: focused?.focused && focused.id !== undefined ? focused.id : null,
    });
    for (const approval of fresh as Approval[]) {
      notified.add(approval.id);
      const windowId = facts.get(approval.id)?.windowId;
      if (windowId !== undefined) windows.set(approval.id, windowId);
      await api
        .create(noticeId(approval.id), {
          type: 'basic',
          iconUrl: browser.runtime.getURL('/icon/128.png'),
          title: t('notify.approvalTitle'),
          message: t('notify.approvalBody', [`${approval.tool}: ${approvalTitle(approval.preview)}`.slice(0, 200), approval.site]),
        })
        .catch((error: unknown) => console.warn('[chatbridge] showing a notification failed', error));
    }
    if (fresh.length > 0) await notifiedItem.setValue([...notified].slice(-NOTIFIED_KEPT)).catch(() => undefined);
  };

  /** Opens the side panel on the approval. Straight from the click (a user gesture): nothing is awaited before open. */
  const openPanel = (approvalId: string): void => {
    const path = panelPathFor(approvalId);
    const apis = browser as unknown as PanelApis;
    const inTab = (): void => void browser.tabs.create({ url: browser.runtime.getURL(`/${path}`) }).catch(() => undefined);
    if (apis.sidePanel) {
      void apis.sidePanel.setOptions({ path }).catch(() => undefined);
      // The window the approval's tab was in, else the one the person used last.
      const windowId = windows.get(approvalId) ?? browser.windows.WINDOW_ID_CURRENT;
      apis.sidePanel.open({ windowId }).catch(inTab);
    } else if (apis.sidebarAction) {
      void apis.sidebarAction.setPanel({ panel: browser.runtime.getURL(`/${path}`) }).catch(() => undefined);
      apis.sidebarAction.open().catch(inTab);
    } else {
      inTab();
    }
  };

  const onClicked = (notificationId: string): void => {
    const approvalId = approvalIdOf(notificationId);
    if (approvalId === null) return;
    openPanel(approvalId);
    void api?.clear(notificationId).catch(() => undefined);
  };
  if (api) {
    api.onClicked.addListener(onClicked);
    signal.addEventListener('abort', () => api.onClicked.removeListener(onClicked), { once: true });
  }

  return {
    rememberTab(site, conversationId, tab) {
      if (tab.id === undefined || tab.id < 0) return;
      tabs.set(conversationKey(site, conversationId), { tabId: tab.id, windowId: tab.windowId ?? -1 });
    },
    update(approvals) {
      // One at a time: two counts close together must not both notify the same new approval.
      updating = updating.then(() => apply(approvals)).catch((error: unknown) => console.warn('[chatbridge] approval notices failed', error));
      return updating;
    },
    clicked: onClicked,
  };
}
