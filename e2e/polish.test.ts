/**
 * The basics a person expects of a chat app (issue 13): highlighted and
 * collapsible code, math, keyboard shortcuts with their help, the theme
 * override, the first-run welcome, and the installed app working offline.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DIST_DIR, configureEndpoint, openReadyApp, serveStatic, waitFor, type TestServer } from "./harness";
import { createGate, type MockLlm } from "./mockLlm";
import { appTest, send, statusText } from "./fixture";

const it = appTest({ serve: { basePath: "/some/sub/path/" }, context: { serviceWorkers: "block" } });
let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let page: Page;

it.beforeEach(({ browser: launched, app: served, mock: started, page: opened }) => {
  browser = launched;
  app = served;
  mock = started;
  page = opened;
});

async function watchCsp(target: Page): Promise<() => Promise<string[]>> {
  await target.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      // zod probes once whether eval works (caught; it then validates without it): not this suite's concern.
      if (event.effectiveDirective === "script-src" && event.blockedURI === "eval") return;
      seen.push(`${event.effectiveDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  return () => target.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

/** Colours of the token spans inside a highlighted block (empty when it is plain text). */
async function tokenColours(target: Page, selector: string): Promise<string[]> {
  return target
    .locator(selector)
    .evaluate((element) =>
      [...element.querySelectorAll("code span.lm-tone")].map((span) => getComputedStyle(span).color),
    );
}

const LONG_PYTHON = Array.from({ length: 40 }, (_, index) => `value_${index} = ${index} * 2  # line ${index + 1}`).join(
  "\n",
);

