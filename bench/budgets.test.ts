import { describe, expect, it } from "vitest";
import { judge, judgeAll, maxOfSamples, median, readResults, type Figure, type Results } from "./budgets";

const figure = (value: number, extra: Partial<Figure> = {}): Figure => ({
  value,
  bench: "realm.bench.ts",
  takenAt: "2026-12-06T10:00:00.000Z",
  ...extra,
});

describe("budgets", () => {
  it("an upper or lower bound holds on the recorded figure", () => {
    const results: Results = { "a.ms": figure(100), "b.mbps": figure(49.9) };
    expect(judge({ key: "a.ms", at_most: 100 }, results)).toMatchObject({ holds: true, limit: "≤ 100" });
    expect(judge({ key: "a.ms", at_most: 99 }, results).holds).toBe(false);
    expect(judge({ key: "b.mbps", at_least: 50 }, results)).toMatchObject({ holds: false, limit: "≥ 50" });
  });

  it("a figure not measured has no verdict", () => {
    expect(judge({ key: "c.ms", at_most: 1 }, {})).toEqual({ key: "c.ms", limit: "≤ 1", note: "not measured" });
  });

  it("a ratio to a reference holds only with the reference from the same run", () => {
    const budget = { key: "realm.readyMs", at_most_times: 2.2, of: "realm.floorReadyMs" };
    const same: Results = { "realm.readyMs": figure(264), "realm.floorReadyMs": figure(120) };
    expect(judge(budget, same)).toMatchObject({ holds: true, note: "264 / 120 = 2.20×" });
    expect(judge(budget, { ...same, "realm.readyMs": figure(265) }).holds).toBe(false);
    const otherRun = { ...same, "realm.floorReadyMs": figure(120, { takenAt: "2026-12-06T09:00:00.000Z" }) };
    expect(judge(budget, otherRun).note).toBe("realm.floorReadyMs comes from another run");
    expect(judge(budget, otherRun).holds).toBeUndefined();
    expect(judge(budget, { "realm.readyMs": figure(200) }).note).toBe("realm.floorReadyMs not measured");
  });

  it("says whether the figure's run was on an idle machine", () => {
    const sample = { load1: 3, cpuBusy: 0.6, windowMs: 500 };
    const busy = figure(1, { machine: { before: sample, after: sample, idle: false } });
    expect(judge({ key: "a.ms", at_most: 2 }, { "a.ms": busy })).toMatchObject({ holds: true, idle: false });
    expect(judge({ key: "a.ms", at_most: 2 }, { "a.ms": figure(1) }).idle).toBeUndefined();
  });

  it("judges every listed budget", () => {
    const verdicts = judgeAll({ "a.ms": figure(3) }, [
      { key: "a.ms", at_most: 2 },
      { key: "b.ms", at_most: 2 },
    ]);
    expect(verdicts.map((verdict) => [verdict.key, verdict.holds])).toEqual([
      ["a.ms", false],
      ["b.ms", undefined],
    ]);
  });

  it("medians, not the best run", () => {
    expect(median([90, 12, 40, 35, 300])).toBe(40);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });

  it("a maximum comes from at least 5 samples", () => {
    expect(maxOfSamples([1, 9, 3, 4, 5])).toBe(9);
    expect(() => maxOfSamples([1, 2, 3, 4])).toThrow(/at least 5 samples, got 4/);
  });

  it("reads the old flat results.json and the new one", () => {
    const results = readResults({ "a.ms": 3, "b.ms": figure(4), junk: "x" });
    expect(results).toEqual({ "a.ms": { value: 3, bench: "unknown", takenAt: "unknown" }, "b.ms": figure(4) });
  });
});
