/**
 * An MCP App's view in the timeline (issue 31 §1):
 * - `mcpApp.firstPaintMs` (budget ≤ 300): the code calls a tool with a view
 *   (e2e/mcpAppServer.ts: an SDK server on 127.0.0.1 whose view runs the
 *   extension's own `App`) → the view has painted the tool's result. From
 *   when the call went ahead (its panel appeared in the page, seen by a
 *   MutationObserver; the result comes a few milliseconds later from the
 *   local server, so this bounds "result → painted" from above) to the frame
 *   after the view wrote the result (`body[data-painted-at]` in the view),
 *   both on `performance.timeOrigin + performance.now()`, the clock the
 *   page and its frames share. The tool is allowed ("Always allow this
 *   tool") so no ask waits. Median of MCP_APP_CALLS calls in one session,
 *   after a first one that loads the view's code (`mcpApp.firstPaintColdMs`).
 *   A call's start is its own panel's first appearance, found by the panel's
 *   id: a panel drawn again (removed and added back, which reloads its view)
 *   keeps its first time, and counts in `mcpApp.panelsDrawnAgain`. (Taking
 *   the n-th panel added to the page, as until issue 34 §4, started every
 *   call after such a panel at an earlier call's panel.)
 */
import type { Page } from "playwright-core";
import {
  answerAsk,
  configureEndpoint,
  DIST_DIR,
  launchBrowser,
  openReadyApp,
  serveStatic,
  waitFor,
} from "../e2e/harness";
import { createAppServer } from "../e2e/mcpAppServer";
import { startMcpServer } from "../e2e/mcpServer";
import { startMockLlm } from "../e2e/mockLlm";

const MCP_APP_CALLS = 7;
const FENCE = "```";

const PROBE = `{
  if (window === window.top) {
    // Each panel's first appearance, by its id: a panel drawn again (its section removed and added back, which
    // reloads its view) keeps its first time and counts in \`again\`.
    const state = (globalThis.__mcpApp = { order: [], opened: {}, again: 0 });
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes)
          if (node.nodeType === 1) {
            const panels = node.matches?.("[data-mcp-app]") ? [node] : [...node.querySelectorAll("[data-mcp-app]")];
            for (const panel of panels) {
              const id = panel.dataset.mcpApp;
              if (id in state.opened) state.again += 1;
              else {
                state.opened[id] = performance.timeOrigin + performance.now();
                state.order.push(id);
              }
            }
          }
    }).observe(document, { childList: true, subtree: true });
  }
}`;

interface ProbeState {
  /** Panel ids in the order they first appeared. */
  order: string[];
  /** When each panel first appeared (ms, the clock page and frames share). */
  opened: Record<string, number>;
  /** Panels drawn again after their first appearance. */
  again: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
}

async function callOnce(page: Page, mock: Awaited<ReturnType<typeof startMockLlm>>, index: number, allow: boolean) {
  mock.enqueue({
    chunks: [`Card ${index}.\n\n${FENCE}tsx agent.run\nawait tools.show_film({ title: "Dune" })\n${FENCE}\n`],
  });
  await page.locator("#lm-message").fill(`Show card ${index}`);
  await page.locator("#lm-message").press("Enter");
  if (allow) await answerAsk(page.getByRole("group", { name: "Permission request" }), "Always allow this tool");
  const view = page.frameLocator("[data-mcp-app] iframe").nth(index).frameLocator('iframe[title="MCP App view"]');
  const painted = Number(
    await waitFor(() => view.locator("body").getAttribute("data-painted-at", { timeout: 30_000 }), 30_000, 10),
  );
  const opened = await page.evaluate((at) => {
    const state = (globalThis as unknown as { __mcpApp: ProbeState }).__mcpApp;
    return state.opened[state.order[at]];
  }, index);
  await waitFor(async () => /^Done/.test((await page.getByRole("status").textContent()) ?? ""), 30_000);
  return painted - opened;
}

export async function run(): Promise<Record<string, number>> {
  const app = await serveStatic(DIST_DIR);
  const mock = await startMockLlm();
  const films = await startMcpServer({ server: createAppServer });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    await openReadyApp(page, app.url);
    await configureEndpoint(page, mock.url, {});
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog.getByLabel("MCP server URL").fill(films.url);
    await dialog.getByRole("button", { name: "Add server" }).click();
    await dialog.getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
    await dialog.getByRole("button", { name: "Close" }).click();
    const cold = await callOnce(page, mock, 0, true);
    const samples: number[] = [];
    for (let index = 1; index <= MCP_APP_CALLS; index += 1) samples.push(await callOnce(page, mock, index, false));
    const again = await page.evaluate(() => (globalThis as unknown as { __mcpApp: ProbeState }).__mcpApp.again);
    const results = {
      "mcpApp.firstPaintMs": median(samples),
      "mcpApp.firstPaintColdMs": Math.round(cold),
      "mcpApp.panelsDrawnAgain": again,
    };
    console.log(
      `MCP App: the call went ahead → its view painted the result: median ${results["mcpApp.firstPaintMs"]} ms (budget 300); samples ${samples.map(Math.round).join(", ")}; first (loads the view's code) ${results["mcpApp.firstPaintColdMs"]} ms; panels drawn again (their view reloaded) ${again} of ${MCP_APP_CALLS + 1}`,
    );
    return results;
  } finally {
    await browser.close();
    await films.close();
    await mock.close();
    await app.close();
  }
}
