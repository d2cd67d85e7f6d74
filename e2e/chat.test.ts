/**
 * The chat basics (issue 13: models and endpoints, the key, messages,
 * attachments) in the built app against the mock OpenAI-compatible server:
 * what the person sees, and what reached the server.
 */
import { beforeEach, describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { configureEndpoint } from "./harness";
import { appTest, codeTurn, FENCE, send, statusText, waitDone } from "./fixture";
import { startMockLlm, type MockLlm } from "./mockLlm";

const KEY = "sk-test-chat-0123456789";
/** A key without a well-known prefix: only scrubbing the actual value keeps it out of error text. */
const PLAIN_KEY = "tabonly7c1e9a0b5d3f42e8a6";
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

const it = appTest({
  mock: { models: ["mock-model", "vision-model", "other-model"] },
  context: { acceptDownloads: true },
  // Copy goes through navigator.clipboard.writeText: a stub records what was copied.
  initScripts: [
    () => {
      const copied: string[] = [];
      (window as unknown as { __copied: string[] }).__copied = copied;
      Object.defineProperty(navigator, "clipboard", {
        configurable: true,
        value: { writeText: async (text: string) => void copied.push(text) },
      });
    },
  ],
});
let mock: MockLlm;
let page: Page;
const extraMocks: MockLlm[] = [];
it.beforeEach(({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
});
it.afterEach(async () => {
  await Promise.all(extraMocks.splice(0).map((extra) => extra.close()));
});

const replies = () => page.getByRole("article", { name: "Reply" });
const chatRequests = () =>
  mock.requests.filter((request) => request.method === "POST" && request.path.startsWith("/v1/chat/completions"));
const copied = () => page.evaluate(() => (window as unknown as { __copied: string[] }).__copied.slice());
/** Every user-role message content of a request, as text. */
function userTexts(body: { messages: { role: string; content: unknown }[] }): string[] {
  return body.messages
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
}

async function openSettings() {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  return page.getByRole("dialog", { name: "Settings" });
}
const report = () => page.getByRole("list", { name: "Connection test" });

/** Everything this origin keeps on disk: localStorage and every IndexedDB store, as one string. */
async function everythingStored(): Promise<string> {
  return page.evaluate(async () => {
    const parts: string[] = [JSON.stringify({ ...localStorage })];
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const name of db.objectStoreNames) {
        const rows = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(name).objectStore(name).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        parts.push(JSON.stringify(rows));
      }
      db.close();
    }
    return parts.join("\n");
  });
}

