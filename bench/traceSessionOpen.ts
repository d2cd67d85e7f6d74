/**
 * A tool, not a bench: the long tasks of bench/session.bench.ts's reloads,
 * from navigation until the last of the 2,000 messages is visible, from a
 * Chromium trace, each with what its time went to (the trace events inside
 * it, by self time, and the JavaScript functions the sampling profiler saw).
 *   npx tsx bench/traceSessionOpen.ts [reloads = 3]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_DIR, launchBrowser, openReadyApp, serveStatic, waitFor } from "../e2e/harness";
import { sessionExport } from "./session.bench";
import type { ProfileNode, TraceEvent } from "./traceEvent";

const LAST_VISIBLE = `(() => {
  const last = document.querySelector('article[data-message-id="m1999"]');
  if (!last || last.textContent.trim() === "") return false;
  const box = last.getBoundingClientRect();
  return box.height > 0 && box.top < innerHeight && box.bottom > 0;
})()`;

function report(label: string, events: TraceEvent[]): void {
  const thread = (event: TraceEvent) => `${event.pid}:${event.tid}`;
  const names = new Map(
    events.filter((event) => event.ph === "M" && event.name === "thread_name").map((e) => [thread(e), e.args?.name]),
  );
  const TASK = "RunTask";
  const busy = new Map<string, number>();
  for (const event of events)
    if (event.ph === "X" && event.name === TASK && names.get(thread(event)) === "CrRendererMain")
      busy.set(thread(event), (busy.get(thread(event)) ?? 0) + (event.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = events.filter((event) => thread(event) === main && event.ph === "X").sort((a, b) => a.ts - b.ts);
  // JS samples (ProfileChunk events of the main thread's profile).
  const nodes = new Map<number, ProfileNode>();
  const samples: { ts: number; node: number }[] = [];
  const [mainPid] = (main ?? "0:0").split(":").map(Number);
  const [, mainTid] = (main ?? "0:0").split(":").map(Number);
  let sampleTs = 0;
  let profileId: string | undefined;
  for (const event of events) {
    if (event.name === "Profile" && event.pid === mainPid && event.tid === mainTid) {
      profileId = event.id;
      sampleTs = (event.args?.data as { startTime?: number })?.startTime ?? sampleTs;
    }
    if (event.name !== "ProfileChunk" || event.pid !== mainPid || event.id !== profileId) continue;
    const data = event.args?.data;
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    const ids = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    ids.forEach((id, index) => {
      sampleTs += deltas[index] ?? 0;
      samples.push({ ts: sampleTs, node: id });
    });
  }
  const tasks = mine.filter((event) => event.name === TASK && (event.dur ?? 0) > 50_000);
  console.log(`${label}: ${tasks.length} tasks over 50 ms`);
  for (const task of tasks.sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0)).slice(0, 12)) {
    const end = task.ts + (task.dur ?? 0);
    const inside = mine.filter((event) => event !== task && event.ts >= task.ts && event.ts + (event.dur ?? 0) <= end);
    // Self time: minus direct children.
    const self = new Map<string, number>();
    for (const event of inside) {
      const children = inside.filter(
        (child) =>
          child !== event && child.ts >= event.ts && child.ts + (child.dur ?? 0) <= event.ts + (event.dur ?? 0),
      );
      let covered = 0;
      let until = 0;
      for (const child of children) {
        if (child.ts < until) continue;
        covered += child.dur ?? 0;
        until = child.ts + (child.dur ?? 0);
      }
      const extra =
        event.name === "FunctionCall"
          ? ` ${event.args?.data?.functionName ?? ""}@${(event.args?.data?.url ?? "").split("/").pop()}`
          : "";
      const key = event.name + extra;
      self.set(key, (self.get(key) ?? 0) + (event.dur ?? 0) - covered);
    }
    const functions = new Map<string, number>();
    for (const sample of samples) {
      if (sample.ts < task.ts || sample.ts > end) continue;
      const frame = nodes.get(sample.node)?.callFrame;
      const key = `${frame?.functionName || "(anon)"}@${(frame?.url ?? "").split("/").pop()}:${frame?.lineNumber ?? ""}`;
      functions.set(key, (functions.get(key) ?? 0) + 1);
    }
    const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 10);
    const topFunctions = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`  task ${((task.dur ?? 0) / 1000).toFixed(0)} ms at ${(task.ts / 1000).toFixed(0)}`);
    console.log(`    events: ${top.map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`).join(" | ")}`);
    console.log(`    samples: ${topFunctions.map(([name, n]) => `${name} ${n}`).join(" | ")}`);
  }
}

const CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "v8.execute",
  "disabled-by-default-v8.cpu_profiler",
  "blink.user_timing",
  "v8",
];

const reloads = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "livemark-open-trace-"));
const file = join(dir, "session.json");
writeFileSync(file, await sessionExport());
const [browser, app] = await Promise.all([launchBrowser(), serveStatic(DIST_DIR)]);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await openReadyApp(page, app.url);
  await page.locator('input[type="file"][accept*="json"]').setInputFiles(file);
  await waitFor(() => page.evaluate(LAST_VISIBLE), 180_000, 50);
  await page.locator('[data-message-id="m0"]').waitFor({ state: "attached", timeout: 60_000 });
  for (let load = 0; load < reloads; load += 1) {
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.reload();
    await waitFor(() => page.evaluate(LAST_VISIBLE), 60_000, 10);
    report(`reload ${load + 1}`, JSON.parse((await browser.stopTracing()).toString()).traceEvents);
    // The older messages are read after the paint: the next reload waits for them, so none of this page's work
    // is in the next trace.
    await page.locator('[data-message-id="m0"]').waitFor({ state: "attached", timeout: 60_000 });
  }
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
