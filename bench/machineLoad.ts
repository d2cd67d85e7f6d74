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
  /** Both CPU samples quiet and the load average before low (see `idleVerdict`). */
  idle: boolean;
}

/** CPU-busy share at or below which a sample counts as quiet. */
export const IDLE_CPU_BUSY = 0.2;
/**
 * Load average per core at or below which the machine counts as idle
 * before a bench. Only the sample before is judged on it: the minute's
 * average after a bench mostly counts the bench's own processes.
 */
export const IDLE_LOAD_PER_CORE = 0.5;

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
 * Idle: the CPU was quiet just before and just after the bench, and the
 * load average before it was at most IDLE_LOAD_PER_CORE per core.
 */
export function idleVerdict(before: MachineSample, after: MachineSample, cores: number): boolean {
  return (
    before.cpuBusy <= IDLE_CPU_BUSY && after.cpuBusy <= IDLE_CPU_BUSY && before.load1 <= IDLE_LOAD_PER_CORE * cores
  );
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
