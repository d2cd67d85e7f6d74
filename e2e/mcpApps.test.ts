/**
 * MCP Apps in the real app (issue 31 §1): a local MCP server built with the
 * SDK has a tool with a view (`_meta.ui.resourceUri` → a `ui://` resource of
 * `text/html;profile=mcp-app`) whose HTML runs the extension's own `App`
 * class (node_modules/@modelcontextprotocol/ext-apps, inlined as a module
 * script: no Livemark code on that side), and an app-only tool. The code
 * calls the tool; its panel opens; what the view can reach and what its
 * requests do are checked in the view's frame, the page and the server.
 */
import type { FrameLocator, Page } from "playwright-core";
import { describe, expect } from "vitest";
import { answerAsk } from "./harness";
import { createAppServer } from "./mcpAppServer";
import { startMcpServer, type TestMcpServer } from "./mcpServer";
import type { MockLlm } from "./mockLlm";
import { appTest, codeTurn, send, statusText } from "./fixture";

const it = appTest({ configure: true });
let page: Page;
let mock: MockLlm;
let films: TestMcpServer;
/** The reads of the view's resource that reached the server. */
let reads: string[];

it.beforeEach(async ({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
  reads = [];
  // The view tries to fetch its own server, which answers any page (CORS *): only the policies it runs under stop it.
  films = await startMcpServer({ server: (calls) => createAppServer(calls, films.url, reads) });
});
it.afterEach(async () => {
  await films?.close();
});

/** The MCP App panels saved with the sessions (IndexedDB, `settings.capabilities.tools.appPanels`). */
function savedPanels(): Promise<{ height: number; result?: unknown }[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("livemark");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const rows = await new Promise<{ settings?: { capabilities?: { tools?: { appPanels?: [] } } } }[]>(
      (resolve, reject) => {
        const request = db.transaction("sessions").objectStore("sessions").getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      },
    );
    db.close();
    return rows.flatMap((row) => row.settings?.capabilities?.tools?.appPanels ?? []);
  });
}

const ask = () => page.getByRole("group", { name: "Permission request" });
const dialog = () => page.getByRole("dialog", { name: "Session settings" });
const panel = () => page.getByRole("region", { name: "MCP App show_film" });
/** The view's own frame, inside the sandbox proxy's. */
const view = (): FrameLocator =>
  page.frameLocator('iframe[title="MCP App show_film from films"]').frameLocator('iframe[title="MCP App view"]');
