/**
 * Edit code and Run (issue 29 §2; budget from issue 34 §4), in the built app
 * through the mock LLM:
 * - `edit.rerunMs` (budget ≤ 100): a session whose reply has 20 code blocks
 *   (every other one mounts a panel; the ones between read the value before
 *   them), block 11 (Panel 10) is edited through **Edit code** (its value
 *   typed anew in the editor) and **Run** is pressed: the click → the panel's
 *   new content is in the page's DOM, timed in the page (a capture-phase
 *   click listener and a MutationObserver). Median of RERUNS after one run
 *   not counted (its first use loads the edit-run chunk); between runs the
 *   test probe is waited on until the page is quiet.
 *   `edit.rerunMaxMs`: the longest of those runs.
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
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

const BLOCKS = 20;
const EDITED = 10;
const RERUNS = 7;
const FENCE = "```";

/** Block k: a panel (even k) or a reader of the value before it (odd k). */
function blockCode(k: number): string {
  return k % 2 === 0
    ? `const v${k} = ${k}\nmount({ title: "Panel ${k}", ui: () => <Card>value {v${k}}</Card> })`
    : `const s${k} = v${k - 1} * 2\nconsole.log("block ${k}", s${k})`;
}

/** Typed into the editor key by key: no JSX, whose tags the editor closes as you type. */
const editedCode = (value: number) =>
  `const v${EDITED} = ${value}\nmount({ title: "Panel ${EDITED}", ui: () => React.createElement(Card, null, "value " + v${EDITED}) })`;

/**
 * Armed before the click (a string: tsx would wrap named functions in a helper the page lacks): the Run
 * button's click → a mounted panel shows `expected`; the time lands in `window.__rerunMs`.
 */
const arm = (expected: string) => `(() => {
  window.__rerunMs = undefined;
  const button = [...document.querySelectorAll("button")].find((each) => each.textContent.trim() === "Run");
  button.addEventListener("click", () => {
    const clickedAt = performance.now();
    const observer = new MutationObserver(() => check());
    const check = () => {
      const panels = [...document.querySelectorAll('[aria-label="Mounted UI"]')];
      if (!panels.some((panel) => panel.textContent.includes(${JSON.stringify(expected)}))) return;
      observer.disconnect();
      window.__rerunMs = performance.now() - clickedAt;
    };
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    check();
  }, { capture: true, once: true });
})()`;

const quiet = (page: Page) =>
  page.evaluate((name) => (window as unknown as Record<string, TestProbe>)[name].quiet, TEST_PROBE_GLOBAL);

async function editAndRun(page: Page, value: number): Promise<number> {
  // Each code block's Edit code sits just before it (src/ui/Timeline.tsx): the reply has only code blocks.
  await page.getByRole("button", { name: "Edit code" }).nth(EDITED).click();
  const editor = page.getByLabel("Code", { exact: true });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(editedCode(value));
  await page.evaluate(arm(`value ${value}`));
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const ms = (await waitFor(() => page.evaluate("window.__rerunMs") as Promise<number | undefined>, 30_000, 20))!;
  await waitFor(() => quiet(page), 30_000, 20);
  return ms;
}

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
    const chunks = ["Twenty blocks.\n\n"];
    for (let k = 0; k < BLOCKS; k += 1)
      chunks.push(`${FENCE}${k % 2 === 0 ? "tsx" : "ts"} agent.run\n${blockCode(k)}\n${FENCE}\n\n`);
    mock.enqueue({ chunks });
    mock.enqueue({ chunks: ["Noted."] });
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("Twenty blocks");
    await box.press("Enter");
    await waitFor(() => mock.requests.length >= 2, 60_000, 50);
    await waitFor(
      async () => (await page.getByLabel("Mounted UI").count()) === BLOCKS / 2 && (await quiet(page)),
      60_000,
      50,
    );

    await editAndRun(page, 1_000);
    const times: number[] = [];
    for (let index = 1; index <= RERUNS; index += 1) times.push(await editAndRun(page, 1_000 + index));
    if ((await page.getByLabel("Mounted UI").count()) !== BLOCKS / 2) throw new Error("a re-run added a panel");

    const results = { "edit.rerunMs": round(median(times)), "edit.rerunMaxMs": round(maxOfSamples(times)) };
    console.log(
      `Run on an edited block (${BLOCKS}-block session) → its panel updated: median ${results["edit.rerunMs"]} ms (budget 100), longest ${results["edit.rerunMaxMs"]} ms; samples ${times.map(Math.round).join(", ")}`,
    );
    return results;
  } finally {
    await browser.close();
    await mock.close();
    await app.close();
  }
}
