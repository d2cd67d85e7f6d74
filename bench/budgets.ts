/**
 * The budgets (issue 14 and 34; bench/README.md has each key's method) and
 * how `npm run bench` judges them against bench/results.json.
 *
 * A budget is judged on the figure its bench records, which is a median of
 * several runs (or, for a maximum such as a longest task, the largest of at
 * least MIN_MAX_SAMPLES samples: `maxOfSamples`), never on the best run. A
 * budget relative to a reference (the realm's start against this machine's
 * floor) holds only when both figures come from the same run of the same
 * bench, where the reference is measured interleaved with what it bounds.
 * Benches record and print; the verdict is printed, and kept in results.json.
 */
import type { MachineConditions } from "./machineLoad";

/** One figure in bench/results.json. */
export interface Figure {
  value: number;
  /** The bench file that took it. */
  bench: string;
  /** When that bench run started (ISO): figures of one run share it. */
  takenAt: string;
  /** How busy the machine was before and after that bench run. */
  machine?: MachineConditions;
  /** The budget's verdict when the figure has one. */
  budget?: { limit: string; holds: boolean };
}

export type Results = Record<string, Figure>;

export type Budget =
  | { key: string; at_most: number }
  | { key: string; at_least: number }
  | { key: string; at_most_times: number; of: string };

export const BUDGETS: readonly Budget[] = [
  // Issue 34 §3: the realm's start as a ratio to its floor, measured interleaved in one run.
  { key: "realm.readyMs", at_most_times: 2.2, of: "realm.floorReadyMs" },
  { key: "realm.leanReadyMs", at_most_times: 1.9, of: "realm.floorReadyMs" },
  { key: "realm.bundleGzipKB", at_most: 250 },
  { key: "realm.stuckResetMs", at_most: 1_000 },
  { key: "app.initialJsGzipKB", at_most: 150 },
  { key: "app.interactiveMs", at_most: 400 },
  { key: "app.linkInteractiveMs", at_most: 1_000 },
  { key: "json.partial68KBMs", at_most: 10 },
  { key: "exec.bigStatement2000Ms", at_most: 100 },
  { key: "exec.statementStartP95Ms", at_most: 2 },
  { key: "exec.split3KBStatementMs", at_most: 20 },
  { key: "protocol.throughputMBps", at_least: 50 },
  { key: "host.longestTaskMs", at_most: 50 },
  { key: "host.longestTaskMs2000tps", at_most: 50 },
  { key: "host.worstFrameCpuMs200k", at_most: 16 },
  { key: "host.cpuMsPer1kTokens", at_most: 60 },
  { key: "ui.clickToDomP95Ms", at_most: 16 },
  { key: "ui.clickToDomP95MsWhileStreaming", at_most: 8 },
  { key: "ui.stream1000RowsLongestTaskMs", at_most: 50 },
  { key: "store.open500MessagesMs", at_most: 1_000 },
  { key: "store.writesPerReply", at_most: 2 },
  { key: "memory.heapAfter500MessagesMB", at_most: 150 },
  { key: "memory.realmResetLeakKB", at_most: 500 },
  { key: "session.open2000MessagesMs", at_most: 400 },
  { key: "render.hugeReplyLongestTaskMs", at_most: 100 },
  { key: "render.hugeStreamLongestTaskMs", at_most: 100 },
  { key: "session.open2000LongestTaskMs", at_most: 50 },
  // Issue 34 §4: the capabilities of that turn.
  { key: "storage.durableMs", at_most: 500 },
  { key: "edit.rerunMs", at_most: 100 },
  { key: "mcpApp.firstPaintMs", at_most: 300 },
];

export interface Verdict {
  key: string;
  limit: string;
  value?: number;
  /** Undefined when the figure (or its reference from the same run) is missing. */
  holds?: boolean;
  /** The figure was taken on a machine its run called idle (undefined: not recorded). */
  idle?: boolean;
  note?: string;
}

export function limitText(budget: Budget): string {
  if ("at_most_times" in budget) return `≤ ${budget.at_most_times} × ${budget.of}`;
  if ("at_most" in budget) return `≤ ${budget.at_most}`;
  return `≥ ${budget.at_least}`;
}

/** Judge one budget on the recorded figures. */
export function judge(budget: Budget, results: Results): Verdict {
  const limit = limitText(budget);
  const figure = results[budget.key];
  if (!figure || !Number.isFinite(figure.value)) return { key: budget.key, limit, note: "not measured" };
  const base = { key: budget.key, limit, value: figure.value, idle: figure.machine?.idle };
  if ("at_most" in budget) return { ...base, holds: figure.value <= budget.at_most };
  if ("at_least" in budget) return { ...base, holds: figure.value >= budget.at_least };
  const reference = results[budget.of];
  if (!reference || !Number.isFinite(reference.value)) return { ...base, note: `${budget.of} not measured` };
  if (reference.bench !== figure.bench || reference.takenAt !== figure.takenAt)
    return { ...base, note: `${budget.of} comes from another run` };
  const bound = budget.at_most_times * reference.value;
  return {
    ...base,
    holds: figure.value <= bound,
    note: `${figure.value} / ${reference.value} = ${(figure.value / reference.value).toFixed(2)}×`,
  };
}

export function judgeAll(results: Results, budgets: readonly Budget[] = BUDGETS): Verdict[] {
  return budgets.map((budget) => judge(budget, results));
}

/** The median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no samples");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Fewest samples a maximum (a longest task, a stuck reset) is taken from. */
export const MIN_MAX_SAMPLES = 5;

/** The largest of at least MIN_MAX_SAMPLES samples: a maximum of fewer says little about the next run. */
export function maxOfSamples(values: readonly number[]): number {
  if (values.length < MIN_MAX_SAMPLES)
    throw new Error(`a maximum needs at least ${MIN_MAX_SAMPLES} samples, got ${values.length}`);
  return Math.max(...values);
}

/**
 * results.json as written before figures carried their conditions was a flat
 * `{ key: number }`: such entries are kept, marked as from an unknown run.
 */
export function readResults(parsed: unknown): Results {
  const results: Results = {};
  if (!parsed || typeof parsed !== "object") return results;
  for (const [key, entry] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof entry === "number") results[key] = { value: entry, bench: "unknown", takenAt: "unknown" };
    else if (entry && typeof entry === "object" && typeof (entry as Figure).value === "number")
      results[key] = entry as Figure;
  }
  return results;
}
