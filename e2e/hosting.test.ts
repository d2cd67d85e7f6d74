/**
 * Hosting (README "Hosting"): the Content-Security-Policy the README tells a
 * host to send as a header is the page's own policy plus `frame-ancestors`;
 * the app runs under it (on its page only, never on sandbox.html), and a page
 * served without it says so once in the console.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect } from "vitest";
import type { Browser, ConsoleMessage, Page } from "playwright-core";
import { DIST_DIR, openReadyApp, ROOT_DIR, serveStatic, type TestServer } from "./harness";
import { appTest } from "./fixture";

const CHECKED_MARK = "livemark:csp-header-checked";

/** The header the README's Hosting section gives, and every host's snippet of it. */
function readmePolicy(): { header: string; snippets: string[] } {
  const readme = readFileSync(join(ROOT_DIR, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Hosting"), readme.indexOf("\n## ", readme.indexOf("## Hosting") + 1));
  const header = /^Content-Security-Policy: (.+)$/m.exec(section)?.[1] ?? "";
  const code = (section.match(/```[a-z]*\n[\s\S]*?```/g) ?? []).join("\n");
  const snippets = [...code.matchAll(/(?:Content-Security-Policy:? "?|"value": ")([^"\n]+)/g)].map((match) => match[1]);
  return { header, snippets };
}

let browser: Browser;
let plain: TestServer;
let withHeader: TestServer;

const it = appTest();
it.beforeAll(async ({ browser: launched, app }) => {
  browser = launched;
  plain = app;
  withHeader = await serveStatic(DIST_DIR, { pageHeaders: { "content-security-policy": readmePolicy().header } });
});
afterAll(async () => {
  await withHeader?.close();
});

/** A fresh page that records its console warnings and every CSP violation. */
async function openApp(
  server: TestServer,
): Promise<{ page: Page; warnings: string[]; violations: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  const warnings: string[] = [];
  const violations: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    if (message.type() === "warning") warnings.push(message.text());
    if (message.text().startsWith("violation:")) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`violation: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  await openReadyApp(page, server.url);
  return { page, warnings, violations, close: () => context.close() };
}

const checked = (page: Page) =>
  page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, CHECKED_MARK, { timeout: 30_000 });

describe("hosting", () => {
  it("the README's header is the page's own policy plus frame-ancestors 'none', the same in every host's snippet", () => {
    const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
    const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    const { header, snippets } = readmePolicy();
    expect(meta).not.toBe("");
    expect(header).toBe(`${meta}; frame-ancestors 'none'`);
    expect(snippets.length).toBeGreaterThanOrEqual(5);
    expect(new Set(snippets)).toEqual(new Set([header]));
  });

  it("served without the header, the app warns once in the console", async () => {
    const { page, warnings, close } = await openApp(plain);
    try {
      await checked(page);
      expect(warnings.filter((text) => /Content-Security-Policy HTTP header/.test(text))).toHaveLength(1);
      expect(plain.requests.filter((request) => request.method === "HEAD")).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it("served with the README's header on its page, the app and its sandbox run without a violation, and nothing warns", async () => {
    const { page, warnings, violations, close } = await openApp(withHeader);
    try {
      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("Compute some primes");
      await box.press("Enter");
      await expect.poll(() => page.getByRole("status").textContent(), { timeout: 60_000 }).toMatch(/^Done/);
      await checked(page);
      expect(warnings.filter((text) => /Content-Security-Policy/.test(text))).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await close();
    }
  });
});
