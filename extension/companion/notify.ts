/**
 * Which waiting approvals deserve a browser notification. Pure: the background gathers the facts (the approvals
 * pending, the tab each came from, which window has the focus) and applies what this decides (notices.ts).
 *
 * A person looking at the approval's tab sees its chip's card already; anyone else — another tab, another window, another
 * program in front — gets one notification per approval, once.
 */

export interface PendingApproval {
  id: string;
  state: string;
  site: string;
  conversationId: string;
}

/** Where the tab that asked for a run is, as the browser says now. */
export interface TabFacts {
  tabId: number;
  windowId: number;
  /** the selected tab of its window */
  active: boolean;
}

export interface NoticeFacts {
  pending: readonly PendingApproval[];
  /** approvals already notified (shown, clicked or dismissed): never again */
  notified: ReadonlySet<string>;
  /** the tab an approval came from, when it is known and still open */
  tabOf(approval: PendingApproval): TabFacts | undefined;
  /** the browser window that has the focus; null when the person is in another program */
  focusedWindowId: number | null;
}

/** The tab is what the person is looking at: the selected tab of the focused window. */
export function isInFront(tab: TabFacts | undefined, focusedWindowId: number | null): boolean {
  return tab !== undefined && tab.active && focusedWindowId !== null && tab.windowId === focusedWindowId;
}

/**
 * The approvals to notify now: pending, not notified before, and whose tab is not in front. An approval whose tab is
 * unknown (closed, or the run came from elsewhere) is notified too: nothing on screen shows it.
 */
export function approvalsToNotify(facts: NoticeFacts): PendingApproval[] {
  return facts.pending.filter((a) => a.state === 'pending' && !facts.notified.has(a.id) && !isInFront(facts.tabOf(a), facts.focusedWindowId));
}

/** Notices whose approval is no longer pending (decided, expired): to be taken off the screen. */
export function noticesToClear(shown: Iterable<string>, pending: readonly PendingApproval[]): string[] {
  const waiting = new Set(pending.filter((a) => a.state === 'pending').map((a) => a.id));
  return [...shown].filter((id) => !waiting.has(id));
}

const NOTICE_PREFIX = 'chatbridge-approval:';

export function noticeId(approvalId: string): string {
  return `${NOTICE_PREFIX}${approvalId}`;
}

/** The approval a notification is about; null for a notification that is not one of ours. */
export function approvalIdOf(notificationId: string): string | null {
  return notificationId.startsWith(NOTICE_PREFIX) && notificationId.length > NOTICE_PREFIX.length ? notificationId.slice(NOTICE_PREFIX.length) : null;
}

/** The side panel opened on one approval (ui/README.md). */
export function panelPathFor(approvalId: string): `sidepanel.html#approval=${string}` {
  return `sidepanel.html#approval=${encodeURIComponent(approvalId)}`;
}

/** The key that ties an approval to the tab whose run asked for it. */
export function conversationKey(site: string, conversationId: string): string {
  return `${site}|${conversationId}`;
}
