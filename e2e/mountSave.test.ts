/**
 * A mount's state survives a reload that comes right after a change: the
 * page saves mounts when it is hidden or left, not only on its 3 s tick. So
 * does an exchange that has just ended, on a slow machine where the save at
 * the reply's end is still under way when the page goes.
 */
import { describe, expect } from "vitest";
import { configureEndpoint, openReadyApp } from "./harness";
import { appTest, FENCE, probeUrl, send, statusText, waitQuiet } from "./fixture";

const it = appTest({ probe: true, configure: { apiKey: "sk-test" } });
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("saving mounts", () => {
  it("a change made just before a reload is there after it", async ({ page, mock }) => {
    mock.enqueue({
      chunks: [
        `A counter.\n\n${FENCE}tsx agent.run\n` +
          'mount({ title: "Counter", ui: () => { const [n, setN] = React.useState(0); return <Button onClick={() => setN(n + 1)}>{`Count ${n}`}</Button> } })\n' +
          `${FENCE}\n`,
      ],
    });
    await send(page, "A counter please");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    const button = page.getByRole("button", { name: /^Count \d+$/ });
    await button.waitFor({ timeout: 30_000 });
    // Let the interaction's own save finish (nothing left to write, apply or run), so only the clicks below are unsaved.
    await waitQuiet(page);
    for (let click = 0; click < 3; click += 1) await button.click();
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toBe("Count 3");
    await page.reload();
    await page.getByRole("button", { name: /^Count \d+$/ }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole("button", { name: /^Count \d+$/ }).textContent()).toBe("Count 3");
  });
});

describe("saving messages", () => {
  it("a reload right after a reply ends keeps the exchange, with its image, on a 4× slower CPU", async ({
    browser,
    app,
    mock,
  }) => {
    // Each round is a fresh profile; without the save on page hide most rounds lost the whole exchange.
    for (let round = 0; round < 3; round += 1) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await openReadyApp(page, probeUrl(app.url));
      await configureEndpoint(page, mock.url, { apiKey: "sk-test" });
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      await page.locator("#lm-attach").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
      await page.getByRole("list", { name: "Attached files" }).getByText("dot.png").waitFor();
      mock.enqueue({ chunks: [`A single dot, round ${round}.`] });
      await send(page, `What is this? (${round})`);
      await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
      await page.reload();
      await expect.poll(() => page.getByText(`A single dot, round ${round}.`).count(), { timeout: 30_000 }).toBe(1);
      await page.getByRole("img", { name: "dot.png" }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole("article", { name: "Your message" }).textContent()).toContain(
        `What is this? (${round})`,
      );
      // Saved as ended, not as a reply cut mid-stream.
      expect(await page.getByRole("button", { name: "Continue" }).count()).toBe(0);
      await context.close();
    }
  });
});
