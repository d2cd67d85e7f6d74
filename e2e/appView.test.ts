/**
 * Open as app (issue 29 §1) in the real app: a reply that mounts a counter
 * opens as an app in a new tab — its UI only, live — and its App link,
 * opened in a fresh browser profile, runs the app under that profile's own
 * rights (a fetch asks there, whatever the author allowed) and never
 * carries the key, a grant or the chat's prose; Open in chat imports it as
 * a new session; a damaged link says so in plain words.
 */
import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { answerAsk, openReadyApp } from "./harness";
import { APP_FORMAT, APP_VERSION, encodeAppLink, type AppPayload } from "../src/store/appLink";
import { startInternet, type Internet } from "./internet";
import { appTest, codeTurn, send, waitDone } from "./fixture";

const KEY = "sk-e2e-app-link-secret-4242";
const PROSE = "Here is the counter, made just for the quarterly review.";
const ASKED = "Please build my private quarterly counter";

const it = appTest({ configure: { apiKey: KEY }, context: { acceptDownloads: true } });

let internet: Internet;
beforeAll(async () => {
  internet = await startInternet();
});
afterAll(async () => {
  await internet?.close();
});

const APP = (url: string) => `mount({ title: "Counter", ui: () => {
  const [count, setCount] = useStored("count", 0)
  const [loaded, setLoaded] = useState("nothing yet")
  return <div>
    <Button onClick={() => setCount((n) => n + 1)}>count {count}</Button>
    <Button onClick={async () => { const response = await fetch("${url}"); setLoaded("loaded " + (await response.json()).path) }}>Load</Button>
    <p>{loaded}</p>
  </div>
} })`;

const permission = (page: Page) => page.getByRole("group", { name: "Permission request" });

/** The live counter's button shows `count` and takes clicks. */
async function counterShows(page: Page, count: number): Promise<void> {
  const button = page.getByLabel("Mounted UI").getByRole("button", { name: `count ${count}` });
  await button.waitFor({ timeout: 30_000 });
  await expect.poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
}

