/**
 * The realm starts on every page load, and when it truly cannot, the page
 * says so instead of pretending all is well (issue: "the realm sometimes
 * never starts").
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DIST_DIR, serveStatic, waitFor, type TestServer } from "./harness";
import { appTest } from "./fixture";
import { freshLoad } from "./freshLoads";
import { DEMO_SUGGESTIONS } from "../src/llm/demoScripts";

const FRESH_LOADS = 100;

let browser: Browser;
let app: TestServer;

const it = appTest();
it.beforeAll(({ browser: launched, app: served }) => {
  browser = launched;
  app = served;
});

describe("realm start", () => {
  it(`is ready on ${FRESH_LOADS} consecutive fresh loads`, async () => {
    const failures: string[] = [];
    for (let index = 0; index < FRESH_LOADS; index++) {
      const load = await freshLoad(browser, app.url);
      if (!load.ready) failures.push(`load ${index + 1}: "${load.status}"\n  ${load.console.join("\n  ")}`);
    }
    expect(failures).toEqual([]);
  }, 900_000);

  it("the page's first realm runs in index.html's own frame, which starts loading with the page", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(app.url);
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      const frames = await page.evaluate(() =>
        [...document.querySelectorAll("iframe")].map((frame) => ({
          id: frame.id,
          sandbox: frame.getAttribute("sandbox"),
          src: frame.getAttribute("src"),
          shown: frame.getClientRects().length > 0,
        })),
      );
      // One realm frame in use (the spare comes later), the one from the markup, sandboxed, never shown.
      expect(frames[0]).toEqual({
        id: "lm-realm-frame",
        sandbox: "allow-scripts",
        src: "./sandbox.html",
        shown: false,
      });
      expect(frames.filter((frame) => frame.id === "lm-realm-frame")).toHaveLength(1);
      const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
      expect(html).not.toMatch(/allow-same-origin|srcdoc/);
    } finally {
      await context.close();
    }
  });

  it("starts when index.html's frame said hello before the app's script listened (and no head script did)", async () => {
    const context = await browser.newContext();
    try {
      // The entry script arrives late: the frame has long loaded and said hello to nobody (index.html's head
      // script, which would have answered it, does not load here: the app's own start must cope without it).
      await context.route(/\/realm-start\.js$/, (route) => route.abort());
      let entryDelayed = false;
      let page: Page | undefined;
      await context.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
        entryDelayed = true;
        // Held until the frame has loaded (and said hello to nobody).
        const frame = (await waitFor(
          () => page?.frames().find((each) => each.url().includes("/sandbox.html")),
          30_000,
        ))!;
        await frame.waitForLoadState("load");
        await route.continue();
      });
      page = await context.newPage();
      await page.goto(app.url);
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      expect(entryDelayed).toBe(true);
      expect(await page.locator("#lm-realm-frame").count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("index.html's head script fetches the bundle and starts the realm before the app's modules load", async () => {
    const context = await browser.newContext({ serviceWorkers: "block" });
    try {
      // The entry module (and so the whole module graph) is held until the realm's worker runs.
      let releaseEntry!: () => void;
      const entryHeld = new Promise<void>((resolve) => (releaseEntry = resolve));
      let entryReleased = false;
      let bundleAskedWhileHeld = false;
      await context.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
        await entryHeld;
        await route.continue();
      });
      await context.route(/\/generated\/realm\.js$/, async (route) => {
        bundleAskedWhileHeld = !entryReleased;
        await route.continue();
      });
      const page = await context.newPage();
      const worker = page.waitForEvent("worker", { timeout: 30_000 });
      await page.goto(app.url, { waitUntil: "commit" });
      // The realm's blob worker, started by sandbox.html with the bundle the head script posted.
      expect((await worker).url()).toMatch(/^blob:null\//);
      expect(bundleAskedWhileHeld).toBe(true);
      expect(await page.evaluate(() => document.querySelectorAll("script[type=module]").length)).toBe(1);
      expect(await page.evaluate(() => performance.getEntriesByName("livemark:realm-host").length)).toBe(0);
      entryReleased = true;
      releaseEntry();
      // The app takes that realm over (no second frame, no second start) and it is ready.
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      expect(await page.locator("iframe[src*='sandbox.html']").count()).toBe(1);
      expect(await page.evaluate(() => "livemarkRealmStart" in window)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("the head script answers only index.html's own frame: a hello from another sandboxed frame gets nothing", async () => {
    const context = await browser.newContext({ serviceWorkers: "block" });
    try {
      // Another frame at an opaque origin (as any sandboxed frame is) says hello first, while the head script
      // listens: the entry module and the real sandbox document are held until its hello has been delivered.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await context.route(/\/assets\/index-[^/]*\.js$/, async (route) => (await held, route.continue()));
      await context.route(/\/sandbox\.html$/, async (route) => (await held, route.continue()));
      await context.route(/\/foreign\.html$/, (route) =>
        route.fulfill({
          contentType: "text/html",
          body: `<!doctype html><script>
            addEventListener("message", (event) => parent.postMessage({ foreign: "got", type: event.data?.type, ports: event.ports.length }, "*"));
            parent.postMessage({ type: "livemark-sandbox-hello", version: 4 }, "*");
          </script>`,
        }),
      );
      await context.addInitScript(() => {
        if (window !== window.top) return;
        const seen: unknown[] = ((window as unknown as { __foreign: unknown[] }).__foreign = []);
        addEventListener("message", (event) => {
          const foreign = document.getElementById("foreign") as HTMLIFrameElement | null;
          if (foreign && event.source === foreign.contentWindow) seen.push(event.data);
        });
        // As soon as the body is parsed (DOMContentLoaded waits for the held entry module).
        const observer = new MutationObserver(() => {
          if (!document.body) return;
          observer.disconnect();
          const frame = document.createElement("iframe");
          frame.id = "foreign";
          frame.setAttribute("sandbox", "allow-scripts");
          frame.src = "./foreign.html";
          document.body.append(frame);
        });
        observer.observe(document, { childList: true, subtree: true });
      });
      const page = await context.newPage();
      await page.goto(app.url, { waitUntil: "commit" });
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { __foreign: unknown[] }).__foreign), { timeout: 30_000 })
        .toEqual([{ type: "livemark-sandbox-hello", version: 4 }]);
      expect(await page.evaluate(() => "livemarkRealmStart" in window)).toBe(true);
      release();
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      // The realm started in its own frame; the other frame got neither the bundle nor the port.
      expect(await page.evaluate(() => (window as unknown as { __foreign: unknown[] }).__foreign)).toEqual([
        { type: "livemark-sandbox-hello", version: 4 },
      ]);
    } finally {
      await context.close();
    }
  });

  it("does not ship a preload of the realm bundle (it made fetch().blob() fail in Chromium)", () => {
    const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
    expect(html).not.toMatch(/<link[^>]*rel="preload"[^>]*generated\/realm\.js/);
  });
});

/**
 * The built app, except that the realm bundle's body can be cut: the
 * response says 200 with the full length, sends a part, and drops the
 * connection, so `fetch()` resolves and `response.blob()` rejects "Failed to
 * fetch", the very failure seen with the preload.
 */
