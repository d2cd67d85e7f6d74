/**
 * The composer works before the person's sessions are open. The database
 * code is held back here (a slow disk or a cold start), and the person types
 * and sends at once: the message is shown as sent, goes to the session once
 * it opens, gets its reply and is saved. A draft written meanwhile stays in
 * the composer, and Stop takes a waiting message back. A waiting message
 * starts loading its reply's code (for the demo: the demo model, never the
 * HTTP providers) while the sessions open.
 */
import { describe, expect } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { answerAsk, recordPageRequests, type TestServer } from "./harness";
import { appTest } from "./fixture";

// Tests open contexts of their own: they take the fixture's browser and app.
const it = appTest();
const suite = {} as { browser: Browser; app: TestServer };
it.beforeEach(({ browser, app }) => {
  Object.assign(suite, { browser, app });
});

/** A fresh profile whose database code arrives only when `release` is called; its composer, once shown. */
async function slowStorePage(): Promise<{ page: Page; box: Locator; release: () => void; close: () => Promise<void> }> {
  const context = await suite.browser.newContext();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await context.route(/\/assets\/store-[^/]*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  const page = await context.newPage();
  await page.goto(suite.app.url);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.waitFor({ timeout: 30_000 });
  return { page, box, release, close: () => context.close() };
}

describe("sending before the sessions are open", () => {
  it("a message sent at once is shown, waits for the session, gets its reply and is saved", async () => {
    const { page, box, release, close } = await slowStorePage();
    await expect.poll(() => page.locator(".lm-empty").textContent()).toBe("Opening your sessions…");
    // Said once, in the timeline (the status line does not repeat it).
    expect(await page.getByText("Opening your sessions…").count()).toBe(1);
    await box.fill("Compute some primes");
    await page.getByRole("button", { name: "Send" }).click();
    // Taken: the composer is empty and the message is on screen, waiting.
    expect(await box.inputValue()).toBe("");
    await expect
      .poll(() => page.getByRole("article", { name: "Your message" }).textContent())
      .toContain("Compute some primes");
    await page.getByText("Sending once your session is open…").waitFor();
    // The session's status line is the one live region; the opening screen's line is not a second one.
    expect(await page.getByRole("status").count()).toBe(0);
    release();
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 60_000 }).toMatch(/^Done/);
    // Sent once, to the session that opened.
    await expect.poll(() => page.getByRole("article", { name: "Your message" }).count()).toBe(1);
    expect(await page.getByRole("article", { name: "Your message" }).textContent()).toContain("Compute some primes");
    await page.reload();
    await page.getByRole("article", { name: "Your message" }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole("article", { name: "Your message" }).first().textContent()).toContain(
      "Compute some primes",
    );
    await close();
  });

  it("a waiting message starts loading its reply's code while the sessions open, and the demo's reply never loads the HTTP providers", async () => {
    const { page, box, release, close } = await slowStorePage();
    const log = recordPageRequests(page);
    await box.fill("Compute some primes");
    await box.press("Enter");
    await page.getByRole("article", { name: "Your message" }).waitFor();
    // The session cannot open yet (its database code is held back); the demo model's code is already on its way.
    await expect
      .poll(() => log.urls.some((url) => /\/assets\/demoModel-[^/]*\.js$/.test(url)), { timeout: 30_000 })
      .toBe(true);
    release();
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 60_000 }).toMatch(/^Done/);
    // The page's own requests (the service worker, registered once the page is idle, precaches every file).
    const pageUrls = log.requests.filter((request) => !request.serviceWorker()).map((request) => request.url());
    expect(pageUrls.filter((url) => /\/assets\/provider-[^/]*\.js$/.test(url))).toEqual([]);
    log.stop();
    await close();
  });

  it("a waiting message whose reply asks for a permission gets its ask on screen (the session's capabilities load first)", async () => {
    const { page, box, release, close } = await slowStorePage();
    await box.fill("Look up a film with a tool");
    await box.press("Enter");
    await page.getByRole("article", { name: "Your message" }).waitFor();
    release();
    const ask = page.getByRole("group", { name: "Permission request" });
    await answerAsk(ask, "Allow once");
    await expect.poll(() => page.getByText("Dune (2021)").count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await close();
  });

  it("a draft written while the sessions open stays in the composer", async () => {
    const { page, box, release, close } = await slowStorePage();
    await box.fill("half a thought");
    release();
    await page
      .locator(".lm-empty", { hasText: "Opening your sessions…" })
      .waitFor({ state: "detached", timeout: 30_000 });
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 30_000 }).toMatch(/^Ready/);
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("half a thought");
    await close();
  });

  it("typing goes on in the session's composer when the sessions open under the person's keys", async () => {
    const { page, box, release, close } = await slowStorePage();
    await box.click();
    await page.keyboard.type("Compute some");
    release();
    await page
      .locator(".lm-empty", { hasText: "Opening your sessions…" })
      .waitFor({ state: "detached", timeout: 30_000 });
    // The keys pressed next, with no click in between, land in the session's box.
    await page.keyboard.type(" primes");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.getByRole("article", { name: "Your message" }).first().textContent(), { timeout: 30_000 })
      .toContain("Compute some primes");
    await page.getByRole("article", { name: "Reply" }).first().waitFor({ timeout: 30_000 });
    await close();
  });

  it("a second message while one waits is kept and told why, and Stop brings back both", async () => {
    const { page, box, release, close } = await slowStorePage();
    await box.fill("first thought");
    await box.press("Enter");
    await page.getByRole("article", { name: "Your message" }).waitFor();
    await box.fill("second thought");
    await box.press("Enter");
    // The reason is the session still opening, not a running reply.
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("a message is already waiting for your session to open");
    expect(await alert.textContent()).not.toContain("a reply is still running");
    expect(await box.inputValue()).toBe("second thought");
    await page.getByRole("button", { name: "Stop" }).click();
    expect(await page.getByRole("article", { name: "Your message" }).count()).toBe(0);
    // Neither text is lost: the message taken back comes first, what was typed since after it.
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("first thought\n\nsecond thought");
    release();
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 30_000 }).toMatch(/^Ready/);
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("first thought\n\nsecond thought");
    expect(await page.getByRole("article", { name: "Your message" }).count()).toBe(0);
    await close();
  });

  it("Stop takes a waiting message back into the composer, and nothing is sent", async () => {
    const { page, box, release, close } = await slowStorePage();
    await box.fill("never mind");
    await box.press("Enter");
    await page.getByRole("article", { name: "Your message" }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    expect(await page.getByRole("article", { name: "Your message" }).count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("never mind");
    release();
    await expect.poll(() => page.getByRole("status").textContent(), { timeout: 30_000 }).toMatch(/^Ready/);
    expect(await page.getByRole("article", { name: "Your message" }).count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("never mind");
    await close();
  });
});

describe("a reload", () => {
  it("draws the session's replies formatted, with their code, from the first frame they show in", async ({ page }) => {
    await page.getByRole("button", { name: "Start the demo" }).first().click();
    await page.getByRole("status").filter({ hasText: /^Done/ }).first().waitFor({ timeout: 60_000 });
    // Every frame from the reload on: a reply shown as raw Markdown, or a code block without its code, is noted.
    await page.addInitScript(`{
      const seen = (globalThis.__drawn = { frames: 0, raw: 0, codeless: 0 });
      const look = () => {
        if (document.querySelector('article[aria-label="Reply"]')) {
          seen.frames += 1;
          if (document.querySelector(".lm-markdown--loading")) seen.raw += 1;
          const entries = document.querySelectorAll('button[title="Copy this code block"]').length;
          if (document.querySelectorAll(".lm-code__lang").length < entries) seen.codeless += 1;
        }
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    }`);
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await page.locator(".lm-code__lang").first().waitFor({ timeout: 30_000 });
    await page.getByRole("article", { name: "Reply" }).locator("strong").first().waitFor({ timeout: 30_000 });
    const drawn = await page.evaluate(
      () => (globalThis as unknown as { __drawn: { frames: number; raw: number; codeless: number } }).__drawn,
    );
    expect(drawn.frames).toBeGreaterThan(0);
    expect(drawn).toMatchObject({ raw: 0, codeless: 0 });
  });
});
