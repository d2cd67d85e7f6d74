/**
 * What a person meets in the app's own UI (not the sandbox): Settings,
 * Markdown, the phone-width layout and the smaller things of the sessions
 * list and code blocks.
 */
import { describe, expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DIST_DIR, openReadyApp, ROOT_DIR, type TestServer } from "./harness";
import type { MockLlm } from "./mockLlm";
import { appTest, FENCE as F, send } from "./fixture";

const it = appTest();
let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let page: Page;

it.beforeEach(({ browser: launched, app: served, mock: started, page: opened }) => {
  browser = launched;
  app = served;
  mock = started;
  page = opened;
});

describe("Settings", () => {
  it("typing a key, base URL and model selects the endpoint: Save without the radio uses it, and the header says which model answers", async () => {
    expect(await page.locator(".lm-model").textContent()).toBe("Demo model (offline)");
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("API key", { exact: true }).fill("sk-test-settings-trap");
    await page.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await page.getByLabel("Model", { exact: true }).fill("mock-model");
    // The choice is visible before Save.
    expect(await page.getByLabel("OpenAI-compatible endpoint").isChecked()).toBe(true);
    const host = new URL(mock.url).host;
    expect(await page.locator(".lm-settings__answering").textContent()).toContain(`mock-model · ${host}`);
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.locator(".lm-model").textContent()).toBe(`mock-model · ${host}`);

    mock.enqueue({ chunks: ["Hello from ", "the endpoint."] });
    await send(page, "hi");
    const [request] = await mock.waitForRequests(1);
    expect(request.body.model).toBe("mock-model");
    await page.getByText("Hello from the endpoint.").waitFor();
  });

  it("with prices entered in Settings, the interaction summary shows the cost of the tokens the API reported", async () => {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("API key", { exact: true }).fill("sk-test-price");
    await page.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await page.getByLabel("Model", { exact: true }).fill("mock-model");
    await page.getByLabel("Price per 1M input tokens (USD)").fill("2.5");
    await page.getByLabel("Price per 1M output tokens (USD)").fill("10");
    await page.getByRole("button", { name: "Save" }).click();

    mock.enqueue({ chunks: ["A priced ", "answer."] });
    await send(page, "hi");
    const summary = page.getByLabel("Interaction summary").locator(".lm-summary__counts");
    await summary.waitFor({ state: "attached", timeout: 20_000 });
    const text = (await summary.textContent()) ?? "";
    const [, tokensIn, tokensOut] = /tokens: ([\d,]+) in \/ ([\d,]+) out/.exec(text) ?? [];
    expect(tokensIn, text).toBeDefined();
    const expected = (Number(tokensIn.replace(/,/g, "")) * 2.5 + Number(tokensOut.replace(/,/g, "")) * 10) / 1_000_000;
    const [, shown] = /cost \$([\d.]+)/.exec(text) ?? [];
    expect(shown, text).toBeDefined();
    expect(Math.abs(Number(shown) - expected)).toBeLessThanOrEqual(expected * 0.05 + 1e-9);
  });

  it("says when the demo still answers: the endpoint chosen without a key", async () => {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("OpenAI-compatible endpoint").check();
    expect(await page.locator(".lm-settings__answering").textContent()).toMatch(/Demo model \(offline\).*API key/);
    await page.getByRole("button", { name: "Cancel" }).click();
  });

  it("says how much the first visit stores for offline use, within 0.5 MB of the built precache", async () => {
    // The service worker's precache list, as the build wrote it into dist/sw.js, and the size of each file.
    const worker = readFileSync(join(DIST_DIR, "sw.js"), "utf8");
    const urls = [...worker.matchAll(/"url":"([^"]+)"/g)].map(([, url]) => url);
    expect(urls).toContain("index.html");
    const bytes = urls.reduce((total, url) => total + statSync(join(DIST_DIR, url)).size, 0);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const about = (await page.locator(".lm-settings__about").textContent()) ?? "";
    const [, stated] = /stores about ([\d.]+) MB/.exec(about) ?? [];
    expect(stated, about).toBeDefined();
    expect(Math.abs(Number(stated) - bytes / 1e6), `built precache ${(bytes / 1e6).toFixed(2)} MB`).toBeLessThanOrEqual(
      0.5,
    );
    // The README says the same number.
    expect(readFileSync(join(ROOT_DIR, "README.md"), "utf8")).toContain(`about ${stated} MB`);
  });
});

