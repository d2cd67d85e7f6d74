/**
 * Issue 33 §5 in a real browser: a session deleted in another tab stops
 * being written there, which offers Restore; Recently deleted lists it, with
 * Restore and Delete forever; and when storage is full, Delete forever
 * frees space at once and the turns kept in the tab are saved right after.
 * Two pages in one context share IndexedDB, the Web Locks and the
 * BroadcastChannel, as two tabs do.
 */
import { describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { configureEndpoint, openReadyApp, type TestServer } from "./harness";
import type { MockLlm } from "./mockLlm";
import { appTest, probeUrl, waitSaved } from "./fixture";

const it = appTest();
const suite = {} as { browser: Browser; app: TestServer; mock: MockLlm };
it.beforeEach(({ browser, app, mock }) => {
  Object.assign(suite, { browser, app, mock });
});

async function openApp(context: BrowserContext, options: { writable?: boolean } = {}): Promise<Page> {
  const page = await context.newPage();
  await openReadyApp(page, probeUrl(suite.app.url));
  if (options.writable !== false) await page.getByRole("textbox", { name: "Message" }).waitFor();
  return page;
}

async function chat(page: Page, text: string) {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  await expect.poll(() => page.getByRole("status").textContent(), { timeout: 20_000 }).toMatch(/^Done/);
}

const sessionList = (page: Page) => page.getByRole("navigation", { name: "Sessions" });
const sessionTitles = (page: Page) => sessionList(page).locator(".lm-session__title").allTextContents();

async function openRecentlyDeleted(page: Page) {
  await sessionList(page).getByRole("button", { name: "Recently deleted" }).click();
  const dialog = page.getByRole("dialog", { name: "Recently deleted" });
  await dialog.waitFor();
  return dialog;
}

/**
 * A full disk, test-only: while `window.__diskFull` is true every IndexedDB
 * `put` and `add` throws QuotaExceededError, as a browser over its quota
 * does; a delete frees the space (clears the flag), as deleting rows does.
 */
function diskFullScript() {
  const flags = window as unknown as { __diskFull?: boolean };
  const prototype = IDBObjectStore.prototype;
  const put = prototype.put;
  const add = prototype.add;
  const remove = prototype.delete;
  prototype.put = function (...args: Parameters<typeof put>) {
    if (flags.__diskFull) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    return put.apply(this, args);
  };
  prototype.add = function (...args: Parameters<typeof add>) {
    if (flags.__diskFull) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    return add.apply(this, args);
  };
  prototype.delete = function (...args: Parameters<typeof remove>) {
    flags.__diskFull = false;
    return remove.apply(this, args);
  };
}

describe("a session deleted in another tab (issue 33 §5)", () => {
  it("stops the other tab writing, which offers Restore; Recently deleted lists it; Delete forever removes it", async () => {
    const context = await suite.browser.newContext();
    const a = await openApp(context);
    await configureEndpoint(a, suite.mock.url);
    suite.mock.enqueue({ chunks: ["Otters hold hands while they sleep."] });
    await chat(a, "Tell me about otters");
    await waitSaved(a);
    const b = await openApp(context, { writable: false });
    await b.getByText(/open in another tab/).waitFor({ timeout: 10_000 });

    // B deletes the session A has open: A learns at once, stops writing (no composer, no writer) and offers Restore.
    await sessionList(b).getByRole("button", { name: "Delete Tell me about otters" }).click();
    const notice = a.getByRole("alert").filter({ hasText: "deleted in another tab" });
    await notice.waitFor({ timeout: 10_000 });
    expect(await a.getByRole("textbox", { name: "Message" }).count()).toBe(0);
    expect(await a.getByText("Otters hold hands while they sleep.").count()).toBe(1);
    await waitSaved(a);
    expect(await sessionTitles(a)).not.toContain("Tell me about otters");

    // B's Recently deleted lists it.
    const trash = await openRecentlyDeleted(b);
    const item = trash.getByRole("listitem").filter({ hasText: "Tell me about otters" });
    await item.waitFor();
    expect(await item.textContent()).toMatch(/removed for good in 30 days/);

    // Restore in A: writable there again, with A's turns; B's list follows.
    await notice.getByRole("button", { name: "Restore" }).click();
    await a.getByRole("textbox", { name: "Message" }).waitFor({ timeout: 10_000 });
    expect(await a.getByText("Otters hold hands while they sleep.").count()).toBe(1);
    await expect.poll(() => trash.getByRole("listitem").count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => sessionTitles(b), { timeout: 10_000 }).toContain("Tell me about otters");
    await trash.getByRole("button", { name: "Close" }).click();

    // A writes into it again, and a reload of A shows every turn.
    suite.mock.enqueue({ chunks: ["Sea otters also use stones as tools."] });
    await chat(a, "And what else?");
    await waitSaved(a);
    await a.reload();
    await a.getByText("Sea otters also use stones as tools.").waitFor({ timeout: 20_000 });
    expect(await a.getByText("Otters hold hands while they sleep.").count()).toBe(1);

    // Deleted again, then deleted forever from B's Recently deleted: gone everywhere, for good.
    await sessionList(b).getByRole("button", { name: "Delete Tell me about otters" }).click();
    await a.getByRole("alert").filter({ hasText: "deleted in another tab" }).waitFor({ timeout: 10_000 });
    const again = await openRecentlyDeleted(b);
    const otters = again.getByRole("listitem").filter({ hasText: "Tell me about otters" });
    await otters.getByRole("button", { name: "Delete forever" }).click();
    // It asks first: Cancel keeps it.
    const ask = otters.getByRole("group", { name: "Delete Tell me about otters forever?" });
    await ask.getByRole("button", { name: "Cancel" }).click();
    expect(await again.getByRole("listitem").count()).toBe(1);
    await otters.getByRole("button", { name: "Delete forever" }).click();
    await ask.getByRole("button", { name: "Delete forever" }).click();
    await expect.poll(() => again.getByRole("listitem").count(), { timeout: 10_000 }).toBe(0);
    // A leaves the purged session for another one (B's new session, shown read-only there).
    await expect.poll(() => a.getByText("Otters hold hands while they sleep.").count(), { timeout: 10_000 }).toBe(0);
    expect(await a.getByRole("alert").filter({ hasText: "deleted in another tab" }).count()).toBe(0);
    await b.reload();
    await sessionList(b).waitFor();
    const after = await openRecentlyDeleted(b);
    await after.getByText("Nothing was deleted in the last 30 days.").waitFor();
    expect(await sessionTitles(b)).not.toContain("Tell me about otters");
    await context.close();
  });
});

describe("when storage is full (issue 33 §5)", () => {
  it("says how much the app uses, offers Export and Recently deleted; Delete forever frees space and the kept turns save at once", async () => {
    const context = await suite.browser.newContext();
    await context.addInitScript(diskFullScript);
    const page = await openApp(context);
    await configureEndpoint(page, suite.mock.url);
    suite.mock.enqueue({ chunks: ["An old answer."] });
    await chat(page, "An old question");
    await page.getByRole("button", { name: "New session" }).first().click();
    await expect.poll(() => sessionList(page).getByRole("listitem").count()).toBe(2);
    await waitSaved(page);

    await page.evaluate(() => ((window as unknown as { __diskFull: boolean }).__diskFull = true));
    suite.mock.enqueue({ chunks: ["Written while the disk is full."] });
    await chat(page, "A question on a full disk");
    const banner = page.locator(".lm-banner").filter({ hasText: "Storage is full" });
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.textContent()).toMatch(/Livemark uses [\d.]+ (bytes|KB|MB|GB)/);
    expect(await banner.getByRole("button", { name: "Export", exact: true }).count()).toBe(1);
    await banner.getByRole("button", { name: "Recently deleted" }).click();
    await page.getByRole("dialog", { name: "Recently deleted" }).getByRole("button", { name: "Close" }).click();

    // Delete needs a write: instead of failing silently it says so and offers Delete forever.
    await sessionList(page).getByRole("button", { name: "Delete An old question" }).click();
    const refused = page.locator(".lm-banner").filter({ hasText: "was not deleted" });
    await refused.waitFor({ timeout: 10_000 });
    expect(await sessionTitles(page)).toContain("An old question");
    expect(await page.evaluate(() => (window as unknown as { __diskFull: boolean }).__diskFull)).toBe(true);
    await refused.getByRole("button", { name: "Delete forever" }).click();

    // The delete frees space; the turns this tab kept are written at once.
    await expect.poll(() => sessionTitles(page), { timeout: 10_000 }).not.toContain("An old question");
    await waitSaved(page, 5_000);
    await expect.poll(() => page.locator(".lm-banner").filter({ hasText: "Storage is full" }).count()).toBe(0);
    await page.reload();
    await page.getByText("Written while the disk is full.").waitFor({ timeout: 20_000 });
    expect(await sessionTitles(page)).not.toContain("An old question");
    await context.close();
  });
});
