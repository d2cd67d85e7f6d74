/**
 * A mount's state survives a reload that comes right after a change: the
 * page saves mounts when it is hidden or left, not only on its 3 s tick.
 */
import { describe, expect, it } from "vitest";
import { configureEndpoint, openReadyApp, useAppSuite } from "./harness";

const suite = useAppSuite({ mock: true });

const FENCE = "```";

describe("saving mounts", () => {
  it("a change made just before a reload is there after it", async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    await openReadyApp(page, suite.app.url);
    await configureEndpoint(page, suite.mock.url, { apiKey: "sk-test" });
    suite.mock.enqueue({
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
