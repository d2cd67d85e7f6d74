/**
 * App data in the real app (issue 28 §1): the mock LLM writes code that
 * uses `storage` and `useStored`; what it keeps survives a reload, Revive,
 * Regenerate in a fresh realm and the page closing right after the write
 * was acknowledged; Session settings → App data shows it and erases it.
 */
import { readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { openReadyApp } from "./harness";
import type { MockLlm } from "./mockLlm";
import { appTest, codeTurn, send, waitAppDataSaved, waitDone } from "./fixture";

const it = appTest({ configure: true, probe: true, context: { acceptDownloads: true } });

/** What the model received as the last message of its latest request. */
function lastHeard(mock: MockLlm): string {
  const messages = mock.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** Run `code` in a reply; the model's next turn hears its output, which this returns. */
async function run(page: Page, mock: MockLlm, code: string, lang: "ts" | "tsx" = "ts"): Promise<string> {
  mock.enqueue(codeTurn(code, "Running it.", lang));
  mock.enqueue({ chunks: ["Noted."] });
  await send(page, "Run it");
  await waitDone(page);
  return lastHeard(mock);
}

async function appDataSection(page: Page) {
  await page.getByRole("button", { name: "Session settings" }).click();
  return page.getByRole("dialog", { name: "Session settings" }).getByRole("region", { name: "App data" });
}

const COUNTER = (title: string) => `mount({ title: "${title}", ui: () => {
  const [count, setCount] = useStored("count", 0)
  return <Button onClick={() => setCount((n) => n + 1)}>count {count}</Button>
} })`;

const mounts = (page: Page) => page.getByLabel("Mounted UI");

/** Both counters show `count`, live (their buttons take clicks). */
async function bothShow(page: Page, count: number): Promise<void> {
  for (const index of [0, 1]) {
    const button = mounts(page)
      .nth(index)
      .getByRole("button", { name: `count ${count}` });
    await button.waitFor({ timeout: 20_000 });
    await expect.poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
  }
}

describe("app data", () => {
  it("storage: set → reload → get; Session settings lists it; Erase app data removes it", async ({ page, mock }) => {
    const stored = await run(
      page,
      mock,
      `await storage.set("todos", ["milk", "eggs"])\nconsole.log("right after:", JSON.stringify(await storage.get("todos")))`,
    );
    expect(stored).toContain('right after: ["milk","eggs"]');

    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    const read = await run(
      page,
      mock,
      `console.log("after reload:", JSON.stringify(await storage.get("todos")), await storage.keys())`,
    );
    expect(read).toMatch(/after reload: \["milk","eggs"\] \[ 'todos' \]/);

    const section = await appDataSection(page);
    await expect.poll(() => section.getByTestId("app-data-summary").textContent()).toMatch(/^1 key, \d+ B$/);
    await expect.poll(() => section.getByRole("list", { name: "App data keys" }).textContent()).toContain("todos");
    await section.getByRole("button", { name: "Erase app data" }).click();
    await expect.poll(() => section.getByTestId("app-data-summary").textContent()).toBe("None yet.");
    await page.keyboard.press("Escape");
    // The erase is on disk once the probe counts no write pending (a reload before that may keep the data).
    await waitAppDataSaved(page);

    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    const erased = await run(page, mock, `console.log("after erase:", await storage.get("todos"))`);
    expect(erased).toContain("after erase: undefined");
  });

  it("another session sees none of it, and __proto__ is a key like any other", async ({ page, mock }) => {
    const first = await run(
      page,
      mock,
      `await storage.set("secret", "of the first session")\nawait storage.set("__proto__", { admin: true })\nconsole.log("own:", await storage.keys(), ({}).admin)`,
    );
    expect(first).toContain("own: [ '__proto__', 'secret' ] undefined");
    await page.getByRole("button", { name: "New session" }).first().click();
    await expect.poll(() => page.getByRole("article", { name: "Reply" }).count(), { timeout: 20_000 }).toBe(0);
    const second = await run(
      page,
      mock,
      `console.log("other:", await storage.get("secret"), await storage.get("__proto__"), await storage.keys())`,
    );
    expect(second).toContain("other: undefined undefined []");
  });

  it("the limits and JSON refusals reach the code with their words", async ({ page, mock }) => {
    const heard = await run(
      page,
      mock,
      [
        `for (const value of [{ when: new Date(0) }, () => 1, "x".repeat(1_100_000)]) {`,
        `  try { await storage.set("k", value) } catch (error) { console.log(error.name, error.message) }`,
        `}`,
        `for (let index = 0; index < 10; index += 1) await storage.set("chunk" + index, "y".repeat(1_000_000))`,
        `try { await storage.set("one-more", "z".repeat(1_000_000)) } catch (error) { console.log(error.name, error.message) }`,
      ].join("\n"),
    );
    expect(heard).toMatch(/StorageError storage\.set\("k"\): value\.when is a Date, which JSON does not keep as it is/);
    expect(heard).toMatch(/StorageError storage\.set\("k"\): value is a function, which JSON cannot keep/);
    expect(heard).toMatch(
      /StorageError storage\.set\("k"\): the value is 1\.05 MB as JSON; one value may be at most 1 MB\..*storage\.delete\(key\)/,
    );
    expect(heard).toMatch(
      /StorageError storage\.set\("one-more"\): this session's app data would be 10\.49 MB; a session may keep at most 10 MB\..*storage\.delete\(key\)/,
    );
  });

  it("useStored: two mounts share the value; it is kept across a reload (Revive) and Regenerate in a fresh realm", async ({
    page,
    mock,
  }) => {
    mock.enqueue(codeTurn(`${COUNTER("A")}\n${COUNTER("B")}`, "Two counters.", "tsx"));
    await send(page, "Counters");
    await waitDone(page);
    await bothShow(page, 0);
    await mounts(page).nth(0).getByRole("button", { name: "count 0" }).click();
    await bothShow(page, 1);
    await mounts(page).nth(1).getByRole("button", { name: "count 1" }).click();
    await bothShow(page, 2);
    // The clicks' writes are acknowledged once committed; a reload before that may lose the last (issue 28: only
    // acknowledged writes are promised).
    await waitAppDataSaved(page);

    // A reload: the mounts come back inert; Revive runs the code in a fresh realm, which reads the kept value.
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await mounts(page).nth(0).getByRole("button", { name: "Revive" }).click();
    await bothShow(page, 2);
    await mounts(page).nth(0).getByRole("button", { name: "count 2" }).click();
    await bothShow(page, 3);

    // Regenerate in a fresh realm: the realm is reset, the data is not.
    mock.enqueue(codeTurn(`${COUNTER("A")}\n${COUNTER("B")}`, "Two counters again.", "tsx"));
    await page
      .getByRole("article", { name: "Reply" })
      .last()
      .getByRole("button", { name: "Regenerate in a fresh realm" })
      .click();
    await page.getByText("Two counters again.").waitFor({ timeout: 30_000 });
    await waitDone(page);
    await bothShow(page, 3);

    // Erase app data while they are on screen: both show their initial value, and a click starts from it.
    const section = await appDataSection(page);
    await section.getByRole("button", { name: "Erase app data" }).click();
    await expect.poll(() => section.getByTestId("app-data-summary").textContent()).toBe("None yet.");
    await page.keyboard.press("Escape");
    await bothShow(page, 0);
    await mounts(page).nth(1).getByRole("button", { name: "count 0" }).click();
    await bothShow(page, 1);
  });

  it("Export carries the app data and Import restores it into the new session; a share link only with Include app data", async ({
    page,
    mock,
    browser,
    app,
  }) => {
    await run(page, mock, `await storage.set("todos", ["milk"])\nconsole.log("kept")`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export", exact: true }).click(),
    ]);
    const exported = readFileSync((await download.path())!, "utf8");
    expect(JSON.parse(exported).appData).toEqual([{ key: "todos", json: '["milk"]' }]);

    await page.getByRole("button", { name: "Share", exact: true }).click();
    const link = page.getByLabel(/Share link/);
    const without = await link.inputValue();
    await page.getByLabel("Include app data").check();
    await expect.poll(() => link.inputValue()).not.toBe(without);
    const withData = await link.inputValue();

    const fresh = await browser.newContext();
    try {
      const other = await fresh.newPage();
      await openReadyApp(other, app.url);
      await other
        .getByLabel("Import session")
        .setInputFiles({ name: "session.json", mimeType: "application/json", buffer: Buffer.from(exported) });
      const section = await appDataSection(other);
      await expect
        .poll(() => section.getByTestId("app-data-summary").textContent(), { timeout: 20_000 })
        .toMatch(/^1 key,/);
      await other.keyboard.press("Escape");

      // The two links, each opened and saved as a copy: only the one with the box ticked brings the data.
      for (const [url, expected] of [
        [without, "None yet."],
        [withData, /^1 key,/],
      ] as const) {
        const viewer = await fresh.newPage();
        await viewer.goto(url);
        const preview = viewer.getByRole("dialog", { name: "Shared session preview" });
        await preview.getByRole("button", { name: "Import" }).click({ timeout: 20_000 });
        await preview.waitFor({ state: "detached", timeout: 20_000 });
        const shared = await appDataSection(viewer);
        await expect
          .poll(() => shared.getByTestId("app-data-summary").textContent(), { timeout: 20_000 })
          .toMatch(expected);
        await viewer.close();
      }
    } finally {
      await fresh.close();
    }
  });

  it("a write acknowledged just before the page closes is there when the app opens again", async ({
    page,
    mock,
    context,
    app,
  }) => {
    // The mount appears only once `set` was answered, i.e. once the host committed the write.
    mock.enqueue(
      codeTurn(
        `await storage.set("note", "written before the close")\nmount({ title: "Saved", ui: () => <p>acknowledged</p> })`,
        "Saving.",
        "tsx",
      ),
    );
    await send(page, "Save a note");
    await mounts(page).getByText("acknowledged").waitFor({ timeout: 30_000 });
    // Closed at once, without its beforeunload handlers: nothing is flushed on the way out.
    await page.close({ runBeforeUnload: false });

    const reopened = await context.newPage();
    await openReadyApp(reopened, app.url);
    const heard = await run(reopened, mock, `console.log("after the close:", await storage.get("note"))`);
    expect(heard).toContain("after the close: written before the close");
  });
});
