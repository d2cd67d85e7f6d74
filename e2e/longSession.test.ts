/**
 * A long session opens on its last messages (issue 34 §1): a 600-message
 * session, imported and reopened by a reload, shows its last message with
 * a DOM far smaller than its messages drawn in full; the held messages keep
 * their text (find in page), and scrolling up, a focus or Jump to latest
 * draws what comes near; a new reply streams into view as before.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { IDBKeyRange } from "fake-indexeddb";
import { configureEndpoint, waitFor } from "./harness";
import { appTest, send, waitDone } from "./fixture";
import { exportSession, serializeExport } from "../src/store/exportImport";
import { createSession, saveMessages } from "../src/store/sessions";
import { openStore } from "../src/store/store";
import { testStoreOptions } from "../src/store/testSupport";
import { realisticConversation } from "../bench/store.bench";

const MESSAGES = 600;
/** About what a message of this session costs drawn in full (bench/session.bench.ts measured 95). */
const ELEMENTS_PER_DRAWN_MESSAGE = 95;

const it = appTest({ context: { viewport: { width: 1280, height: 800 } } });

async function longSessionFile(): Promise<Buffer> {
  const opened = await openStore(testStoreOptions({ IDBKeyRange }));
  if (!opened.ok) throw new Error(opened.error.message);
  const session = await createSession(opened.store, { title: "A long session" });
  await saveMessages(opened.store, session.id, realisticConversation(MESSAGES));
  const text = serializeExport(await exportSession(opened.store, session.id));
  opened.store.db.close();
  return Buffer.from(text);
}

const drawn = (page: Page, id: string) => page.locator(`article[data-message-id="${id}"]`);
/** Drawn, and some of it inside the timeline's visible area (false at once when it is not drawn). */
const inView = (page: Page, id: string) =>
  page.evaluate((id) => {
    const element = document.querySelector(`article[data-message-id="${id}"]`);
    if (!element) return false;
    const box = element.getBoundingClientRect();
    const view = element.closest(".lm-main")!.getBoundingClientRect();
    return box.height > 0 && box.top < view.bottom && box.bottom > view.top;
  }, id);
const timelineElements = (page: Page) =>
  page.locator(".lm-timeline").evaluate((timeline) => timeline.getElementsByTagName("*").length);
const jumpButton = (page: Page) => page.getByRole("button", { name: "Jump to latest" });
const belowView = (page: Page) =>
  page.locator(".lm-main").evaluate((main) => main.scrollHeight - main.scrollTop - main.clientHeight);

describe("A long session", () => {
  it("opens on its last message with a bounded DOM; scrolling up, a focus and Jump to latest draw what comes near; a new reply is followed", async ({
    page,
    mock,
  }) => {
    const file = await longSessionFile();
    await page
      .locator('input[type="file"][accept*="json"]')
      .setInputFiles({ name: "long.json", mimeType: "application/json", buffer: file });
    await waitFor(() => inView(page, `m${MESSAGES - 1}`), 60_000);

    // Reopened by a reload, as a person's long session is.
    await page.reload();
    await waitFor(() => inView(page, `m${MESSAGES - 1}`), 60_000);
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    // The held messages are there as text (find in page finds them), one run of boxes, not drawn.
    await page.locator(".lm-held").first().waitFor({ state: "attached", timeout: 30_000 });
    expect(await page.locator(".lm-held").count()).toBeGreaterThan(MESSAGES - 60);
    expect(await page.locator('.lm-held[data-message-id="m10"]').textContent()).toContain("Question 10:");
    expect(await drawn(page, "m10").count()).toBe(0);
    const opened = await timelineElements(page);
    expect(opened).toBeLessThan((MESSAGES * ELEMENTS_PER_DRAWN_MESSAGE) / 8);
    expect(await page.locator("article.lm-message").count()).toBeLessThan(40);
    expect(await jumpButton(page).count()).toBe(0);

    // Scrolling up to the start draws the first messages, and stops following.
    // (At once, as dragging the scrollbar's thumb to the top does: a press on the scroller, then the scroll.)
    await page.locator(".lm-main").evaluate((main) => {
      main.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
      main.scrollTo(0, 0);
    });
    await waitFor(() => inView(page, "m0"), 30_000);
    await jumpButton(page).waitFor({ timeout: 30_000 });
    // Only what came near: the middle of the session is still held.
    expect(await drawn(page, "m300").count()).toBe(0);
    expect(await timelineElements(page)).toBeLessThan((MESSAGES * ELEMENTS_PER_DRAWN_MESSAGE) / 4);

    // The keyboard reaches a held message: focusing it draws it and moves the focus into it.
    await page.locator('.lm-held[data-message-id="m300"]').focus();
    await drawn(page, "m300").waitFor({ state: "attached", timeout: 30_000 });
    await waitFor(() => drawn(page, "m300").evaluate((element) => element.contains(document.activeElement)), 30_000);

    // Jump to latest: back to the last message, following again.
    await jumpButton(page).click();
    await waitFor(() => inView(page, `m${MESSAGES - 1}`), 30_000);
    await waitFor(async () => (await jumpButton(page).count()) === 0, 30_000);

    // A new reply streams at the end and is followed to its last line.
    await configureEndpoint(page, mock.url);
    mock.enqueue({
      chunks: Array.from({ length: 30 }, (_, index) => `Fresh paragraph ${index + 1} of the new reply.\n\n`),
    });
    await send(page, "One more question");
    await page.getByText("Fresh paragraph 30 of").waitFor({ timeout: 30_000 });
    await waitDone(page);
    await waitFor(async () => (await belowView(page)) < 16, 30_000);
    expect(await jumpButton(page).count()).toBe(0);
  }, 180_000);
});
