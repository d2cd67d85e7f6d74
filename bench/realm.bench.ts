/**
 * The sandbox realm in a real browser (the built app's sandbox.html and
 * realm bundle, driven by createRealmHost on the realm test page):
 * - `realm.bundleGzipKB` (budget ≤ 250): the realm bundle
 *   (dist/generated/realm.js), gzip level 9, in KiB.
 * - `realm.readyMs`: the app (dist/index.html): navigation start → first
 *   realm ready (budget ≤ 2.2 × `realm.floorReadyMs` of the same run, cold),
 *   median of fresh page loads;
 *   `realm.hostCreatedMs`: navigation start → the app created its realm host
 *   (in its first render), the earliest its READY can count;
 *   `realm.loadMs` / `realm.setupMs` split the worker's share into
 *   evaluating the bundle and the realm's set-up up to READY (Babel's
 *   warm-up follows READY since wire version 5; until then READY came
 *   after it and `realm.warmupMs` was the set-up and the warm-up).
 *   `realm.bareReadyMs`:
 *   the same on a page that does nothing but start a realm.
 *   `realm.floorReadyMs` (reference): this machine's floor for any realm of
 *   this shape, a page whose `sandbox="allow-scripts"` frame starts a blob
 *   worker that answers at once (no bundle, no Babel): navigation start →
 *   that answer on the page, median of fresh loads.
 *   `realm.leanReadyMs` (reference): the least any page can take to start
 *   this realm: index.html's frame and nothing else, the bundle fetched by
 *   an inline script at once and sent at the frame's hello, READY read on
 *   the port as it arrives (no app beside it): navigation start → READY,
 *   median of fresh loads (budget ≤ 1.9 × `realm.floorReadyMs`).
 *   `realm.leanFirstStatementMs`: the same loads, navigation start → the
 *   console line of a statement the page sends the moment READY arrives
 *   (`console.log(1)`): when code first runs, warm-up included.
 *   The four pages are loaded in turn, one of each per round (floor, lean,
 *   app, bare), so each reference is measured in the same moments as the
 *   figures it bounds: the floor moves with the machine's state.
 * - `realm.resetMs`: kill (iframe removed) → fresh realm ready, median of
 *   reset() calls with the warm spare in place; `realm.coldResetMs` without
 *   a spare (boot a new sandbox from the cached bundle). The naive
 *   alternative, reloading the page, is readyMs.
 * - `realm.stuckResetMs` (budget ≤ 1000): a statement stuck where no loop
 *   guard reaches → fresh realm ready (heartbeat timeout + reset), the
 *   longest of MIN_MAX_SAMPLES (each with the warm spare in place;
 *   `realm.stuckResetMedianMs`: their median).
 * - `realm.flushRoundTripMs`: an empty flush() → answer (one message each
 *   way plus the executor's idle check), median.
 * - References for reading loadMs on this machine: `realm.nodeLoadMs`, the
 *   same bundle compiled and evaluated by Node's V8 (median of fresh
 *   processes), and `realm.browserCompileMs`, compiling (not running) it
 *   with `new Function` on a blank page of the same Chromium.
 */
