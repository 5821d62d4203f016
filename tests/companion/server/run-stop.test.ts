import { describe, expect, it } from 'vitest';
import { createRunStop } from '../../../companion/runs/run-stop';
import { stopReason, throwIfStopped } from '../../../companion/stop-reason';

describe("a run's Stop, its signal made only when asked for", () => {
  it('a Stop before anything listened: the signal asked for afterwards is already aborted, with the reason', () => {
    const stop = createRunStop();
    expect(stop.aborted).toBe(false);
    expect(() => throwIfStopped(stop, 'fs.read')).not.toThrow();
    stop.abort(new Error('stopped by the person'));
    expect(stop.aborted).toBe(true);
    expect(stopReason(stop)).toBe('stopped by the person');
    expect(() => throwIfStopped(stop, 'fs.read')).toThrow(/fs\.read was stopped before it started \(stopped by the person\)/);
    expect(stop.signal.aborted).toBe(true);
    expect(stopReason(stop.signal)).toBe('stopped by the person');
  });

  it('a listener on the signal is told of a later Stop once, with the first reason', () => {
    const stop = createRunStop();
    const told: string[] = [];
    stop.signal.addEventListener('abort', () => told.push(stopReason(stop.signal)));
    stop.abort(new Error('a page stopped the block'));
    stop.abort(new Error('chatbridge is shutting down'));
    expect(told).toEqual(['a page stopped the block']);
    expect(stopReason(stop)).toBe('a page stopped the block');
    expect(stop.signal).toBe(stop.signal);
  });
});
