/**
 * A model request that goes silent (issue 33 §5): no response headers, or no
 * stream data, past the limit makes the status line say "No data for N s"
 * with Stop and Keep waiting. The limits are shortened for the test by the
 * test-only URL flag (src/agent/stallWatch.ts, `livemark-stall-ms`).
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, probeUrl, send, statusText, waitDone } from "./fixture";
import { configureEndpoint, openReadyApp } from "./harness";
import { createGate } from "./mockLlm";
import { STALL_TEST_FLAG } from "../src/agent/stallWatch";

/** The stall limit the page gets (both headers and data). */
const LIMIT_MS = 2_000;

const it = appTest({ open: false });

async function openWithShortLimits(page: Page, appUrl: string, mockUrl: string): Promise<void> {
  const url = new URL(probeUrl(appUrl));
  url.searchParams.set(STALL_TEST_FLAG, String(LIMIT_MS));
  await openReadyApp(page, url.href);
  await configureEndpoint(page, mockUrl, {});
}

// One Stop on the page: the composer's, beside the notice.
const stop = (page: Page) => page.getByRole("button", { name: "Stop", exact: true });
const keepWaiting = (page: Page) => page.getByRole("button", { name: "Keep waiting" });

describe("a stalled model request", () => {
  it("no headers: says how long, Keep waiting dismisses and restarts the count, Stop stops", async ({
    page,
    app,
    mock,
  }) => {
    await openWithShortLimits(page, app.url, mock.url);
    const headers = createGate();
    mock.enqueue({ chunks: ["Too late."], holdHeaders: headers.promise });
    await send(page, "Hello?");
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^No data for \d+ s$/);
    await expect.poll(() => keepWaiting(page).isVisible()).toBe(true);
    expect(await stop(page).count()).toBe(1);
    expect(await stop(page).isVisible()).toBe(true);
    // The count goes on, second by second.
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^No data for [3-9] s$/);

    await keepWaiting(page).click();
    await expect.poll(() => statusText(page)).toBe("Streaming");
    expect(await keepWaiting(page).count()).toBe(0);
    // Counted again from the press: the notice comes back after the limit, from 2 s.
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^No data for 2 s$/);

    await stop(page).click();
    await expect.poll(() => statusText(page)).toMatch(/^Stopped/);
    expect(await keepWaiting(page).count()).toBe(0);
    expect(await stop(page).count()).toBe(0);
    headers.open();
  });

  it("silence mid-reply: the notice shows, and goes when data comes again", async ({ page, app, mock }) => {
    await openWithShortLimits(page, app.url, mock.url);
    const gate = createGate();
    mock.enqueue({ chunks: ["The first half, ", { waitFor: gate.promise }, "and the rest."] });
    await send(page, "Tell me.");
    await page.getByText("The first half,").waitFor({ timeout: 10_000 });
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^No data for \d+ s$/);
    await expect.poll(() => keepWaiting(page).isVisible()).toBe(true);
    expect(await stop(page).isVisible()).toBe(true);

    gate.open();
    await waitDone(page);
    await page.getByText("and the rest.").waitFor();
    expect(await keepWaiting(page).count()).toBe(0);
    expect(await stop(page).count()).toBe(0);
  });
});
