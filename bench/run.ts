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
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

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
    console.log(`\n## ${file}`);
    const out = join(scratch, `${file}.json`);
    // The bench's own output goes straight to this terminal; its figures come back in a file.
    execFileSync(process.execPath, ["--import", "tsx", join(dir, "runOne.ts"), join(dir, file), out], { stdio: "inherit" });
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
