import { describe, expect, it } from 'vitest';
import { runInSlices } from '../../extension/scanner/slices';

/**
 * The first scan's slicing as a pure loop: a fake clock that each item advances, and a yield the test releases, so
 * where a slice ends and what happens between slices are exact.
 */

function gate(): { yieldToPage: () => Promise<void>; yields: () => number; release: () => Promise<void> } {
  let waiting: Array<() => void> = [];
  let count = 0;
  return {
    yieldToPage: () => {
      count++;
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    yields: () => count,
    async release() {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
      // let the loop run its next slice up to its next yield
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('runInSlices', () => {
  it('runs the first slice in the call, ends a slice after the item that used up the budget, and resumes where it stopped', async () => {
    const clock = { now: 0 };
    const costs = [2, 2, 2, 2, 2, 9, 1, 1];
    const seen: number[] = [];
    const slices: Array<[number, number]> = [];
    const g = gate();
    const done = runInSlices(
      costs,
      (cost, index) => {
        seen.push(index);
        clock.now += cost;
      },
      { budgetMs: 5, clock: () => clock.now, yieldToPage: g.yieldToPage, signal: new AbortController().signal, onSlice: (s, e) => slices.push([s, e]) },
    );
    // 2 + 2 + 2 passes 5 after the third item: the first slice ran before runInSlices returned
    expect(seen).toEqual([0, 1, 2]);
    expect(g.yields()).toBe(1);
    await g.release();
    // one item over budget (9 ms) is never split; the slice ends right after it
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    await g.release();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await expect(done).resolves.toBe('done');
    expect(slices).toEqual([[0, 6], [6, 19], [19, 21]]);
    expect(g.yields()).toBe(2);
  });

  it('lets the page change things between slices: an item is read when its turn comes', async () => {
    const items = ['a', 'b', 'c', 'd'];
    const read: string[] = [];
    const clock = { now: 0 };
    const g = gate();
    const done = runInSlices(items, (_item, index) => {
      read.push(items[index] as string);
      clock.now += 1;
    }, { budgetMs: 1, clock: () => clock.now, yieldToPage: g.yieldToPage, signal: new AbortController().signal });
    items[2] = 'C (changed while the page had its turn)';
    await g.release();
    await g.release();
    await g.release();
    await done;
    expect(read).toEqual(['a', 'b', 'C (changed while the page had its turn)', 'd']);
  });

  it('does the items added after the current one while it runs, in their place', async () => {
    const items = ['a', 'b', 'c'];
    const read: string[] = [];
    const clock = { now: 0 };
    const g = gate();
    const done = runInSlices(items, (item, index) => {
      read.push(item);
      clock.now += 1;
      if (item === 'a') items.splice(index + 1, 0, 'a: its second step');
    }, { budgetMs: 1, clock: () => clock.now, yieldToPage: g.yieldToPage, signal: new AbortController().signal });
    for (let i = 0; i < 4; i++) await g.release();
    await expect(done).resolves.toBe('done');
    expect(read).toEqual(['a', 'a: its second step', 'b', 'c']);
  });

  it('stops after the slice in which it was aborted; an empty list is done at once; a bad budget is refused by name', async () => {
    const controller = new AbortController();
    const clock = { now: 0 };
    const g = gate();
    const seen: number[] = [];
    const run = runInSlices([1, 2, 3, 4], (_x, i) => {
      seen.push(i);
      clock.now += 1;
    }, { budgetMs: 0, clock: () => clock.now, yieldToPage: g.yieldToPage, signal: controller.signal });
    controller.abort();
    await g.release();
    await expect(run).resolves.toBe('aborted');
    expect(seen).toEqual([0]);

    await expect(runInSlices([], () => expect.fail('no item'), { budgetMs: 5, clock: () => 0, yieldToPage: g.yieldToPage, signal: controller.signal })).resolves.toBe('done');
    await expect(runInSlices([1], () => undefined, { budgetMs: Number.NaN, clock: () => 0, yieldToPage: g.yieldToPage, signal: new AbortController().signal })).rejects.toThrow(/budgetMs must be a number ≥ 0, got NaN/);
  });
});