import { execFileSync, execSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { DIST_DIR, ROOT_DIR, serveStatic, waitFor, type TestServer } from "../e2e/harness";
import { startRealmTestContext } from "../e2e/fixtures/realmTestPage";
import { REALM_HOST_MARK, REALM_READY_MARK } from "../src/sandbox";
import { READY, SANDBOX_HELLO, SANDBOX_START } from "../src/wire/constants";
import { maxOfSamples, median, MIN_MAX_SAMPLES } from "./budgets";

// Fresh loads per page kind (the floor, the lean page, the app, the bare page), interleaved: one load here ranges
// ~270–590 ms, and the median of 5 moved by tens of milliseconds between runs of one build. 21, not 11: with 11 the
// floor's median moved 95–106 ms between runs of one build on one machine (samples 74–144), and the ratios with it.
const PAGE_LOADS = 21;
const RESETS = 5;
const ROUND_TRIPS = 50;

function ensureBuilt(): void {
  const realm = join(DIST_DIR, "generated", "realm.js");
  if (!existsSync(join(DIST_DIR, "index.html")) || !existsSync(realm) || statSync(realm).size === 0) {
    execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  }
}

/** Compile and evaluate the realm bundle in a fresh Node process (no browser, no worker). */
function nodeLoadMs(file: string): number {
  const script = `
    const vm = require("node:vm");
    const text = require("node:fs").readFileSync(process.argv[1], "utf8");
    const start = performance.now();
    const context = vm.createContext({ performance, MessageChannel, MessagePort, setTimeout, clearTimeout, console, URL, addEventListener() {}, removeEventListener() {} });
    context.self = context;
    context.globalThis = context;
    new vm.Script(text).runInContext(context);
    process.stdout.write(String(performance.now() - start));
    process.exit(0);
  `;
  return Number(execFileSync(process.execPath, ["-e", script, file], { encoding: "utf8" }));
}

/** The floor pages: the same frame, sandbox and blob worker as the realm's, with nothing in the worker. */
export const FLOOR_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>
<iframe sandbox="allow-scripts" src="./floor-sandbox.html" hidden></iframe>
<script>addEventListener("message", (event) => { if (event.data === "ready") window.__floorReady = performance.now(); });</script>
</body></html>`;
export const FLOOR_SANDBOX = `<!doctype html><html><head><meta charset="utf-8"></head><body><script>
const worker = new Worker(URL.createObjectURL(new Blob(["postMessage('ready')"], { type: "text/javascript" })));
worker.onmessage = (event) => parent.postMessage(event.data, "*");
</script></body></html>`;

/** The lean page: the built sandbox.html and realm bundle, started the app's way, with no app. */
export const LEAN_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>lean</title></head><body>
<iframe sandbox="allow-scripts" src="./sandbox.html" hidden></iframe>
<script>
const frame = document.querySelector("iframe");
const channel = new MessageChannel();
const bundle = fetch("generated/realm.js").then((response) => response.blob());
let started = false;
addEventListener("message", (event) => {
  if (started || event.source !== frame.contentWindow || event.data?.type !== ${JSON.stringify(SANDBOX_HELLO)}) return;
  started = true;
  // The version the frame says it speaks (not this tree's WIRE_VERSION): A/B tools load builds of other versions.
  const version = event.data.version;
  bundle.then((blob) => frame.contentWindow.postMessage({ type: ${JSON.stringify(SANDBOX_START)}, version, bundle: blob }, "*", [channel.port2]));
});
channel.port1.onmessage = (event) => { if (event.data?.type === ${JSON.stringify(READY)}) window.__leanReady ??= performance.now(); };
</script></body></html>`;

const LEAN_READY_HOOK = "window.__leanReady ??= performance.now();";
if (!LEAN_PAGE.includes(LEAN_READY_HOOK)) throw new Error("realm.bench: the lean page changed; update LEAN_READY_HOOK");
/**
 * The lean page, plus: the moment READY arrives it sends one reply whose one statement is `console.log(1)`, and sets
 * `__leanFirstStatement` to the time its console line arrives (navigation start's clock).
 */
export const LEAN_FIRST_STATEMENT_PAGE = LEAN_PAGE.replace(
  LEAN_READY_HOOK,
  `if (window.__leanReady === undefined) {
    window.__leanReady = performance.now();
    const block = (event) => channel.port1.postMessage({ type: "block", event });
    block({ type: "begin-reply" });
    block({ type: "block-start", index: 0, kind: "code", line: 1 });
    block({ type: "block-delta", index: 0, text: "console.log(1)\\n" });
    block({ type: "block-end", index: 0, unterminated: false });
  }
  if (event.data?.type === "exec-event" && event.data.event?.type === "console")
    window.__leanFirstStatement ??= performance.now();`,
);

/** A page served with `files` beside `roots`, whose fresh loads set `global` to their answer's time. */
export interface ReferencePage {
  server: TestServer;
  page: string;
  global: string;
}

/** One fresh load of `url` in a new context: what `expression` gives once it gives something (polled). */
async function freshLoad<T>(browser: Browser, url: string, expression: string): Promise<T> {
  const browserContext = await browser.newContext();
  try {
    const tab = await browserContext.newPage();
    await tab.goto(url);
    return await waitFor(() => tab.evaluate(expression) as Promise<T>, 10_000, 10);
  } finally {
    await browserContext.close();
  }
}

/** Navigation start → the answer one fresh load of a reference page sets as its global. */
export const referenceLoad = (browser: Browser, reference: ReferencePage): Promise<number> =>
  freshLoad(browser, reference.server.url + reference.page, `window.${reference.global}`);

/** One fresh load of LEAN_FIRST_STATEMENT_PAGE: navigation start → READY, and → the statement's console line. */
export const leanFirstStatementLoad = (
  browser: Browser,
  server: TestServer,
): Promise<{ ready: number; firstStatement: number }> =>
  freshLoad(
    browser,
    server.url + "lean.html",
    "window.__leanFirstStatement === undefined ? undefined : { ready: window.__leanReady, firstStatement: window.__leanFirstStatement }",
  );

const round = (value: number) => Math.round(value * 10) / 10;

/** One fresh load of the app: navigation start → its realm's ready mark, with the mark's split. */
export async function appLoad(
  browser: Browser,
  url: string,
): Promise<{ at: number; hostAt: number; loadMs: number; setupMs: number }> {
  const browserContext = await browser.newContext();
  try {
    const page = await browserContext.newPage();
    await page.goto(url);
    const mark = await waitFor(
      () =>
        page.evaluate(
          ([name, hostName]) => {
            const entry = performance.getEntriesByName(name)[0] as PerformanceMark | undefined;
            const host = performance.getEntriesByName(hostName)[0];
            return (
              entry && {
                at: entry.startTime,
                hostAt: host?.startTime ?? Number.NaN,
                ...(entry.detail as { loadMs: number; setupMs: number }),
              }
            );
          },
          [REALM_READY_MARK, REALM_HOST_MARK] as const,
        ),
      30_000,
      20,
    );
    return mark!;
  } finally {
    await browserContext.close();
  }
}

export async function run(): Promise<Record<string, number>> {
  ensureBuilt();
  const context = await startRealmTestContext();
  try {
    const floorServer = await serveStatic([], {
      files: { "floor.html": FLOOR_PAGE, "floor-sandbox.html": FLOOR_SANDBOX },
    });
    const leanServer = await serveStatic([DIST_DIR], { files: { "lean.html": LEAN_FIRST_STATEMENT_PAGE } });
    const floorPage = { server: floorServer, page: "floor.html", global: "__floorReady" };

    const ready: number[] = [];
    const load: number[] = [];
    const setup: number[] = [];
    const hosts: number[] = [];
    const bare: number[] = [];
    const floor: number[] = [];
    const lean: number[] = [];
    const leanFirst: number[] = [];
    // Interleaved: each round loads the floor, the lean page, the app and the bare page once, so the references
    // are measured in the same moments as the figures they bound (the floor moves with the machine's state).
    try {
      for (let index = 0; index < PAGE_LOADS; index++) {
        floor.push(await referenceLoad(context.browser, floorPage));
        const leanLoad = await leanFirstStatementLoad(context.browser, leanServer);
        lean.push(leanLoad.ready);
        leanFirst.push(leanLoad.firstStatement);
        const app = await appLoad(context.browser, context.server.url);
        ready.push(app.at);
        hosts.push(app.hostAt);
        load.push(app.loadMs);
        setup.push(app.setupMs);
        const realm = await context.open();
        bare.push(realm.readyAt);
        await realm.page.close();
      }
    } finally {
      await floorServer.close();
      await leanServer.close();
    }

    const realm = await context.open();
    await realm.run("const warm = 1");
    const measureResets = (spare: boolean) =>
      realm.page.evaluate(
        async ([count, withSpare]) => {
          const container = document.createElement("div");
          document.body.append(container);
          const { host, events } = window.realmTest.makeHarness({ spare: withSpare, container });
          await host.ready();
          const times: number[] = [];
          for (let index = 0; index < count; index++) {
            // Measure the steady state: the spare has had time to warm up.
            while (withSpare && host.status().spare !== "ready") await new Promise((done) => setTimeout(done, 50));
            const from = events.length;
            await host.reset("bench");
            const event = events.slice(from).find((each) => each.type === "ready");
            if (event?.type === "ready") times.push(event.startMs);
          }
          host.dispose();
          container.remove();
          return times;
        },
        [RESETS, spare] as const,
      );
    const resets = await measureResets(true);
    const coldResets = await measureResets(false);

    const stuckResets: number[] = [];
    for (let index = 0; index < MIN_MAX_SAMPLES; index++) {
      // Each from the steady state: the spare the last reset used has been replaced and warmed up.
      await waitFor(
        () => realm.page.evaluate(() => window.realmTest.host.status().spare === "ready" || undefined),
        30_000,
        50,
      );
      const from = await realm.start("(0, eval)('for (;;) {}')");
      const started = await realm.waitForEvent((event) => event.type === "statement-start", from);
      const back = await realm.waitForEvent((event) => event.type === "ready", from, 30_000);
      stuckResets.push(back.at - started.at);
    }

    const roundTrips = await realm.page.evaluate(async (count) => {
      const { host } = window.realmTest;
      const times: number[] = [];
      for (let index = 0; index < count; index++) {
        const start = performance.now();
        await host.flush(5_000);
        times.push(performance.now() - start);
      }
      return times;
    }, ROUND_TRIPS);

    const bundleFile = join(DIST_DIR, "generated", "realm.js");
    const nodeLoads = Array.from({ length: 3 }, () => nodeLoadMs(bundleFile));
    const browserCompiles = await realm.page.evaluate(async () => {
      const text = await (await fetch("generated/realm.js")).text();
      const times: number[] = [];
      for (let index = 0; index < 3; index++) {
        const start = performance.now();
        new Function(`${text}\n//${index}`);
        times.push(performance.now() - start);
      }
      return times;
    });

    const metrics = {
      "realm.bundleGzipKB": round(gzipSync(readFileSync(bundleFile), { level: 9 }).length / 1024),
      "realm.readyMs": round(median(ready)),
      "realm.bareReadyMs": round(median(bare)),
      "realm.floorReadyMs": round(median(floor)),
      "realm.leanReadyMs": round(median(lean)),
      "realm.hostCreatedMs": round(median(hosts)),
      "realm.loadMs": round(median(load)),
      "realm.setupMs": round(median(setup)),
      "realm.leanFirstStatementMs": round(median(leanFirst)),
      "realm.resetMs": round(median(resets)),
      "realm.coldResetMs": round(median(coldResets)),
      "realm.stuckResetMs": round(maxOfSamples(stuckResets)),
      "realm.stuckResetMedianMs": round(median(stuckResets)),
      "realm.flushRoundTripMs": round(median(roundTrips)),
      "realm.nodeLoadMs": round(median(nodeLoads)),
      "realm.browserCompileMs": round(median(browserCompiles)),
    };
    console.log(
      `bundle ${metrics["realm.bundleGzipKB"]} KB gzipped (budget 250); ready ${metrics["realm.readyMs"]} ms (${(metrics["realm.readyMs"] / metrics["realm.floorReadyMs"]).toFixed(2)}× the floor, budget 2.2×; lean page ${(metrics["realm.leanReadyMs"] / metrics["realm.floorReadyMs"]).toFixed(2)}×, budget 1.9×; worker load ${metrics["realm.loadMs"]} + set-up ${metrics["realm.setupMs"]}; a statement sent at the lean page's READY logs at ${metrics["realm.leanFirstStatementMs"]} ms), ` +
        `reset ${metrics["realm.resetMs"]} ms with a spare, ${metrics["realm.coldResetMs"]} ms without, vs page reload ${metrics["realm.readyMs"]} ms, ` +
        `stuck → fresh ${metrics["realm.stuckResetMs"]} ms at most (${stuckResets.map(Math.round).join(", ")}), flush round trip ${metrics["realm.flushRoundTripMs"]} ms`,
    );
    console.log(
      `reference: the bundle loads in ${metrics["realm.nodeLoadMs"]} ms in Node; this Chromium takes ${metrics["realm.browserCompileMs"]} ms just to compile it on a page; ` +
        `a sandboxed frame whose blob worker does nothing answers ${metrics["realm.floorReadyMs"]} ms after navigation start (this machine's floor); ` +
        `a page that does nothing but start this realm has it ready at ${metrics["realm.leanReadyMs"]} ms`,
    );
    console.log(
      `samples: ready ${ready.map(Math.round).join(", ")}; app's realm host created ${hosts.map(Math.round).join(", ")}; bare page ${bare.map(Math.round).join(", ")}; floor ${floor.map(Math.round).join(", ")}; lean page ${lean.map(Math.round).join(", ")}; ` +
        `cold reset ${coldResets.map(Math.round).join(", ")}`,
    );
    return metrics;
  } finally {
    await context.close();
  }
}
