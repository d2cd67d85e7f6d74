/**
 * Edit code and re-run in the real app (issue 29 §2), through the mock LLM:
 * Edit code → change a number → Run updates the same panel (one panel, new
 * content) and re-binds the block's own const; a block that reads it is
 * stale and Run again refreshes it; Cancel restores; the edit survives a
 * reload and an export; the model's next request carries it.
 */
import { readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { FENCE, appTest, send, waitDone, waitSaved } from "./fixture";

const it = appTest({ configure: true, probe: true, context: { acceptDownloads: true } });

const FIRST = `const price = 3
mount({ title: "Price", ui: () => <Card>price {price}</Card> })`;
const SECOND = `console.log("doubled", price * 2)`;
/** Typed into the editor key by key: no JSX, whose tags the editor closes as you type. */
const EDITED = `const price = 5
mount({ title: "Price", ui: () => React.createElement(Card, null, "price " + price) })`;

const panels = (page: Page) => page.getByLabel("Mounted UI");
const block = (page: Page, index: number) => page.getByRole("figure", { name: `Code block ${index}` });
/** A code block's code as shown, line by line (without its line numbers). */
const shownCode = async (page: Page, index: number) =>
  (await block(page, index).locator(".lm-code__line code").allTextContents()).join("\n");
const editor = (page: Page) => page.getByLabel("Code", { exact: true });

/** Select everything in the editor and type `text`, as a person does. */
async function typeCode(page: Page, text: string): Promise<void> {
  await editor(page).click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

describe("Edit code", () => {
  it("Run updates the same panel, re-binds the block's const, marks a reader stale; Cancel, reload, export and the next request", async ({
    page,
    mock,
  }) => {
    mock.enqueue({
      chunks: [
        "Here is the price.\n\n",
        `${FENCE}tsx agent.run\n${FIRST}\n${FENCE}\n\n`,
        "And doubled:\n\n",
        `${FENCE}ts agent.run\n${SECOND}\n${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Noted."] });
    await send(page, "Show a price");
    await waitDone(page);
    await expect.poll(() => panels(page).count()).toBe(1);
    await expect.poll(() => panels(page).textContent()).toContain("price 3");
    const mountId = await panels(page).getAttribute("data-mount-id");
    const codeBlocks = page.getByRole("figure", { name: /^Code block \d+$/ });
    const [first, second] = await Promise.all(
      [0, 1].map(async (nth) => Number((await codeBlocks.nth(nth).getAttribute("aria-label"))!.split(" ").at(-1))),
    );
    await expect.poll(() => block(page, second).textContent()).toContain("doubled 6");

    // Edit code → the block becomes an editor labelled Code, with the block's code.
    await page.getByRole("button", { name: "Edit code" }).first().click();
    await expect.poll(() => editor(page).textContent()).toContain("const price = 3");
    await typeCode(page, EDITED);
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await waitDone(page);

    // One panel, the same mount, new content; the block's own const was re-bound (no error).
    await expect.poll(() => panels(page).textContent()).toContain("price 5");
    expect(await panels(page).count()).toBe(1);
    expect(await panels(page).getAttribute("data-mount-id")).toBe(mountId);
    await expect.poll(() => shownCode(page, first)).toBe(EDITED);
    expect(await block(page, first).getByRole("note").count()).toBe(0);
    expect(await block(page, first).locator(".lm-code__status").textContent()).toBe("done");
    await page.getByText("edited", { exact: true }).waitFor();

    // Show original: the model's code is kept.
    await page.getByRole("button", { name: "Show original" }).click();
    await expect
      .poll(() => page.getByRole("group", { name: `Original code of block ${first}` }).textContent())
      .toContain("const price = 3");

    // The block that reads price is stale; Run again refreshes it.
    await page.getByText("stale", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Run again" }).click();
    await waitDone(page);
    await expect.poll(() => block(page, second).textContent()).toContain("doubled 10");
    expect(await page.getByText("stale", { exact: true }).count()).toBe(0);

    // Cancel restores the block as it was.
    await page.getByRole("button", { name: "Edit code" }).first().click();
    await typeCode(page, "throw new Error('never run')");
    await page.getByRole("button", { name: "Cancel" }).click();
    expect(await editor(page).count()).toBe(0);
    await expect.poll(() => shownCode(page, first)).toBe(EDITED);
    expect(await panels(page).textContent()).toContain("price 5");

    // The edit survives a reload.
    await waitSaved(page);
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await expect.poll(() => shownCode(page, first), { timeout: 20_000 }).toBe(EDITED);
    await page.getByText("edited", { exact: true }).waitFor();

    // And travels in an export: the person's code runs, the model's is kept as the original.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export", exact: true }).click(),
    ]);
    const exported = JSON.parse(readFileSync((await download.path())!, "utf8")) as {
      messages: { role: string; reply?: { blocks: { kind: string; source?: string; original?: string }[] } }[];
    };
    const edited = exported.messages
      .flatMap((message) => message.reply?.blocks ?? [])
      .find((item) => item.kind === "code" && item.original !== undefined);
    expect(edited?.source).toContain("const price = 5");
    expect(edited?.original).toContain("const price = 3");

    // The next request to the model carries the edit and what the re-runs printed.
    const before = mock.requests.length;
    mock.enqueue({ chunks: ["I see the price is 5 now."] });
    await send(page, "What did I change?");
    await waitDone(page);
    expect(mock.requests.length).toBe(before + 1);
    const heard = JSON.stringify(mock.requests.at(-1)!.body.messages);
    expect(heard).toContain(`edited code block ${first}`);
    expect(heard).toContain("const price = 5");
    expect(heard).toContain("doubled 10");
  });
});
