import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One project per part of the product, so each runs in the environment it ships in.
export default defineConfig({
  test: {
    // At least two files at a time: on a 2-core machine the default (cores − 1) ran the whole suite one file after
    // another, though most files wait on child processes, sockets and timers. The e2e files run after the rest, two at a
    // time (each its own browser and companion; most of their time is the extension's settle and doctor timers), in a
    // group of their own (sequence.groupOrder), so no browser shares the CPU with the other projects' files.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: 'shared', environment: 'node', include: ['tests/shared/**/*.test.ts', 'tests/fuzz/**/*.test.ts', 'tests/bench/**/*.test.ts'] } },
      {
        test: {
          name: 'companion',
          environment: 'node',
          include: ['tests/companion/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'extension',
          environment: 'happy-dom',
          include: ['tests/extension/**/*.test.{ts,tsx}'],
          setupFiles: ['tests/extension/setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
