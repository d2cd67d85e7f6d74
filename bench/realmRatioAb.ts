/**
 * A/B of the realm's start as a ratio to its floor (issue 34 §3) between
 * builds, interleaved in one browser so that every figure sees the same
 * machine:
 *
 *   npx tsx bench/realmRatioAb.ts <dist A> <dist B> [<dist C> …] [rounds = 11]
 *
 * Each round makes one fresh load of the floor page, then, per build (in
 * turn, the order reversed every other round), its lean page and its app: the same pages
 * and clocks as realm.bench.ts (`realm.floorReadyMs`, `realm.leanReadyMs`,
 * `realm.readyMs`). Prints each build's medians and their ratios to the
 * floor, and the worker's own clock at READY (`realm.loadMs` +
 * `realm.setupMs`). Not part of `npm run bench` (no `.bench.ts`): nothing is written to
 * results.json.
 */
import { resolve } from "node:path";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { median } from "./budgets";
import { appLoad, FLOOR_PAGE, FLOOR_SANDBOX, LEAN_PAGE, referenceLoad } from "./realm.bench";

const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args.at(-1) ?? "") ? Number(args.pop()) : 11;
if (args.length < 2) throw new Error("usage: npx tsx bench/realmRatioAb.ts <dist A> <dist B> [<dist C> …] [rounds]");
const builds = args.map((dir) => resolve(dir));
const name = (index: number) => String.fromCharCode(65 + index);
const order = builds.map((_, index) => index);
const floorServer = await serveStatic([], { files: { "floor.html": FLOOR_PAGE, "floor-sandbox.html": FLOOR_SANDBOX } });
const servers = await Promise.all(builds.map((dir) => serveStatic([dir], { files: { "lean.html": LEAN_PAGE } })));
const browser = await launchBrowser();
const floor: number[] = [];
const lean: number[][] = builds.map(() => []);
const app: number[][] = builds.map(() => []);
const host: number[][] = builds.map(() => []);
/** The worker's own clock at READY in the app (its `loadMs` + `setupMs`): the realm's start without the page's. */
const worker: number[][] = builds.map(() => []);
const loads: number[][] = builds.map(() => []);
try {
  for (let round = 0; round < rounds; round += 1) {
    floor.push(await referenceLoad(browser, { server: floorServer, page: "floor.html", global: "__floorReady" }));
    for (const index of round % 2 === 0 ? order : [...order].reverse()) {
      lean[index].push(
        await referenceLoad(browser, { server: servers[index], page: "lean.html", global: "__leanReady" }),
      );
      const load = await appLoad(browser, servers[index].url);
      app[index].push(load.at);
      host[index].push(load.hostAt);
      worker[index].push(load.loadMs + load.setupMs);
      loads[index].push(load.loadMs);
    }
    console.log(
      `round ${round + 1}: floor ${floor.at(-1)!.toFixed(0)}; ` +
        builds
          .map(
            (_, index) => `${name(index)} lean ${lean[index].at(-1)!.toFixed(0)} app ${app[index].at(-1)!.toFixed(0)}`,
          )
          .join("; "),
    );
  }
} finally {
  await browser.close();
  await Promise.all([floorServer, ...servers].map((server) => server.close()));
}
const floorMedian = median(floor);
console.log(`floor median ${floorMedian.toFixed(1)} ms over ${floor.length} loads`);
builds.forEach((dir, index) => {
  const leanMedian = median(lean[index]);
  const appMedian = median(app[index]);
  console.log(
    `${name(index)} ${dir}: app ${appMedian.toFixed(1)} ms (${(appMedian / floorMedian).toFixed(2)}× floor), ` +
      `lean ${leanMedian.toFixed(1)} ms (${(leanMedian / floorMedian).toFixed(2)}× floor), host created ${median(host[index]).toFixed(1)} ms, ` +
      `the worker's READY at ${median(worker[index]).toFixed(1)} ms of its own clock (bundle loaded at ${median(loads[index]).toFixed(1)})`,
  );
});
