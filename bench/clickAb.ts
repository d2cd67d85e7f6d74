/**
 * A/B of the click figures of `ui.bench.ts` between builds, interleaved in
 * one run so that both see the same machine load:
 *
 *   npx tsx bench/clickAb.ts <dist A> <dist B> [rounds = 3]
 *
 * Each round runs measureClicks (idle clicks, then clicks while another
 * reply streams at 200 tok/s) once per build, in a fresh browser page, A
 * then B, then B then A in the next round. Prints every run and, per build,
 * the median of the runs' p95s. Not part of `npm run bench` (no
 * `.bench.ts`): nothing is written to results.json.
 */
import { resolve } from "node:path";
import { configureEndpoint, launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import { startMockLlm } from "../e2e/mockLlm";
import { measureClicks, percentile as exactPercentile } from "./ui.bench";

const percentile = (values: number[], p: number) => (values.length ? exactPercentile(values, p) : NaN);

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: npx tsx bench/clickAb.ts <dist A> <dist B> [rounds]");
const rounds = Number(roundsArg ?? 3);
const builds = [resolve(a), resolve(b)];
const p95s = new Map<string, { idle: number[]; streaming: number[]; lost: number[] }>(
  builds.map((dir) => [dir, { idle: [], streaming: [], lost: [] }]),
);
const browser = await launchBrowser();
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const dir of round % 2 === 0 ? builds : [...builds].reverse()) {
      const [app, mock] = await Promise.all([serveStatic(dir), startMockLlm()]);
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await openReadyApp(page, app.url);
        await configureEndpoint(page, mock.url, { apiKey: "bench" });
        const figures = await measureClicks(page, mock);
        for (const click of [...figures.idle.lost, ...figures.streaming.lost])
          console.log(`  lost click ${click.index}: ${click.why}`);
        const idle = percentile(figures.idle.times, 95);
        const streaming = percentile(figures.streaming.times, 95);
        const lost = figures.idle.lost.length + figures.streaming.lost.length;
        const record = p95s.get(dir)!;
        record.idle.push(idle);
        record.streaming.push(streaming);
        record.lost.push(lost);
        console.log(
          `round ${round + 1} ${dir}: idle p95 ${idle.toFixed(1)} (p50 ${percentile(figures.idle.times, 50).toFixed(1)}), while streaming p95 ${streaming.toFixed(1)} (p50 ${percentile(figures.streaming.times, 50).toFixed(1)}, max ${percentile(figures.streaming.times, 100).toFixed(1)}), lost ${lost}${figures.stillStreaming ? "" : " (the reply ended before the last click)"}`,
        );
      } finally {
        await Promise.all([context.close(), app.close(), mock.close()]);
      }
    }
  }
} finally {
  await browser.close();
}
for (const [dir, record] of p95s) {
  console.log(
    `${dir}: median of ${record.idle.length} runs' p95: idle ${percentile(record.idle, 50).toFixed(1)} ms, while streaming ${percentile(record.streaming, 50).toFixed(1)} ms; lost clicks ${record.lost.join(", ")}`,
  );
}
