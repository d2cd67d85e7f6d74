/**
 * Generative UI in the real app, in Chromium, through the mock LLM:
 * - `ui.clickToDomP95Ms`: a click on a realm-handled button (React state in
 *   the realm) until the host DOM shows the new text: host event → port →
 *   realm handler → reconciler ops → host receiver → DOM. Budget p95 ≤ 16.
 * - `ui.clickToDomP95MsWhileStreaming` (budget p95 ≤ 8): the same clicks
 *   while another reply (prose and code that runs) streams at 200 tokens/s
 *   (80 characters every 100 ms) below the panel; the person has scrolled up
 *   to the panel (the timeline follows the stream otherwise, and a panel far
 *   out of view is put away: render/useDeferredDraw.ts).
 * - `ui.clicksLost`, `ui.clicksLostWhileStreaming`: clicks whose count did not
 *   show within 2 s (every wait is bounded; the loop goes on).
 * - `ui.stream1000RowsLongestTaskMs`: 1,000 rows streamed by a data fence into
 *   a mounted table; the longest main-thread task meanwhile. Budget ≤ 50.
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIST_DIR, ROOT_DIR, configureEndpoint, launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import type { Page } from "playwright-core";
import { startMockLlm, type MockChunk, type MockLlm } from "../e2e/mockLlm";

const FENCE = "```";

/** How long one click may take to show its count before it is counted as lost. */
const CLICK_TIMEOUT_MS = 2_000;

/**
 * 60 clicks on the realm-handled "Bump" button of the first mounted panel
 * (the first 10 are warm-ups, not timed),
 * each timed until the host DOM shows the count one higher than before the
 * click (not merely a different text: a panel put away also changes it).
 * Every wait is bounded: a click whose count does not show within
 * CLICK_TIMEOUT_MS is counted as lost (with why: no button in the panel, or
 * the count never changed), and the loop goes on. The button and the text
 * are looked up again at each click (a panel that was put away and drawn
 * again has new elements). Also counts the clicks made while the panel was
 * outside the timeline's visible box.
 */
const CLICK_LOOP = `(async () => {
      const panel = document.querySelector('[aria-label="Mounted UI"]');
      const main = document.querySelector(".lm-main");
      const button = () => [...panel.querySelectorAll("button")].find((candidate) => candidate.textContent === "Bump");
      const count = () => {
        const text = [...panel.querySelectorAll("p")].find((p) => p.textContent.startsWith("Count"))?.textContent;
        return text === undefined ? undefined : Number(text.slice("Count ".length));
      };
      const inView = () => {
        const box = panel.getBoundingClientRect();
        const view = main.getBoundingClientRect();
        return box.bottom > view.top && box.top < view.bottom;
      };
      const times = [];
      const lost = [];
      let outOfView = 0;
      for (let index = 0; index < 60; index += 1) {
        if (!inView()) outOfView += 1;
        const target = button();
        const before = count();
        if (!target || before === undefined) {
          lost.push({ index, why: "no Bump button or count in the panel (not drawn)" });
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        const start = performance.now();
        const shown = await new Promise((resolve) => {
          const done = (value) => { clearTimeout(timer); observer.disconnect(); resolve(value); };
          const timer = setTimeout(() => done(false), ${CLICK_TIMEOUT_MS});
          const observer = new MutationObserver(() => { if (count() === before + 1) done(true); });
          observer.observe(panel, { subtree: true, childList: true, characterData: true });
          target.click();
        });
        if (shown && index >= 10) times.push(performance.now() - start);
        else if (!shown) lost.push({ index, why: "count " + before + " → " + count() + " after " + ${CLICK_TIMEOUT_MS} + " ms" + (target.isConnected ? "" : " (button gone)") });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { times, lost, outOfView };
    })()`;

export interface ClickRun {
  times: number[];
  lost: { index: number; why: string }[];
  outOfView: number;
}