async function serveFlakyBundle(): Promise<{ url: string; cutNext: number; requests: number; close(): Promise<void> }> {
  const state = { url: "", cutNext: 0, requests: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    let path = new URL(request.url ?? "/", "http://x").pathname;
    if (path.endsWith("/")) path += "index.html";
    const file = join(DIST_DIR, path);
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      response.writeHead(404).end();
      return;
    }
    const type = path.endsWith(".html")
      ? "text/html"
      : path.endsWith(".css")
        ? "text/css"
        : path.endsWith(".js")
          ? "text/javascript"
          : "application/octet-stream";
    response.writeHead(200, { "content-type": type, "content-length": body.length, "cache-control": "no-store" });
    if (path.endsWith("/generated/realm.js")) {
      state.requests += 1;
      if (state.cutNext > 0) {
        state.cutNext -= 1;
        response.write(body.subarray(0, 64 * 1024), () => response.destroy());
        return;
      }
    }
    response.end(body);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  state.close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return state;
}

describe("realm start failures", () => {
  let flaky: Awaited<ReturnType<typeof serveFlakyBundle>>;
  let page: Page;

  beforeAll(async () => {
    flaky = await serveFlakyBundle();
    // No service worker: these are the network failures of a page none controls (an installed app has the bundle cached).
    page = await (await browser.newContext({ serviceWorkers: "block" })).newPage();
  });

  afterAll(async () => {
    await page?.context().close();
    await flaky?.close();
  });

  it("retries a bundle download that broke off, and starts", async () => {
    flaky.cutNext = 2;
    flaky.requests = 0;
    await page.goto(flaky.url);
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(flaky.requests).toBe(3);
  });

  it("says so when the realm cannot start, keeps it out of the session, and restarts on Retry", async () => {
    const status = page.getByRole("status");
    flaky.cutNext = 1_000;
    await page.reload();
    await page.getByText("Sandbox failed", { exact: true }).waitFor({ timeout: 30_000 });
    // The status line does not pretend all is well; the person can retry.
    await expect.poll(() => status.textContent()).toBe("Sandbox failed: code cannot run");
    const retry = page.getByRole("button", { name: "Retry" });
    expect(await retry.isVisible()).toBe(true);
    expect(await page.getByRole("alert").filter({ hasText: "code in replies cannot run" }).isVisible()).toBe(true);
    // The start-up failure is the page's state, not the session's.
    expect(await page.locator(".lm-timeline .lm-notice").count()).toBe(0);
    // The suggestions load after the first paint (ui/useDemoSuggestions.ts): wait for them, then the same check.
    await expect.poll(() => page.getByRole("button", { name: DEMO_SUGGESTIONS[0] }).isVisible()).toBe(true);

    // Reloaded with a working bundle, the same session shows nothing of it.
    flaky.cutNext = 0;
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await page.locator(".lm-timeline .lm-notice").count()).toBe(0);
    await expect.poll(() => page.getByRole("button", { name: DEMO_SUGGESTIONS[0] }).isVisible()).toBe(true);

    // Broken again: a message sent anyway shows its text; its code says it did not run.
    flaky.cutNext = 1_000;
    await page.reload();
    await page.getByText("Sandbox failed", { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: DEMO_SUGGESTIONS[0] }).click();
    await page.locator(".lm-code__status", { hasText: "not run" }).first().waitFor({ timeout: 30_000 });
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe("Sandbox failed: code cannot run");
    expect(await page.locator(".lm-code__status", { hasText: "queued" }).count()).toBe(0);

    // Retry with the bundle back: the sandbox starts, the button goes.
    flaky.cutNext = 0;
    await retry.click();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await retry.count()).toBe(0);
    await expect.poll(() => status.textContent()).not.toContain("Sandbox failed");
  }, 180_000);
});
