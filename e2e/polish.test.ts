/**
 * The basics a person expects of a chat app (issue 13): highlighted and
 * collapsible code, math, keyboard shortcuts with their help, the theme
 * override, the first-run welcome, and the installed app working offline.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { assertBuilt, configureEndpoint, launchBrowser, openReadyApp, serveStatic, waitFor, type TestServer } from "./harness";
import { createGate, startMockLlm, type MockLlm } from "./mockLlm";

let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  assertBuilt();
  [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(undefined, { basePath: "/some/sub/path/" }), startMockLlm()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), app?.close(), mock?.close()]);
});

beforeEach(async () => {
  mock.clearRequests();
  context = await browser.newContext({ serviceWorkers: "block" });
  page = await context.newPage();
  await openReadyApp(page, app.url);
});

afterEach(async () => {
  await context?.close();
});

async function send(target: Page, text: string) {
  const box = target.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/** Colours of the token spans inside a highlighted block (empty when it is plain text). */
async function tokenColours(target: Page, selector: string): Promise<string[]> {
  return target.locator(selector).evaluate((element) =>
    [...element.querySelectorAll("code span[style]")].map((span) => getComputedStyle(span).color),
  );
}

const LONG_PYTHON = Array.from({ length: 40 }, (_, index) => `value_${index} = ${index} * 2  # line ${index + 1}`).join("\n");

describe("Rendering", () => {
  it("highlights a finished code fence in colour, and a streaming fence never shows a token coloured from other text", async () => {
    await configureEndpoint(page, mock.url);
    const gate = createGate();
    mock.enqueue({
      chunks: [
        "Here:\n\n```ts\nconst greeting: string = \"hello\";\n",
        "function add(a: number, b: number) {\n  return a + b;\n}\n",
        "```\n\nAnd one still coming:\n\n```python\ndef f(x):\n    return \"te",
        { waitFor: gate.promise },
        "xt\" + str(x)\n```\n\nDone.",
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
    const strings = await open.locator("code span[style]").evaluateAll((spans) => spans.map((span) => span.textContent));
    expect(strings.join("")).toContain('"text"');
  });

  it("highlights the code of agent.run blocks", async () => {
    await send(page, "Compute some primes");
    const block = page.getByRole("figure", { name: "Code block 1" });
    await block.locator('[data-highlighted="all"]').waitFor({ timeout: 30_000 });
    const colours = new Set(await block.locator("code span[style]").evaluateAll((spans) => spans.map((span) => getComputedStyle(span).color)));
    expect(colours.size).toBeGreaterThanOrEqual(3);
  });

  it("renders $x^2$ inline and a display block with KaTeX, leaves prose dollars alone, and an open $$ never shows a KaTeX error", async () => {
    await configureEndpoint(page, mock.url);
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
    const fullHeight = await scroller.evaluate((element) => element.scrollHeight);
    expect(collapsedHeight).toBeLessThan(fullHeight * 0.7);
    await expand.click();
    const collapse = fence.getByRole("button", { name: "Collapse" });
    expect(await collapse.getAttribute("aria-expanded")).toBe("true");
    expect(await visibleHeight()).toBeGreaterThanOrEqual(fullHeight - 1);
    await lastLine.scrollIntoViewIfNeeded();
    await collapse.click();
    expect(await visibleHeight()).toBeLessThan(fullHeight * 0.7);
    // A short block has no such button.
    expect(await page.locator(".lm-fence").nth(1).getByRole("button").count()).toBe(0);
  });
});
