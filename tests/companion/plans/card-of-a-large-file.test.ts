/**
 * A plan creating a large file held the companion's thread while its card was made: the card's diff of a created
 * file went through the diff library, which takes as long splitting the lines and writing the patch of a one-sided
 * diff as for a real one, and its timeout bounds only the matching. A file of 750 000 short lines (1.5 MB, under the
 * 2 MB a diff takes) held every run, approval and `/v1/status` for seconds, on top of the plan's budgeted replaces
 * (replace-worst-case.test.ts). A created or deleted file's diff is now written out directly
 * (companion/tools/define-handler.ts oneSidedDiff). The companion's code runs in this process here, so this
 * process's event-loop delay is the companion's.
 */
import { createTwoFilesPatch } from 'diff';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan } from '../../../companion/plans';
import { DIFF_MS, unifiedDiff } from '../../../companion/tools/define-handler';
import type { AutocoderPlan } from '../../../shared/protocols/types';
import { createWorld, type World } from './world';

let world: World;

beforeEach(async () => {
  world = await createWorld();
});
afterEach(async () => {
  await world.dispose();
});

/** The longest the event loop was held, in ms, while `task` ran: the largest gap between ticks of a 10 ms timer. */
async function longestStall(task: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const ticks = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  try {
    await task();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    clearInterval(ticks);
  }
  return longest;
}

describe("a plan's card for a large created file", () => {
  it('is made without holding the thread for the diff budget, and shows the file as added', async () => {
    const content = 'x\n'.repeat(750_000);
    const plan: AutocoderPlan = {
      type: 'operate',
      metadata: { step_id: 's1', reason: 'a large file' },
      file_operations: [{ action_type: 'create_file', path: 'big.txt', file_content: content }],
    };
    world.answer = 'deny';
    const stall = await longestStall(() => runAutocoderPlan(plan, world.ctx(), { auditId: 'audit-1' }));
    expect(stall, 'the longest event-loop stall while the card was made (ms)').toBeLessThan(DIFF_MS);
    const diff = world.requests[0]?.preview?.diff ?? '';
    expect(diff).toContain('--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,750000 @@\n+x\n+x\n');
  });

  it("a created or deleted file's diff reads as the diff library writes it", () => {
    const texts = ['', 'a', 'a\n', '\n', '\n\n', 'a\nb', 'a\nb\n', 'a\r\nb\r\n', 'a\n\nb\n\n', ' x\n+y\n-z', '\\ no\n'];
    for (const text of texts) {
      expect(unifiedDiff('/dev/null', 'b/f', '', text)).toBe(createTwoFilesPatch('/dev/null', 'b/f', '', text, undefined, undefined, { context: 3 }));
      expect(unifiedDiff('a/f', '/dev/null', text, '')).toBe(createTwoFilesPatch('a/f', '/dev/null', text, '', undefined, undefined, { context: 3 }));
    }
  });
});