describe("models and endpoints", () => {
  it("a preset fills the base URL; Load models fills the picker from /models; Test connection says what worked; the session's own model settings reach the request", async () => {
    const dialog = await openSettings();
    await dialog.getByLabel("Provider preset").selectOption({ label: "Groq" });
    expect(await dialog.getByLabel("Base URL", { exact: true }).inputValue()).toBe("https://api.groq.com/openai/v1");
    await dialog.getByLabel("Provider preset").selectOption({ label: "Ollama (this machine)" });
    expect(await dialog.getByLabel("Base URL", { exact: true }).inputValue()).toBe("http://localhost:11434/v1");

    await dialog.getByLabel("API key", { exact: true }).fill(KEY);
    await dialog.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await dialog.getByLabel("Model", { exact: true }).fill("");
    await dialog.getByRole("button", { name: "Load models" }).click();
    const picker = dialog.getByLabel("Available models");
    await picker.waitFor({ timeout: 15_000 });
    expect(await picker.locator("option").allTextContents()).toEqual(
      expect.arrayContaining(["mock-model", "other-model", "vision-model"]),
    );
    const listing = mock.requests.find((request) => request.method === "GET" && request.path === "/v1/models");
    expect(listing?.headers.authorization).toBe(`Bearer ${KEY}`);
    await picker.selectOption("vision-model");
    expect(await dialog.getByLabel("Model", { exact: true }).inputValue()).toBe("vision-model");

    await dialog.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(async () => (await report().textContent()) ?? "", { timeout: 15_000 }).toContain("answered");
    const said = (await report().textContent()) ?? "";
    expect(said).toContain("lists 3 models");
    expect(said).toContain("The model “vision-model” answered.");
    expect(chatRequests().at(-1)?.body).toMatchObject({ model: "vision-model", max_tokens: 1 });
    await dialog.getByRole("button", { name: "Save" }).click();

    // Session settings → Model: this session's model, temperature and instruction.
    await page.getByRole("button", { name: "Session settings" }).click();
    const session = page.getByRole("dialog", { name: "Session settings" });
    await session.getByLabel("Session model").fill("other-model");
    await session.getByLabel("Temperature").fill("0.3");
    await session.getByLabel("Max tokens per reply (this session)").fill("512");
    await session.getByLabel("Extra system instruction").fill("Answer like a pirate.");
    await session.getByRole("button", { name: "Save model settings" }).click();
    await session.getByText("Saved: the next reply").waitFor();
    await page.keyboard.press("Escape");
    mock.clearRequests();
    mock.enqueue({ chunks: ["Arr."] });
    await send(page, "Hello");
    await waitDone(page);
    const body = chatRequests()[0].body;
    expect(body.model).toBe("other-model");
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(512);
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[0].content).toContain("Answer like a pirate.");
    // Kept with the session.
    await page.reload();
    await page.getByRole("button", { name: "Session settings" }).click();
    expect(await page.getByRole("dialog", { name: "Session settings" }).getByLabel("Session model").inputValue()).toBe(
      "other-model",
    );
  });

  it("Test connection says in plain words: a refused key (401), an unknown model (404), a server without CORS, nothing at the URL", async () => {
    const keyed = await startMockLlm({ requireKey: "sk-the-right-key-0123456789" });
    const strict = await startMockLlm({ models: ["mock-model"], knownModels: ["mock-model"] });
    const noCors = await startMockLlm({ cors: false });
    extraMocks.push(keyed, strict, noCors);
    const dialog = await openSettings();
    await dialog.getByLabel("OpenAI-compatible endpoint").check();
    const test = async (baseURL: string, apiKey: string, model: string) => {
      await dialog.getByLabel("API key", { exact: true }).fill(apiKey);
      await dialog.getByLabel("Base URL", { exact: true }).fill(baseURL);
      await dialog.getByLabel("Model", { exact: true }).fill(model);
      await dialog.getByRole("button", { name: "Test connection" }).click();
      await expect.poll(async () => (await report().textContent()) ?? "", { timeout: 20_000 }).toMatch(/✗/);
      return (await report().textContent()) ?? "";
    };

    const refused = await test(keyed.url, "sk-wrong-key-9876543210", "mock-model");
    expect(refused).toContain("The API key was refused");
    expect(refused).toContain("HTTP 401");
    expect(refused).not.toContain("sk-wrong-key-9876543210");

    const unknown = await test(strict.url, KEY, "gpt-nonexistent");
    expect(unknown).toContain("lists 1 model");
    expect(unknown).toContain("The model “gpt-nonexistent” is not known");
    expect(unknown).toContain("HTTP 404");
    expect(unknown).toContain("Models listed there: mock-model");

    const cors = await test(noCors.url, KEY, "mock-model");
    expect(cors).toContain("does not accept requests from web pages (CORS)");
    expect(noCors.requests.length).toBeGreaterThan(0); // it answered: the browser refused to show the answer

    const nothing = await test("http://127.0.0.1:9/v1", KEY, "mock-model");
    expect(nothing).toContain("Nothing answered at http://127.0.0.1:9/v1");
  });
});

