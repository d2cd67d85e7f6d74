/**
 * Mount identity in the browser (issue 9 item 2): every realm numbers its
 * mounts from `m1`, so after a reload, a reset, Revive or a session switch a
 * new reply's mount must not be taken for an older reply's. The reported
 * reproduction, with the offline demo model: the pizza form, reload, then
 * "Give me a button to click" in the same session; then the same after
 * switching sessions and back (the switch resets the realm).
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { openReadyApp } from "./harness";
import { appTest, probeUrl, send, statusText, waitSaved } from "./fixture";

const it = appTest({ probe: true });

/** Each reply's panels, in order: the text of every "Mounted UI" inside each "Reply". */
async function panelsByReply(page: Page): Promise<string[][]> {
  // Panels far from the viewport are not drawn (render/useDeferredDraw.ts):
  // bring each into view and give it a frame to draw before reading it.
  return page.getByRole("article", { name: "Reply" }).evaluateAll(async (replies) => {
    const result: string[][] = [];
    for (const reply of replies) {
      const texts: string[] = [];
      for (const panel of reply.querySelectorAll('[aria-label="Mounted UI"]')) {
        panel.scrollIntoView({ block: "center" });
        // Drawn once near the viewport (data-deferred goes), then laid out.
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        for (let frames = 0; frames < 300 && panel.querySelector("[data-mount-id][data-deferred]"); frames += 1)
          await frame();
        await frame();
        texts.push(panel.textContent ?? "");
      }
      result.push(texts);
    }
    return result;
  });
}

/** The panels of the replies that have any. */
async function panels(page: Page): Promise<string[][]> {
  return (await panelsByReply(page)).filter((list) => list.length > 0);
}

const isPizza = (text: string) => text.includes("Your name") && !text.includes("Roll the die");
const isDice = (text: string) => text.includes("Roll the die") && !text.includes("Your name");

async function orderPizza(page: Page): Promise<void> {
  await send(page, "Order a pizza with a form");
  const form = page.getByLabel("Mounted UI").first();
  await form.getByPlaceholder("Ada").fill("Grace", { timeout: 20_000 });
  await form.getByRole("button", { name: "Order" }).click();
  await page
    .getByText(/Thanks, \*?\*?Grace/)
    .first()
    .waitFor({ timeout: 20_000 });
  await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
}

async function askForButton(page: Page, expectedReplies: number): Promise<void> {
  await send(page, "Give me a button to click");
  await expect
    .poll(async () => (await panelsByReply(page)).length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(expectedReplies);
  await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
}

describe("mount identity", () => {
  it("a mount made after a reload, and after a session switch, appears in its own reply; older panels and their saved snapshots stay", async ({
    app,
    page,
  }) => {
    await orderPizza(page);
    expect((await panels(page)).map((list) => list.map(isPizza))).toEqual([[true]]);

    // Writes trail the interaction: wait until they are on disk.
    await waitSaved(page);
    await openReadyApp(page, probeUrl(app.url));
    await expect.poll(async () => (await panels(page)).flat().map(isPizza), { timeout: 20_000 }).toEqual([true]);

    await askForButton(page, 3);
    // The dice panel is in the new reply; the pizza panel is untouched.
    await expect
      .poll(
        async () =>
          (await panels(page)).map((list) =>
            list.map((text) => (isPizza(text) ? "pizza" : isDice(text) ? "dice" : text)),
          ),
        { timeout: 10_000 },
      )
      .toEqual([["pizza"], ["dice"]]);

    // The saved snapshots: after another reload both panels come back, each in its reply.
    await waitSaved(page);
    await openReadyApp(page, probeUrl(app.url));
    await expect
      .poll(
        async () =>
          (await panels(page)).map((list) =>
            list.map((text) => (isPizza(text) ? "pizza" : isDice(text) ? "dice" : text)),
          ),
        { timeout: 20_000 },
      )
      .toEqual([["pizza"], ["dice"]]);

    // A session switch resets the realm: switch away and back, then mount again.
    await page.getByRole("button", { name: "New session" }).first().click();
    await expect.poll(async () => (await panels(page)).length, { timeout: 10_000 }).toBe(0);
    await page.getByRole("navigation", { name: "Sessions" }).getByText("Order a pizza with a form").click();
    await expect.poll(async () => (await panels(page)).length, { timeout: 20_000 }).toBe(2);
    await askForButton(page, 4);
    await expect
      .poll(
        async () =>
          (await panels(page)).map((list) =>
            list.map((text) => (isPizza(text) ? "pizza" : isDice(text) ? "dice" : text)),
          ),
        { timeout: 10_000 },
      )
      .toEqual([["pizza"], ["dice"], ["dice"]]);
    await waitSaved(page);
    await openReadyApp(page, probeUrl(app.url));
    await expect
      .poll(
        async () =>
          (await panels(page)).map((list) =>
            list.map((text) => (isPizza(text) ? "pizza" : isDice(text) ? "dice" : text)),
          ),
        { timeout: 20_000 },
      )
      .toEqual([["pizza"], ["dice"], ["dice"]]);
  });
});