describe("MCP Apps", () => {
  it("the code calls a tool with a view → its panel opens at an opaque origin, initializes and gets the result; its own calls ask; its link asks; its message is a draft; its context reaches the next turn once, untrusted; its size is kept and Reopen reads it again after a reload", async () => {
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByLabel("MCP server URL").fill(films.url);
    await dialog().getByRole("button", { name: "Add server" }).click();
    await dialog().getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
    await dialog().getByRole("button", { name: "Close" }).click();

    mock.enqueue(
      codeTurn(
        `console.log("listed:", tools.list().map((tool) => tool.name).join(","))\n` +
          `const film = await tools.show_film({ title: "Dune" })\n` +
          `console.log("code got:", film.title, film.year)\n`,
        "Let me show it.",
        "tsx",
      ),
    );
    mock.enqueue({ chunks: ["Shown."] });
    // Each panel section added to the page: one that is drawn again (its frame removed and added) reloads its view.
    await page.evaluate(() => {
      const added: string[] = [];
      (globalThis as unknown as { __panelsAdded: string[] }).__panelsAdded = added;
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof Element)
              for (const panel of [node, ...node.querySelectorAll("*")])
                if (panel instanceof HTMLElement && panel.dataset.mcpApp) added.push(panel.dataset.mcpApp);
      }).observe(document, { childList: true, subtree: true });
    });
    await send(page, "Show me Dune");
    await answerAsk(ask(), "Allow once");

    // The panel: the tool's name, "App from films", not Livemark's own.
    await panel().waitFor({ timeout: 30_000 });
    expect(await panel().locator(".lm-mount-origin").innerText()).toMatch(/show_film[\s\S]*App from films/);
    // The extension's App completed ui/initialize and received the input and the result.
    await expect.poll(() => view().locator("#status").textContent(), { timeout: 30_000 }).toBe("initialized:inline");
    await expect
      .poll(() => view().locator("#result").textContent(), { timeout: 15_000 })
      .toBe('result:{"title":"Dune","year":2021}');
    expect(await view().locator("#input").textContent()).toBe('input:{"title":"Dune"}');
    // Drawn once (never moved, which would load its view a second time), from one read of its resource.
    expect(await page.evaluate(() => (globalThis as unknown as { __panelsAdded: string[] }).__panelsAdded)).toEqual([
      await panel().getAttribute("data-mcp-app"),
    ]);
    expect(reads).toEqual(["ui://films/card.html"]);
    // An opaque origin of its own: neither its proxy's document, nor the app's, nor storage; no network (its CSP).
    expect(await view().locator("#origin").textContent()).toBe("origin:null");
    expect(await view().locator("#reach").textContent()).toBe(
      "parent blocked, top blocked, storage blocked, network blocked",
    );
    // The proxy frame is sandboxed without allow-same-origin.
    expect(await page.locator('iframe[title="MCP App show_film from films"]').getAttribute("sandbox")).toBe(
      "allow-scripts",
    );

    // The code got the result too; the app-only tool was not in its list.
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    const heard = JSON.stringify(mock.requests[1].body.messages);
    expect(heard).toContain("listed: show_film");
    expect(heard).not.toContain("rate_film");
    expect(heard).toContain("code got: Dune 2021");
    const system = (mock.requests[0].body.messages as { role: string; content: string }[])[0].content;
    expect(system).toContain("tools.show_film");
    expect(system).not.toContain("rate_film");
    expect(films.calls).toEqual(['show_film {"title":"Dune"}']);

    // The view's own tool call asks the person (the same ask as the code's) and then reaches the server.
    await view().locator("#rate").click();
    await ask().waitFor({ timeout: 15_000 });
    expect(await ask().textContent()).toContain("An MCP App view wants to call a tool of its server");
    expect(await ask().getByLabel("Arguments").getByRole("listitem").allInnerTexts()).toEqual([
      'title: "Dune"',
      "stars: 5",
    ]);
    expect(films.calls).toEqual(['show_film {"title":"Dune"}']);
    await answerAsk(ask(), "Allow once");
    await expect
      .poll(() => view().locator("#called").textContent(), { timeout: 15_000 })
      .toBe("called:Rated Dune 5 stars");
    expect(films.calls).toEqual(['show_film {"title":"Dune"}', 'rate_film {"title":"Dune","stars":5}']);

    // ui/message: a draft in the message box, never sent.
    const requests = mock.requests.length;
    await view().locator("#ask").click();
    await expect
      .poll(() => page.locator("#lm-message").inputValue(), { timeout: 15_000 })
      .toBe("Tell me more about Dune");
    expect(mock.requests.length).toBe(requests);
    expect(await statusText(page)).toMatch(/^Done/);

    // ui/open-link asks first; Don't open refuses it (nothing opens).
    await view().locator("#link").click();
    const linkAsk = panel().getByRole("group", { name: "Open link" });
    await linkAsk.waitFor({ timeout: 15_000 });
    expect(await linkAsk.textContent()).toContain("https://example.com/dune");
    await linkAsk.getByRole("button", { name: "Don't open" }).click();
    await expect.poll(() => view().locator("#linked").textContent(), { timeout: 15_000 }).toBe("link:refused");
    expect(page.context().pages()).toHaveLength(1);
    // The answered ask leaves the panel (below the view): the page gets shorter and, scrolled to its end, moves the
    // view on screen. The next click waits for that (a click aimed before the move can miss the moved frame).
    await linkAsk.waitFor({ state: "detached", timeout: 15_000 });

    // ui/update-model-context: in the next model turn, as untrusted content; once.
    await view().locator("#context").click();
    // Its answer comes once the host has kept the context: only then may the next turn carry it.
    await expect.poll(() => view().locator("#told").textContent(), { timeout: 15_000 }).toBe("told");
    await page.locator("#lm-message").fill("And now?");
    mock.enqueue({ chunks: ["Noted."] });
    mock.enqueue({ chunks: ["Again."] });
    await page.locator("#lm-message").press("Enter");
    await expect.poll(() => mock.requests.length, { timeout: 30_000 }).toBe(requests + 1);
    const next = JSON.stringify(mock.requests[requests].body.messages);
    expect(next).toMatch(
      /\[untrusted content: MCP App views\][^\]]*From the view of films\/show_film:\\nThe person picked Dune on the card\./,
    );
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    await send(page, "Once more");
    await expect.poll(() => mock.requests.length, { timeout: 30_000 }).toBe(requests + 2);
    expect(JSON.stringify(mock.requests[requests + 1].body.messages)).not.toContain("The person picked Dune");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);

    // size-changed: the panel took the view's height (its content is over 700 px), within the bounds.
    const proxy = page.locator('iframe[title="MCP App show_film from films"]');
    await expect.poll(async () => (await proxy.boundingBox())?.height ?? 0, { timeout: 15_000 }).toBeGreaterThan(700);
    const height = Math.round((await proxy.boundingBox())!.height);
    expect(height).toBeLessThanOrEqual(2_000);

    // Saved like mounts: after a reload, its last size and Reopen, which reads the resource again.
    await expect
      .poll(async () =>
        (await savedPanels()).map((saved) => [Math.abs(saved.height - height) <= 2, saved.result !== undefined]),
      )
      .toEqual([[true, true]]);
    await page.reload();
    const reopen = panel().getByRole("button", { name: "Reopen" });
    await reopen.waitFor({ timeout: 30_000 });
    expect(Math.abs(((await panel().locator("div").last().boundingBox())?.height ?? 0) - height)).toBeLessThanOrEqual(
      2,
    );
    // The server comes back with the tab (its remembered URL); Reopen waits for nothing else.
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
    await dialog().getByRole("button", { name: "Close" }).click();
    await reopen.click();
    await expect.poll(() => view().locator("#status").textContent(), { timeout: 30_000 }).toBe("initialized:inline");
    await expect
      .poll(() => view().locator("#result").textContent(), { timeout: 15_000 })
      .toBe('result:{"title":"Dune","year":2021}');
    // Nothing was called again: the view was read (once more), not the tool.
    expect(reads).toEqual(["ui://films/card.html", "ui://films/card.html"]);
    expect(films.calls).toEqual(['show_film {"title":"Dune"}', 'rate_film {"title":"Dune","stars":5}']);
  });
});
