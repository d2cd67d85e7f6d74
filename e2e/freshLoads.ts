/**
 * Fresh page loads of the app, each in a new browser context (no cache, no
 * storage shared with the previous load), one browser for all: the loop the
 * "realm never starts" reports came from. Used by e2e/realmStart.test.ts
 * (all must be ready) and bench/appLoads.bench.ts (how long each took).
 */
import type { Browser } from "playwright-core";
import { REALM_READY_MARK } from "../src/sandbox/createRealmHost";

export interface FreshLoad {
  ready: boolean;
  /** Navigation start → the realm's ready mark, in the page's clock (ms); NaN when not ready. */
  readyMs: number;
  /** The header's sandbox status when the load ended. */
  status: string;
  /** The page's last console lines, for a failure report. */
  console: string[];
}

export async function freshLoad(browser: Browser, url: string, timeoutMs = 30_000): Promise<FreshLoad> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const console: string[] = [];
    page.on("console", (message) => void console.push(`${message.type()}: ${message.text()}`));
    await page.goto(url);
    // Ready or failed, whichever comes first: a failed start is final.
    await page
      .waitForFunction(
        () => /Sandbox (ready|failed)/.test(document.querySelector(".lm-realm")?.textContent ?? ""),
        null,
        { timeout: timeoutMs, polling: 20 },
      )
      .catch(() => undefined);
    const status =
      (await page
        .locator(".lm-realm")
        .textContent()
        .catch(() => null)) ?? "(no status)";
    const readyMs = await page.evaluate(
      (name) => performance.getEntriesByName(name)[0]?.startTime ?? Number.NaN,
      REALM_READY_MARK,
    );
    return { ready: status.includes("Sandbox ready"), readyMs, status, console: console.slice(-10) };
  } finally {
    await context.close();
  }
}
