/**
 * How busy the machine was around a bench (bench/run.ts samples it before
 * and after each one and stores it with every figure in results.json).
 *
 * A sample is the 1-minute load average (/proc/loadavg) and the share of
 * the machine's CPU time that was busy (not idle, not iowait) over a short
 * window (two reads of /proc/stat's first line). The parsers and the verdict
 * are pure; `sampleMachine` reads the files through the functions it is given.
 */

export interface MachineSample {
  /** /proc/loadavg's first field: runnable processes, averaged over a minute. */
  load1: number;
  /** Busy share of all cores' time over the sampling window, 0–1. */
  cpuBusy: number;
  /** Length of that window, ms. */
  windowMs: number;
}

export interface MachineConditions {
  before: MachineSample;
  after: MachineSample;
  /** Both CPU samples quiet (see `idleVerdict`). */
  idle: boolean;
}

/** CPU-busy share at or below which a sample counts as quiet. */
export const IDLE_CPU_BUSY = 0.2;
/** The window of each sample the runner takes: long enough that a process that is working shows. */
export const SAMPLE_WINDOW_MS = 1_000;

/** The 1-minute load average from /proc/loadavg's text. */
export function parseLoadAverage(text: string): number {
  const field = text.trim().split(/\s+/)[0];
  const value = Number(field);
  if (field === "" || !Number.isFinite(value))
    throw new Error(`not a load average: ${JSON.stringify(text.slice(0, 40))}`);
  return value;
}

export interface CpuTicks {
  busy: number;
  total: number;
}

/** Busy and total ticks of all cores from /proc/stat's text (its first, aggregate `cpu` line). */
export function parseCpuTicks(text: string): CpuTicks {
  const line = text.split("\n")[0].trim().split(/\s+/);
  if (line[0] !== "cpu") throw new Error(`not /proc/stat: ${JSON.stringify(text.slice(0, 40))}`);
  const fields = line.slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice: guest time is counted in user already.
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = fields[3] + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** The busy share between two readings (0 when no tick passed). */
export function busyShare(before: CpuTicks, after: CpuTicks): number {
  const total = after.total - before.total;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (after.busy - before.busy) / total));
}

/**
 * Idle: the CPU was quiet over a second just before the bench and over a
 * second just after it — nothing else was working when it started, and
 * nothing was still working when it ended (other work that competed with
 * the bench shows in one or both). The load average is recorded, not
 * judged: after a browser bench the minute's average keeps counting that
 * bench's processes for a minute or more, while nothing competes with the
 * next one (a whole run on a quiet machine read loads of 1.4–4.7 before
 * benches whose CPU samples were 0–2 % busy).
 */
export function idleVerdict(before: MachineSample, after: MachineSample): boolean {
  return before.cpuBusy <= IDLE_CPU_BUSY && after.cpuBusy <= IDLE_CPU_BUSY;
}

export interface MachineReader {
  loadAverage(): string;
  cpuStat(): string;
  /** Block for `ms` (the runner is synchronous between benches). */
  sleep(ms: number): void;
}

/** One sample: the load average, and the CPU's busy share over `windowMs`. */
export function sampleMachine(reader: MachineReader, windowMs = 500): MachineSample {
  const first = parseCpuTicks(reader.cpuStat());
  reader.sleep(windowMs);
  const second = parseCpuTicks(reader.cpuStat());
  return {
    load1: parseLoadAverage(reader.loadAverage()),
    cpuBusy: Math.round(busyShare(first, second) * 1000) / 1000,
    windowMs,
  };
}
