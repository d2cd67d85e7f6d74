/**
 * The app in a real browser:
 * - `app.initialJsGzipKB`: gzipped size of the JavaScript index.html loads
 *   before interaction: its scripts and module preloads, the chunks its
 *   entry imports at once (the app, after src/boot.ts started the realm) and
 *   their static imports (budget ≤ 150; lazy chunks are not counted; the
 *   realm loads in the sandbox and is printed separately).
 * - `host.longestTaskMs`: the longest main-thread task (PerformanceObserver
 *   "longtask", plus a rAF gap probe) while a 20k-token reply with code blocks
 *   streams from a mock OpenAI-compatible server at 200 tokens/s (budget ≤ 50);
 *   the largest of STREAMS (5) such streams, each a sample.
 * - `app.interactiveMs` (budget ≤ 400): navigation start → the composer
 *   accepts input and Send works with the demo model (the default provider):
 *   an init script types into the composer as soon as it exists and presses
 *   Send as soon as it is enabled; the figure is when the composer empties
 *   (the app took the message: shown as sent; while the sessions still open
 *   it waits and goes to the session once open, e2e/startup.test.ts).
 *   Median of INTERACTIVE_LOADS fresh contexts. `app.firstReplyMs`: the same
 *   loads, navigation start → the status says the reply is under way
 *   (Streaming, Running or Done): the agent has the message.
 * - `host.longestTaskMs2000tps` (budget ≤ 50) and `host.cpuMsPer1kTokens`:
 *   the same 20k-token reply at 2,000 tokens/s (100 tokens every 50 ms),
 *   STREAMS times. Longest task as above, the largest of the streams; CPU
 *   (budget ≤ 60, the median of the streams) is the main thread's CPU time
 *   (CDP `Performance.getMetrics` ThreadTime) over the stream, per 1,000
 *   tokens, taken from STREAMS more streams without the frame-gap probe,
 *   interleaved (its requestAnimationFrame loop asks for frames the app
 *   would not; `host.cpuMsPer1kTokensWithFrameProbe` is the figure with it);
 *   `host.taskMsPer1kTokens` is their task time (TaskDuration, the
 *   figure before issue 34, wall time of tasks). Both are measured with
 *   no profiler attached; a second stream, under CDP's sampling `Profiler`,
 *   prints the functions with the most self time.
 * - `system.promptTokens`: the system prompt's size, estimated.
 */
import { execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  DIST_DIR,
  ROOT_DIR,
  configureEndpoint,
  launchBrowser,
  openReadyApp,
  serveStatic,
  waitFor,
} from "../e2e/harness";
import { startMockLlm, type MockChunk } from "../e2e/mockLlm";
import { estimateTokens } from "../src/llm";
import { SYSTEM_PROMPT } from "../src/capabilities/prompt";
import { maxOfSamples } from "./budgets";
import type { TraceEvent } from "./traceEvent";

function ensureBuilt() {
  if (!existsSync(join(DIST_DIR, "index.html")) || !existsSync(join(DIST_DIR, "generated", "realm.js"))) {
    execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  }
}

function gzipKB(file: string): number {
  return gzipSync(readFileSync(file), { level: 9 }).length / 1024;
}

