import { describe, expect, it } from "vitest";
import {
  busyShare,
  idleVerdict,
  parseCpuTicks,
  parseLoadAverage,
  sampleMachine,
  type MachineReader,
  type MachineSample,
} from "./machineLoad";

const stat = (user: number, idle: number, iowait = 0) =>
  `cpu  ${user} 0 0 ${idle} ${iowait} 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\n`;

describe("machine load", () => {
  it("reads the 1-minute load average", () => {
    expect(parseLoadAverage("1.08 5.52 6.53 1/122 25165\n")).toBe(1.08);
    expect(() => parseLoadAverage("")).toThrow(/not a load average/);
  });

  it("counts idle and iowait as not busy, guest time once (it is in user already)", () => {
    expect(parseCpuTicks("cpu  100 10 20 500 30 5 5 0 40 0\n")).toEqual({ busy: 140, total: 670 });
    expect(() => parseCpuTicks("intr 1 2 3")).toThrow(/not \/proc\/stat/);
  });

  it("the busy share between two readings", () => {
    expect(busyShare(parseCpuTicks(stat(100, 100)), parseCpuTicks(stat(130, 170)))).toBeCloseTo(0.3);
    // No tick passed: nothing was busy.
    expect(busyShare({ busy: 5, total: 10 }, { busy: 5, total: 10 })).toBe(0);
  });

  it("samples the CPU over its window and reads the load average", () => {
    const stats = [stat(1_000, 1_000), stat(1_010, 1_090)];
    const slept: number[] = [];
    const reader: MachineReader = {
      loadAverage: () => "0.42 0.3 0.2 1/100 1",
      cpuStat: () => stats.shift()!,
      sleep: (ms) => void slept.push(ms),
    };
    expect(sampleMachine(reader, 300)).toEqual({ load1: 0.42, cpuBusy: 0.1, windowMs: 300 });
    expect(slept).toEqual([300]);
  });

  it("idle: both CPU samples quiet; the load average, which lags a minute behind, is not judged", () => {
    const sample = (load1: number, cpuBusy: number): MachineSample => ({ load1, cpuBusy, windowMs: 1_000 });
    expect(idleVerdict(sample(0.5, 0.05), sample(3, 0.1))).toBe(true);
    // A quiet machine right after another browser bench: a high minute's average, nothing running.
    expect(idleVerdict(sample(4.7, 0.01), sample(2.1, 0.02))).toBe(true);
    expect(idleVerdict(sample(0.5, 0.35), sample(0.5, 0.1))).toBe(false);
    expect(idleVerdict(sample(0.5, 0.05), sample(0.5, 0.4))).toBe(false);
  });
});
