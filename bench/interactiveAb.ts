/**
 * A/B of `app.interactiveMs` / `app.firstReplyMs` (app.bench.ts) between
 * builds, interleaved in one browser so that both see the same machine load:
 *
 *   npx tsx bench/interactiveAb.ts <dist A> <dist B> [rounds = 10]
 *
 * Each round makes one fresh load per build (a new context: cold cache), A
 * then B, then B then A in the next round. Prints every load and, per build,
 * the median and mean, and when the reply's first text is drawn. CPU=1 adds the app page's main-thread CPU time to the
 * message being taken (interactive()'s `cpu`), steadier than wall time on a
 * loaded machine. Not part of `npm run bench` (no `.bench.ts`): nothing is
 * written to results.json.
 */
import { resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { interactive } from "./app.bench";

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: npx tsx bench/interactiveAb.ts <dist A> <dist B> [rounds]");
const rounds = Number(roundsArg ?? 10);
const builds = [resolve(a), resolve(b)];
const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const servers = await Promise.all(builds.map((dir) => serveStatic(dir)));
const browser = await launchBrowser();
const cpu = process.env.CPU === "1";
const figures = builds.map(() => ({
  taken: [] as number[],
  replying: [] as number[],
  cpuMs: [] as number[],
  firstText: [] as number[],
}));
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const load = await interactive(browser, servers[index].url, { cpu, firstText: true });
      figures[index].taken.push(load.taken);
      figures[index].replying.push(load.replying);
      if (load.cpuMs !== undefined) figures[index].cpuMs.push(load.cpuMs);
      if (load.firstText !== undefined) figures[index].firstText.push(load.firstText);
      console.log(
        `round ${round + 1} ${index === 0 ? "A" : "B"}: taken ${load.taken.toFixed(0)} ms, replying ${load.replying.toFixed(0)} ms, first text ${load.firstText?.toFixed(0)} ms${load.cpuMs === undefined ? "" : `, main-thread CPU ${load.cpuMs.toFixed(0)} ms`}`,
      );
    }
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => server.close()));
}
builds.forEach((dir, index) => {
  const { taken, replying, cpuMs, firstText } = figures[index];
  console.log(
    `${index === 0 ? "A" : "B"} ${dir}: taken median ${median(taken).toFixed(0)} (mean ${mean(taken).toFixed(0)}), replying median ${median(replying).toFixed(0)} (mean ${mean(replying).toFixed(0)}), first text median ${median(firstText).toFixed(0)}${cpuMs.length ? `, main-thread CPU median ${median(cpuMs).toFixed(0)} (mean ${mean(cpuMs).toFixed(0)})` : ""} over ${taken.length} loads`,
  );
});