const STATIC_IMPORT = /\b(?:import|export)\s*(?:[^"'`()]*?\bfrom\s*)?["'`](\.\.?\/[^"'`]+\.js)["'`]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["'`](\.\.?\/[^"'`]+\.js)["'`]\s*\)/g;

/**
 * The JavaScript the page loads before anyone can interact: the scripts and
 * module preloads index.html names, the chunks their entry imports at once
 * (src/boot.ts imports the app right after starting the realm), and
 * everything those import statically, gzipped. What the app imports
 * dynamically (Markdown, the provider and AI SDK, the database code, the
 * demo scripts, …) loads on first use or after the first paint and is not
 * counted; nor is the realm bundle, fetched for the sandbox.
 */
export function initialJs(): { files: string[]; kb: number } {
  const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
  const scripts = [...html.matchAll(/<script[^>]*\ssrc="\.?\/?([^"]+\.js)"/g)].map((match) => join(DIST_DIR, match[1]));
  const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\.?\/?([^"]+\.js)"/g)].map((match) =>
    join(DIST_DIR, match[1]),
  );
  const files = new Set<string>();
  const visit = (file: string, entry: boolean) => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(file, "utf8");
    const imports = [...code.matchAll(STATIC_IMPORT), ...(entry ? code.matchAll(DYNAMIC_IMPORT) : [])];
    for (const match of imports) visit(join(dirname(file), match[1]), false);
  };
  for (const file of scripts) visit(file, true);
  for (const file of preloads) visit(file, false);
  return { files: [...files], kb: [...files].reduce((sum, file) => sum + gzipKB(file), 0) };
}

/** About 20k tokens of a realistic reply: prose, lists, code blocks that run, ordinary fences. */
/** The bench's long reply (prose, lists, code that runs, plain fences), as mock-LLM tokens. */
export function longReply(count = 20_000): string[] {
  const tokens: string[] = [];
  const add = (text: string) => {
    // ~4 characters per token, cut at word boundaries like a tokenizer would.
    for (const piece of text.match(/\s*\S{1,6}|\s+/g) ?? []) tokens.push(piece);
  };
  let section = 0;
  while (tokens.length < count) {
    section += 1;
    add(
      `\n\n## Part ${section}\n\nHere we look at the numbers from a slightly different angle, keeping the earlier results in mind. `,
    );
    add(
      "Each statement below runs as soon as it has streamed in, so the totals show up while I keep writing. ".repeat(3),
    );
    add(`\n\n- first point about part ${section}\n- a second point, with **bold** and \`code\`\n- a third one\n\n`);
    add("```tsx agent.run\n");
    add(`const rows${section} = Array.from({ length: 50 }, (_, i) => ({ id: i, value: (i * ${section}) % 17 }))\n`);
    add(`const total${section} = rows${section}.reduce((sum, row) => sum + row.value, 0)\n`);
    add(`if (${section} % 10 === 0) console.log("part ${section} total", total${section})\n`);
    add("```\n\n");
    add(
      "For reference, this is how one would write it in plain TypeScript (not run):\n\n```ts\nconst x: number = 1\n```\n\n",
    );
  }
  return tokens.slice(0, count);
}

// One fresh load here ranges ~250–500 ms (two cores shared by the app, the realm's process and worker, the
// browser and the static server); a median of 5 moved by ±40 ms between runs of one build, a median of 11 less.
const INTERACTIVE_LOADS = 11;
/** Streams per speed: each is one sample of the longest task (a maximum needs at least 5, bench/budgets.ts). */
const STREAMS = Number(process.env.STREAMS ?? 5);

const TASK = "ThreadControllerImpl::RunTask";

/** The page's main thread (the renderer main thread with the most task time): longest task and most task time between two animation frames, in CPU time. */
function cpuFigures(events: TraceEvent[]): { longestTask: number; longestBetweenFrames: number } {
  const names = new Map(
    events
      .filter((event) => event.ph === "M" && event.name === "thread_name")
      .map((event) => [`${event.pid}:${event.tid}`, event.args?.name]),
  );
  const threadOf = (event: TraceEvent) => `${event.pid}:${event.tid}`;
  const busy = new Map<string, number>();
  for (const event of events) {
    if (event.ph === "X" && event.name === TASK && names.get(threadOf(event)) === "CrRendererMain")
      busy.set(threadOf(event), (busy.get(threadOf(event)) ?? 0) + (event.dur ?? 0));
  }
  const main = [...busy].sort((x, y) => y[1] - x[1])[0]?.[0];
  const mine = events.filter((event) => threadOf(event) === main && event.ph === "X").sort((x, y) => x.ts - y.ts);
  const tasks: TraceEvent[] = [];
  let end = -Infinity;
  for (const event of mine) {
    if (event.name !== TASK || event.ts < end) continue;
    tasks.push(event);
    end = event.ts + (event.dur ?? 0);
  }
  const frames = mine.filter((event) => event.name === "FireAnimationFrame").map((event) => event.ts);
  let longestBetweenFrames = 0;
  let at = 0;
  for (let index = 1; index < frames.length; index += 1) {
    let sum = 0;
    while (at < tasks.length && tasks[at].ts + (tasks[at].dur ?? 0) <= frames[index - 1]) at += 1;
    for (let each = at; each < tasks.length && tasks[each].ts < frames[index]; each += 1) sum += tasks[each].tdur ?? 0;
    longestBetweenFrames = Math.max(longestBetweenFrames, sum);
  }
  return {
    longestTask: Math.max(0, ...tasks.map((task) => task.tdur ?? 0)) / 1000,
    longestBetweenFrames: longestBetweenFrames / 1000,
  };
}

