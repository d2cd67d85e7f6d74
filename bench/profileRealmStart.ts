/**
 * A tool, not a bench: what the realm worker runs before READY. Fresh loads
 * of realm.bench's lean page (the built sandbox.html and realm bundle, nothing
 * else on the page; LIVEMARK_DIST_DIR picks another build), traced from the
 * browser with V8's sampling profiler on every thread; prints, for the
 * worker thread from its first sample to READY (a user-timing mark the page
 * makes when READY arrives):
 * - V8's compile events and the samples' total;
 * - self time per function (name, script line:column), the largest first;
 * - self time per "region" of the bundle when REGIONS names byte offsets
 *   (not needed for the function list).
 *   npx tsx bench/profileRealmStart.ts [loads = 5]
 * Build an unminified bundle to read names: `npx vite build --config
 * vite.realm.config.ts --minify false --outDir <dir>/generated` over a copy of dist.
 * The trace is saved to /tmp/realmstart/trace.json. The sampling profiler slows the worker; read shares, not times.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, serveStatic, DIST_DIR } from "../e2e/harness";
import { LEAN_PAGE } from "./realm.bench";

type TraceEvent = {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: any;
};

const loads = Number(process.argv[2] ?? 5);
const MARKED_PAGE = LEAN_PAGE.replace(
  "window.__leanReady ??= performance.now();",
  "if (window.__leanReady === undefined) { window.__leanReady = performance.now(); performance.mark('lean-ready'); }",
);
if (MARKED_PAGE === LEAN_PAGE) throw new Error("profileRealmStart: the lean page changed; update the READY mark");
mkdirSync("/tmp/realmstart", { recursive: true });
const [browser, server] = await Promise.all([
  launchBrowser(),
  serveStatic([DIST_DIR], { files: { "lean.html": MARKED_PAGE } }),
]);
// The bundle's module comments (`// path` at the start of each module, kept unminified): line → module.
const bundleLines = readFileSync(join(DIST_DIR, "generated", "realm.js"), "utf8").split("\n");
const moduleStarts: { line: number; module: string }[] = [];
bundleLines.forEach((text, line) => {
  const match = /^\t\/\/ (\S+\.(?:c?m?js|ts|tsx|json))$/.exec(text);
  if (match) moduleStarts.push({ line, module: match[1].replace(/^.*node_modules\//, "").replace(/^\\0/, "") });
});
const moduleOf = (line: number) => {
  let found = "(bundle head)";
  for (const start of moduleStarts) if (start.line <= line) found = start.module;
  return found;
};
/** Per key, one figure per load (0 where a load had none); medians are printed (one slow load does not lead). */
const selfByModule = new Map<string, number[]>();
const selfByFunction = new Map<string, number[]>();
const compileByName = new Map<string, number[]>();
const add = (map: Map<string, number[]>, key: string, load: number, ms: number) => {
  const list = map.get(key) ?? map.set(key, []).get(key)!;
  while (list.length <= load) list.push(0);
  list[load] += ms;
};
const medianOf = (list: number[]) => {
  const sorted = [...list, ...Array<number>(Math.max(0, loads - list.length)).fill(0)].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const workerMs: number[] = [];
const sampledMs: number[] = [];
try {
  for (let load = 0; load < loads; load++) {
    const cdp = await browser.newBrowserCDPSession();
    const events: TraceEvent[] = [];
    cdp.on("Tracing.dataCollected", (event: any) => events.push(...event.value));
    const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
    await cdp.send("Tracing.start", {
      transferMode: "ReportEvents",
      traceConfig: {
        includedCategories: [
          "disabled-by-default-v8.cpu_profiler",
          "v8",
          "v8.execute",
          "devtools.timeline",
          "blink.user_timing",
          "__metadata",
        ],
      },
    } as any);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url + "lean.html");
    await page.waitForFunction("window.__leanReady !== undefined", undefined, { timeout: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await cdp.send("Tracing.end");
    await complete;
    await context.close();
    await cdp.detach();
    if (load === 0) writeFileSync("/tmp/realmstart/trace.json", JSON.stringify(events));

    const threadName = new Map<string, string>();
    for (const event of events)
      if (event.ph === "M" && event.name === "thread_name")
        threadName.set(`${event.pid}:${event.tid}`, event.args.name);
    const ready = events.find((event) => event.name === "lean-ready");
    if (!ready) throw new Error("profileRealmStart: no READY mark in the trace");
    // The worker's profile: chunks of the "Profile" whose thread is the dedicated worker.
    const profiles = new Map<string, { pid: number; tid: number; startTime: number; chunks: any[] }>();
    for (const event of events) {
      if (event.name === "Profile")
        profiles.set(`${event.pid}:${event.id}`, {
          pid: event.pid,
          tid: event.tid,
          startTime: event.args.data.startTime,
          chunks: [],
        });
    }
    for (const event of events)
      if (event.name === "ProfileChunk") profiles.get(`${event.pid}:${event.id}`)?.chunks.push(event.args.data);
    const worker = [...profiles.values()].find((profile) =>
      /DedicatedWorker/.test(threadName.get(`${profile.pid}:${profile.tid}`) ?? ""),
    );
    if (!worker) throw new Error("profileRealmStart: no worker profile in the trace");
    const nodes = new Map<number, any>();
    let time = worker.startTime;
    let first: number | undefined;
    let previous: { id: number; at: number } | undefined;
    let sampled = 0;
    for (const chunk of worker.chunks) {
      for (const node of chunk.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
      const samples: number[] = chunk.cpuProfile?.samples ?? [];
      const deltas: number[] = chunk.timeDeltas ?? [];
      samples.forEach((id, index) => {
        time += deltas[index] ?? 0;
        if (previous && previous.at <= ready.ts) {
          const node = nodes.get(previous.id);
          const frame = node?.callFrame ?? {};
          const name = frame.functionName || "(anonymous)";
          if (name !== "(idle)" && name !== "(program)") {
            const key = `${name} ${frame.url ? "" : "(native)"}:${frame.lineNumber}:${frame.columnNumber}`;
            add(selfByFunction, key, load, (time - previous.at) / 1000);
            const where = frame.url ? moduleOf(frame.lineNumber) : name.startsWith("(") ? name : "(native)";
            add(selfByModule, where, load, (time - previous.at) / 1000);
            sampled += (time - previous.at) / 1000;
          }
        }
        first ??= time;
        previous = { id, at: time };
      });
    }
    for (const event of events) {
      if (event.pid !== worker.pid || event.tid !== worker.tid || event.ph !== "X" || event.ts > ready.ts) continue;
      if (/compile|Compile|parse|Parse|Deserialize/.test(event.name))
        add(compileByName, event.name, load, (event.dur ?? 0) / 1000);
    }
    sampledMs.push(sampled);
    workerMs.push((ready.ts - (first ?? ready.ts)) / 1000);
    console.log(
      `load ${load + 1}: worker first sample → READY ${((ready.ts - (first ?? ready.ts)) / 1000).toFixed(1)} ms, JS sampled ${sampled.toFixed(1)} ms`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(
  `\nmedian of ${loads} loads: worker start → READY ${medianOf(workerMs).toFixed(1)} ms, JavaScript sampled ${medianOf(sampledMs).toFixed(1)} ms`,
);
const print = (title: string, map: Map<string, number[]>, top: number) => {
  console.log(title);
  for (const [key, list] of [...map].sort((a, b) => medianOf(b[1]) - medianOf(a[1])).slice(0, top))
    console.log(`  ${medianOf(list).toFixed(2).padStart(7)}  ${key}`);
};
print("V8 compile/parse events on the worker thread (median ms; nested events overlap):", compileByName, 8);
print("self time per module before READY (median ms; an unminified build names them):", selfByModule, 30);
print("self time per function before READY (median ms):", selfByFunction, Number(process.env.TOP ?? 40));
