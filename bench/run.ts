/**
 * `npm run bench`: runs every bench/*.bench.ts, prints their numbers and writes
 * them to bench/results.json as one flat `{ "metric": number }` object.
 * Benchmarks print and record; they never pass or fail.
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
 * whole run, 78–98 MB/s alone (the cause was not reproduced).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** Busy and total CPU ticks of the whole machine (Linux); undefined elsewhere. */
function cpuTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle + iowait
    return { busy: total - fields[3] - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** Wait until the machine's CPUs were at most 20 % busy over a quarter second, or 5 s have passed. */
function settle(): void {
  const deadline = Date.now() + 5_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < deadline) {
    const before = cpuTicks();
    Atomics.wait(pause, 0, 0, 250);
    const after = cpuTicks();
    if (!before || !after) return;
    if (after.total > before.total && (after.busy - before.busy) / (after.total - before.total) <= 0.2) return;
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
const results: Record<string, number> = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, "utf8")) : {};
const scratch = mkdtempSync(join(tmpdir(), "livemark-bench-"));

try {
  for (const file of files) {
    settle();
    console.log(`\n## ${file}`);
    const out = join(scratch, `${file}.json`);
    // The bench's own output goes straight to this terminal; its figures come back in a file.
    execFileSync(process.execPath, ["--import", "tsx", join(dir, "runOne.ts"), join(dir, file), out], {
      stdio: "inherit",
    });
    const metrics = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
    for (const [name, value] of Object.entries(metrics)) {
      results[name] = value;
      console.log(`${name} = ${value}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

writeFileSync(resultsPath, JSON.stringify(results, null, 2) + "\n");
console.log(`\nwrote ${resultsPath}`);