export interface StreamFigures {
  seconds: number;
  longestTask: number;
  longestGap: number;
  taskMs: number;
  /** Main-thread CPU time over the stream (CDP ThreadTime), for A/B runs on a loaded machine. */
  threadMs: number;
  /** Frame gaps over 50 ms. */
  gapsOver50: number;
  /**
   * With `trace`: from a Chromium trace of the stream, the main thread's
   * longest task in CPU time and the most CPU time between two animation
   * frames (what the longest task and frame gap would be with the thread
   * never descheduled: comparable across loads, unlike wall times).
   */
  cpu?: { longestTask: number; longestBetweenFrames: number };
  profile: string[];
}

/** The 20k-token reply streamed at `tokensPerPause` tokens every 50 ms, measured on the main thread. */
export async function streamReply(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  appUrl: string,
  tokens: string[],
  tokensPerPause: number,
  profile: boolean,
  quiet = false,
  trace = false,
  /**
   * The frame-gap probe (a requestAnimationFrame loop): without it the longest gap reads 0, and the page gets
   * only the frames it asks for itself, so its main-thread CPU is the app's alone (the loop costs ~0.5 ms a frame).
   */
  frames = true,
): Promise<StreamFigures> {
  const chunks: MockChunk[] = [];
  for (let at = 0; at < tokens.length; at += tokensPerPause) {
    chunks.push(tokens.slice(at, at + tokensPerPause).join(""));
    chunks.push({ pauseMs: 50 });
  }
  const mock = await startMockLlm();
  const page = await browser.newPage();
  try {
    mock.enqueue({ chunks });
    mock.enqueue({ chunks: ["Done."] });
    // Init scripts as strings: the TypeScript runner would inject helpers (`__name`) the page lacks.
    await page.addInitScript(`{
      const probe = (globalThis.__longest = { task: 0, gap: 0, gaps: 0 });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) probe.task = Math.max(probe.task, entry.duration);
      }).observe({ type: "longtask", buffered: false });
      let last = performance.now();
      const frame = () => {
        const now = performance.now();
        probe.gap = Math.max(probe.gap, now - last);
        if (now - last > 50) probe.gaps += 1;
        last = now;
        requestAnimationFrame(frame);
      };
      if (${frames}) requestAnimationFrame(frame);
    }`);
    await openReadyApp(page, appUrl);
    await configureEndpoint(page, mock.url, { apiKey: "bench" });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    if (profile) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    }
    // Measure only the streaming, not the page load.
    await page.evaluate(() => {
      const probe = (globalThis as unknown as { __longest: { task: number; gap: number; gaps: number } }).__longest;
      probe.task = 0;
      probe.gap = 0;
      probe.gaps = 0;
    });
    const metric = async (name: string) =>
      ((await cdp.send("Performance.getMetrics")).metrics.find((each) => each.name === name)?.value ?? 0) * 1000;
    const taskBefore = await metric("TaskDuration");
    const threadBefore = await metric("ThreadTime");
    if (profile) await cdp.send("Profiler.start");
    const events: TraceEvent[] = [];
    let traced: Promise<unknown> | undefined;
    if (trace) {
      cdp.on("Tracing.dataCollected", (event) => events.push(...(event.value as unknown as TraceEvent[])));
      traced = new Promise((done) => cdp.once("Tracing.tracingComplete", done));
      await cdp.send("Tracing.start", {
        transferMode: "ReportEvents",
        traceConfig: { includedCategories: ["toplevel", "devtools.timeline"] },
      });
    }
    const started = Date.now();
    await page.getByRole("textbox", { name: "Message" }).fill("Write the long report.");
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    await page.waitForFunction(
      () => /^Done|^Error|^Stopped/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
      undefined,
      {
        timeout: 300_000,
        polling: 500,
      },
    );
    const seconds = (Date.now() - started) / 1000;
    const taskMs = (await metric("TaskDuration")) - taskBefore;
    const threadMs = (await metric("ThreadTime")) - threadBefore;
    if (trace) {
      await cdp.send("Tracing.end");
      await traced;
    }
    const top: string[] = [];
    if (profile) {
      const { profile: cpu } = await cdp.send("Profiler.stop");
      const self = new Map<string, number>();
      const counts = new Map<number, number>();
      for (const id of cpu.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
      const interval = (cpu.endTime - cpu.startTime) / 1000 / Math.max(1, cpu.samples?.length ?? 1);
      for (const node of cpu.nodes) {
        const frame = node.callFrame;
        if (frame.functionName === "(idle)" || frame.functionName === "(program)") continue;
        const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
        self.set(key, (self.get(key) ?? 0) + (counts.get(node.id) ?? 0) * interval);
      }
      for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12))
        top.push(`${ms.toFixed(0).padStart(6)} ms  ${key}`);
    }
    const probe = await page.evaluate(
      () => (globalThis as unknown as { __longest: { task: number; gap: number; gaps: number } }).__longest,
    );
    if (!quiet) console.log(`status: ${await page.getByRole("status").textContent()}`);
    return {
      seconds,
      longestTask: probe.task,
      longestGap: probe.gap,
      taskMs,
      threadMs,
      gapsOver50: probe.gaps,
      profile: top,
      ...(trace ? { cpu: cpuFigures(events) } : {}),
    };
  } finally {
    await page.close();
    await mock.close();
  }
}

