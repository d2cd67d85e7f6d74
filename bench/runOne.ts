/**
 * Runs one bench (bench/run.ts starts it in a fresh Node process): imports
 * the file, awaits its `run()` and writes the figures it returns to the
 * given JSON file.
 *   node --import tsx bench/runOne.ts bench/json.bench.ts /tmp/out.json
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [file, out] = process.argv.slice(2);
if (!file || !out) throw new Error("usage: runOne.ts <bench file> <out.json>");
const module = (await import(pathToFileURL(file).href)) as { run: () => Promise<Record<string, number>> };
writeFileSync(out, JSON.stringify(await module.run()));
// A bench that leaves a timer or a socket behind must not hold the whole run.
process.exit(0);
