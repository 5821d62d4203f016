import { browser } from 'wxt/browser';
import { RUN_LATEST_MESSAGE, type RunLatestReply } from '../content/run-latest';

/**
 * The extension's keyboard commands (manifest `commands`; a person can change the keys at chrome://extensions/shortcuts).
 * `run-latest-block` (Alt+Shift+R): the active tab's content script runs its latest block waiting for Run.
 */

export const RUN_LATEST_COMMAND = 'run-latest-block';

export async function runLatestInActiveTab(): Promise<RunLatestReply> {
  const [tab] = await browser.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => []);
  if (tab?.id === undefined) return { ok: false, error: 'no active tab to run a block in' };
  try {
    const reply = (await browser.tabs.sendMessage(tab.id, { type: RUN_LATEST_MESSAGE })) as RunLatestReply | undefined;
    return reply ?? { ok: false, error: 'chatbridge does not run on the active tab' };
  } catch {
    // no content script there: not a chat page chatbridge runs on
    return { ok: false, error: 'chatbridge does not run on the active tab' };
  }
}

/** Handles one command; unknown names are ignored (a future manifest's commands, an old worker). */
export async function onCommand(command: string): Promise<RunLatestReply | null> {
  if (command !== RUN_LATEST_COMMAND) return null;
  const reply = await runLatestInActiveTab();
  if (!reply.ok) console.info(`[chatbridge] ${command}: ${reply.error}`);
  return reply;
}