/**
 * The init script of app.interactiveMs: types into the composer as soon as it
 * exists, presses Send as soon as it is enabled, and notes (globalThis.__interactive)
 * when the composer empties (`at`) and when the status says the reply is under way (`replying`).
 * It looks after every change React makes to the page (a MutationObserver: it
 * runs right after each commit) rather than polling, so the probe adds no
 * tasks of its own to the start-up it measures (a 1 ms polling loop did).
 */
export const INTERACTIVE_PROBE = `{
  if (window === window.top) {
    const state = (globalThis.__interactive = {});
    const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    let typedInto = null;
    const check = () => {
      const box = document.querySelector("#lm-message");
      if (state.at !== undefined) {
        // Taken; now the reply: the agent has the message and the model answers.
        const status = document.querySelector("[role=status]");
        if (status && /^(Streaming|Running|Done)/.test(status.textContent)) {
          state.replying = performance.now();
          observer.disconnect();
        }
      } else if (box && box !== typedInto) {
        setValue.call(box, "Compute some primes");
        box.dispatchEvent(new Event("input", { bubbles: true }));
        typedInto = box;
        check();
      } else if (box && box.value === "") {
        state.at = performance.now();
        check();
      } else if (box) {
        const send = [...document.querySelectorAll("button[type=submit]")].find((button) => button.textContent.trim() === "Send");
        if (send && !send.disabled) send.click();
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  }
}`;

/**
 * Navigation start → the composer took a message, in a fresh context (cold cache). With `firstText`, also
 * navigation start → the reply's first text is drawn. With `cpu`, also the
 * renderer main thread's CPU time (CDP Performance.getMetrics ThreadTime, ms) from before navigation to
 * when the message was seen taken (read within a poll of it): on a loaded machine a steadier figure than wall time.
 */
