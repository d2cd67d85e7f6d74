/**
 * A mount's state survives a reload that comes right after a change: the
 * page saves mounts when it is hidden or left, not only on its 3 s tick.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { assertBuilt, configureEndpoint, launchBrowser, openReadyApp, serveStatic, type TestServer } from "./harness";
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

describe("saving mounts", () => {
  it("a change made just before a reload is there after it", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openReadyApp(page, app.url);
    await configureEndpoint(page, mock.url, { apiKey: "sk-test" });
    mock.enqueue({
      chunks: [
        `A counter.\n\n${FENCE}tsx agent.run\n` +
          'mount({ title: "Counter", ui: () => { const [n, setN] = React.useState(0); return <Button onClick={() => setN(n + 1)}>{`Count ${n}`}</Button> } })\n' +
          `${FENCE}\n`,
      ],
    });
    await page.getByRole("textbox", { name: "Message" }).fill("A counter please");
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 30_000 }).toMatch(/^Done/);
    const button = page.getByRole("button", { name: /^Count \d+$/ });
    await button.waitFor({ timeout: 30_000 });
    // Let the interaction's own save (and a tick) pass, so only the clicks below are unsaved.
    await page.waitForTimeout(3_500);
    for (let click = 0; click < 3; click += 1) await button.click();
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toBe("Count 3");
    await page.reload();
    await page.getByRole("button", { name: /^Count \d+$/ }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole("button", { name: /^Count \d+$/ }).textContent()).toBe("Count 3");
    await context.close();
  });
});