describe("the key", () => {
  it("for this tab only: used for requests, never on disk (localStorage, IndexedDB), gone after a reload", async () => {
    const dialog = await openSettings();
    await dialog.getByLabel("OpenAI-compatible endpoint").check();
    await dialog.getByLabel("API key", { exact: true }).fill(PLAIN_KEY);
    await dialog.getByLabel("Base URL", { exact: true }).fill(mock.url);
    await dialog.getByLabel("Model", { exact: true }).fill("mock-model");
    await dialog.getByLabel("Keep the key for this tab only (never written to disk)").check();
    expect(await dialog.locator(".lm-key-note").textContent()).toContain("never written to disk");
    await dialog.getByRole("button", { name: "Save" }).click();
    mock.enqueue({ chunks: ["Hello from the mock."] });
    await send(page, "Hi");
    await waitDone(page);
    expect(chatRequests()[0].headers.authorization).toBe(`Bearer ${PLAIN_KEY}`);
    const stored = await everythingStored();
    expect(stored).toContain("Hello from the mock."); // the dump does see the session
    expect(stored).toContain(mock.url); // and the settings
    expect(stored).not.toContain(PLAIN_KEY);
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(PLAIN_KEY);

    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    const again = await openSettings();
    expect(await again.getByLabel("API key", { exact: true }).inputValue()).toBe("");
    expect(await again.getByLabel("Keep the key for this tab only (never written to disk)").isChecked()).toBe(true);
  });

  it("Forget key removes a stored key; a key the server echoes never reaches the timeline, the console, the store or an export", async () => {
    const keyed = await startMockLlm({ requireKey: "sk-the-right-key-0123456789" });
    extraMocks.push(keyed);
    const consoleLines: string[] = [];
    page.on("console", (message) => void consoleLines.push(message.text()));
    await configureEndpoint(page, keyed.url, { apiKey: PLAIN_KEY });
    // The server refuses the key and echoes it in its error.
    await send(page, "Hi");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^Error/);
    expect(keyed.requests.at(-1)?.headers.authorization).toBe(`Bearer ${PLAIN_KEY}`);
    const alert = page.getByRole("article", { name: "Reply" }).getByRole("alert");
    expect(await alert.textContent()).toContain("refused");
    expect(await page.locator("body").textContent()).not.toContain(PLAIN_KEY);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export", exact: true }).click();
    const exported = await (await download).createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of exported) chunks.push(chunk as Buffer);
    const exportText = Buffer.concat(chunks).toString("utf8");
    expect(exportText).toContain("livemark.session");
    expect(exportText).not.toContain(PLAIN_KEY);
    expect(consoleLines.join("\n")).not.toContain(PLAIN_KEY);
    const beforeForget = await everythingStored();
    expect(beforeForget).toContain(PLAIN_KEY); // kept in this browser, as the note says…
    expect(beforeForget.split(PLAIN_KEY).length).toBe(2); // …in the settings only, not in the session's error

    const dialog = await openSettings();
    await dialog.getByRole("button", { name: "Forget key" }).click();
    expect(await dialog.getByLabel("API key", { exact: true }).inputValue()).toBe("");
    await dialog.getByText("The key was forgotten").waitFor();
    expect(await everythingStored()).not.toContain(PLAIN_KEY);
    await page.keyboard.press("Escape");
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await everythingStored()).not.toContain(PLAIN_KEY);
    expect(await (await openSettings()).getByLabel("API key", { exact: true }).inputValue()).toBe("");
  });
});

