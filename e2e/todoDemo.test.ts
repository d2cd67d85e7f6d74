/**
 * The offline demo's to-do list (issue 28 §1, "done when"): items added in
 * the generated UI are still there after a reload, when the list is asked
 * for again, and after Regenerate in a fresh realm.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, send, waitAppDataSaved, waitDone } from "./fixture";

const it = appTest({ probe: true });

const lists = (page: Page) => page.getByLabel("Mounted UI").filter({ hasText: "Add" });

async function add(page: Page, text: string): Promise<void> {
  const list = lists(page).last();
  await list.getByPlaceholder("Something to do").fill(text);
  await list.getByRole("button", { name: "Add" }).click();
  await list.getByText(text, { exact: true }).waitFor({ timeout: 20_000 });
}

describe("the to-do demo", () => {
  it("keeps its items across a reload and a fresh realm", async ({ page }) => {
    await send(page, "Make a to-do list that remembers");
    await waitDone(page);
    await page.getByText("The list starts empty").waitFor({ timeout: 20_000 });
    await add(page, "buy milk");
    await add(page, "call Ada");
    // The list shows an item before its write is committed; the reload waits for the commit.
    await waitAppDataSaved(page);

    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await send(page, "Make a to-do list that remembers");
    await waitDone(page);
    await page.getByText(/Welcome back: \*?\*?2\*?\*? to-dos were kept/).waitFor({ timeout: 20_000 });
    const fresh = lists(page).last();
    await fresh.getByText("buy milk", { exact: true }).waitFor({ timeout: 20_000 });
    await fresh.getByText("call Ada", { exact: true }).waitFor({ timeout: 20_000 });

    // A fresh realm (the session's code revived first, then the reply again): the list still holds both.
    await page
      .getByRole("article", { name: "Reply" })
      .last()
      .getByRole("button", { name: "Regenerate in a fresh realm" })
      .click();
    await page
      .getByText(/Revived: re-ran \d+ blocks? in a fresh realm/)
      .first()
      .waitFor({ timeout: 30_000 });
    await waitDone(page);
    await add(page, "water the plants");
    const again = lists(page).last();
    for (const item of ["buy milk", "call Ada", "water the plants"])
      await again.getByText(item, { exact: true }).waitFor({ timeout: 20_000 });
  });
});
