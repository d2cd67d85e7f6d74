/**
 * A tool, not a bench: one fresh load of the built app (LIVEMARK_DIST_DIR
 * picks another build) with app.bench's interactive probe, traced from before
 * navigation to the composer taking the message. Prints the app page's main
 * thread: each task of 2 ms or more (start, duration, what it ran: script
 * URLs, compile/evaluate, style/layout) and the probe's times.
 *   npx tsx bench/profileStartup.ts
 * Resource timings (start, response start, response end) are printed too.
 * Environment: TRACE_EXTRA=cat1,cat2 more trace categories, TRACE=0 no trace (less perturbation: the trace's events
 * travel through this process, which also serves the app), PROFILE=1 a CPU profile too (self time per function, saved to
 * /tmp/startup/startup.cpuprofile); the trace is saved to /tmp/startup/startup.trace.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { launchBrowser, serveStatic, waitFor } from "../e2e/harness";
import { INTERACTIVE_PROBE } from "./app.bench";

type TraceEvent = {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: any;
};

mkdirSync("/tmp/startup", { recursive: true });
const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
const context = await browser.newContext();
try {
  const page = await context.newPage();
  await page.addInitScript(INTERACTIVE_PROBE);
  // When the composer first shows, and the main thread's long animation frames (with their scripts).
  await page.addInitScript(`{
    if (window === window.top) {
      const seen = (globalThis.__seen = {});
      new MutationObserver(() => {
        if (seen.composer === undefined && document.getElementById("lm-message")) seen.composer = performance.now();
      }).observe(document, { childList: true, subtree: true });
    }
  }`);
  const cdp = await context.newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (event: any) => events.push(...event.value));
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  const tracing = process.env.TRACE !== "0";
  if (tracing)
    await cdp.send("Tracing.start", {
      transferMode: "ReportEvents",
      traceConfig: {
        includedCategories: [
          "devtools.timeline",
          "disabled-by-default-devtools.timeline",
          "v8.execute",
          "v8",
          "blink.user_timing",
          "loading",
          "toplevel",
          "blink",
          ...(process.env.TRACE_EXTRA?.split(",") ?? []),
        ],
      },
    } as any);
  if (process.env.PROFILE === "1") {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    await cdp.send("Profiler.start");
  }
  await page.goto(app.url);
  const state = (await waitFor(
    async () => {
      const probe = await page.evaluate(() => (globalThis as any).__interactive);
      return probe.at !== undefined && probe.replying !== undefined ? probe : undefined;
    },
    30_000,
    20,
  )) as { at: number; replying: number };
  const marks = await page.evaluate(() =>
    performance.getEntriesByType("mark").map((mark) => `${mark.name} ${mark.startTime.toFixed(0)}`),
  );
  const nav = await page.evaluate(() => {
    const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return {
      responseEnd: entry.responseEnd,
      domInteractive: entry.domInteractive,
      dcl: entry.domContentLoadedEventEnd,
      load: entry.loadEventEnd,
    };
  });
  const seen = await page.evaluate(() => (globalThis as any).__seen);
  const frames = await page.evaluate(() =>
    performance.getEntriesByType("long-animation-frame").map((entry: any) => {
      const scripts = (entry.scripts ?? [])
        .filter((script: any) => script.duration >= 3)
        .map(
          (script: any) =>
            `${script.invokerType}:${script.invoker.split("/").pop()} ${script.duration.toFixed(0)} (compile ${Math.max(0, script.executionStart - script.startTime).toFixed(0)}, style/layout ${script.forcedStyleAndLayoutDuration.toFixed(0)})`,
        );
      return `${entry.startTime.toFixed(0).padStart(6)} +${entry.duration.toFixed(0).padStart(4)}  blocking ${entry.blockingDuration.toFixed(0)}, render ${entry.renderStart ? (entry.startTime + entry.duration - entry.renderStart).toFixed(0) : 0}, style/layout ${entry.styleAndLayoutStart ? (entry.startTime + entry.duration - entry.styleAndLayoutStart).toFixed(0) : 0}  ${scripts.join("; ")}`;
    }),
  );
  const resources = await page.evaluate(() =>
    performance.getEntriesByType("resource").map((entry) => {
      const timing = entry as PerformanceResourceTiming;
      return `${timing.startTime.toFixed(0).padStart(6)} ${timing.responseStart.toFixed(0).padStart(6)} ${timing.responseEnd.toFixed(0).padStart(6)}  ${timing.name.split("/").slice(3).join("/")}`;
    }),
  );
  let profile: any;
  if (process.env.PROFILE === "1") profile = (await cdp.send("Profiler.stop")).profile;
  if (tracing) {
    await cdp.send("Tracing.end");
    await complete;
  }
  if (tracing) writeFileSync("/tmp/startup/startup.trace.json", JSON.stringify({ traceEvents: events }));
  console.log("resources (start, response start, response end):");
  for (const line of resources) console.log(line);
  // The app page's main thread: the renderer whose navigationStart names the app's URL.
  const navStart = events.find(
    (event) =>
      event.name === "navigationStart" && String(event.args?.data?.documentLoaderURL ?? "").startsWith(app.url),
  );
  if (tracing && !navStart) throw new Error("no navigationStart for the app in the trace");
  if (profile && navStart) {
    writeFileSync("/tmp/startup/startup.cpuprofile", JSON.stringify(profile));
    writeFileSync(
      "/tmp/startup/startup.times.json",
      JSON.stringify({ navigationStart: navStart.ts, taken: state.at, composer: seen.composer }),
    );
    // Samples from navigation start to the composer taking the message (profile and trace share the clock).
    const until = navStart.ts + state.at * 1000;
    const counts = new Map<number, number>();
    let time = profile.startTime;
    const deltas: number[] = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id: number, index: number) => {
      time += deltas[index] ?? 0;
      const next = deltas[index + 1] ?? 0;
      if (time >= navStart.ts && time <= until) counts.set(id, (counts.get(id) ?? 0) + next / 1000);
    });
    const byId = new Map<number, any>(profile.nodes.map((node: any) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const label = (node: any) =>
      `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").pop()}:${node.callFrame.lineNumber + 1}`;
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    for (const [id, ms] of counts) {
      self.set(label(byId.get(id)), (self.get(label(byId.get(id))) ?? 0) + ms);
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const key = label(byId.get(at));
        if (seen.has(key)) continue;
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + ms);
      }
    }
    const top = Number(process.env.TOP ?? 40);
    console.log("CPU profile to the composer taking the message, self time:");
    for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${ms.toFixed(1).padStart(7)} ms  ${key}`);
    console.log("total time:");
    for (const [key, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${ms.toFixed(1).padStart(7)} ms  ${key}`);
  }
  const main = navStart ? events.filter((event) => event.pid === navStart.pid && event.tid === navStart.tid) : [];
  const t0 = navStart?.ts ?? 0;
  const at = (ts: number) => ((ts - t0) / 1000).toFixed(1).padStart(7);
  const tasks = main.filter(
    (event) => event.name === "RunTask" && event.ph === "X" && event.ts >= t0 && (event.dur ?? 0) >= 2000,
  );
  const end = t0 + (process.env.UNTIL === "reply" ? state.replying : state.at) * 1000 + 50_000;
  for (const task of tasks) {
    if (task.ts > end) break;
    const inner = main.filter(
      (event) =>
        event.ph === "X" &&
        event.ts >= task.ts &&
        event.ts < task.ts + task.dur! &&
        event !== task &&
        (event.dur ?? 0) >= 1000,
    );
    const what = inner
      .map((event) => {
        const data = event.args?.data ?? {};
        const label = data.url ? String(data.url).split("/").pop() : data.functionName || data.type || "";
        return `${event.name}${label ? `(${label})` : ""} ${((event.dur ?? 0) / 1000).toFixed(1)}`;
      })
      .slice(0, 12)
      .join(", ");
    console.log(`${at(task.ts)} +${((task.dur ?? 0) / 1000).toFixed(1).padStart(6)}  ${what}`);
  }
  console.log(
    `navigation: response end ${nav.responseEnd.toFixed(0)}, DOM interactive ${nav.domInteractive.toFixed(0)}, DCL ${nav.dcl.toFixed(0)}, load ${nav.load.toFixed(0)}`,
  );
  console.log("long animation frames (start +duration):");
  for (const line of frames) console.log(line);
  console.log(`marks: ${marks.join(", ")}; composer shown ${seen.composer?.toFixed(0)}`);
  if (navStart) {
    // Thread time, not wall time: on a loaded machine the main thread waits for a core most of the time.
    const until = navStart.ts + state.at * 1000;
    const top = main.filter(
      (event) => event.ph === "X" && event.name === "RunTask" && event.ts >= navStart.ts && event.ts < until,
    );
    const sum = (key: "dur" | "tdur") => top.reduce((total, event) => total + ((event as any)[key] ?? 0), 0) / 1000;
    console.log(`main thread to taken: ${sum("dur").toFixed(1)} ms of tasks, ${sum("tdur").toFixed(1)} ms CPU`);
  }
  console.log(`taken ${state.at.toFixed(0)} ms, replying ${state.replying.toFixed(0)} ms`);
} finally {
  await context.close();
  await browser.close();
  await app.close();
}