export interface ClickFigures {
  idle: ClickRun;
  streaming: ClickRun;
  /** The other reply was still streaming after the last click. */
  stillStreaming: boolean;
}

/** Print a click run's figures and its lost clicks. */
export function reportClicks(label: string, run: ClickRun): void {
  const { times } = run;
  const figures = times.length
    ? `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`
    : "no click showed its count";
  console.log(
    `${label}, over ${times.length} timed clicks: ${figures}; ${run.lost.length} lost, ${run.outOfView} made with the panel out of view`,
  );
  for (const click of run.lost) console.log(`  lost click ${click.index}: ${click.why}`);
}

/**
 * On an app page set up with the mock LLM: a reply mounts the clicker, the
 * click loop runs; then another reply streams at 200 tokens/s, the person
 * scrolls up to the panel and the loop runs again. Returns when that reply is over.
 */
export async function measureClicks(page: Page, mock: MockLlm): Promise<ClickFigures> {
  mock.enqueue({
    chunks: [
      `${FENCE}tsx agent.run\nfunction Clicker() {\n  const [count, setCount] = useState(0)\n  return <div><p>Count {count}</p><Button onClick={() => setCount(count + 1)}>Bump</Button></div>\n}\nmount({ ui: Clicker })\n${FENCE}\n`,
    ],
  });
  await page.getByRole("textbox", { name: "Message" }).fill("A button");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  const panel = page.getByLabel("Mounted UI");
  await panel.getByRole("button", { name: "Bump" }).waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => /^Done/.test(document.querySelector('[role="status"]')?.textContent ?? ""));
  // A string, not a function: the TypeScript runner would inject helpers the page lacks.
  const clicks = async () => (await page.evaluate(CLICK_LOOP)) as ClickRun;
  const idle = await clicks();

  // Then the same clicks while another reply streams at 200 tokens/s. The
  // reply below follows the stream (the timeline keeps its bottom in view),
  // so the person scrolls up to the panel first (a wheel up stops following,
  // useFollowLatest.ts) and clicks while the reply streams below.
  const prose = "The totals come in as the rows stream, and the chart follows them without waiting for the end. ";
  const streaming: MockChunk[] = [];
  let text = "";
  for (let part = 0; part < 12; part += 1) {
    text += `\n\n## Part ${part}\n\n${prose.repeat(4)}\n\n${FENCE}tsx agent.run\nconst part${part} = Array.from({ length: 40 }, (_, i) => i * ${part})\nconsole.log(part${part}.reduce((a, b) => a + b, 0))\n${FENCE}\n`;
  }
  for (let at = 0; at < text.length; at += 80) {
    streaming.push(text.slice(at, at + 80));
    streaming.push({ pauseMs: 100 });
  }
  mock.enqueue({ chunks: streaming });
  await page.getByRole("textbox", { name: "Message" }).fill("Write while I click");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  await page.waitForFunction(
    () => /^Streaming/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
    undefined,
    { timeout: 30_000 },
  );
  // Once the timeline overflows (before that a wheel does not scroll, and following goes on).
  await page.waitForFunction(
    () => {
      const main = document.querySelector(".lm-main");
      return !!main && main.scrollHeight > main.clientHeight + 100;
    },
    undefined,
    { timeout: 30_000 },
  );
  // The wheel stopped following once "Jump to latest" shows (useFollowLatest.ts); a few tries, each bounded.
  const jump = page.getByRole("button", { name: "Jump to latest" });
  for (let attempt = 0; attempt < 5 && !(await jump.isVisible()); attempt += 1) {
    const main = await page.locator(".lm-main").boundingBox();
    if (main) {
      await page.mouse.move(main.x + main.width / 2, main.y + main.height / 2);
      await page.mouse.wheel(0, -20_000);
    }
    await jump.waitFor({ timeout: 1_000 }).catch(() => undefined);
  }
  await page.waitForTimeout(200);
  const whileStreaming = await clicks();
  const stillStreaming = await page.evaluate(() =>
    /^Streaming/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
  );
  await page.waitForFunction(
    () => /^Done|^Error|^Stopped/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
    undefined,
    { timeout: 120_000, polling: 250 },
  );

  return { idle, streaming: whileStreaming, stillStreaming };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function run(): Promise<Record<string, number>> {
  if (!existsSync(join(DIST_DIR, "index.html"))) execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  const results: Record<string, number> = {};
  const [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(), startMockLlm()]);
  try {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const probe: number[] = [];
      (globalThis as unknown as { __tasks: number[] }).__tasks = probe;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) probe.push(entry.duration);
      }).observe({ type: "longtask" });
    });
    await openReadyApp(page, app.url);
    await configureEndpoint(page, mock.url, { apiKey: "bench" });

    // 1. Click → realm → DOM, idle and while another reply streams.
    const clicks = await measureClicks(page, mock);
    if (clicks.idle.times.length)
      results["ui.clickToDomP95Ms"] = Math.round(percentile(clicks.idle.times, 95) * 10) / 10;
    results["ui.clicksLost"] = clicks.idle.lost.length;
    reportClicks("click → DOM", clicks.idle);
    if (clicks.streaming.times.length)
      results["ui.clickToDomP95MsWhileStreaming"] = Math.round(percentile(clicks.streaming.times, 95) * 10) / 10;
    results["ui.clicksLostWhileStreaming"] = clicks.streaming.lost.length;
    reportClicks(
      `click → DOM while a reply streams at 200 tok/s (budget p95 ≤ 8)${clicks.stillStreaming ? "" : " — the reply ended before the last click"}`,
      clicks.streaming,
    );

    // 2. 1,000 rows into a mounted table.
    const rows = Array.from({ length: 1000 }, (_, id) =>
      JSON.stringify({ id, name: `row ${id}`, value: (id * 37) % 1000 }),
    );
    const body = `[${rows.join(",\n")}]\n`;
    const chunks: MockChunk[] = [
      `${FENCE}tsx agent.run\nconst rows = new StreamedData("rows")\nmount({ ui: () => (\n  <Table>\n    <TableBody>\n      {(rows.value ?? []).map((row) => (\n        <TableRow key={row.id}><TableCell>{row.id}</TableCell><TableCell>{row.name}</TableCell><TableCell>{row.value}</TableCell></TableRow>\n      ))}\n    </TableBody>\n  </Table>\n) })\n${FENCE}\n\n${FENCE}json agent.data => "rows"\n`,
    ];
    // ~200 tokens/s of 4 characters: 80 characters every 100 ms.
    for (let at = 0; at < body.length; at += 80) {
      chunks.push(body.slice(at, at + 80));
      chunks.push({ pauseMs: 100 });
    }
    chunks.push(`${FENCE}\n${FENCE}tsx agent.run\nconst all = await rows.done\n${FENCE}\nAll rows are in.\n`);
    mock.enqueue({ chunks });
    await page.evaluate(() => ((globalThis as unknown as { __tasks: number[] }).__tasks.length = 0));
    const started = Date.now();
    await page.getByRole("textbox", { name: "Message" }).fill("A big table");
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    await page.waitForFunction(
      () => document.querySelectorAll('[aria-label="Mounted UI"]')[1]?.querySelectorAll("tr").length === 1000,
      undefined,
      { timeout: 600_000, polling: 500 },
    );
    const tasks: number[] = await page.evaluate(() => (globalThis as unknown as { __tasks: number[] }).__tasks);
    results["ui.stream1000RowsLongestTaskMs"] = Math.round(tasks.length ? Math.max(...tasks) : 0);
    console.log(
      `1,000 rows streamed in ${((Date.now() - started) / 1000).toFixed(1)} s; ${tasks.length} tasks over 50 ms, longest ${tasks.length ? Math.max(...tasks).toFixed(0) : "none"} (0 = none over 50 ms)`,
    );
  } finally {
    await Promise.all([browser.close(), app.close(), mock.close()]);
  }
  return results;
}
