/**
 * What a person meets in the app's own UI (not the sandbox): Settings,
 * Markdown, the phone-width layout and the smaller things of the sessions
 * list and code blocks.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { assertBuilt, launchBrowser, openReadyApp, serveStatic, type TestServer } from "./harness";
import { startMockLlm, type MockLlm } from "./mockLlm";

let browser: Browser;
let app: TestServer;
let mock: MockLlm;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  assertBuilt();
  [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(), startMockLlm()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), app?.close(), mock?.close()]);
});

beforeEach(async () => {
  mock.clearRequests();
  context = await browser.newContext();
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

describe("Settings", () => {
  it("typing a key, base URL and model selects the endpoint: Save without the radio uses it, and the header says which model answers", async () => {
    expect(await page.locator(".lm-model").textContent()).toBe("Demo model (offline)");
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByLabel("API key", { exact: true }).fill("sk-test-settings-trap");
    await page.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await page.getByLabel("Model", { exact: true }).fill("mock-model");
    // The choice is visible before Save.
    expect(await page.getByLabel("OpenAI-compatible endpoint").isChecked()).toBe(true);
    const host = new URL(mock.url).host;
    expect(await page.locator(".lm-settings__answering").textContent()).toContain(`mock-model · ${host}`);
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.locator(".lm-model").textContent()).toBe(`mock-model · ${host}`);

    mock.enqueue({ chunks: ["Hello from ", "the endpoint."] });
    await send(page, "hi");
    const [request] = await mock.waitForRequests(1);
    expect(request.body.model).toBe("mock-model");
    await page.getByText("Hello from the endpoint.").waitFor();
  });

  it("says when the demo still answers: the endpoint chosen without a key", async () => {
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByLabel("OpenAI-compatible endpoint").check();
    expect(await page.locator(".lm-settings__answering").textContent()).toMatch(/Demo model \(offline\).*API key/);
    await page.getByRole("button", { name: "Cancel" }).click();
  });
});
