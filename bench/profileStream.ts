/**
 * A tool, not a bench (run.ts runs only *.bench.ts): streams app.bench's
 * long reply into the built app (LIVEMARK_DIST_DIR picks another build, e.g.
 * one built with `vite build --minify false` for readable names) and prints
 * the main thread's figures: task, thread, script, layout and style time
 * (CDP Performance.getMetrics), the longest long task and frame gap.
 *   npx tsx bench/profileStream.ts
 * Environment: RATE tokens every 50 ms (100 = 2,000 tok/s), TOKENS (20000),
 * PROFILE=1 a CPU profile (self and total time per function; saved to
 * /tmp/stream/NAME.cpuprofile), TRACE=from,seconds a Chromium trace of that
 * window (saved as NAME.trace.json; SAMPLES=1 adds V8's CPU samples to it),
 * LAYERS=1 the composited layer count, HEAP=1 what the stream allocates by function (V8's sampling heap profiler,
 * collected objects included; saved as NAME.heapprofile), CENSUS=1 the page's nodes by element and class, NOFRAMES=1 without the frame-gap probe
 * (its requestAnimationFrame loop; the longest gap then reads 0).
 * For A/B runs on a loaded machine compare shares and per-frame figures,
 * not wall times.
 */
import { mkdirSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { configureEndpoint, launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import { startMockLlm, type MockChunk } from "../e2e/mockLlm";
import { longReply } from "./app.bench";

mkdirSync("/tmp/stream", { recursive: true });
const rate = Number(process.env.RATE ?? 100);
const count = Number(process.env.TOKENS ?? 20000);
const profile = process.env.PROFILE === "1";
const tokens = longReply(count);
const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
const mock = await startMockLlm();
const page = await browser.newPage();
try {
  const chunks: MockChunk[] = [];
  for (let at = 0; at < tokens.length; at += rate) {
    chunks.push(tokens.slice(at, at + rate).join(""));
    chunks.push({ pauseMs: 50 });
  }
  mock.enqueue({ chunks });
  mock.enqueue({ chunks: ["Done."] });
  await page.addInitScript(`{
    const probe = (globalThis.__longest = { task: 0, gap: 0, tasks: [], gaps: [] });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) { probe.task = Math.max(probe.task, entry.duration); probe.tasks.push(Math.round(entry.duration)); }
    }).observe({ type: "longtask", buffered: false });
    let last = performance.now();
    const frame = () => {
      const now = performance.now();
      if (now - last > 50) probe.gaps.push(Math.round(now - last));
      probe.gap = Math.max(probe.gap, now - last);
      last = now;
      requestAnimationFrame(frame);
    };
    if (!${process.env.NOFRAMES === "1"}) requestAnimationFrame(frame);
  }`);
  await openReadyApp(page, app.url);
  await configureEndpoint(page, mock.url, { apiKey: "bench" });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  if (profile) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  }
  await page.evaluate(`{ const p = globalThis.__longest; p.task = 0; p.gap = 0; p.tasks = []; p.gaps = []; }`);
  const metrics = async () =>
    Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  if (profile) await cdp.send("Profiler.start");
  if (process.env.HEAP) {
    // Every allocation sampled, the ones garbage collection took since included: what a stream makes and drops.
    await cdp.send("HeapProfiler.enable");
    await cdp.send("HeapProfiler.startSampling", {
      samplingInterval: 8192,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as any);
  }
  const started = Date.now();
  await page.getByRole("textbox", { name: "Message" }).fill("Write the long report.");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  if (process.env.TRACE) {
    const [from, length] = process.env.TRACE.split(",").map(Number);
    await new Promise((r) => setTimeout(r, from * 1000));
    const events: any[] = [];
    cdp.on("Tracing.dataCollected", (e: any) => events.push(...e.value));
    const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
    await cdp.send("Tracing.start", {
      transferMode: "ReportEvents",
      traceConfig: {
        includedCategories: [
          "devtools.timeline",
          "disabled-by-default-devtools.timeline",
          "v8.execute",
          "blink",
          "cc",
          "gpu",
          "toplevel",
          "disabled-by-default-devtools.timeline.frame",
          "v8",
          "blink.user_timing",
          "loading",
          "latencyInfo",
          "renderer.scheduler",
          "accessibility",
          ...(process.env.SAMPLES ? ["disabled-by-default-v8.cpu_profiler"] : []),
        ],
      },
    } as any);
    await new Promise((r) => setTimeout(r, length * 1000));
    await cdp.send("Tracing.end");
    await done;
    writeFileSync(`/tmp/stream/${process.env.NAME ?? "trace"}.trace.json`, JSON.stringify({ traceEvents: events }));
    console.log(`trace: ${events.length} events`);
  }
  await page.waitForFunction(
    () => /^Done|^Error|^Stopped/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
    undefined,
    { timeout: 600_000, polling: 500 },
  );
  const seconds = (Date.now() - started) / 1000;
  if (process.env.HEAP) {
    const { profile: heap } = (await cdp.send("HeapProfiler.stopSampling")) as any;
    const bySelf = new Map<string, number>();
    let total = 0;
    const walk = (node: any) => {
      const frame = node.callFrame;
      const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
      bySelf.set(key, (bySelf.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
      for (const child of node.children ?? []) walk(child);
    };
    walk(heap.head);
    writeFileSync(`/tmp/stream/${process.env.NAME ?? "heap"}.heapprofile`, JSON.stringify(heap));
    console.log(`allocated (sampled, collected included): ${(total / 1e6).toFixed(1)} MB; by function, self:`);
    for (const [key, size] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 30))
      console.log(`${(size / 1e6).toFixed(2).padStart(8)} MB  ${key}`);
  }
  const after = await metrics();
  const d = (k: string) => ((after[k] - before[k]) * 1000).toFixed(0);
  console.log(
    `rate ${rate * 20} tok/s, ${count} tokens, ${seconds.toFixed(1)} s; Task ${d("TaskDuration")} ms (${(((after.TaskDuration - before.TaskDuration) * 1e6) / count).toFixed(0)} per 1k), Thread ${d("ThreadTime")}, Script ${d("ScriptDuration")}, Layout ${d("LayoutDuration")} (${after.LayoutCount - before.LayoutCount}), Style ${d("RecalcStyleDuration")} (${after.RecalcStyleCount - before.RecalcStyleCount}), DOM nodes ${after.Nodes}`,
  );
  if (process.env.CENSUS) {
    // The page's nodes by element and first class (and text nodes), most first.
    const census = await page.evaluate(() => {
      const counts: Record<string, number> = {};
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const key =
          node instanceof Element
            ? `${node.tagName.toLowerCase()}.${node.classList[0] ?? ""}`
            : `#text<${node.parentElement?.tagName.toLowerCase()}>`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 40);
    });
    for (const [key, count] of census) console.log(String(count).padStart(7), key);
  }
  if (process.env.LAYERS) {
    const got = new Promise<any>((r) => cdp.once("LayerTree.layerTreeDidChange" as any, r));
    await cdp.send("LayerTree.enable" as any);
    await page.evaluate(`document.querySelector(".lm-main").scrollTop -= 1`);
    const tree = await got;
    const layers = tree.layers ?? [];
    console.log(
      `layers: ${layers.length}; drawn ${layers.filter((l: any) => l.drawsContent).length}; scrollers ${layers.filter((l: any) => l.scrollRects?.length).length}`,
    );
  }
  const probe = (await page.evaluate("globalThis.__longest")) as {
    task: number;
    gap: number;
    tasks: number[];
    gaps: number[];
  };
  console.log(
    `longest task ${probe.task.toFixed(0)}, gap ${probe.gap.toFixed(0)}; longtasks ${probe.tasks.length} [${probe.tasks.slice(0, 40).join(",")}]; gaps>50 ${probe.gaps.length} [${probe.gaps.slice(0, 40).join(",")}]`,
  );
  if (profile) {
    const { profile: cpu } = await cdp.send("Profiler.stop");
    writeFileSync(`/tmp/stream/${process.env.NAME ?? "profile"}.cpuprofile`, JSON.stringify(cpu));
    const counts = new Map<number, number>();
    for (const id of cpu.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
    const interval = (cpu.endTime - cpu.startTime) / 1000 / Math.max(1, cpu.samples?.length ?? 1);
    const byId = new Map(cpu.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of cpu.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const key = (n: (typeof cpu.nodes)[number]) =>
      `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let busy = 0;
    for (const n of cpu.nodes) {
      const ms = (counts.get(n.id) ?? 0) * interval;
      if (!ms) continue;
      const f = n.callFrame.functionName;
      if (f === "(idle)" || f === "(program)") continue;
      busy += ms;
      self.set(key(n), (self.get(key(n)) ?? 0) + ms);
      const seen = new Set<string>();
      for (let at: number | undefined = n.id; at !== undefined; at = parent.get(at)) {
        const k = key(byId.get(at)!);
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + ms);
      }
    }
    console.log(`profile busy (excl idle/program) ${busy.toFixed(0)} ms`);
    const top = (m: Map<string, number>, n: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `${v.toFixed(0).padStart(6)} ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`)
        .join("\n");
    console.log("SELF\n" + top(self, Number(process.env.TOP ?? 30)));
    console.log("TOTAL\n" + top(total, Number(process.env.TOP ?? 60)));
  }
} finally {
  await page.close();
  await mock.close();
  await Promise.all([browser.close(), app.close()]);
}
