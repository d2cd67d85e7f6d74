/**
 * The live loop end to end: the built app served from a sub-path, a mock
 * OpenAI-compatible server on 127.0.0.1, the real sandbox and realm in
 * Chromium. Each test drives the page the way a person would.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { configureEndpoint, type TestServer } from "./harness";
import { createGate, startMockLlm, type MockLlm } from "./mockLlm";
import { appTest, FENCE, send, statusText, waitQuiet } from "./fixture";

const KEY = "sk-test-livemark-0123456789";

const it = appTest({ serve: { basePath: "/some/sub/path/" }, probe: true });
let app: TestServer;
let mock: MockLlm;
let page: Page;

it.beforeEach(({ app: served, mock: started, page: opened }) => {
  app = served;
  mock = started;
  page = opened;
});

const configure = (target: Page, baseURL: string, apiKey = KEY) => configureEndpoint(target, baseURL, { apiKey });

function lastUserContent(body: { messages: { role: string; content: unknown }[] }): string {
  const last = body.messages[body.messages.length - 1];
  expect(last.role).toBe("user");
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

describe("the live loop", () => {
  it("runs code without semicolons mid-fence, sends its output back, and stops on empty feedback", async () => {
    await configure(page, mock.url);
    const gate = createGate();
    mock.enqueue({
      chunks: [
        "Let me work it out.\n\n",
        `${FENCE}tsx agent.run\n`,
        "const answer = 6 * 7\n",
        'console.log("answer is", answer)\n',
        "con",
        { waitFor: gate.promise },
        'sole.log("second", answer + 1)\n',
        `${FENCE}\n\nThat's all.\n`,
      ],
    });
    mock.enqueue({ chunks: ["The answer is ", "42."] });

    await send(page, "What is six times seven?");
    // The stream is held inside the fence: the first statements already ran.
    await expect.poll(() => page.getByText("answer is 42").count(), { timeout: 10_000 }).toBe(1);
    await expect(statusText(page)).resolves.toMatch(/Streaming|Running/);
    expect(await page.getByText("second 43").count()).toBe(0);
    gate.open();

    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    await page.getByText("The answer is 42.").waitFor();
    expect(mock.requests).toHaveLength(2);

    const first = mock.requests[0];
    expect(first.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first.body.model).toBe("mock-model");
    expect(lastUserContent(first.body)).toBe("What is six times seven?");

    const feedback = lastUserContent(mock.requests[1].body);
    expect(feedback).toContain("[runtime output]");
    expect(feedback).toContain("answer is 42");
    expect(feedback).toContain("second 43");
    expect(feedback).not.toContain(KEY);

    // Empty feedback ended the interaction: no third call (nothing left to run, apply or write).
    await waitQuiet(page);
    expect(mock.requests).toHaveLength(2);
    // The feedback turn is shown compactly in the timeline.
    await expect(page.getByText(/Runtime output → model/).count()).resolves.toBe(1);
  });

  it("keeps settings across reloads", async () => {
    await configure(page, mock.url);
    await page.reload();
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await expect(page.getByLabel("Base URL", { exact: true }).inputValue()).resolves.toBe(mock.url);
    await expect(page.getByLabel("API key", { exact: true }).inputValue()).resolves.toBe(KEY);
  });

  it("Stop aborts the stream and interrupts running code within a second", async () => {
    await configure(page, mock.url);
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\nconsole.log("start")\nawait sleep(30000)\nconsole.log("never")\n${FENCE}\n`,
        "Still talking",
        { pauseMs: 20_000 },
        " and more",
      ],
    });
    await send(page, "Start something long");
    await page.getByText("Still talking").waitFor({ timeout: 10_000 });
    const pressed = Date.now();
    await page.getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => statusText(page), { timeout: 1_500, interval: 50 }).toMatch(/^Stopped/);
    expect(Date.now() - pressed).toBeLessThan(1_500);
    expect(await page.getByText("never", { exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Send" }).count()).toBe(1);
  });

  it("Enter while a reply runs keeps the message and says why; Send takes it once the reply has finished", async () => {
    await configure(page, mock.url);
    const gate = createGate();
    mock.enqueue({ chunks: ["Thinking it over", { waitFor: gate.promise }, " — done."] });
    mock.enqueue({ chunks: ["Second answer."] });
    await send(page, "First question");
    await page.getByText("Thinking it over").waitFor({ timeout: 10_000 });
    await send(page, "A second question");
    const box = page.getByRole("textbox", { name: "Message" });
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 5_000 })
      .toMatch(/^Not sent: a reply is still running/);
    await expect(box.inputValue()).resolves.toBe("A second question");
    expect(mock.requests).toHaveLength(1);
    gate.open();
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^Done/);
    // The reason no longer holds once the reply has ended.
    await expect.poll(() => page.getByText(/^Not sent/).count(), { timeout: 5_000 }).toBe(0);
    await box.press("Enter");
    await page.getByText("Second answer.").waitFor({ timeout: 10_000 });
    expect(lastUserContent(mock.requests[1].body)).toBe("A second question");
  });

  it("reports a syntax error at its line and skips the rest of the reply", async () => {
    await configure(page, mock.url);
    mock.enqueue({
      chunks: [`${FENCE}tsx agent.run\nconsole.log("ok")\nconst x = (1 2)\nconsole.log("after")\n${FENCE}\n`],
    });
    mock.enqueue({ chunks: ["Fixed."] });
    await send(page, "Go");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    const feedback = lastUserContent(mock.requests[1].body);
    expect(feedback).toContain("ok");
    expect(feedback).toMatch(/SyntaxError: .*line 3/);
    expect(feedback).not.toContain("after");
  });

  it("catches an infinite loop with the guard and keeps the realm's state", async () => {
    await configure(page, mock.url);
    mock.enqueue({ chunks: [`${FENCE}tsx agent.run\nlet kept = "still here"\nwhile (true) {}\n${FENCE}\n`] });
    mock.enqueue({ chunks: [`${FENCE}tsx agent.run\nconsole.log(kept)\n${FENCE}\n`] });
    mock.enqueue({ chunks: ["Good."] });
    await send(page, "Loop");
    await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
    expect(lastUserContent(mock.requests[1].body)).toMatch(/LoopGuardError|loop/i);
    expect(lastUserContent(mock.requests[2].body)).toContain("still here");
  });

  it("resets a realm that never yields and tells the model and the person", async () => {
    await configure(page, mock.url);
    mock.enqueue({
      // Code built at run time escapes the loop-guard transform: only the watchdog can stop it.
      chunks: [`${FENCE}tsx agent.run\n(0, eval)("while (true) {}")\n${FENCE}\n`],
    });
    mock.enqueue({ chunks: [`${FENCE}tsx agent.run\nconsole.log("fresh", 1 + 1)\n${FENCE}\n`] });
    mock.enqueue({ chunks: ["Back to normal."] });
    await send(page, "Hang");
    await page.getByText(/sandbox was reset/i).waitFor({ timeout: 20_000 });
    await expect.poll(() => statusText(page), { timeout: 20_000 }).toMatch(/^Done/);
    expect(lastUserContent(mock.requests[1].body)).toMatch(/Realm reset/);
    expect(lastUserContent(mock.requests[2].body)).toContain("fresh 2");
  });
});

describe("failures in plain words", () => {
  it("explains a refused key and keeps the message", async () => {
    await configure(page, mock.url);
    mock.enqueue({ status: 401 });
    await send(page, "Hello there");
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^Error/);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/key/i);
    expect(await page.getByRole("log", { name: "Conversation" }).getByText("Hello there").count()).toBe(1);
  });

  it("names the model and base URL on a 404", async () => {
    await configure(page, mock.url);
    mock.enqueue({ status: 404 });
    await send(page, "Hello");
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^Error/);
    const text = await page.getByRole("alert").textContent();
    expect(text).toContain("mock-model");
    expect(text).toContain(mock.url);
  });

  it("waits out a rate limit as the server asks, then answers", async () => {
    await configure(page, mock.url);
    mock.enqueue({ status: 429, headers: { "retry-after": "1" } });
    mock.enqueue({ chunks: ["After the wait."] });
    await send(page, "Hello");
    await page.getByText("After the wait.").waitFor({ timeout: 10_000 });
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[1].at - mock.requests[0].at).toBeGreaterThanOrEqual(900);
  });

  it("says when an endpoint does not accept browser requests", async () => {
    const closed = await startMockLlm({ cors: false });
    try {
      await configure(page, closed.url);
      await send(page, "Hello");
      await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^Error/);
      await expect(page.getByRole("alert").textContent()).resolves.toMatch(/browser requests/i);
    } finally {
      await closed.close();
    }
  });

  it("keeps a reply cut mid-stream and continues it", async () => {
    await configure(page, mock.url);
    mock.enqueue({
      chunks: ["Here is the first half", ` of it.\n\n${FENCE}tsx agent.run\nconsole.log("ran before the cut")\ncons`],
      dropAfter: true,
    });
    mock.enqueue({ chunks: ["And the second half."] });
    await send(page, "Tell me");
    await page.getByRole("button", { name: "Continue" }).waitFor({ timeout: 10_000 });
    // The kept text is drawn in a deferred render (src/ui/Markdown.tsx), which on a loaded machine
    // can come a few frames after the button.
    await expect.poll(() => page.getByText("Here is the first half of it.").count(), { timeout: 10_000 }).toBe(1);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/cut off/i);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("And the second half.").waitFor({ timeout: 10_000 });
    const resume = lastUserContent(mock.requests[1].body);
    expect(resume).toContain("cut off");
    expect(resume).toContain("ran before the cut");
  });
});

describe("the demo model", () => {
  it("works with no key and nothing leaves the page's origin", async () => {
    const requests: string[] = [];
    page.on("request", (request) => void requests.push(request.url()));
    await page.getByRole("button", { name: "Compute some primes" }).click();
    await expect.poll(() => statusText(page), { timeout: 60_000, interval: 250 }).toMatch(/^Done/);
    await expect(page.locator('.lm-code__line[data-status="done"]').count()).resolves.toBeGreaterThan(0);
    expect(await page.getByText(/Runtime output → model/).count()).toBeGreaterThan(0);
    expect(
      requests.filter((url) => !url.startsWith(app.origin) && !url.startsWith("blob:") && !url.startsWith("data:")),
    ).toEqual([]);
  });
});
