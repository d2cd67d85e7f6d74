/**
 * A tool, not a bench: the long tasks of bench/hugeReply.bench.ts's import
 * and of one reload, from a Chromium trace, each with what its time went to
 * (the trace events inside it, by self time, and the JavaScript functions
 * the sampling profiler saw in it).
 *   npx tsx bench/traceHugeReply.ts [reloads = 1]
 * or of the streamed case (`render.hugeStreamLongestTaskMs`: the 1.5 M
 * characters the mock LLM streams, from the send until Done and drawn):
 *   npx tsx bench/traceHugeReply.ts stream
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_DIR, launchBrowser, openReadyApp, serveStatic, waitFor } from "../e2e/harness";
import { startMockLlm } from "../e2e/mockLlm";
import { STREAM_DONE, sessionExport, startHugeStream, streamTab } from "./hugeReply.bench";
import type { ProfileNode, TraceEvent } from "./traceEvent";

const LAST_DRAWN = `(() => {
  const segments = document.querySelectorAll(".lm-segment");
  return segments.length > 0 && (segments[segments.length - 1].textContent ?? "").includes("The very last paragraph.");
})()`;

/** A CPU profile taken alongside the trace (CDP `Profiler`, denser than the trace's own samples). */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

function report(label: string, events: TraceEvent[], profile?: CpuProfile): void {
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
  if (profile) {
    // The profiler's clock is the trace's (microseconds of the same monotonic clock).
    samples.length = 0;
    for (const node of profile.nodes) nodes.set(node.id + 1e9, { ...node, id: node.id + 1e9 });
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      at += profile.timeDeltas[index] ?? 0;
      samples.push({ ts: at, node: id + 1e9 });
    });
  }
  const tasks = mine.filter((event) => event.name === TASK && (event.dur ?? 0) > 50_000);
  // Starting and stopping the sampling profiler are tasks of their own (tens of ms of CPU): left out.
  const profiler = mine.filter((event) => event.name.startsWith("CpuProfiler"));
  const byCpu = mine
    .filter(
      (event) =>
        event.name === TASK &&
        !profiler.some((inner) => inner.ts >= event.ts && inner.ts <= event.ts + (event.dur ?? 0)),
    )
    .sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0))
    .slice(0, 10);
  console.log(`${label}: ${tasks.length} tasks over 50 ms`);
  console.log(
    `  the most CPU in one task (ms of CPU / of wall): ${byCpu.map((task) => `${((task.tdur ?? 0) / 1000).toFixed(0)}/${((task.dur ?? 0) / 1000).toFixed(0)}`).join(", ")}`,
  );
  // Tasks of much CPU are listed even when the machine's load did not stretch them past 50 ms.
  for (const task of byCpu) if ((task.tdur ?? 0) > 20_000 && !tasks.includes(task)) tasks.push(task);
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
    const topFunctions = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(
      `  task ${((task.dur ?? 0) / 1000).toFixed(0)} ms (CPU ${((task.tdur ?? 0) / 1000).toFixed(0)} ms) at ${(task.ts / 1000).toFixed(0)}`,
    );
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

if (process.argv[2] === "stream") {
  const [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(DIST_DIR), startMockLlm()]);
  try {
    const page = await streamTab(browser, app.url, mock);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 250 });
    await browser.startTracing(page, { categories: CATEGORIES });
    await cdp.send("Profiler.start");
    await startHugeStream(page, mock);
    await waitFor(() => page.evaluate(STREAM_DONE), 300_000, 250);
    const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: CpuProfile };
    const buf = await browser.stopTracing();
    writeFileSync(join(tmpdir(), "hugeStream.trace.json"), buf);
    report("the stream", JSON.parse(buf.toString()).traceEvents, profile);
  } finally {
    await Promise.all([browser.close(), app.close(), mock.close()]);
  }
  process.exit(0);
}

const reloads = Number(process.argv[2] ?? 1);
const dir = mkdtempSync(join(tmpdir(), "livemark-huge-trace-"));
const file = join(dir, "huge.json");
writeFileSync(file, await sessionExport());
const [browser, app] = await Promise.all([launchBrowser(), serveStatic(DIST_DIR)]);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await openReadyApp(page, app.url);
  await browser.startTracing(page, { categories: CATEGORIES });
  await page.locator('input[type="file"][accept*="json"]').setInputFiles(file);
  await waitFor(() => page.evaluate(LAST_DRAWN), 300_000, 250);
  {
    const buf = await browser.stopTracing();
    writeFileSync(join(tmpdir(), "hugeImport.trace.json"), buf);
    report("the import", JSON.parse(buf.toString()).traceEvents);
  }
  for (let load = 0; load < reloads; load += 1) {
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.reload();
    await waitFor(() => page.evaluate(LAST_DRAWN), 300_000, 250);
    report(`reload ${load + 1}`, JSON.parse((await browser.stopTracing()).toString()).traceEvents);
  }
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
