import { t, tn } from '../ui/i18n';
import type { ConnectionState } from './socket';

/**
 * The toolbar badge, decided in one place from what the person may need to act on: approvals waiting (global),
 * the companion's connection (global) and the site doctor's problem on a tab (per tab). Pure: `badgeFor` decides,
 * `createBadge` keeps the inputs and applies them through the `action` API it is given.
 */

export interface DoctorProblem {
  code: string;
  message: string;
  /**
   * the browser's id of the page (document) whose doctor found it: once that page is gone from its tab (another page
   * loaded there), so is the problem
   */
  documentId?: string;
}

export interface BadgeInputs {
  approvals: number;
  connection: ConnectionState;
  /** the site doctor's problem on this tab, if any (absent for the global badge) */
  problem?: DoctorProblem | null;
}

export type BadgeState = 'approvals' | 'offline' | 'unpaired' | 'problem' | 'idle';

export interface Badge {
  state: BadgeState;
  text: string;
  color: string;
  title: string;
}

/** Each state's colour, under white words at 4.5:1 or more (Chrome draws a badge's words white unless told). */
export const BADGE_COLORS: Record<Exclude<BadgeState, 'idle'>, string> = {
  approvals: '#cf222e',
  offline: '#6e7781',
  unpaired: '#6e7781',
  problem: '#9a6700',
};
/** Set, not left to the browser, so every browser draws the same words the colours above were chosen for. */
export const BADGE_TEXT_COLOR = '#ffffff';

/**
 * What needs the person first: approvals waiting (a number), then a companion that cannot be reached ("off", in the
 * person's language: a Chinese toolbar showed the English word) or
 * is not paired ("?"), then a problem the site doctor found on this tab ("!"). Connecting shows nothing new.
 */
export function badgeFor(inputs: BadgeInputs): Badge {
  const approvals = Number.isFinite(inputs.approvals) && inputs.approvals > 0 ? Math.floor(inputs.approvals) : 0;
  if (inputs.connection === 'connected' && approvals > 0) {
    return { state: 'approvals', text: approvals > 99 ? '99+' : String(approvals), color: BADGE_COLORS.approvals, title: tn('badge.approvals', approvals) };
  }
  if (inputs.connection === 'disconnected') return { state: 'offline', text: t('badge.offText'), color: BADGE_COLORS.offline, title: t('badge.offline') };
  if (inputs.connection === 'unpaired') return { state: 'unpaired', text: '?', color: BADGE_COLORS.unpaired, title: t('badge.unpaired') };
  if (inputs.problem) {
    return { state: 'problem', text: '!', color: BADGE_COLORS.problem, title: `${t('badge.problem')}: ${inputs.problem.message}` };
  }
  return { state: 'idle', text: '', color: BADGE_COLORS.approvals, title: t('badge.idle') };
}

/** The slice of `browser.action` (Chrome) / `browser.browserAction` the badge uses. */
export interface BadgeApi {
  setBadgeText(details: { text: string; tabId?: number }): Promise<void> | void;
  setBadgeBackgroundColor(details: { color: string; tabId?: number }): Promise<void> | void;
  /** Chrome 110+, Firefox */
  setBadgeTextColor?(details: { color: string; tabId?: number }): Promise<void> | void;
  setTitle(details: { title: string; tabId?: number }): Promise<void> | void;
}

export interface BadgeKeeper {
  setApprovals(count: number): void;
  setConnection(state: ConnectionState): void;
  setProblem(tabId: number, problem: DoctorProblem | null): void;
  /** the site doctor's problem the tab's badge is drawn with, if any */
  problemOf(tabId: number): DoctorProblem | null;
  forgetTab(tabId: number): void;
  /** the last badge applied globally and per tab (for tests and the popup) */
  current(tabId?: number): Badge;
}

export function createBadge(api: BadgeApi): BadgeKeeper {
  let approvals = 0;
  let connection: ConnectionState = 'connecting';
  /**
   * Every tab given a badge of its own, with its problem (null: none). The browser shows a tab's own badge over the
   * global one, so a tab keeps being drawn on every change until it closes — also once its problem is over, or the
   * global badge (approvals, "off") would never reach it again.
   */
  const problems = new Map<number, DoctorProblem | null>();

  const apply = (badge: Badge, tabId?: number): void => {
    const where = tabId === undefined ? {} : { tabId };
    // A tab that was closed meanwhile makes these reject; nothing to do about it.
    const quiet = (result: Promise<void> | void): void => void Promise.resolve(result).catch(() => undefined);
    quiet(api.setBadgeText({ text: badge.text, ...where }));
    quiet(api.setBadgeBackgroundColor({ color: badge.color, ...where }));
    if (api.setBadgeTextColor) quiet(api.setBadgeTextColor({ color: BADGE_TEXT_COLOR, ...where }));
    quiet(api.setTitle({ title: badge.title, ...where }));
  };
  const current = (tabId?: number): Badge => badgeFor({ approvals, connection, problem: tabId === undefined ? null : (problems.get(tabId) ?? null) });
  const applyAll = (): void => {
    apply(current());
    for (const tabId of problems.keys()) apply(current(tabId), tabId);
  };

  return {
    setApprovals(count) {
      if (count === approvals) return;
      approvals = count;
      applyAll();
    },
    setConnection(state) {
      if (state === connection) return;
      connection = state;
      applyAll();
    },
    setProblem(tabId, problem) {
      problems.set(tabId, problem);
      // A tab without a problem shows what the global badge shows.
      apply(current(tabId), tabId);
    },
    problemOf(tabId) {
      return problems.get(tabId) ?? null;
    },
    forgetTab(tabId) {
      problems.delete(tabId);
    },
    current,
  };
}

/**
 * The badge's count of the approvals waiting, read from the companion's list (`read`) whenever asked (an approval
 * created or decided, a connection made), then the list handed to `after` (the notifications). A count asked for
 * while one is under way counts once more after it: 50 approvals made at once left the badge at the few the first
 * read had seen, until the next event or the minute's alarm.
 */
export function countApprovalsInto<A extends { state: string }>(
  badge: Pick<BadgeKeeper, 'setApprovals'>,
  read: () => Promise<readonly A[]>,
  after: (list: readonly A[]) => Promise<void> | void,
): () => Promise<void> {
  let counting: Promise<void> | null = null;
  /** the count asked for while one was under way: the list that one reads may be from before what was asked for */
  let again: Promise<void> | null = null;
  const count = (): Promise<void> => {
    if (counting) {
      again ??= counting.then(() => {
        again = null;
        return count();
      });
      return again;
    }
    counting = read()
      .then((list) => {
        badge.setApprovals(list.filter((a) => a.state === 'pending').length);
        return after(list);
      })
      .catch(() => undefined)
      .finally(() => (counting = null));
    return counting;
  };
  return count;
}