export async function interactive(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  appUrl: string,
  options: { cpu?: boolean; firstText?: boolean } = {},
): Promise<{ taken: number; replying: number; cpuMs?: number; firstText?: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(INTERACTIVE_PROBE);
    // With `firstText`: when the reply's first text shows (the model's first tokens drawn).
    if (options.firstText) {
      // Watched like the probe above (no polling loop in the start-up it times).
      await page.addInitScript(`{
        if (window === window.top) {
          const observer = new MutationObserver(() => {
            const reply = document.querySelector(".lm-message--assistant");
            if (reply && reply.textContent.trim() !== "") {
              globalThis.__firstText = performance.now();
              observer.disconnect();
            }
          });
          observer.observe(document, { childList: true, subtree: true, characterData: true });
        }
      }`);
    }
    const cdp = options.cpu ? await context.newCDPSession(page) : undefined;
    const threadTime = async () =>
      ((await cdp!.send("Performance.getMetrics")).metrics.find((metric) => metric.name === "ThreadTime")?.value ??
        NaN) * 1000;
    if (cdp) await cdp.send("Performance.enable");
    const before = cdp ? await threadTime() : 0;
    await page.goto(appUrl);
    const read = () =>
      page.evaluate(
        () => (globalThis as unknown as { __interactive: { at?: number; replying?: number } }).__interactive,
      );
    let cpuMs: number | undefined;
    if (cdp) {
      await waitFor(async () => (await read()).at !== undefined, 30_000, 5);
      cpuMs = (await threadTime()) - before;
    }
    const times = await waitFor(
      async () => {
        const state = await read();
        return state.at !== undefined && state.replying !== undefined
          ? { taken: state.at, replying: state.replying }
          : undefined;
      },
      30_000,
      20,
    );
    const firstText = options.firstText
      ? await waitFor(
          () => page.evaluate(() => (globalThis as unknown as { __firstText?: number }).__firstText),
          30_000,
          20,
        )
      : undefined;
    return { ...times!, ...(cpuMs === undefined ? {} : { cpuMs }), ...(firstText === undefined ? {} : { firstText }) };
  } finally {
    await context.close();
  }
}

