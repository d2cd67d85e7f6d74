#!/usr/bin/env node
// `npm test`: build the app, then run the Node suites and the browser suites
// one after the other (CPU-heavy property tests running beside Chromium would
// only slow both). The browser files run in two groups: first the files that
// hold the app to wall-clock budgets (SERIAL_E2E: long tasks, "within a
// second", the loop guard, a phone's scroll-follow, an ask's disarmed time),
// one at a time with the machine to themselves; then the rest, two side by
// side (LIVEMARK_E2E_WORKERS,
// vitest.config.ts), each with its own Chromium and servers. With file filters
// or options after `npm test --`, the browser files run as one group as before.
// The format check (Prettier) counts as one test.
// Prints each runner's output and how long it took,
// then one line "N passed, N failed" with the totals, and writes them to
// test-results/summary.json for CI. Retries are off; should a project turn
// them on again, a test that passed only on a retry is named above that line.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "test-results");
mkdirSync(out, { recursive: true });
const extra = process.argv.slice(2);

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/**
 * Browser files whose tests hold the app to wall-clock budgets: a second Chromium beside them on 2 cores
 * pushed them past those budgets, so they run alone. app, hostile: Stop within a second, long tasks;
 * sandbox: the loop guard, a reset within 2 s; layout and a11y: a phone's scroll-follow (a panel drawn only
 * near the viewport is missed when the view stops following under load); capabilities: a
 * double-click's second click lands within the ask's 500 ms disarmed time; mountIdentity: four demo
 * replies at the demo's pace within 10–20 s polls; sessions: twelve live 3,000-node grids drawn within 30 s.
 */
const SERIAL_E2E = [
  "e2e/a11y.test.ts",
  "e2e/app.test.ts",
  "e2e/capabilities.test.ts",
  "e2e/hostile.test.ts",
  "e2e/layout.test.ts",
  "e2e/mountIdentity.test.ts",
  "e2e/sandbox.test.ts",
  "e2e/sessions.test.ts",
];
const e2eFiles = readdirSync(join(root, "e2e"))
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `e2e/${name}`)
  .sort();
const missing = SERIAL_E2E.filter((file) => !e2eFiles.includes(file));
if (missing.length > 0) throw new Error(`scripts/test.mjs: SERIAL_E2E names files that do not exist: ${missing}`);

/** The runs, one after the other: a name (for its report file), the vitest arguments after the project, its env. */
const runs = [{ name: "unit", project: "unit", files: [], env: {} }];
if (extra.length > 0) runs.push({ name: "e2e", project: "e2e", files: [], env: {} });
else
  runs.push(
    { name: "e2e-serial", project: "e2e", files: SERIAL_E2E, env: { LIVEMARK_E2E_WORKERS: "1" } },
    {
      name: "e2e-parallel",
      project: "e2e",
      files: e2eFiles.filter((file) => !SERIAL_E2E.includes(file)),
      env: { LIVEMARK_E2E_WORKERS: process.env.LIVEMARK_E2E_WORKERS ?? "2" },
    },
  );

let failedSteps = 0;
if (run("npm", ["run", "build"]) !== 0) {
  console.error("build failed");
  failedSteps += 1;
}
// The tree is formatted with Prettier (.prettierrc.json): an unformatted file counts as one failed check.
const formatted = run("npx", ["prettier", "--check", "--log-level", "warn", "."]) === 0;
if (!formatted) console.error("unformatted files (above): run npm run format");

/**
 * Tests that passed after failing (the e2e project retries; vitest.config.ts): the JSON report keeps
 * the failed attempts' messages on a test whose status is "passed".
 */
function passedOnRetry(result) {
  return result.testResults.flatMap((file) =>
    file.assertionResults
      .filter((test) => test.status === "passed" && test.failureMessages.length > 0)
      .map((test) => ({
        file: file.name.slice(root.length),
        test: test.fullName,
        failedAttempts: test.failureMessages.length,
        firstFailure: test.failureMessages[0].split("\n")[0],
      })),
  );
}

/** The tests that failed, named: CI shows only the end of the output, so they are listed again there. */
function failedTests(result) {
  return result.testResults.flatMap((file) => {
    const tests = file.assertionResults
      .filter((test) => test.status === "failed")
      .map((test) => ({
        file: file.name.slice(root.length),
        test: test.fullName,
        firstFailure: (test.failureMessages[0] ?? "").split("\n")[0],
      }));
    // A file that failed to load has no failed test of its own, only its message.
    if (tests.length === 0 && file.status === "failed")
      tests.push({
        file: file.name.slice(root.length),
        test: "(the file)",
        firstFailure: (file.message ?? "").split("\n")[0],
      });
    return tests;
  });
}

let passed = formatted ? 1 : 0;
let failed = formatted ? 0 : 1;
const flaky = [];
const failures = [];
for (const { name, project, files, env } of runs) {
  if (failedSteps > 0 && project === "e2e") {
    failed += 1;
    continue;
  }
  const report = join(out, `${name}.json`);
  // A report left by an earlier run must not stand in for this one.
  rmSync(report, { force: true });
  const started = Date.now();
  const status = run(
    "npx",
    [
      "vitest",
      "run",
      "--project",
      project,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...files,
      ...extra,
    ],
    env,
  );
  if (!existsSync(report)) {
    failed += 1;
    continue;
  }
  console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const result = JSON.parse(readFileSync(report, "utf8"));
  passed += result.numPassedTests;
  flaky.push(...passedOnRetry(result));
  failures.push(...failedTests(result).map((test) => ({ run: name, ...test })));
  const projectFailed = result.numFailedTests + (result.numRuntimeErrorTests ?? 0);
  failed += projectFailed;
  // A suite that failed to load counts as a failure even with no failed test.
  if (status !== 0 && projectFailed === 0) failed += 1;
}

if (flaky.length > 0) {
  console.log(`\n${flaky.length} passed only on a retry:`);
  for (const test of flaky)
    console.log(`  ${test.file} > ${test.test} (failed ${test.failedAttempts}×: ${test.firstFailure})`);
  console.log("");
}
if (failures.length > 0) {
  console.log(`\n${failures.length} failed:`);
  for (const test of failures) console.log(`  [${test.run}] ${test.file} > ${test.test}: ${test.firstFailure}`);
  console.log("");
}
writeFileSync(join(out, "summary.json"), JSON.stringify({ passed, failed, flaky, failures }) + "\n");
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
