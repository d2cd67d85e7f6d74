/**
 * A/B of how long the sandbox's process waited for a core during the app's realm start (issue 34 §3), between
 * builds, interleaved in one browser (Linux only: it reads /proc):
 *
 *   npx tsx bench/realmSchedAb.ts <dist A> <dist B> [<dist C> …] [rounds = 11]
 *
 * Each round makes one fresh load of each build's app (the order reversed every other round) and, once the
 * page holds the realm's ready mark, reads the kernel's scheduler counters (`/proc/<pid>/task/<tid>/schedstat`:
 * time run, time waited runnable on a run queue) and nice value of the new renderer process that runs the
 * realm's worker: its main thread (the sandbox document: its commit, hello and the worker's creation), the
 * worker thread, and all its threads. Wall-time READY moves by ±150 ms with the machine's load; the waits say
 * whether a change made the sandbox's process wait less for a core. Not part of `npm run bench` (no
 * `.bench.ts`): nothing is written to results.json.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { launchBrowser, serveStatic, waitFor } from "../e2e/harness";
import { REALM_READY_MARK } from "../src/sandbox";
import { median } from "./budgets";

const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args.at(-1) ?? "") ? Number(args.pop()) : 11;
if (args.length < 2) throw new Error("usage: npx tsx bench/realmSchedAb.ts <dist A> <dist B> [<dist C> …] [rounds]");
const builds = args.map((dir) => resolve(dir));
const name = (index: number) => String.fromCharCode(65 + index);

/** This process's descendants (the browser and its children). */
function descendants(): string[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
  const found = new Set([String(process.pid)]);
  for (let changed = true; changed;) {
    changed = false;
    for (const [pid, ppid] of table)
      if (found.has(ppid) && !found.has(pid)) {
        found.add(pid);
        changed = true;
      }
  }
  found.delete(String(process.pid));
  return [...found];
}

interface Thread {
  tid: string;
  comm: string;
  runMs: number;
  waitMs: number;
  nice: number;
}

function threads(pid: string): Thread[] {
  const list: Thread[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").trim().split(" ").map(Number);
      // Field 19 of stat (nice), counted after the command's closing parenthesis.
      const nice = Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ")[16]);
      list.push({
        tid,
        comm: readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim(),
        runMs: run / 1e6,
        waitMs: wait / 1e6,
        nice,
      });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return list;
}

type Row = Record<string, number>;
const rows: Row[][] = builds.map(() => []);
const servers = await Promise.all(builds.map((dir) => serveStatic([dir])));
const browser = await launchBrowser();
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const index of round % 2 === 0 ? builds.keys() : [...builds.keys()].reverse()) {
      const before = new Set(descendants());
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(servers[index].url);
        const readyAt = (await waitFor(
          () =>
            page.evaluate((mark) => performance.getEntriesByName(mark)[0]?.startTime, REALM_READY_MARK) as Promise<
              number | undefined
            >,
          30_000,
          20,
        ))!;
        for (const pid of descendants()) {
          if (before.has(pid)) continue;
          let all: Thread[];
          try {
            all = threads(pid);
          } catch {
            continue;
          }
          const worker = all.find((thread) => thread.comm.startsWith("DedicatedWorker"));
          const main = all.find((thread) => thread.tid === pid);
          if (!worker || !main) continue;
          rows[index].push({
            readyAt,
            mainNice: main.nice,
            mainRun: main.runMs,
            mainWait: main.waitMs,
            workerNice: worker.nice,
            workerRun: worker.runMs,
            workerWait: worker.waitMs,
            allRun: all.reduce((sum, thread) => sum + thread.runMs, 0),
            allWait: all.reduce((sum, thread) => sum + thread.waitMs, 0),
          });
          break;
        }
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => server.close()));
}
builds.forEach((dir, index) => {
  const of = (key: string) => median(rows[index].map((row) => row[key])).toFixed(1);
  console.log(
    `${name(index)} ${dir}: READY ${of("readyAt")} ms; the sandbox's process to then (ms, medians of ${rows[index].length}): ` +
      `main thread nice ${of("mainNice")}, ran ${of("mainRun")}, waited ${of("mainWait")}; worker nice ${of("workerNice")}, ` +
      `ran ${of("workerRun")}, waited ${of("workerWait")}; all threads ran ${of("allRun")}, waited ${of("allWait")}`,
  );
});
