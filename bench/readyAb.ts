/**
 * A/B of the app's realm start (`realm.readyMs`, realm.bench.ts) between
 * builds, interleaved in one browser so that both see the same machine load:
 *
 *   npx tsx bench/readyAb.ts <dist A> <dist B> [rounds = 15]
 *
 * Each round makes one fresh load per build (a new context: cold cache), A
 * then B, then B then A in the next round: navigation start → the realm's
 * ready mark (e2e/freshLoads.ts). Prints every load and, per build, the
 * median and mean. Not part of `npm run bench` (no `.bench.ts`): nothing is
 * written to results.json.
 */
import { resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { freshLoad } from "../e2e/freshLoads";
import { median } from "./budgets";

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: npx tsx bench/readyAb.ts <dist A> <dist B> [rounds]");
const rounds = Number(roundsArg ?? 15);
const builds = [resolve(a), resolve(b)];
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const servers = await Promise.all(builds.map((dir) => serveStatic(dir)));
const browser = await launchBrowser();
const ready: number[][] = builds.map(() => []);
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const load = await freshLoad(browser, servers[index].url);
      if (load.ready) ready[index].push(load.readyMs);
      console.log(
        `round ${round + 1} ${index === 0 ? "A" : "B"}: ${load.ready ? `ready ${load.readyMs.toFixed(0)} ms` : load.status}`,
      );
    }
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => server.close()));
}
builds.forEach((dir, index) => {
  const times = ready[index];
  console.log(
    `${index === 0 ? "A" : "B"} ${dir}: ready median ${median(times).toFixed(0)} (mean ${mean(times).toFixed(0)}) over ${times.length} loads`,
  );
});