describe("Rendering", () => {
  it("highlights a finished code fence in colour, and a streaming fence never shows a token coloured from other text", async () => {
    await configureEndpoint(page, mock.url);
    const violations = await watchCsp(page);
    const gate = createGate();
    mock.enqueue({
      chunks: [
        'Here:\n\n```ts\nconst greeting: string = "hello";\n',
        "function add(a: number, b: number) {\n  return a + b;\n}\n",
        '```\n\nAnd one still coming:\n\n```python\ndef f(x):\n    return "te',
        { waitFor: gate.promise },
        'xt" + str(x)\n```\n\nDone.',
      ],
    });
    await send(page, "show code");
    const finished = page.locator(".lm-fence").first();
    await finished.locator('pre[data-highlighted="all"]').waitFor({ timeout: 30_000 });
    const colours = new Set(await tokenColours(page, ".lm-fence >> nth=0"));
    // Several token kinds, several colours: keywords, strings, types.
    expect(colours.size).toBeGreaterThanOrEqual(3);
    expect(await finished.textContent()).toContain('const greeting: string = "hello";');

    // The streaming fence: its text is exactly what arrived, highlighted or not.
    const open = page.locator(".lm-fence").nth(1);
    await open.waitFor({ timeout: 30_000 });
    await waitFor(async () => (await open.locator("pre").getAttribute("data-highlighted")) !== "none", 10_000);
    expect(await open.locator("code").textContent()).toBe('def f(x):\n    return "te');
    gate.open();
    await page.getByText("Done.").waitFor({ timeout: 30_000 });
    await open.locator('pre[data-highlighted="all"]').waitFor({ timeout: 10_000 });
    expect(await open.locator("code").textContent()).toBe('def f(x):\n    return "text" + str(x)');
    // The closed string is one string token now.
    const strings = await open
      .locator("code span.lm-tone")
      .evaluateAll((spans) => spans.map((span) => span.textContent));
    expect(strings.join("")).toContain('"text"');
    expect(await violations()).toEqual([]);
  });

  it("highlights the code of agent.run blocks", async () => {
    await send(page, "Compute some primes");
    const block = page.getByRole("figure", { name: "Code block 1" });
    await block.locator('[data-highlighted="all"]').waitFor({ timeout: 30_000 });
    const colours = new Set(
      await block
        .locator("code span.lm-tone")
        .evaluateAll((spans) => spans.map((span) => getComputedStyle(span).color)),
    );
    expect(colours.size).toBeGreaterThanOrEqual(3);
    // A line is drawn as runs (a span per tone, plain text bare): no two neighbouring runs share a tone, and
    // only a line's indent is whitespace alone.
    const lines = await block.locator(".lm-code__line code").evaluateAll((codes) =>
      codes.map((code) =>
        [...code.childNodes].map((run) => ({
          tone: run instanceof Element ? run.className : "plain",
          text: run.textContent ?? "",
        })),
      ),
    );
    expect(lines.flat().filter((run) => run.tone !== "plain").length).toBeGreaterThan(0);
    for (const line of lines) {
      line.forEach((run, index) => {
        if (index > 0) expect(run.text.trim()).not.toBe("");
        if (index > 0) expect(run.tone).not.toBe(line[index - 1].tone);
      });
    }
  });

  it("renders $x^2$ inline and a display block with KaTeX, leaves prose dollars alone, and an open $$ never shows a KaTeX error", async () => {
    await configureEndpoint(page, mock.url);
    const violations = await watchCsp(page);
    const gate = createGate();
    mock.enqueue({
      chunks: [
        "Inline $x^2$ and prices of $5 and $10.\n\n",
        "$$\n\\frac{a}{",
        { waitFor: gate.promise },
        "b} + \\sqrt{2}\n$$\n\nEnd.",
      ],
    });
    await send(page, "math please");
    const reply = page.getByRole("article", { name: "Reply" });
    await reply.locator(".katex").first().waitFor({ timeout: 30_000 });
    // The inline formula is KaTeX (a superscript), the prices stay text.
    expect(await reply.locator(".katex .msupsub").count()).toBeGreaterThanOrEqual(1);
    expect(await reply.textContent()).toContain("prices of $5 and $10.");
    // Half a display formula: shown as written, no KaTeX error, no display block yet.
    await reply.getByText("\\frac{a}{", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await reply.locator(".katex-error").count()).toBe(0);
    expect(await reply.locator(".katex-display").count()).toBe(0);
    gate.open();
    await reply.getByText("End.").waitFor({ timeout: 30_000 });
    await reply.locator(".katex-display").waitFor({ timeout: 10_000 });
    expect(await reply.locator(".katex-display .mfrac").count()).toBe(1);
    expect(await reply.locator(".katex-error").count()).toBe(0);
    // KaTeX's fonts loaded under the app's CSP (no blocked font, a real KaTeX face in use).
    const fontsLoaded = await page.evaluate(async () => {
      await document.fonts.ready;
      return [...document.fonts].filter((face) => face.family.startsWith("KaTeX") && face.status === "loaded").length;
    });
    expect(fontsLoaded).toBeGreaterThan(0);
    expect(await violations()).toEqual([]);
  });

  it("collapses long code with Expand, and Collapse folds it again", async () => {
    await configureEndpoint(page, mock.url);
    mock.enqueue({ chunks: ["Long:\n\n```python\n" + LONG_PYTHON + "\n```\n\nShort:\n\n```python\nprint(1)\n```\n"] });
    await send(page, "long code");
    const fence = page.locator(".lm-fence").first();
    await fence.waitFor({ timeout: 30_000 });
    const expand = fence.getByRole("button", { name: "Expand" });
    await expand.waitFor();
    expect(await expand.getAttribute("aria-expanded")).toBe("false");
    const lastLine = fence.getByText("# line 40");
    const scroller = fence.locator(".lm-collapsible");
    const visibleHeight = () => scroller.evaluate((element) => element.getBoundingClientRect().height);
    const collapsedHeight = await visibleHeight();
    // Collapsed, it draws only the lines it shows: the rest are not in the page until expanded.
    expect(await fence.locator(".lm-hl__line").count()).toBe(20);
    expect(await lastLine.count()).toBe(0);
    await expand.click();
    const collapse = fence.getByRole("button", { name: "Collapse" });
    expect(await collapse.getAttribute("aria-expanded")).toBe("true");
    const fullHeight = await scroller.evaluate((element) => element.scrollHeight);
    expect(await visibleHeight()).toBeGreaterThanOrEqual(fullHeight - 1);
    expect(collapsedHeight).toBeLessThan(fullHeight * 0.7);
    await lastLine.scrollIntoViewIfNeeded();
    await collapse.click();
    expect(await visibleHeight()).toBeLessThan(fullHeight * 0.7);
    expect(await lastLine.count()).toBe(0);
    // A short block has no such button.
    expect(await page.locator(".lm-fence").nth(1).getByRole("button").count()).toBe(0);
  });
});

