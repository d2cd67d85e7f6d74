/**
 * App data made durable (issue 34 §4), in the built app through the mock LLM:
 * - `storage.durableMs` (budget ≤ 500): a reply's code calls
 *   `await storage.set(key, value)` (a 2 KB JSON value) and the call is
 *   answered; the host answers a write only once its IndexedDB transaction
 *   has committed (src/capabilities/storage/createAppData.ts), so this is
 *   the call → acknowledged-on-disk time. Timed in the realm's own clock,
 *   one write after another, median of DURABLE_WRITES after one write not
 *   counted (it opens the session's app data). `storage.durableMaxMs`: the
 *   longest of them. After the writes the test probe must count no app data
 *   write left uncommitted, and a reload must read the last value back.
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  DIST_DIR,
  ROOT_DIR,
  configureEndpoint,
  launchBrowser,
  openReadyApp,
  serveStatic,
  waitFor,
} from "../e2e/harness";
import { startMockLlm } from "../e2e/mockLlm";
import { TEST_PROBE_FLAG, TEST_PROBE_GLOBAL, type TestProbe } from "../src/testProbe";
import { maxOfSamples, median } from "./budgets";

const DURABLE_WRITES = 11;
const FENCE = "```";
const MARK = "DURABLE_MS";

const WRITES = `await storage.set("warm", 0)
const value = { rows: Array.from({ length: 40 }, (_, index) => ({ index, text: "x".repeat(40) })) }
const times = []
for (let index = 0; index < ${DURABLE_WRITES}; index += 1) {
  const start = performance.now()
  await storage.set("item" + index, { ...value, index })
  times.push(performance.now() - start)
}
console.log("${MARK}", JSON.stringify(times))`;

const round = (value: number) => Math.round(value * 10) / 10;

export async function run(): Promise<Record<string, number>> {
  if (!existsSync(join(DIST_DIR, "index.html"))) execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  const app = await serveStatic();
  const mock = await startMockLlm();
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    const url = new URL(app.url);
    url.searchParams.set(TEST_PROBE_FLAG, "");
    await openReadyApp(page, url.href);
    await configureEndpoint(page, mock.url, { apiKey: "bench" });
    mock.enqueue({ chunks: ["Writing.\n\n", `${FENCE}ts agent.run\n${WRITES}\n${FENCE}\n`] });
    mock.enqueue({ chunks: ["Noted."] });
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("Keep these");
    await box.press("Enter");
    // The model's second request carries what the code printed.
    const heard = (await waitFor(
      () => (mock.requests.length >= 2 ? JSON.stringify(mock.requests[1].body.messages) : undefined),
      60_000,
      50,
    ))!;
    const found = new RegExp(`${MARK} (\\[[^\\]]*\\])`).exec(heard.replace(/\\"/g, '"'));
    if (!found) throw new Error(`the writes printed no times: ${heard.slice(-400)}`);
    const times = JSON.parse(found[1]) as number[];
    const pending = await page.evaluate(
      (name) => (window as unknown as Record<string, TestProbe>)[name].appDataPending,
      TEST_PROBE_GLOBAL,
    );
    if (pending !== 0) throw new Error(`${pending} app data writes not on disk after their answers`);
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    const last = `item${DURABLE_WRITES - 1}`;
    mock.enqueue({
      chunks: [
        "Reading.\n\n",
        `${FENCE}ts agent.run\nconsole.log("READ", (await storage.get("${last}"))?.index)\n${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Noted."] });
    await box.fill("Read it back");
    await box.press("Enter");
    const reread = (await waitFor(
      () => (mock.requests.length >= 4 ? JSON.stringify(mock.requests[3].body.messages) : undefined),
      60_000,
      50,
    ))!;
    if (!reread.includes(`READ ${DURABLE_WRITES - 1}`)) throw new Error(`the reload did not read ${last} back`);

    const results = {
      "storage.durableMs": round(median(times)),
      "storage.durableMaxMs": round(maxOfSamples(times)),
    };
    console.log(
      `storage.set → answered on disk: median ${results["storage.durableMs"]} ms (budget 500), longest ${results["storage.durableMaxMs"]} ms; samples ${times.map(Math.round).join(", ")}`,
    );
    return results;
  } finally {
    await browser.close();
    await mock.close();
    await app.close();
  }
}
