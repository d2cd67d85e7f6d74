/**
 * A/B of opening a 2,000-message session (issue 34 §1) between builds,
 * interleaved so that every figure sees the same machine:
 *
 *   npx tsx bench/sessionOpenAb.ts <dist A> <dist B> [<dist C> …] [sets = 2]
 *
 * Each set gives every build a fresh browser context (its own IndexedDB,
 * caches, code cache and service worker: the first loads are cold) with the
 * session imported, then reloads each OPEN_LOADS times, one build after the
 * other (the order reversed every other load). Each load is sampled as in
 * session.bench.ts (navigation → last message visible, the longest task
 * before it) with the realm's READY mark. Prints each load, then per build
 * the median open, the largest longest task, and the longest task by load
 * index. Not part of `npm run bench` (no `.bench.ts`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import type { Browser, Page } from "playwright-core";
import {
  LAST_VISIBLE_MARK,
  median,
  OPEN_LOADS,
  openOnce,
  sessionExport,
  sessionPage,
  type OpenSample,
} from "./session.bench";
import type { TraceEvent } from "./traceEvent";

/**
 * With CPU=1 each load is traced: the page's main thread's CPU time (each task's thread time, not its wall time,
 * which a loaded machine stretches) from navigation start to the last message visible, the sum and the largest task.
 */
async function tracedOpen(browser: Browser, page: Page): Promise<OpenSample & { cpuMs?: number; cpuMaxMs?: number }> {
  if (!process.env.CPU) return openOnce(page);
  await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing"] });
  const sample = await openOnce(page);
  const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  const mark = events.find((event) => event.name === LAST_VISIBLE_MARK);
  const start = events.find(
    (event) => event.name === "navigationStart" && event.pid === mark?.pid && event.ts < (mark?.ts ?? 0),
  );
  if (!mark || !start) return sample;
  const tasks = events.filter(
    (event) =>
      event.ph === "X" &&
      event.name === "ThreadControllerImpl::RunTask" &&
      event.pid === mark.pid &&
      event.tid === mark.tid &&
      event.ts >= start.ts &&
      event.ts <= mark.ts,
  );
  const cpu = tasks.map((task) => (task.tdur ?? task.dur ?? 0) / 1000);
  return { ...sample, cpuMs: cpu.reduce((sum, each) => sum + each, 0), cpuMaxMs: Math.max(0, ...cpu) };
}

const args = process.argv.slice(2);
const sets = /^\d+$/.test(args.at(-1) ?? "") ? Number(args.pop()) : 2;
if (args.length < 2) throw new Error("usage: npx tsx bench/sessionOpenAb.ts <dist A> <dist B> [<dist C> …] [sets]");
const builds = args.map((dir) => resolve(dir));
const name = (index: number) => String.fromCharCode(65 + index);
const load1 = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

const dir = mkdtempSync(join(tmpdir(), "livemark-session-ab-"));
const file = join(dir, "session.json");
writeFileSync(file, await sessionExport());
const servers = await Promise.all(builds.map((build) => serveStatic(build)));
const browser = await launchBrowser();
const samples: (OpenSample & { cpuMs?: number; cpuMaxMs?: number })[][][] = builds.map(() => []);
try {
  for (let set = 0; set < sets; set += 1) {
    const pages = [];
    for (const server of servers) pages.push(await sessionPage(browser, server.url, file));
    builds.forEach((_, index) => samples[index].push([]));
    for (let load = 0; load < OPEN_LOADS; load += 1) {
      const order = builds.map((_, index) => index);
      for (const index of (load + set) % 2 === 0 ? order : order.reverse()) {
        const sample = await tracedOpen(browser, pages[index]);
        samples[index][set].push(sample);
        const tasks = sample.tasks
          .filter((task) => task.start < sample.at)
          .map((task) => `${Math.round(task.start)}+${Math.round(task.duration)}`)
          .join(" ");
        console.log(
          `set ${set + 1} load ${load + 1} ${name(index)}: open ${Math.round(sample.at)} (ready ${Math.round(sample.readyAt)}) ` +
            (sample.cpuMs === undefined
              ? ""
              : `cpu ${Math.round(sample.cpuMs)} (largest task ${Math.round(sample.cpuMaxMs ?? 0)}) `) +
            `longest ${Math.round(sample.longest)} [${tasks}] all ${Math.round(sample.allAt)} (load1 ${load1()})` +
            (process.env.MARKS ? `\n  marks ${JSON.stringify(sample.marks)}` : ""),
        );
      }
    }
    await Promise.all(pages.map((page) => page.context().close()));
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => server.close()));
  rmSync(dir, { recursive: true, force: true });
}
builds.forEach((build, index) => {
  const all = samples[index].flat();
  const byLoad = Array.from({ length: OPEN_LOADS }, (_, load) =>
    samples[index].map((set) => Math.round(set[load].longest)).join("/"),
  );
  console.log(
    `${name(index)} ${build}: open median ${Math.round(median(all.map((sample) => sample.at)))} ms ` +
      `(ready median ${Math.round(median(all.map((sample) => sample.readyAt)))}), ` +
      `longest task max ${Math.round(Math.max(...all.map((sample) => sample.longest)))} ms, ` +
      `median ${Math.round(median(all.map((sample) => sample.longest)))}; by load ${byLoad.join(", ")}` +
      (process.env.CPU
        ? `; main-thread cpu to the last message median ${Math.round(median(all.map((sample) => sample.cpuMs ?? 0)))} ms, ` +
          `largest task cpu max ${Math.round(Math.max(...all.map((sample) => sample.cpuMaxMs ?? 0)))}, ` +
          `median ${Math.round(median(all.map((sample) => sample.cpuMaxMs ?? 0)))}`
        : ""),
  );
});
