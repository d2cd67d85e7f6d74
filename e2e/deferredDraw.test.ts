/**
 * Panels draw near the timeline's view and are put away far from it
 * (render/useDeferredDraw.ts): drawn once within 800 px of what is shown,
 * kept until farther than 3,000 px. The distances are measured from the
 * timeline's scrolling box (`.lm-main`), where the person reads: a panel
 * scrolled just above it is still drawn (its DOM, its scroll position, a
 * click on it while the page moves all survive), and a panel the person is
 * about to scroll to is drawn before it comes into view. (Measured from the
 * viewport, the timeline's box clipped the panel first: it was put away
 * ~90 px above the view and drawn only once inside it.)
 *
 * Messages have `content-visibility: auto` (src/ui/styles.css): Chromium
 * stops rendering a message ~1,000–1,500 px out of view, and a panel in it
 * then counts as far, so in the app a panel is kept to about there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { assertBuilt, configureEndpoint, launchBrowser, openReadyApp, serveStatic, waitFor, type TestServer } from "./harness";
import { startMockLlm, type MockLlm } from "./mockLlm";

const FENCE = "```";

let browser: Browser;
let app: TestServer;
let mock: MockLlm;

beforeAll(async () => {
  assertBuilt();
  [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(), startMockLlm()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), app?.close(), mock?.close()]);
});

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
}

const settled = (page: Page) => waitFor(async () => /^Done/.test((await page.getByRole("status").textContent()) ?? ""), 60_000);

/** Pixels from the panel's bottom up to the top of the timeline's visible box (negative: the panel reaches into the view). */
const aboveView = (page: Page) =>
  page.getByLabel("Mounted UI").evaluate((panel) => {
    const view = panel.closest(".lm-main")!.getBoundingClientRect();
    return view.top - panel.getBoundingClientRect().bottom;
  });

/** Scroll the timeline so the panel's bottom sits `distance` px above its visible box. */
const placeAbove = (page: Page, distance: number) =>
  page.getByLabel("Mounted UI").evaluate((panel, distance) => {
    const main = panel.closest(".lm-main") as HTMLElement;
    main.scrollTop -= main.getBoundingClientRect().top - panel.getBoundingClientRect().bottom - distance;
  }, distance);

const drawn = async (page: Page) => (await page.getByLabel("Mounted UI").getByRole("button", { name: "Keep me" }).count()) === 1;

describe("panels near the timeline's view", () => {
  it("are drawn within 800 px of the timeline's visible box and kept until 3,000 px away", async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    try {
      await openReadyApp(page, app.url);
      await configureEndpoint(page, mock.url);
      mock.enqueue({
        chunks: [`${FENCE}tsx agent.run\nmount({ ui: () => <Card><CardContent><p>A panel</p><Button>Keep me</Button></CardContent></Card> })\n${FENCE}\n`],
      });
      await send(page, "A panel");
      await page.getByRole("button", { name: "Keep me" }).waitFor({ timeout: 30_000 });
      await settled(page);

      // A reply far taller than 3,000 px: the timeline follows it down, far past the panel.
      mock.enqueue({ chunks: [Array.from({ length: 120 }, (_, index) => `Paragraph ${index + 1}: ${"words to read past ".repeat(12)}`).join("\n\n")] });
      await send(page, "A long story");
      await page.getByText("Paragraph 120:").waitFor({ timeout: 30_000 });
      await settled(page);
      await waitFor(async () => (await aboveView(page)) > 3_500, 10_000);
      await waitFor(async () => !(await drawn(page)), 10_000);

      // Scrolled back to 400 px below the panel: drawn before it comes into view.
      await placeAbove(page, 400);
      await waitFor(() => drawn(page), 10_000);

      // Scrolled down again to 900 px below it: still drawn (the person may scroll back).
      await placeAbove(page, 900);
      await page.waitForTimeout(500);
      expect(Math.round(await aboveView(page))).toBeGreaterThan(850);
      expect(await drawn(page)).toBe(true);

      // Farther than 3,000 px: put away, keeping its height.
      await placeAbove(page, 3_500);
      await waitFor(async () => !(await drawn(page)), 10_000);
    } finally {
      await context.close();
    }
  }, 120_000);
});
