#!/usr/bin/env node
// `npm test`: build the app, then run the Node suites and the browser suites
// one after the other (on a 2-core machine, CPU-heavy property tests running
// beside Chromium make browser timings flaky). Prints each runner's output,
// then one line "N passed, N failed" with the totals, and writes them to
// test-results/summary.json for CI.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "test-results");
mkdirSync(out, { recursive: true });
const extra = process.argv.slice(2);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: process.env });
  return result.status ?? 1;
}

let failedSteps = 0;
if (run("npm", ["run", "build"]) !== 0) {
  console.error("build failed");
  failedSteps += 1;
}

let passed = 0;
let failed = 0;
for (const project of ["unit", "e2e"]) {
  if (failedSteps > 0 && project === "e2e") {
    failed += 1;
    continue;
  }
  const report = join(out, `${project}.json`);
  const status = run("npx", ["vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra]);
  if (!existsSync(report)) {
    failed += 1;
    continue;
  }
  const result = JSON.parse(readFileSync(report, "utf8"));
  passed += result.numPassedTests;
  const projectFailed = result.numFailedTests + (result.numRuntimeErrorTests ?? 0);
  failed += projectFailed;
  // A suite that failed to load counts as a failure even with no failed test.
  if (status !== 0 && projectFailed === 0) failed += 1;
}

writeFileSync(join(out, "summary.json"), JSON.stringify({ passed, failed }) + "\n");
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