describe("messages", () => {
  beforeEach(async () => {
    await configureEndpoint(page, mock.url, { apiKey: KEY });
  });

  it("Copy copies a reply, its code block and a Markdown code fence; each reply names its model, time, tokens and cost", async () => {
    const dialog = await openSettings();
    await dialog.getByLabel("Price per 1M input tokens (USD)").fill("1");
    await dialog.getByLabel("Price per 1M output tokens (USD)").fill("2");
    await dialog.getByRole("button", { name: "Save" }).click();
    const reply = `Here is a shell line:\n\n${FENCE}sh\necho hello\n${FENCE}\n\nAnd code:\n\n${FENCE}ts agent.run\nconst answer = 6 * 7\n${FENCE}\n`;
    mock.enqueue({ chunks: [reply], usage: { prompt: 1234, completion: 56 } });
    await send(page, "Show me");
    await waitDone(page);
    const last = replies().last();
    // (1234 × $1 + 56 × $2) / 1M = $0.001346
    await expect
      .poll(async () => (await last.getByLabel("Reply details").textContent()) ?? "")
      .toMatch(/^mock-model · \d{1,2}:\d\d(\s?[AP]M)? · 1,234 in \/ 56 out · \$0\.0013$/);

    await last.getByRole("group", { name: "Reply actions" }).getByRole("button", { name: "Copy" }).click();
    await last.locator(".lm-pre").getByRole("button", { name: "Copy" }).click();
    await last.locator(".lm-code-actions").getByRole("button", { name: "Copy" }).click();
    await expect.poll(copied).toHaveLength(3);
    expect(await copied()).toEqual([reply, "echo hello\n", "const answer = 6 * 7\n"]);
    await page.getByRole("article", { name: "Your message" }).getByRole("button", { name: "Copy" }).click();
    await expect.poll(copied).toHaveLength(4);
    expect((await copied())[3]).toBe("Show me");
  });

  it("Edit → Resend replaces the message and everything after it on screen and in what the model hears (the earlier version is kept behind ‹ ›, e2e/versions.test.ts)", async () => {
    mock.enqueue({ chunks: ["Answer one."] });
    await send(page, "first question");
    await waitDone(page);
    mock.enqueue({ chunks: ["Answer two."] });
    await send(page, "second question");
    await waitDone(page);

    const first = page.getByRole("article", { name: "Your message" }).first();
    await first.getByRole("button", { name: "Edit" }).click();
    await page.getByText("Resending makes a new version from here").waitFor();
    await page.getByLabel("Edit message").fill("edited question");
    mock.enqueue({ chunks: ["Edited answer."] });
    await page.getByRole("button", { name: "Resend" }).click();
    await expect
      .poll(async () => (await replies().last().textContent()) ?? "", { timeout: 30_000 })
      .toContain("Edited answer.");
    await waitDone(page);
    const heard = chatRequests()[2].body;
    expect(userTexts(heard)).toEqual(["edited question"]);
    expect(JSON.stringify(heard.messages)).not.toContain("Answer one.");
    const shown = async () => (await page.getByRole("log", { name: "Conversation" }).textContent()) ?? "";
    expect(await shown()).not.toMatch(/first question|second question|Answer one|Answer two/);
    // After a reload the edited version is still the one shown.
    await page.reload();
    await page.getByText("Edited answer.").waitFor({ timeout: 30_000 });
    expect(await shown()).not.toMatch(/first question|second question|Answer one|Answer two/);
    expect(await page.getByRole("article", { name: "Your message" }).count()).toBe(1);
  });

  it("Regenerate runs in the current realm and says so; Regenerate in a fresh realm revives the session up to there first", async () => {
    // The realm keeps `runs` across replies: a second run in the same realm counts 2.
    const counting = `var runs = (typeof runs === "number" ? runs : 0) + 1\nconsole.log("runs", runs)\n`;
    mock.enqueue(codeTurn(counting));
    mock.enqueue({ chunks: ["Counted."] });
    await send(page, "Count");
    await waitDone(page);
    expect(userTexts(chatRequests()[1].body).at(-1)).toContain("runs 1");

    mock.enqueue(codeTurn(counting, "Counting again."));
    mock.enqueue({ chunks: ["Counted again."] });
    await replies().last().getByRole("button", { name: "Regenerate", exact: true }).click();
    await page.getByText("Regenerating in the current realm").waitFor({ timeout: 15_000 });
    await waitDone(page);
    // The earlier interaction is gone from what the model hears; the realm remembered its run.
    expect(userTexts(chatRequests()[2].body)).toEqual(["Count"]);
    expect(userTexts(chatRequests()[3].body).at(-1)).toContain("runs 2");
    expect(await page.getByText("Counted.", { exact: true }).count()).toBe(0);

    mock.enqueue(codeTurn(counting, "Counting in a fresh realm."));
    mock.enqueue({ chunks: ["Fresh count."] });
    await replies().last().getByRole("button", { name: "Regenerate in a fresh realm" }).click();
    await page.getByText("Fresh count.").waitFor({ timeout: 30_000 });
    await waitDone(page);
    expect(userTexts(chatRequests()[4].body)).toEqual(["Count"]);
    expect(userTexts(chatRequests()[5].body).at(-1)).toContain("runs 1");
  });

  it("Branch makes a new session with the messages up to there; the original keeps all of its own", async () => {
    mock.enqueue({ chunks: ["Answer one."] });
    await send(page, "first question");
    await waitDone(page);
    mock.enqueue({ chunks: ["Answer two."] });
    await send(page, "second question");
    await waitDone(page);
    await replies().first().getByRole("button", { name: "Branch" }).click();
    await expect
      .poll(async () => (await page.locator(".lm-session-title").textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/^Branch of first question/);
    const log = page.getByRole("log", { name: "Conversation" });
    await expect.poll(async () => (await log.textContent()) ?? "").toContain("Answer one.");
    expect(await log.textContent()).not.toMatch(/second question|Answer two/);
    // The branch goes on by itself.
    mock.enqueue({ chunks: ["Branch answer."] });
    await send(page, "branch question");
    await waitDone(page);
    expect(userTexts(chatRequests().at(-1)!.body)).toEqual(["first question", "branch question"]);
    // The original is untouched.
    await page
      .getByRole("button", { name: /^first question/ })
      .first()
      .click();
    await expect.poll(async () => (await log.textContent()) ?? "", { timeout: 15_000 }).toContain("Answer two.");
    expect(await log.textContent()).not.toContain("Branch answer.");
  });
});

describe("attachments", () => {
  beforeEach(async () => {
    await configureEndpoint(page, mock.url, { apiKey: KEY });
  });

  it("an image (chosen, dropped or pasted) reaches the model as an image part, stays with the message after a reload, and travels in the export", async () => {
    await page.locator("#lm-attach").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.getByRole("list", { name: "Attached files" }).getByText("dot.png").waitFor();
    // A dropped image joins it.
    await page.evaluate((base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "dropped.png", { type: "image/png" }));
      document
        .querySelector(".lm-composer")!
        .dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, PNG.toString("base64"));
    await page.getByRole("list", { name: "Attached files" }).getByText("dropped.png").waitFor();
    // And a pasted one (a screenshot from the clipboard).
    await page.getByRole("textbox", { name: "Message" }).evaluate((box, base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
      box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, PNG.toString("base64"));
    await page.getByRole("list", { name: "Attached files" }).getByText("pasted.png").waitFor();
    mock.enqueue({ chunks: ["A single dot."] });
    await send(page, "What is in these pictures?");
    await waitDone(page);
    const last = chatRequests()[0].body.messages.at(-1);
    expect(last.role).toBe("user");
    expect(last.content).toEqual([
      { type: "text", text: "What is in these pictures?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    // Dropping on the composer attached: it did not try to import a session.
    expect(await page.locator(".lm-banner").count()).toBe(0);
    // An image dropped anywhere else on the window is attached too (only .json files are imported as sessions).
    await page.evaluate((base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "elsewhere.png", { type: "image/png" }));
      document
        .querySelector(".lm-timeline")!
        .dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, PNG.toString("base64"));
    await page.getByRole("list", { name: "Attached files" }).getByText("elsewhere.png").waitFor();
    expect(await page.locator(".lm-banner").count()).toBe(0);

    await page.reload();
    await page.getByRole("img", { name: "dot.png" }).waitFor({ timeout: 30_000 });
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export", exact: true }).click();
    const chunks: Buffer[] = [];
    for await (const chunk of await (await download).createReadStream()) chunks.push(chunk as Buffer);
    const exported = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const user = exported.messages.find((message: { role: string }) => message.role === "user");
    expect(user.attachments.map((item: { name: string }) => item.name)).toEqual([
      "dot.png",
      "dropped.png",
      "pasted.png",
    ]);
    expect(user.attachments[0].data).toBe(PNG.toString("base64"));
  });

  it("other files go to the realm: the model is told, its code opens them with attachment(name); too large a file is refused clearly", async () => {
    await page
      .locator("#lm-attach")
      .setInputFiles({ name: "huge.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(6 * 1024 * 1024) });
    await expect
      .poll(async () => (await page.locator(".lm-composer").getByRole("alert").textContent()) ?? "")
      .toContain("“huge.bin” is 6.0 MB; files up to 5.0 MB can be attached. Nothing was attached.");
    await page.locator("#lm-attach").setInputFiles({
      name: "sales.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("city,amount\nLisbon,4\nOslo,2\n"),
    });
    await page.getByRole("list", { name: "Attached files" }).getByText("sales.csv").waitFor();
    expect(await page.getByRole("list", { name: "Attached files" }).textContent()).not.toContain("huge.bin");
    mock.enqueue(
      codeTurn(
        `const file = await attachment("sales.csv")\nconsole.log("rows", (await file.text()).trim().split("\\n").length - 1, file.type)\n` +
          `try { await attachment("secret.txt") } catch (error) { console.log("missing:", error.message) }\n`,
      ),
    );
    mock.enqueue({ chunks: ["Two rows."] });
    await send(page, "Sum the sales");
    await waitDone(page);
    const told = userTexts(chatRequests()[0].body).at(-1)!;
    expect(told).toContain("Sum the sales");
    expect(told).toContain('attachment("sales.csv")');
    expect(told).toContain('"sales.csv" (text/csv, 28 B)');
    const feedback = userTexts(chatRequests()[1].body).at(-1)!;
    expect(feedback).toContain("rows 2 text/csv");
    expect(feedback).toMatch(/missing: no file named "secret.txt" is attached to this session; attached: "sales.csv"/);
  });
});