describe("a 375 px phone screen", () => {
  const inViewport = (target: Page, name: string) =>
    target.getByRole("button", { name, exact: true }).evaluate((element) => {
      const box = element.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return (
        box.width > 0 &&
        box.left >= 0 &&
        box.right <= innerWidth &&
        box.top >= 0 &&
        box.bottom <= innerHeight &&
        (hit === element || element.contains(hit))
      );
    });
  const noHorizontalScroll = (target: Page) =>
    target.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));

  it("is one column with no horizontal scrolling, and every action is reachable", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 } });
    try {
      const target = await phone.newPage();
      await openReadyApp(target, app.url);
      let width = await noHorizontalScroll(target);
      expect(width.scrollWidth).toBeLessThanOrEqual(width.clientWidth);
      for (const name of ["Settings", "Export", "Share", "Sessions"])
        expect(await inViewport(target, name), name).toBe(true);

      // A reply with code, console output and prose: still no sideways scrolling.
      await target.locator(".lm-suggestions button", { hasText: "primes" }).click();
      await target.getByRole("status").filter({ hasText: "Done" }).waitFor({ timeout: 60_000 });
      width = await noHorizontalScroll(target);
      expect(width.scrollWidth).toBeLessThanOrEqual(width.clientWidth);

      // The session list is a drawer.
      const toggle = target.getByRole("button", { name: "Sessions", exact: true });
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      expect(await target.getByRole("button", { name: "New session" }).isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      // (The drawer slides in.)
      for (const name of ["New session", "Export all", "Close sessions"])
        await expect.poll(() => inViewport(target, name), { message: name }).toBe(true);
      const importBox = await target.getByText("Import session").boundingBox();
      expect(
        importBox && importBox.x >= 0 && importBox.x + importBox.width <= 375 && importBox.y + importBox.height <= 740,
      ).toBe(true);
      width = await noHorizontalScroll(target);
      expect(width.scrollWidth).toBeLessThanOrEqual(width.clientWidth);
      await target.keyboard.press("Escape");
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");

      // New session from the drawer closes it and opens the new session.
      await toggle.click();
      await target.getByRole("button", { name: "New session" }).click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      await target.locator(".lm-suggestions").waitFor();

      // Settings opens a dialog that fits the screen.
      await target.getByRole("button", { name: "Settings", exact: true }).click();
      const dialog = await target.getByRole("dialog").boundingBox();
      expect(dialog && dialog.x >= 0 && dialog.x + dialog.width <= 375).toBe(true);
      expect(await inViewport(target, "Save")).toBe(true);
    } finally {
      await phone.close();
    }
  }, 120_000);
});

describe("smaller things", () => {
  it("a skip link is the keyboard's first stop, shown when focused, and takes the focus to the message box", async () => {
    const link = page.getByRole("link", { name: "Skip to the message box" });
    const box = () =>
      link.evaluate((element) => {
        const rect = element.getBoundingClientRect();
        return { top: rect.top, bottom: rect.bottom };
      });
    // Off screen until reached.
    expect((await box()).bottom).toBeLessThanOrEqual(0);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to the message box");
    expect((await box()).top).toBeGreaterThanOrEqual(0);
    const url = page.url();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("lm-message");
    // The fragment, where share links arrive, is left alone.
    expect(page.url()).toBe(url);
    expect((await box()).bottom).toBeLessThanOrEqual(0);
  });

  it("Import session shows a focus ring when its file input has keyboard focus", async () => {
    const label = page.locator("label.lm-file-button");
    expect(await label.evaluate((element) => getComputedStyle(element).outlineStyle)).toBe("none");
    // Tab from the last session control reaches the hidden file input.
    await page
      .getByRole("button", { name: /^Delete / })
      .first()
      .focus();
    for (let step = 0; step < 5; step++) {
      if (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === "file")) break;
      await page.keyboard.press("Tab");
    }
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe("file");
    expect(await label.evaluate((element) => getComputedStyle(element).outlineStyle)).not.toBe("none");
  });

  it("an empty search says so", async () => {
    await page.getByRole("searchbox", { name: "Search sessions" }).fill("zebra-quartz-nothing");
    await page.getByText("No sessions match").waitFor();
    await page.getByRole("searchbox", { name: "Search sessions" }).fill("");
    await expect.poll(() => page.getByText("No sessions match").count()).toBe(0);
  });

  it("numbers code lines per block (the reply line stays in the title) and scrolls long lines inside the block", async () => {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("API key", { exact: true }).fill("sk-test-lines");
    await page.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await page.getByLabel("Model", { exact: true }).fill("mock-model");
    await page.getByRole("button", { name: "Save" }).click();
    const long = "x".repeat(400);
    // The block's first line is line 4 of the reply.
    mock.enqueue({ chunks: [`Intro.\n\n${F}tsx agent.run\nconst wide = "${long}".length\nconsole.log(wide)\n${F}\n`] });
    mock.enqueue({ chunks: ["ok"] });
    await send(page, "lines");
    await page.getByRole("status").filter({ hasText: "Done" }).waitFor({ timeout: 30_000 });
    const numbers = page.locator(".lm-code__number");
    expect(await numbers.allTextContents()).toEqual(["1", "2"]);
    expect(await numbers.first().getAttribute("title")).toBe("line 4 of the reply");
    const layout = await page.evaluate(() => {
      const body = document.querySelector(".lm-code__body") as HTMLElement;
      const rows = [...body.querySelectorAll(".lm-code__line")].map((row) => row.getBoundingClientRect().width);
      return {
        scrollWidth: body.scrollWidth,
        clientWidth: body.clientWidth,
        overflowX: getComputedStyle(body).overflowX,
        rows,
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });
    // The whole line is reachable by scrolling the block, and every row runs its full width; the page itself does not scroll.
    expect(layout.overflowX).toBe("auto");
    expect(layout.scrollWidth).toBeGreaterThan(layout.clientWidth);
    for (const width of layout.rows) expect(Math.round(width)).toBeGreaterThanOrEqual(layout.scrollWidth - 1);
    expect(layout.page).toBe(0);
  });
});
