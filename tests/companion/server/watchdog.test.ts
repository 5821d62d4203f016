import { describe, expect, it } from 'vitest';
import { runWithin } from '../../../companion/watchdog';

/** Holds this thread for `ms` without using the CPU, as a machine too busy to run it does (and vm's timeout interrupts). */
function heldOffTheCpu(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('runWithin', () => {
  it('a task the machine kept waiting past its time is tried again, not taken for a runaway one', () => {
    let attempts = 0;
    const result = runWithin(50, () => {
      attempts += 1;
      if (attempts === 1) heldOffTheCpu(400);
      return 'matched';
    });
    expect(result).toBe('matched');
    expect(attempts).toBe(2);
  });

  it('a task that uses the CPU it is given past its time is cut short, and not tried forever', () => {
    let attempts = 0;
    const result = runWithin(50, () => {
      attempts += 1;
      for (;;) {
        // a runaway pattern: busy until interrupted
      }
    });
    expect(result).toBeUndefined();
    expect(attempts).toBeLessThanOrEqual(4);
  });

  it('one that ends in time gives its value at once', () => {
    expect(runWithin(1_000, () => 42)).toBe(42);
  });
});