describe("Navigation", () => {
  it("Ctrl+Shift+O starts a new session, / focuses the message box, Ctrl+K the session search", async () => {
    await send(page, "Compute some primes");
    await page.getByRole("article", { name: "Reply" }).first().waitFor({ timeout: 30_000 });
    // Done first: leaving a running reply asks before it switches (readable.test.ts).
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Done/);
    await page.getByRole("button", { name: "Settings", exact: true }).focus();
    await page.keyboard.press("Control+Shift+O");
    // A new, empty session is open (its welcome shows) and the message box has the focus.
    await page.getByRole("button", { name: "Start the demo" }).waitFor({ timeout: 10_000 });
    await waitFor(() => page.evaluate(() => document.activeElement?.id === "lm-message"), 5_000);
    expect(await page.locator(".lm-session").count()).toBe(2);

    await page.getByRole("button", { name: "Settings", exact: true }).focus();
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("lm-message");
    // Typed into a field, "/" is text.
    await page.keyboard.type("a/b");
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("a/b");

    await page.keyboard.press("Control+k");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Search sessions");
  });

  it("Ctrl+K opens the session drawer on a phone-width screen and focuses its search", async () => {
    await page.setViewportSize({ width: 375, height: 720 });
    const search = page.getByRole("searchbox", { name: "Search sessions" });
    await waitFor(async () => !(await search.isVisible()), 5_000);
    await page.keyboard.press("Control+k");
    await waitFor(() => search.isVisible(), 5_000);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Search sessions");
  });

  it("Escape stops a streaming reply", async () => {
    await configureEndpoint(page, mock.url);
    const gate = createGate();
    mock.enqueue({ chunks: ["Starting a long answer", { waitFor: gate.promise }, " that never ends."] });
    await send(page, "go");
    await page.getByText("Starting a long answer").waitFor({ timeout: 30_000 });
    expect(await page.getByRole("status").textContent()).toContain("Streaming");
    await page.keyboard.press("Escape");
    await waitFor(async () => (await page.getByRole("status").textContent())?.startsWith("Stopped"), 10_000);
    gate.open();
  });

  it("? opens the shortcuts help (not while typing); it lists every shortcut, traps the focus and gives it back on close", async () => {
    const box = page.getByRole("textbox", { name: "Message" });
    await box.focus();
    await page.keyboard.type("?");
    expect(await box.inputValue()).toBe("?");
    expect(await page.getByRole("dialog", { name: "Keyboard shortcuts" }).count()).toBe(0);

    const opener = page.getByRole("button", { name: "Settings", exact: true });
    await opener.focus();
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor({ timeout: 10_000 });
    const text = (await help.textContent()) ?? "";
    for (const entry of [
      "New session",
      "Focus the message box",
      "Stop the reply",
      "Search sessions",
      "Show these shortcuts",
    ])
      expect(text).toContain(entry);
    for (const key of ["Ctrl", "Shift", "O", "/", "Esc", "K", "?"])
      expect(await help.locator("kbd", { hasText: key }).count()).toBeGreaterThan(0);
    // Tab never leaves the dialog.
    for (let index = 0; index < 4; index++) {
      await page.keyboard.press("Tab");
      expect(
        await page.evaluate(
          () => !!document.activeElement?.closest("dialog") || document.activeElement === document.body,
        ),
      ).toBe(true);
    }
    await page.keyboard.press("Escape");
    await waitFor(async () => (await help.count()) === 0, 5_000);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Settings");
  });
});

describe("Theme", () => {
  const background = (target: Page) =>
    target.evaluate(
      () =>
        getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor,
    );
  const rootBackground = (target: Page) =>
    target.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);

  it("follows the system by default, the manual choice overrides it and survives a reload", async () => {
    await page.emulateMedia({ colorScheme: "light" });
    const light = await rootBackground(page);
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await rootBackground(page);
    expect(dark).not.toBe(light);
    void background;

    const picker = page.getByRole("combobox", { name: "Theme" });
    expect(await picker.inputValue()).toBe("system");
    // The system is dark; the person picks Light.
    await picker.selectOption("light");
    expect(await rootBackground(page)).toBe(light);
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await rootBackground(page)).toBe(light);
    expect(await page.getByRole("combobox", { name: "Theme" }).inputValue()).toBe("light");
    // Dark under a light system, then back to following it.
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByRole("combobox", { name: "Theme" }).selectOption("dark");
    expect(await rootBackground(page)).toBe(dark);
    await page.getByRole("combobox", { name: "Theme" }).selectOption("system");
    expect(await rootBackground(page)).toBe(light);
  });
});

