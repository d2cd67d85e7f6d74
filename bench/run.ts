/**
 * `npm run bench`: runs every bench/*.bench.ts, prints their numbers and writes
 * them to bench/results.json as one flat `{ "metric": number }` object.
 * Benchmarks print and record; they never pass or fail.
 */
import { readdirSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";

const dir = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => only.length === 0 || only.some((part) => name.includes(part)))
  .sort();

const resultsPath = join(dir, "results.json");
const results: Record<string, number> = existsSync(resultsPath)
  ? JSON.parse(readFileSync(resultsPath, "utf8"))
  : {};

for (const file of files) {
  console.log(`\n## ${file}`);
  const module = (await import(pathToFileURL(join(dir, file)).href)) as {
    run: () => Promise<Record<string, number>>;
  };
  const metrics = await module.run();
  for (const [name, value] of Object.entries(metrics)) {
    results[name] = value;
    console.log(`${name} = ${value}`);
  }
}

writeFileSync(resultsPath, JSON.stringify(results, null, 2) + "\n");
console.log(`\nwrote ${resultsPath}`);