describe("Open as app", () => {
  it("shows only the reply's UI, live; its App link runs in a fresh profile under that profile's consent and imports as a new session", async ({
    page,
    mock,
    context,
    browser,
  }) => {
    const url = `${internet.origin}/data`;
    mock.enqueue(codeTurn(APP(url), PROSE, "tsx"));
    await send(page, ASKED);
    await waitDone(page);
    await counterShows(page, 0);
    // The author allows the host for good in the chat: that grant must not travel with the link.
    await page.getByLabel("Mounted UI").getByRole("button", { name: "Load" }).click();
    await answerAsk(permission(page), "Always allow this host");
    await page.getByLabel("Mounted UI").getByText("loaded /data").waitFor({ timeout: 20_000 });

    const [appPage] = await Promise.all([
      context.waitForEvent("page"),
      page.getByRole("article", { name: "Reply" }).last().getByRole("button", { name: "Open as app" }).click(),
    ]);
    await appPage.getByRole("heading", { name: "Counter", level: 1 }).waitFor({ timeout: 30_000 });
    expect(new URL(appPage.url()).hash).toMatch(/^#app\/[^/]+\/[^/]+$/);
    await counterShows(appPage, 0);
    await appPage.getByRole("button", { name: "count 0" }).click();
    await counterShows(appPage, 1);
    // Nothing of the chat: no prose, no composer, no session list.
    expect(await appPage.getByRole("textbox", { name: "Message" }).count()).toBe(0);
    expect(await appPage.getByRole("navigation", { name: "Sessions" }).count()).toBe(0);
    expect(await appPage.getByText(PROSE).count()).toBe(0);
    expect(await appPage.getByText(ASKED).count()).toBe(0);
    expect(
      await appPage
        .getByRole("banner")
        .getByText(/Made by the model/)
        .count(),
    ).toBe(1);
    expect(await appPage.getByLabel("Mounted UI").count()).toBe(1);
    // axe (as e2e/a11y.test.ts runs it on the chat): no serious or critical violation on the app view.
    const axe = await new AxeBuilder({ page: appPage }).exclude("iframe").analyze();
    expect(
      axe.violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`),
    ).toEqual([]);
    // The same sandbox as the chat's: an iframe never allowed its page's origin.
    const frames = await appPage.evaluate(() =>
      [...document.querySelectorAll("iframe")].map((frame) => frame.getAttribute("sandbox") ?? ""),
    );
    expect(frames.length).toBeGreaterThan(0);
    for (const sandbox of frames) expect(sandbox).not.toContain("allow-same-origin");

    const link = await appPage.getByLabel("App link").inputValue();
    expect(link).toMatch(/#app=[A-Za-z0-9_-]+$/);
    const decoded = inflateRawSync(Buffer.from(link.split("#app=")[1], "base64url")).toString("utf8");
    for (const absent of [KEY, PROSE, ASKED, "allowedHosts", "grants", "grantedAt", "audit", "test-key"])
      expect(decoded).not.toContain(absent);
    expect(JSON.parse(decoded)).toMatchObject({ format: "livemark.app", title: "Counter" });

    // A fresh profile: the app runs at once, its storage is its own, and a fetch asks this profile.
    const fresh = await browser.newContext();
    try {
      const viewer = await fresh.newPage();
      await viewer.goto(link);
      await viewer.getByRole("heading", { name: "Counter", level: 1 }).waitFor({ timeout: 30_000 });
      const counter = viewer.getByLabel("Mounted UI").getByRole("button", { name: /^count \d+$/ });
      await counter.waitFor({ timeout: 30_000 });
      const start = Number((await counter.textContent())!.replace("count ", ""));
      await counter.click();
      await counterShows(viewer, start + 1);
      const before = internet.requests.length;
      await viewer.getByLabel("Mounted UI").getByRole("button", { name: "Load" }).click();
      await permission(viewer).waitFor({ timeout: 20_000 });
      expect(internet.requests.length).toBe(before);
      await answerAsk(permission(viewer), "Allow once");
      await viewer.getByLabel("Mounted UI").getByText("loaded /data").waitFor({ timeout: 20_000 });

      // Open in chat: a new session of this profile, the only one (the app's own storage is not listed).
      await viewer.getByRole("button", { name: "Open in chat" }).click();
      await viewer.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      const sessions = viewer.getByRole("navigation", { name: "Sessions" });
      await expect.poll(() => sessions.getByRole("listitem").count(), { timeout: 20_000 }).toBe(1);
      expect(await sessions.getByText("Counter").count()).toBe(1);
      await viewer.getByRole("article", { name: "Reply" }).first().waitFor({ timeout: 20_000 });
    } finally {
      await fresh.close();
    }
  });

  it("a failed block is said in plain words; Download app opens through #app and Import; Open in chat opens the session", async ({
    page,
    mock,
    context,
  }) => {
    mock.enqueue(
      codeTurn(
        `mount({ title: "Tally", ui: () => { const [n, setN] = useState(0); return <Button onClick={() => setN(n + 1)}>tally {n}</Button> } })\nthrow new Error("the sales sheet is missing")`,
        "A tally.",
        "tsx",
      ),
    );
    mock.enqueue({ chunks: ["It failed, sorry."] });
    await send(page, "Tally please");
    await waitDone(page);
    const [appPage] = await Promise.all([
      context.waitForEvent("page"),
      page.getByRole("article", { name: "Reply" }).first().getByRole("button", { name: "Open as app" }).click(),
    ]);
    const problem = appPage.getByRole("alert", { name: "App problem" });
    await problem.waitFor({ timeout: 30_000 });
    expect(await problem.textContent()).toMatch(/A block of the app's code failed: .*the sales sheet is missing/);
    expect(await problem.textContent()).toMatch(/Open in chat/);
    // What ran before the error still runs.
    await appPage.getByRole("button", { name: "tally 0" }).click();
    await appPage.getByRole("button", { name: "tally 1" }).waitFor({ timeout: 20_000 });

    const [download] = await Promise.all([
      appPage.waitForEvent("download"),
      appPage.getByRole("button", { name: "Download app" }).click(),
    ]);
    const file = readFileSync((await download.path())!, "utf8");
    expect(JSON.parse(file)).toMatchObject({ format: "livemark.app", title: "Tally" });
    const opener = await context.newPage();
    await opener.goto(appPage.url().replace(/#.*$/, "#app"));
    await opener
      .getByLabel("Import")
      .setInputFiles({ name: "app.json", mimeType: "application/json", buffer: Buffer.from(file) });
    await opener.getByRole("heading", { name: "Tally", level: 1 }).waitFor({ timeout: 30_000 });
    // The address becomes the app's link: a reload opens the same app.
    await expect.poll(() => new URL(opener.url()).hash).toMatch(/^#app=/);
    await opener.getByRole("button", { name: "tally 0" }).click();
    await opener.getByRole("button", { name: "tally 1" }).waitFor({ timeout: 20_000 });
    await opener.close();

    // A reply of this browser: Open in chat opens its session in the chat.
    await appPage.getByRole("button", { name: "Open in chat" }).click();
    await appPage.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    // The chat tab holds the session: here it is shown read-only, with its messages.
    await appPage.getByText("It failed, sorry.").waitFor({ timeout: 20_000 });
  });

  it("offline, an app link runs from the installed app (the service worker serves the page and the sandbox)", async ({
    browser,
    app,
  }) => {
    const installed = await browser.newContext();
    try {
      const author = await installed.newPage();
      await openReadyApp(author, app.url);
      await author.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      await author.reload();
      await author.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      expect(await author.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
      const payload: AppPayload = {
        format: APP_FORMAT,
        version: APP_VERSION,
        title: "Offline tally",
        replies: [
          {
            blocks: [
              {
                kind: "code",
                index: 1,
                lang: "tsx",
                line: 3,
                source: `mount({ title: "Offline tally", ui: () => { const [n, setN] = useState(0); return <Button onClick={() => setN(n + 1)}>tally {n}</Button> } })`,
                unterminated: false,
              },
            ],
            mounts: ["Offline tally"],
          },
        ],
      };
      const encoded = await encodeAppLink(payload);
      if (!encoded.ok) throw new Error(encoded.error.message);
      await installed.setOffline(true);
      const viewer = await installed.newPage();
      await viewer.goto(app.url.replace(/#.*$/, "") + encoded.fragment);
      await viewer.getByRole("heading", { name: "Offline tally", level: 1 }).waitFor({ timeout: 30_000 });
      await viewer.getByRole("button", { name: "tally 0" }).click();
      await viewer.getByRole("button", { name: "tally 1" }).waitFor({ timeout: 20_000 });
      expect(await viewer.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    } finally {
      await installed.close();
    }
  });

  it("a sandbox that hangs is reset: the app view says so in plain words, and Run again brings the app back", async ({
    context,
    app,
  }) => {
    const payload: AppPayload = {
      format: APP_FORMAT,
      version: APP_VERSION,
      title: "Hanger",
      replies: [
        {
          blocks: [
            {
              kind: "code",
              index: 1,
              lang: "tsx",
              line: 3,
              source: `mount({ title: "Hanger", ui: () => { const [n, setN] = useState(0); return <div><Button onClick={() => setN(n + 1)}>tally {n}</Button><Button onClick={() => (0, eval)("for (;;) {}")}>Hang</Button></div> } })`,
              unterminated: false,
            },
          ],
          mounts: ["Hanger"],
        },
      ],
    };
    const encoded = await encodeAppLink(payload);
    if (!encoded.ok) throw new Error(encoded.error.message);
    const viewer = await context.newPage();
    await viewer.goto(app.url.replace(/#.*$/, "") + encoded.fragment);
    await viewer.getByRole("button", { name: "tally 0" }).click();
    await viewer.getByRole("button", { name: "tally 1" }).waitFor({ timeout: 20_000 });
    await viewer.getByRole("button", { name: "Hang" }).click();
    const problem = viewer.getByRole("alert", { name: "App problem" });
    await problem.waitFor({ timeout: 30_000 });
    expect(await problem.textContent()).toMatch(/The app stopped: its sandbox was reset/);
    expect(await viewer.getByLabel("Mounted UI").count()).toBe(0);
    await problem.getByRole("button", { name: "Run again" }).click();
    await viewer.getByRole("button", { name: "tally 0" }).click();
    await viewer.getByRole("button", { name: "tally 1" }).waitFor({ timeout: 20_000 });
    expect(await viewer.getByRole("alert", { name: "App problem" }).count()).toBe(0);
  });

  it("a damaged app link shows a plain error and runs nothing", async ({ context, app }) => {
    const viewer = await context.newPage();
    await viewer.goto(`${app.url}#app=AAAA${"x".repeat(30)}`);
    const problem = viewer.getByRole("alert", { name: "App problem" });
    await problem.waitFor({ timeout: 30_000 });
    expect(await problem.textContent()).toMatch(/damaged/);
    expect(await viewer.getByLabel("Mounted UI").count()).toBe(0);
    expect(await viewer.getByLabel("App link").count()).toBe(0);
  });
});
