/**
 * `npm run bench`: runs every bench/*.bench.ts, prints their numbers and writes
 * them to bench/results.json, each figure as `{ value, bench, takenAt,
 * machine: { before, after, idle }, budget? }` (bench/budgets.ts). Benchmarks
 * print and record; they never pass or fail. At the end the runner prints
 * each budget's verdict (bench/budgets.ts) with the machine's state.
 *
 * `npm run bench -- name …` runs some: a name that is a bench's own
 * (`app` → app.bench.ts) picks that one only; any other is matched as part
 * of the file name (`re` → realm, render, store).
 *
 * Each bench runs in a Node process of its own (bench/runOne.ts), one after
 * the other: a Node bench no longer measures in a heap full of the browser
 * benches' garbage, and a bench's browser is gone before the next starts.
 * Before each bench the runner waits (up to 5 s) for the machine to be
 * mostly idle, so that a bench does not measure in the shadow of whatever
 * still runs (the last bench's browser processes ending, say): the
 * protocol parser once read 44.6 MB/s right after the memory bench in a
 * whole run, 78–98 MB/s alone (the cause was not reproduced). It then
 * samples how busy the machine is (bench/machineLoad.ts), and again once the
 * bench has ended, and stores both with every figure the bench returned.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import {
  busyShare,
  idleVerdict,
  parseCpuTicks,
  sampleMachine,
  SAMPLE_WINDOW_MS,
  type MachineReader,
} from "./machineLoad";
import { BUDGETS, judge, judgeAll, readResults } from "./budgets";

const pause = new Int32Array(new SharedArrayBuffer(4));
const reader: MachineReader = {
  loadAverage: () => readFileSync("/proc/loadavg", "utf8"),
  cpuStat: () => readFileSync("/proc/stat", "utf8"),
  sleep: (ms) => void Atomics.wait(pause, 0, 0, ms),
};
/** Linux's /proc is there (elsewhere nothing is sampled and figures carry no machine state). */
const canSample = existsSync("/proc/stat") && existsSync("/proc/loadavg");

/** Wait until the machine's CPUs were at most 20 % busy over a quarter second, or 5 s have passed. */
function settle(): void {
  if (!canSample) return;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const before = parseCpuTicks(reader.cpuStat());
    reader.sleep(250);
    if (busyShare(before, parseCpuTicks(reader.cpuStat())) <= 0.2) return;
  }
}

const dir = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv.slice(2);
const all = readdirSync(dir)
  .filter((name) => name.endsWith(".bench.ts"))
  .sort();
function pickBenches(files: readonly string[], names: readonly string[]): string[] {
  if (names.length === 0) return [...files];
  return files.filter((file) =>
    names.some((name) => (files.includes(`${name}.bench.ts`) ? file === `${name}.bench.ts` : file.includes(name))),
  );
}
const files = pickBenches(all, only);

const resultsPath = join(dir, "results.json");
const results = readResults(existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, "utf8")) : {});
const scratch = mkdtempSync(join(tmpdir(), "livemark-bench-"));
const sampleText = (sample: { load1: number; cpuBusy: number }) =>
  `load ${sample.load1.toFixed(2)}, CPU ${Math.round(sample.cpuBusy * 100)} % busy`;

try {
  for (const file of files) {
    settle();
    const before = canSample ? sampleMachine(reader, SAMPLE_WINDOW_MS) : undefined;
    const takenAt = new Date().toISOString();
    console.log(`\n## ${file}${before ? ` (before: ${sampleText(before)})` : ""}`);
    const out = join(scratch, `${file}.json`);
    // The bench's own output goes straight to this terminal; its figures come back in a file.
    execFileSync(process.execPath, ["--import", "tsx", join(dir, "runOne.ts"), join(dir, file), out], {
      stdio: "inherit",
    });
    const after = canSample ? sampleMachine(reader, SAMPLE_WINDOW_MS) : undefined;
    const machine = before && after ? { before, after, idle: idleVerdict(before, after) } : undefined;
    if (machine) console.log(`(after: ${sampleText(machine.after)}; ${machine.idle ? "idle" : "busy"})`);
    const metrics = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
    for (const [name, value] of Object.entries(metrics)) {
      results[name] = { value, bench: file, takenAt, machine };
      console.log(`${name} = ${value}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

for (const budget of BUDGETS) {
  const figure = results[budget.key];
  const verdict = judge(budget, results);
  if (figure && verdict.holds !== undefined) figure.budget = { limit: verdict.limit, holds: verdict.holds };
}
writeFileSync(resultsPath, JSON.stringify(results, null, 2) + "\n");
console.log(
  `\nwrote ${resultsPath}\n\nbudgets (judged on the recorded figure: a median, or a maximum of ≥ 5 samples):`,
);
for (const verdict of judgeAll(results)) {
  const state = verdict.holds === undefined ? "—" : verdict.holds ? "holds" : "FAILS";
  const load = verdict.idle === undefined ? "" : verdict.idle ? " (idle)" : " (busy machine)";
  const value = verdict.value === undefined ? "" : ` ${verdict.value}`;
  console.log(
    `${state.padEnd(6)} ${verdict.key}${value} ${verdict.limit}${load}${verdict.note ? `; ${verdict.note}` : ""}`,
  );
}