describe("First run", () => {
  it("without a key the welcome says how to bring one in a sentence, and one click starts the demo", async () => {
    const welcome = page.getByRole("region", { name: "Welcome to Livemark" });
    await welcome.waitFor({ timeout: 10_000 });
    expect(await welcome.textContent()).toMatch(/API key in\s*Settings/);
    await welcome.getByRole("button", { name: "Start the demo" }).click();
    await page.getByRole("article", { name: "Your message" }).waitFor({ timeout: 10_000 });
    await page
      .getByRole("article", { name: "Reply" })
      .first()
      .getByText("offline demo model")
      .waitFor({ timeout: 30_000 });
    expect(await welcome.count()).toBe(0);
  });

  it("the welcome's Settings opens the settings dialog; with an endpoint set there is no welcome", async () => {
    await page
      .getByRole("region", { name: "Welcome to Livemark" })
      .getByRole("button", { name: "Open Settings" })
      .click();
    await page.getByRole("dialog", { name: "Settings" }).waitFor();
    await page.keyboard.press("Escape");
    await configureEndpoint(page, mock.url);
    await page.getByText("Ask for something that runs.").waitFor({ timeout: 10_000 });
    expect(await page.getByRole("button", { name: "Start the demo" }).count()).toBe(0);
  });
});

