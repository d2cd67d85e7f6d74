/**
 * A/B of the realm worker's own start between builds, in CPU time, which a
 * busy machine disturbs far less than wall time (issue 34 §3):
 *
 *   npx tsx bench/realmStartAb.ts <dist A> <dist B> [<dist C> …] [rounds = 9]
 *
 * Each round loads realm.bench's lean page once per build (the order reversed
 * every other round), traced from the browser, and reads on the worker
 * thread: `evaluateCpuMs`, the thread's CPU time in the bundle's
 * EvaluateScript (compile + the modules' top-level code), `compileCpuMs`, of
 * that the top-level compile, and `serveCpuMs`, the CPU time of the connect
 * handler (the realm's set-up, and since wire version 5 Babel's warm-up right
 * after READY). At READY the page sends one reply whose one statement is
 * `console.log(1)` (realm.bench's LEAN_FIRST_STATEMENT_PAGE);
 * `firstStatementMs` is READY → its console line on the page (until version
 * 5 READY came after the warm-up and this stayed small). Wall times (`leanReadyMs`: navigation → READY) are
 * printed too. Medians per build. Not part of `npm run bench`: nothing is
 * written to results.json.
 */
import { resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { median } from "./budgets";
import { LEAN_FIRST_STATEMENT_PAGE } from "./realm.bench";

type TraceEvent = {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: any;
};

const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args.at(-1) ?? "") ? Number(args.pop()) : 9;
if (args.length < 2) throw new Error("usage: npx tsx bench/realmStartAb.ts <dist A> <dist B> [<dist C> …] [rounds]");
const builds = args.map((dir) => resolve(dir));
const name = (index: number) => String.fromCharCode(65 + index);
const servers = await Promise.all(
  builds.map((dir) => serveStatic([dir], { files: { "lean.html": LEAN_FIRST_STATEMENT_PAGE } })),
);
const browser = await launchBrowser();
const figures = builds.map(() => ({
  evaluateCpuMs: [] as number[],
  compileCpuMs: [] as number[],
  serveCpuMs: [] as number[],
  firstStatementMs: [] as number[],
  leanReadyMs: [] as number[],
}));

async function tracedLoad(index: number): Promise<void> {
  const cdp = await browser.newBrowserCDPSession();
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (event: any) => events.push(...event.value));
  const complete = new Promise((done) => cdp.once("Tracing.tracingComplete", done));
  await cdp.send("Tracing.start", {
    transferMode: "ReportEvents",
    traceConfig: { includedCategories: ["devtools.timeline", "v8", "v8.execute", "__metadata"] },
  } as any);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(servers[index].url + "lean.html");
    await page.waitForFunction("window.__leanFirstStatement !== undefined", undefined, { timeout: 30_000 });
    const [ready, statement] = (await page.evaluate("[window.__leanReady, window.__leanFirstStatement]")) as number[];
    const first = statement - ready;
    await cdp.send("Tracing.end");
    await complete;
    const worker = events.find((event) => event.ph === "M" && /DedicatedWorker/.test(event.args?.name ?? ""));
    if (!worker) throw new Error("realmStartAb: no worker thread in the trace");
    const onWorker = events.filter(
      (event) => event.pid === worker.pid && event.tid === worker.tid && event.ph === "X" && event.tdur !== undefined,
    );
    const evaluate = onWorker.find((event) => event.name === "EvaluateScript");
    const compile = onWorker.find((event) => event.name === "v8.compile" && evaluate && event.ts >= evaluate.ts);
    // The connect message's handler (its name is minified): the worker's first message.
    const serve = onWorker.find((event) => event.name === "HandlePostMessage" && evaluate && event.ts >= evaluate.ts);
    if (!evaluate || !compile || !serve)
      throw new Error(
        `realmStartAb: the worker's start is not in the trace (${[...new Set(onWorker.map((e) => e.name))].join(", ")})`,
      );
    const figure = figures[index];
    figure.evaluateCpuMs.push(evaluate.tdur! / 1000);
    figure.compileCpuMs.push(compile.tdur! / 1000);
    figure.serveCpuMs.push(serve.tdur! / 1000);
    figure.firstStatementMs.push(first);
    figure.leanReadyMs.push(ready);
  } finally {
    await context.close();
    await cdp.detach();
  }
}

try {
  for (let round = 0; round < rounds; round++) {
    for (const index of round % 2 === 0 ? builds.keys() : [...builds.keys()].reverse()) await tracedLoad(index);
    console.log(
      `round ${round + 1}: ` +
        figures
          .map(
            (figure, index) =>
              `${name(index)} evaluate ${figure.evaluateCpuMs.at(-1)!.toFixed(1)} serve ${figure.serveCpuMs.at(-1)!.toFixed(1)} first ${figure.firstStatementMs.at(-1)!.toFixed(1)}`,
          )
          .join("; "),
    );
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => server.close()));
}
builds.forEach((dir, index) => {
  const figure = figures[index];
  const text = Object.entries(figure)
    .map(([key, list]) => `${key} ${median(list).toFixed(1)}`)
    .join(", ");
  console.log(
    `${name(index)} ${dir} (medians of ${rounds}): ${text}; worker CPU to READY ${(median(figure.evaluateCpuMs) + median(figure.serveCpuMs)).toFixed(1)}`,
  );
});