export async function run(): Promise<Record<string, number>> {
  ensureBuilt();
  const results: Record<string, number> = {};

  const initial = initialJs();
  results["app.initialJsGzipKB"] = Math.round(initial.kb * 10) / 10;
  console.log(
    `initial JS: ${initial.files.map((file) => `${file.slice(DIST_DIR.length + 1)} ${gzipKB(file).toFixed(1)}`).join(", ")} KB`,
  );
  const realm = join(DIST_DIR, "generated", "realm.js");
  if (existsSync(realm))
    console.log(`realm bundle (loaded inside the sandbox, not counted): ${gzipKB(realm).toFixed(1)} KB gzipped`);

  results["system.promptTokens"] = estimateTokens(SYSTEM_PROMPT);

  const tokens = longReply();
  const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
  try {
    const loads: { taken: number; replying: number }[] = [];
    for (let index = 0; index < INTERACTIVE_LOADS; index += 1) loads.push(await interactive(browser, app.url));
    const middle = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[values.length >> 1]);
    results["app.interactiveMs"] = middle(loads.map((load) => load.taken));
    results["app.firstReplyMs"] = middle(loads.map((load) => load.replying));
    console.log(
      `navigation → composer took a message (demo model): median ${results["app.interactiveMs"]} ms (budget 400); samples ${loads.map((load) => Math.round(load.taken)).join(", ")}`,
    );
    console.log(
      `navigation → the demo model is answering it: median ${results["app.firstReplyMs"]} ms; samples ${loads.map((load) => Math.round(load.replying)).join(", ")}`,
    );

    // Long tasks are only reported above 50 ms; with none, the longest gap between animation frames bounds the
    // longest task from above. Each stream is one sample; a maximum is judged on STREAMS of them (issue 34 §4).
    const longest = (figures: StreamFigures) =>
      Math.round(figures.longestTask > 0 ? figures.longestTask : figures.longestGap);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

    // 200 tokens/s: 10 tokens every 50 ms.
    const slow: StreamFigures[] = [];
    for (let index = 0; index < STREAMS; index += 1) slow.push(await streamReply(browser, app.url, tokens, 10, false));
    results["host.longestTaskMs"] = maxOfSamples(slow.map(longest));
    console.log(
      `20k-token reply at 200 tok/s, ${STREAMS} streams of ${slow.map((each) => each.seconds.toFixed(0)).join(", ")} s: longest task (0 = none over 50 ms; else the longest frame gap) ${slow.map((each) => each.longestTask.toFixed(0)).join(", ")}; longest frame gap ${slow.map((each) => each.longestGap.toFixed(0)).join(", ")}; main-thread tasks ${(median(slow.map((each) => each.taskMs)) / 20).toFixed(1)} ms per 1k tokens (median)`,
    );

    // 2,000 tokens/s: 100 tokens every 50 ms.
    // Measured without the CPU profiler: it samples the page's main thread every 200 µs and logs every function
    // compiled meanwhile, which lengthens the very frame gaps measured here. The profile printed below comes from a
    // stream of its own.
    // The longest task and frame gap from streams with the frame probe; the CPU from as many without it (its
    // requestAnimationFrame loop asks for a frame 60 times a second that the app alone would not: ~0.5 ms each, the
    // bench's cost, not the app's), interleaved.
    const fast: StreamFigures[] = [];
    const unprobed: StreamFigures[] = [];
    for (let index = 0; index < STREAMS; index += 1) {
      fast.push(await streamReply(browser, app.url, tokens, 100, false));
      unprobed.push(await streamReply(browser, app.url, tokens, 100, false, false, false, false));
    }
    results["host.longestTaskMs2000tps"] = maxOfSamples(fast.map(longest));
    // CPU time (ThreadTime), not task wall time (TaskDuration, kept as host.taskMsPer1kTokens): a loaded machine
    // stretches the latter with the time the thread waits for a core. Medians of the streams.
    const perThousand = (ms: number) => Math.round((ms / (tokens.length / 1000)) * 10) / 10;
    results["host.cpuMsPer1kTokens"] = perThousand(median(unprobed.map((each) => each.threadMs)));
    results["host.taskMsPer1kTokens"] = perThousand(median(unprobed.map((each) => each.taskMs)));
    results["host.cpuMsPer1kTokensWithFrameProbe"] = perThousand(median(fast.map((each) => each.threadMs)));
    console.log(
      `20k-token reply at 2,000 tok/s, ${STREAMS} streams of ${fast.map((each) => each.seconds.toFixed(1)).join(", ")} s: longest task ${fast.map((each) => each.longestTask.toFixed(0)).join(", ")} (0 = none over 50 ms); longest frame gap ${fast.map((each) => each.longestGap.toFixed(0)).join(", ")}; ` +
        `main-thread CPU ${results["host.cpuMsPer1kTokens"]} ms per 1k tokens, median of ${STREAMS} streams without the frame probe (${unprobed.map((each) => perThousand(each.threadMs)).join(", ")}; task time ${results["host.taskMsPer1kTokens"]} per 1k); ` +
        `with it ${results["host.cpuMsPer1kTokensWithFrameProbe"]} (${fast.map((each) => perThousand(each.threadMs)).join(", ")})`,
    );
    const profiled = await streamReply(browser, app.url, tokens, 100, true);
    console.log(
      `most self time on the main thread at 2,000 tok/s (CPU profile of a second stream; its longest frame gap ${profiled.longestGap.toFixed(0)} ms):\n${profiled.profile.join("\n")}`,
    );
  } finally {
    await Promise.all([browser.close(), app.close()]);
  }
  console.log(`system prompt ≈ ${results["system.promptTokens"]} tokens`);
  return results;
}
