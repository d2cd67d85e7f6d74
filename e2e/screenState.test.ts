/**
 * The screenshot script's guard (e2e/screenState.ts, used by
 * scripts/screenshots.mjs): a clean dashboard passes, and the failure the
 * README's hero picture once showed — a restored, non-interactive view of
 * the dashboard after a reload — is caught.
 */
import { expect } from "vitest";
import { appTest, send, waitDone } from "./fixture";
import { configureEndpoint, openReadyApp } from "./harness";
import { errorStates } from "./screenState";

const it = appTest({ context: { viewport: { width: 1280, height: 800 } } });

it("catches a first screen drawn before its welcome arrived", async ({ page }) => {
  await page.getByRole("button", { name: "Start the demo" }).waitFor({ timeout: 30_000 });
  expect(await errorStates(page)).toEqual([]);
  // What a screenshot taken too early showed: the timeline with nothing in it yet.
  await page.locator(".lm-welcome").evaluate((welcome) => welcome.remove());
  expect(await errorStates(page)).toContain("a blank timeline");
});

it("passes the demo's live dashboard and catches its restored view after a reload", async ({ page, app }) => {
  await page.getByRole("button", { name: "Build me a dashboard" }).click();
  await waitDone(page, 60_000);
  const panel = page.locator(".lm-mount").first();
  await panel.scrollIntoViewIfNeeded();
  // The charts have drawn their marks.
  await page.locator(".lm-mount .recharts-surface path[d]").first().waitFor({ timeout: 30_000 });
  expect(await errorStates(page)).toEqual([]);

  await openReadyApp(page, app.url);
  await page.getByText("Restored view — not interactive").first().waitFor({ timeout: 30_000 });
  await page.locator(".lm-mount").first().scrollIntoViewIfNeeded();
  expect(await errorStates(page)).toContain('"Restored view — not interactive"');
}, 120_000);

it("catches an alert and the status line's Error", async ({ page, mock }) => {
  await configureEndpoint(page, mock.url);
  mock.enqueue({ status: 401 });
  await send(page, "Hello");
  await expect.poll(() => page.getByRole("status").textContent(), { timeout: 30_000 }).toMatch(/^Error/);
  const found = await errorStates(page);
  expect(found.some((state) => state.startsWith("the status line"))).toBe(true);
});