describe("Installable and offline", () => {
  /** Open the app with service workers allowed and wait until one is active and controls the page. */
  async function installed(url: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openReadyApp(page, url);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    // The first visit is not controlled (nothing is claimed behind the page's back); the next load is.
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    return { context, page };
  }

  it("links a manifest with the name, icons and colours an installer needs", async () => {
    const href = await page.locator('link[rel="manifest"]').getAttribute("href");
    expect(href).toBeTruthy();
    const manifestUrl = new URL(href!, app.url).href;
    const manifest = await page.evaluate(async (address) => (await fetch(address)).json(), manifestUrl);
    expect(manifest.name).toBe("Livemark");
    expect(manifest.display).toBe("standalone");
    expect(manifest.theme_color).toMatch(/^#/);
    const sizes = manifest.icons.map((icon: { sizes: string }) => icon.sizes);
    expect(sizes).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    for (const icon of manifest.icons) {
      const status = await page.evaluate(
        async (address) => (await fetch(address)).status,
        new URL(icon.src, manifestUrl).href,
      );
      expect(status, icon.src).toBe(200);
    }
  });

  // Offline, the realm's document comes from the service worker (sandbox.html?sw, sandboxed by the worker's CSP
  // header: an attribute-sandboxed frame never goes through a service worker); e2e/offline.test.ts holds it to
  // the sandbox's walls. Here: everything a person does offline works, code included.
  it("after the service worker installed, the app reloads offline (from a sub-path): an existing session opens, the demo model's code runs, a mount appears and a new demo session works", async () => {
    const { context: online, page: tab } = await installed(app.url);
    try {
      await tab.getByRole("button", { name: "Compute some primes" }).click();
      await tab
        .getByRole("figure", { name: "Code block 1" })
        .locator('[data-status="done"]')
        .first()
        .waitFor({ timeout: 30_000 });
      await waitFor(async () => /^(Done|Ready)/.test((await tab.getByRole("status").textContent()) ?? ""), 60_000);
      const replyText = (await tab.getByRole("article", { name: "Reply" }).first().textContent())?.slice(0, 40) ?? "";
      await tab.locator("#lm-sidebar > button.lm-button--primary").click();
      await tab.getByRole("button", { name: "Start the demo" }).waitFor({ timeout: 10_000 });

      await online.setOffline(true);
      expect(
        await tab.evaluate(() =>
          fetch(location.href + "?probe", { cache: "no-store" }).then(
            () => "online",
            () => "offline",
          ),
        ),
      ).toBe("offline");
      await tab.reload();
      // The app itself came from the cache: its sessions are listed and the earlier one opens with its reply.
      await tab.locator("#lm-sidebar > button.lm-button--primary").waitFor({ timeout: 30_000 });
      await waitFor(async () => (await tab.locator(".lm-session").count()) >= 2, 30_000);
      for (const title of await tab.locator(".lm-session__title").allTextContents()) {
        await tab.locator(".lm-session__title", { hasText: title }).first().click();
        if ((await tab.getByRole("article", { name: "Reply" }).count()) > 0) break;
      }
      await tab.getByRole("figure", { name: "Code block 1" }).waitFor({ timeout: 30_000 });
      expect(await tab.getByRole("article", { name: "Reply" }).first().textContent()).toContain(replyText);
      // The realm starts offline too.
      await tab.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      // The demo model (a lazily loaded chunk) answers offline, and its code runs in the realm: the console
      // output shows and comes back to the model, which reacts to the value it computed.
      await tab.locator("#lm-sidebar > button.lm-button--primary").click();
      await tab.getByRole("button", { name: "Start the demo" }).click();
      await tab
        .getByRole("article", { name: "Reply" })
        .first()
        .getByText("offline demo model")
        .waitFor({ timeout: 30_000 });
      await tab.getByText("Hello from the sandbox!").first().waitFor({ timeout: 30_000 });
      await tab.getByText("The sandbox answered").waitFor({ timeout: 60_000 });
      await waitFor(async () => /^(Done|Ready)/.test((await tab.getByRole("status").textContent()) ?? ""), 60_000);
      // A mount appears and its button runs code in the realm.
      await send(tab, "Give me a button to click");
      const roll = tab.getByRole("button", { name: "Roll the die" });
      await roll.waitFor({ timeout: 60_000 });
      await waitFor(
        async () => /^(Done|Ready|Waiting)/.test((await tab.getByRole("status").textContent()) ?? ""),
        60_000,
      );
      await roll.click();
      await tab.getByText(/^Rolls: [1-6]$/).waitFor({ timeout: 30_000 });
    } finally {
      await online.close();
    }
  });

  it("a new version waiting is announced with Reload, held back while a reply streams, and Reload switches to it", async () => {
    const copy = mkdtempSync(join(tmpdir(), "livemark-update-"));
    cpSync(DIST_DIR, copy, { recursive: true });
    const server = await serveStatic(copy, { basePath: "/some/sub/path/" });
    const { context: online, page: tab } = await installed(server.url);
    try {
      const firstWorker = await tab.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
      expect(firstWorker).toContain("/some/sub/path/sw.js");
      await configureEndpoint(tab, mock.url);
      const gate = createGate();
      mock.enqueue({ chunks: ["A reply in progress", { waitFor: gate.promise }, " finished."] });
      await send(tab, "go");
      await tab.getByText("A reply in progress").waitFor({ timeout: 30_000 });

      // Deploy a new version (any byte of sw.js changed) and let the page find it.
      const sw = join(copy, "sw.js");
      writeFileSync(sw, readFileSync(sw, "utf8") + "\n// next version\n");
      await tab.evaluate(() =>
        navigator.serviceWorker.getRegistration().then((registration) => registration?.update()),
      );
      const notice = tab.getByText("A new version is ready.");
      await notice.waitFor({ timeout: 30_000 });
      const reload = tab.getByRole("button", { name: "Reload" });
      // Mid-reply: not forced, and Reload waits for the reply.
      expect(await reload.isDisabled()).toBe(true);
      expect(
        await tab.evaluate(() =>
          navigator.serviceWorker.getRegistration().then((registration) => !!registration?.waiting),
        ),
      ).toBe(true);
      expect(await tab.getByText("A reply in progress").count()).toBe(1);
      gate.open();
      await tab.getByText("A reply in progress finished.").waitFor({ timeout: 30_000 });
      await waitFor(() => reload.isEnabled(), 10_000);
      await Promise.all([tab.waitForEvent("load", { timeout: 30_000 }), reload.click()]);
      await tab.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      expect(
        await tab.evaluate(() =>
          navigator.serviceWorker.getRegistration().then((registration) => !registration?.waiting),
        ),
      ).toBe(true);
      expect(await tab.getByText("A new version is ready.").count()).toBe(0);
    } finally {
      await online.close();
      await server.close();
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
