/**
 * One measured figure and the arithmetic behind it. Every figure is the median of several independent runs, with
 * the spread (p10–p90 across runs) beside it, so one noisy run neither passes nor fails a budget on its own.
 */
export interface Budget {
  /**
   * the figure is within budget when its median is below (or at, with `inclusive`) this value — or, with
   * `atLeast` (a rate, where more is better), at or above it
   */
  max: number;
  inclusive?: boolean;
  atLeast?: boolean;
  /** as printed, e.g. "< 3 ms" */
  text: string;
}

export interface Figure {
  name: string;
  unit: string;
  median: number;
  p10: number;
  p90: number;
  /** how many independent runs the median is over */
  runs: number;
  budget: Budget | null;
  /** what was measured, when the name alone does not say */
  note?: string;
}

/** Linear-interpolated percentile (0–100) of unsorted samples; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (rank - low);
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** A figure from one value per run. */
export function figureOf(name: string, unit: string, perRun: readonly number[], budget: Budget | null, note?: string): Figure {
  return {
    name,
    unit,
    median: median(perRun),
    p10: percentile(perRun, 10),
    p90: percentile(perRun, 90),
    runs: perRun.length,
    budget,
    ...(note ? { note } : {}),
  };
}

export function withinBudget(figure: Figure): boolean | undefined {
  if (!figure.budget) return undefined;
  if (figure.budget.atLeast) return figure.median >= figure.budget.max;
  return figure.budget.inclusive ? figure.median <= figure.budget.max : figure.median < figure.budget.max;
}

/** Wall-clock milliseconds with sub-millisecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
