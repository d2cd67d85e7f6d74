/**
 * Fresh loads of the built app (a new browser context each, one browser):
 * navigation start → the realm's ready mark, per load.
 * - `appLoads.readyMedianMs`, `appLoads.readyP95Ms`, `appLoads.readyMaxMs`
 * - `appLoads.failed`: loads whose realm never became ready (must be 0; the
 *   browser suite e2e/realmStart.test.ts asserts it over 100 loads).
 * Per-load times are printed; nothing here passes or fails.
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIST_DIR, ROOT_DIR, launchBrowser, serveStatic } from "../e2e/harness";
import { freshLoad } from "../e2e/freshLoads";

const LOADS = 30;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const round = (value: number) => Math.round(value * 10) / 10;

export async function run(): Promise<Record<string, number>> {
  if (!existsSync(join(DIST_DIR, "index.html"))) execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  const app = await serveStatic();
  const browser = await launchBrowser();
  try {
    const times: number[] = [];
    let failed = 0;
    for (let index = 0; index < LOADS; index++) {
      const load = await freshLoad(browser, app.url);
      if (load.ready) times.push(load.readyMs);
      else failed += 1;
      console.log(`load ${index + 1}: ${load.ready ? `${load.readyMs.toFixed(0)} ms` : `not ready (${load.status})`}`);
    }
    return {
      "appLoads.readyMedianMs": round(percentile(times, 50)),
      "appLoads.readyP95Ms": round(percentile(times, 95)),
      "appLoads.readyMaxMs": round(Math.max(...times)),
      "appLoads.failed": failed,
    };
  } finally {
    await browser.close();
    await app.close();
  }
}
