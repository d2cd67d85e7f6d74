/**
 * A/B of app.bench's 2,000 tok/s stream (`host.longestTaskMs2000tps`,
 * `host.cpuMsPer1kTokens`) between builds, interleaved in one run so that
 * both see the same machine load:
 *
 *   npx tsx bench/streamAb.ts <dist A> <dist B> [rounds = 3] [tokens per 50 ms = 100]
 *
 * Each round streams app.bench's 20k-token reply (STREAM_CHARS=200000: the
 * stream bench's reply of that many characters) once per build, in a fresh
 * page, A then B, then B then A in the next round. Prints every run (longest
 * long task, longest frame gap, frame gaps over 50 ms, task time and
 * main-thread CPU time per 1k tokens, and from a trace the longest task and
 * the most task time between two frames in CPU time, which a loaded machine
 * inflates far less than wall times) and, per build, the medians. Not part
 * of `npm run bench` (no `.bench.ts`): nothing is written to results.json.
 * UNPROBED=1 streams as app.bench takes `host.cpuMsPer1kTokens`: no trace
 * and no frame-gap probe (the CPU figure alone is then meaningful).
 */
import { resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { longReply, streamReply, type StreamFigures } from "./app.bench";
import { replyOfLength } from "./stream.bench";

const [a, b, roundsArg, rateArg] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: npx tsx bench/streamAb.ts <dist A> <dist B> [rounds] [tokens per 50 ms]");
const rounds = Number(roundsArg ?? 3);
const rate = Number(rateArg ?? 100);
const builds = [resolve(a), resolve(b)];
const tokens = process.env.STREAM_CHARS ? replyOfLength(Number(process.env.STREAM_CHARS)) : longReply();
const runs = new Map<string, StreamFigures[]>(builds.map((dir) => [dir, []]));
const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1];
const unprobed = process.env.UNPROBED === "1";
const cpuFigures = (figures: StreamFigures) =>
  figures.cpu
    ? `; in CPU time: longest task ${figures.cpu.longestTask.toFixed(0)}, most between frames ${figures.cpu.longestBetweenFrames.toFixed(0)}`
    : "";
const browser = await launchBrowser();
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const dir of round % 2 === 0 ? builds : [...builds].reverse()) {
      const app = await serveStatic(dir);
      try {
        const figures = await streamReply(browser, app.url, tokens, rate, false, true, !unprobed, !unprobed);
        runs.get(dir)!.push(figures);
        const per1k = (ms: number) => (ms / (tokens.length / 1000)).toFixed(0);
        console.log(
          `${dir === builds[0] ? "A" : "B"} round ${round + 1}: longest task ${figures.longestTask.toFixed(0)}, gap ${figures.longestGap.toFixed(0)}, gaps>50 ${figures.gapsOver50}; task ${per1k(figures.taskMs)}, cpu ${per1k(figures.threadMs)} ms per 1k tokens${cpuFigures(figures)}`,
        );
      } finally {
        await app.close();
      }
    }
  }
} finally {
  await browser.close();
}
for (const [index, dir] of builds.entries()) {
  const all = runs.get(dir)!;
  const per1k = (ms: number) => ms / (tokens.length / 1000);
  console.log(
    `${index === 0 ? "A" : "B"} ${dir}: median longest task ${median(all.map((run) => run.longestTask)).toFixed(0)}, gap ${median(all.map((run) => run.longestGap)).toFixed(0)}, ` +
      `gaps>50 ${median(all.map((run) => run.gapsOver50))}; task ${median(all.map((run) => per1k(run.taskMs))).toFixed(0)}, cpu ${median(all.map((run) => per1k(run.threadMs))).toFixed(1)} ms per 1k tokens` +
      (unprobed
        ? ""
        : `; in CPU time: longest task ${median(all.map((run) => run.cpu!.longestTask)).toFixed(0)}, most between frames ${median(all.map((run) => run.cpu!.longestBetweenFrames)).toFixed(0)}`),
  );
}
