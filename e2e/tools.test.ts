/**
 * The person's MCP tools in the real app (issue "Tools for the code"): a
 * local MCP server built with the SDK (e2e/mcpServer.ts) is added in Session
 * settings; the mock LLM writes code that calls its tools through `tools`;
 * the person answers the inline ask. What reached the server, the model and
 * the export is checked at each of them.
 */
import { describe, expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { answerAsk, configureEndpoint, openReadyApp, type TestServer } from "./harness";
import { startMcpServer, type TestMcpServer } from "./mcpServer";
import type { MockLlm } from "./mockLlm";
import { appTest, codeTurn as fencedTurn, send, statusText } from "./fixture";

const API_KEY = "sk-test-secret-key-0123456789";
const TOKEN = "mcp-token-secret-4f9a1c";
const it = appTest({ configure: { apiKey: API_KEY }, context: { acceptDownloads: true } });
let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let films: TestMcpServer;
let page: Page;

it.beforeEach(async ({ browser: launched, app: served, mock: started, page: opened }) => {
  browser = launched;
  app = served;
  mock = started;
  page = opened;
  films = await startMcpServer();
});
it.afterEach(async () => {
  await films?.close();
});

const codeTurn = (code: string, text = "Let me use the tools.") => fencedTurn(code, text, "tsx");

const ask = () => page.getByRole("group", { name: "Permission request" });
/** The ask's buttons take clicks once it is armed (harness.ts: answerAsk). */
const answer = (name: "Allow once" | "Deny", group = ask()) => answerAsk(group, name);
/** Always allow this tool, and its Confirm step. */
const alwaysAllow = (group = ask()) => answerAsk(group, "Always allow this tool");
const dialog = () => page.getByRole("dialog", { name: "Session settings" });
/** What the model received as the last message of request `index`. */
function modelHeard(index: number): string {
  const messages = mock.requests[index].body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** Session settings → MCP server URL (+ token) → Add server; leaves the dialog open. */
async function addServer(url: string, token?: string) {
  await page.getByRole("button", { name: "Session settings" }).click();
  await dialog().getByLabel("MCP server URL").fill(url);
  if (token) await dialog().getByLabel("Bearer token (optional)").fill(token);
  await dialog().getByRole("button", { name: "Add server" }).click();
}

async function addFilms(token?: string) {
  await addServer(films.url, token);
  await dialog().getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
  await dialog().getByRole("button", { name: "Close" }).click();
}

describe("tools from an MCP server", () => {
  it("add → tools.list() shows both → ask → Allow once → result in a mount → asks again → Always allow this tool → later calls pass → revoke → asks again", async () => {
    await addFilms(TOKEN);
    mock.enqueue(
      codeTurn(
        `console.log("tools:", tools.list().map((tool) => \`\${tool.name}:\${tool.readOnly}\`).join(", "))\n` +
          `const film = await tools.lookup_film({ title: "Dune" })\n` +
          `mount({ title: "Film", ui: () => <Card><CardTitle>{film.title} ({film.year}) by {film.director}</CardTitle></Card> })\n` +
          `const again = await tools.lookup_film({ title: "Dune" })\n` +
          `const third = await tools.lookup_film({ title: "Solaris" })\n` +
          `console.log("films:", again.title, third.title, third.year)\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Look up Dune");

    await ask().getByRole("button", { name: "Allow once" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => statusText(page)).toMatch(/^Waiting for permission/);
    const shown = (await ask().textContent()) ?? "";
    expect(shown).toContain("lookup_film");
    expect(shown).toContain("films");
    expect(await ask().getByLabel("Arguments").getByRole("listitem").allInnerTexts()).toEqual(['title: "Dune"']);
    expect(await ask().getByRole("button").allTextContents()).toEqual(["Allow once", "Always allow this tool", "Deny"]);
    expect(films.calls).toEqual([]);
    await answer("Allow once");

    // The structured result renders in a mount.
    await expect.poll(() => page.getByText("Dune (2021) by Denis Villeneuve").count(), { timeout: 15_000 }).toBe(1);
    // The same call again: the one-time grant was spent, so it asks again.
    await expect.poll(() => ask().count(), { timeout: 15_000 }).toBe(1);
    expect(films.calls).toEqual(['lookup_film {"title":"Dune"}']);
    await alwaysAllow();
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    // The third call (other arguments) passed without asking.
    expect(films.calls).toEqual([
      'lookup_film {"title":"Dune"}',
      'lookup_film {"title":"Dune"}',
      'lookup_film {"title":"Solaris"}',
    ]);
    const heard = modelHeard(1);
    expect(heard).toContain("tools: lookup_film:true, add_to_watchlist:false");
    expect(heard).toContain("films: Dune Solaris 1972");
    // Printed results reach the model marked untrusted, naming the tool.
    expect(heard).toMatch(/UNTRUSTED CONTENT from outside the conversation \(a tool result: films\/lookup_film\)/);
    expect(heard).toContain("```text untrusted content\n");
    // The model was told about the tools in its system prompt.
    const system = (mock.requests[1].body.messages as { role: string; content: string }[])[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain(
      "- `await tools.lookup_film({ title: string })` — Look up a film by title. (server films, read-only)",
    );

    // Session settings: the server, the granted tool with Revoke, the audit list.
    await page.getByRole("button", { name: "Session settings" }).click();
    const rows = (await dialog().getByRole("row").allTextContents()).slice(1).map((row) => row.replace(/^\S+ /, ""));
    expect(rows).toEqual([
      expect.stringMatching(/tool.*CALL films\/lookup_film.*allowed-once.*ok/),
      expect.stringMatching(/tool.*CALL films\/lookup_film.*allowed-tool.*ok/),
      expect.stringMatching(/tool.*CALL films\/lookup_film.*allowed-tool.*ok/),
    ]);
    const granted = dialog().getByRole("region", { name: "Granted tools" });
    // Granted for the server at its URL, shown by the name it goes by here.
    expect(await granted.getByRole("listitem").allTextContents()).toEqual([
      `films/lookup_film at ${films.url}` + "Revoke",
    ]);
    await granted.getByRole("button", { name: "Revoke films/lookup_film" }).click();
    await dialog().getByRole("button", { name: "Close" }).click();

    mock.enqueue(
      codeTurn(
        `try { await tools.lookup_film({ title: "Dune" }) } catch (error) { console.log("after revoke:", error.name, error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Once more");
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(3)).toMatch(/after revoke: CapabilityError The person denied this tool call: films\/lookup_film/);
    expect(films.calls).toHaveLength(3);

    // The bearer token went to the MCP server, and nowhere else: not to the model, not into the realm's view, not into the export.
    expect(films.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    expect(JSON.stringify(mock.requests.map((request) => request.body))).not.toContain(TOKEN);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export", exact: true }).click(),
    ]);
    const exported = JSON.parse(
      await import("node:fs/promises").then(async (fs) => fs.readFile((await download.path())!, "utf8")),
    );
    expect(exported.audit.filter((entry: { capability: string }) => entry.capability === "tool")).toHaveLength(4);
    expect(JSON.stringify(exported)).not.toContain(TOKEN);
    expect(JSON.stringify(exported)).not.toContain(API_KEY);
  });

  it("the token never reaches the realm: code that looks everywhere it can finds nothing", async () => {
    await addFilms(TOKEN);
    mock.enqueue(
      codeTurn(
        `const seen = []\n` +
          `const visit = (value, depth) => { if (depth > 3 || value === null || (typeof value !== "object" && typeof value !== "function")) { seen.push(String(value)); return }\n` +
          `  for (const key of Object.getOwnPropertyNames(value)) { seen.push(key); try { visit(value[key], depth + 1) } catch {} } }\n` +
          `visit(tools, 0)\n` +
          `seen.push(JSON.stringify(tools.list()), String(tools.lookup_film))\n` +
          `for (const key of Object.getOwnPropertyNames(self)) { try { seen.push(key, JSON.stringify(self[key]) ?? "") } catch {} }\n` +
          `console.log("token found:", seen.join(" ").includes(${JSON.stringify(TOKEN)}), "url found:", seen.join(" ").includes("Bearer"))\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Look around");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    expect(modelHeard(1)).toContain("token found: false url found: false");
    expect(films.calls).toEqual([]);
  });

  it("bad arguments are refused in the realm before any request; a tool error rejects with its message", async () => {
    await addFilms();
    mock.enqueue(
      codeTurn(
        `try { await tools.lookup_film({ title: 42 }) } catch (error) { console.log("bad:", error.name, error.code, error.message) }\n` +
          `try { await tools.add_to_watchlist() } catch (error) { console.log("missing:", error.code) }\n` +
          `try { await tools.lookup_film({ title: "Nope" }) } catch (error) { console.log("tool error:", error.name, error.code, error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    const before = films.requests;
    await send(page, "Try bad arguments");
    // Only the third call (valid arguments) asks.
    await ask().getByRole("button", { name: "Allow once" }).waitFor({ timeout: 30_000 });
    expect(await ask().getByLabel("Arguments").getByRole("listitem").allInnerTexts()).toEqual(['title: "Nope"']);
    expect(films.requests).toBe(before);
    await answer("Allow once");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    const heard = modelHeard(1);
    expect(heard).toMatch(
      /bad: ToolError invalid-arguments tools\.lookup_film was not called: title: expected string, received number/,
    );
    expect(heard).toContain("missing: invalid-arguments");
    expect(heard).toContain("tool error: ToolError tool-error No film titled Nope");
    expect(films.calls).toEqual(['lookup_film {"title":"Nope"}']);
  });

  it('two servers with the same tool names: each tool is tools["server/tool"], and a grant for one does not cover the other', async () => {
    const second = await startMcpServer();
    try {
      await addFilms();
      await addServer(second.url);
      await dialog().getByRole("listitem", { name: "MCP server films-2" }).waitFor({ timeout: 30_000 });
      await dialog().getByRole("button", { name: "Close" }).click();
      mock.enqueue(
        codeTurn(
          `console.log("names:", tools.list().map((tool) => tool.name).join(", "), typeof tools.lookup_film)\n` +
            `console.log("first:", (await tools["films/lookup_film"]({ title: "Dune" })).year)\n` +
            `try { await tools["films-2/lookup_film"]({ title: "Dune" }) } catch (error) { console.log("second:", error.message) }\n`,
        ),
      );
      mock.enqueue({ chunks: ["Done."] });
      await send(page, "Both servers");
      await alwaysAllow();
      // The same tool name on the other server is another tool: it asks.
      await expect.poll(async () => (await ask().textContent()) ?? "", { timeout: 15_000 }).toContain("films-2");
      await answer("Deny");
      await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
      const heard = modelHeard(1);
      expect(heard).toContain(
        "names: films/lookup_film, films/add_to_watchlist, films-2/lookup_film, films-2/add_to_watchlist undefined",
      );
      expect(heard).toContain("first: 2021");
      expect(heard).toMatch(/second: The person denied this tool call: films-2\/lookup_film/);
      expect(films.calls).toEqual(['lookup_film {"title":"Dune"}']);
      expect(second.calls).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it("a server without CORS gets a plain error; nothing is added", async () => {
    const closed = await startMcpServer({ cors: false });
    try {
      await addServer(closed.url);
      const alert = dialog().getByRole("alert");
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toMatch(/does not accept requests from a web page \(CORS\)/);
      expect(await dialog().getByRole("list", { name: "MCP servers" }).count()).toBe(0);
    } finally {
      await closed.close();
    }
  });

  it("the read-only switch lets read-only tools run without asking; strict mode asks anyway; removing the server takes its tools away", async () => {
    await addFilms();
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByRole("switch", { name: "Allow its read-only tools without asking" }).check();
    await dialog().getByRole("button", { name: "Close" }).click();
    mock.enqueue(
      codeTurn(
        `console.log("read-only:", (await tools.lookup_film({ title: "Dune" })).year)\n` +
          `try { await tools.add_to_watchlist({ title: "Dune" }) } catch (error) { console.log("write:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Read and write");
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(films.calls).toEqual(['lookup_film {"title":"Dune"}']);
    expect(modelHeard(1)).toContain("read-only: 2021");

    // Strict mode (the session's, for the network and tools alike) asks for every call.
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByLabel("Strict mode").check();
    await dialog().getByRole("button", { name: "Close" }).click();
    mock.enqueue(
      codeTurn(
        `try { await tools.lookup_film({ title: "Dune" }) } catch (error) { console.log("strict:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Strictly");
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(3)).toMatch(/strict: The person denied this tool call: films\/lookup_film/);
    expect(films.calls).toHaveLength(1);

    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByRole("button", { name: "Remove films" }).click();
    await dialog().getByRole("button", { name: "Close" }).click();
    mock.enqueue(codeTurn(`console.log("after remove:", JSON.stringify(tools.list()), typeof tools.lookup_film)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "And now?");
    await expect.poll(() => mock.requests.length, { timeout: 30_000 }).toBe(6);
    expect(modelHeard(5)).toContain("after remove: [] undefined");
    expect((mock.requests[5].body.messages as { content: string }[])[0].content).not.toContain(
      "## Tools of this session",
    );
  });
});

describe("after a reload", () => {
  it("the tab's servers come back with their token, which the page never shows again", async () => {
    await addFilms(TOKEN);
    expect(await page.content()).not.toContain(TOKEN);
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Session settings" }).click();
    await dialog().getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
    expect(await page.content()).not.toContain(TOKEN);
    await dialog().getByRole("button", { name: "Close" }).click();
    mock.enqueue(codeTurn(`console.log("director:", (await tools.lookup_film({ title: "Dune" })).director)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Who directed Dune?");
    await answer("Allow once");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(1)).toContain("director: Denis Villeneuve");
    expect(films.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
  });
});

describe("a server that needs OAuth sign-in", () => {
  it("Add server without a token → the server's sign-in (PKCE) → back in the app, connected; its token stays out of the model and the export", async () => {
    const secured = await startMcpServer({ oauth: true });
    try {
      await addServer(secured.url);
      // The page leaves for the server's sign-in, which sends it straight back with a code.
      await page
        .waitForURL((url) => url.href.startsWith(app.url) && url.searchParams.has("code"), { timeout: 30_000 })
        .catch(() => undefined);
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      await expect.poll(() => new URL(page.url()).search, { timeout: 15_000 }).toBe("");
      await page.getByRole("button", { name: "Session settings" }).click();
      await dialog().getByRole("listitem", { name: "MCP server films" }).waitFor({ timeout: 30_000 });
      await dialog().getByRole("button", { name: "Close" }).click();
      expect(secured.oauth).toMatchObject({ registered: 1, authorized: 1, pkceVerified: true });
      const [accessToken] = secured.oauth.issued;

      mock.enqueue(codeTurn(`console.log("year:", (await tools.lookup_film({ title: "Dune" })).year)\n`));
      mock.enqueue({ chunks: ["Done."] });
      await send(page, "Look up Dune");
      await answer("Allow once");
      await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
      expect(modelHeard(1)).toContain("year: 2021");
      expect(secured.calls).toEqual(['lookup_film {"title":"Dune"}']);
      expect(secured.authorizations.at(-1)).toBe(`Bearer ${accessToken}`);
      expect(JSON.stringify(mock.requests.map((request) => request.body))).not.toContain(accessToken);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export", exact: true }).click(),
      ]);
      const exported = await import("node:fs/promises").then(async (fs) =>
        fs.readFile((await download.path())!, "utf8"),
      );
      expect(exported).not.toContain(accessToken);
    } finally {
      await secured.close();
    }
  });
});

describe("the demo model's tools script", () => {
  it("with no key and no server: the built-in demo server's tool asks, then its film shows", async () => {
    const demoContext = await browser.newContext();
    const demo = await demoContext.newPage();
    try {
      const scripts: string[] = [];
      demo.on("request", (request) => void scripts.push(request.url()));
      await openReadyApp(demo, app.url);
      // The MCP client is not loaded until a tool is needed.
      expect(scripts.filter((url) => /createMcpServers|mcpClient|demoMcpServer/.test(url))).toEqual([]);
      await demo.getByRole("textbox", { name: "Message" }).fill("Look up a film with a tool");
      await demo.getByRole("textbox", { name: "Message" }).press("Enter");
      const demoAsk = demo.getByRole("group", { name: "Permission request" });
      await answer("Allow once", demoAsk);
      await expect.poll(() => demo.getByText("Dune (2021)").count(), { timeout: 30_000 }).toBeGreaterThan(0);
      await expect
        .poll(() => demo.getByText(/directed by Denis Villeneuve, straight from the tool/).count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      // …and is once the tools script needs it.
      expect(scripts.some((url) => /createMcpServers/.test(url))).toBe(true);
      expect(scripts.some((url) => /demoMcpServer/.test(url))).toBe(true);
    } finally {
      await demoContext.close();
    }
  });
});
