/**
 * Model calls from code in the real app (issue 28 §2): the mock LLM writes
 * code or a UI that calls `ai.complete`; the person answers the inline ask;
 * the same mock answers the call, which the page makes with the session's
 * model and the person's key. What the mock received, what the page shows
 * and what the realm could see are the ground truth.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { answerAsk } from "./harness";
import type { MockLlm } from "./mockLlm";
import { appTest, codeTurn, send, statusText, waitDone, waitQuiet } from "./fixture";

const API_KEY = "sk-test-ai-calls-KEY-0123456789";
/** Every message the page posts (to the sandbox frame, its worker and their ports), serialized, for the key hunt. */
function recordPostedMessages() {
  const posted: string[] = [];
  (window as unknown as { __posted: string[] }).__posted = posted;
  const record = (data: unknown) => {
    try {
      posted.push(JSON.stringify(data));
    } catch {
      posted.push(String(data));
    }
  };
  for (const target of [MessagePort.prototype, Worker.prototype, Window.prototype] as { postMessage: unknown }[]) {
    const original = target.postMessage as (this: unknown, ...args: unknown[]) => void;
    target.postMessage = function (this: unknown, ...args: unknown[]) {
      record(args[0]);
      return original.apply(this, args);
    };
  }
}
const it = appTest({ configure: { apiKey: API_KEY }, probe: true, initScripts: [recordPostedMessages] });
let page: Page;
let mock: MockLlm;
it.beforeEach(({ page: shown, mock: started }) => {
  page = shown;
  mock = started;
});

const ask = () => page.getByRole("group", { name: "Permission request" });
/** The chat-completions requests the mock received, in order. */
const chats = () => mock.requests.filter((request) => request.path.endsWith("/chat/completions"));
const replies = () => page.locator(".lm-message--assistant").count();

describe("ai.complete", () => {
  it("from code: asks first (Waiting for permission), the mock gets exactly the prompt with the key, the answer is untrusted and its tokens are in the summary", async () => {
    mock.enqueue({
      ...codeTurn(
        `const answer = await ai.complete("Translate to French: good cheese", { system: "You translate.", maxTokens: 50 })\n` +
          `console.log("answer:", answer)\n`,
      ),
      usage: { prompt: 100, completion: 10 },
    });
    mock.enqueue({ chunks: ["Bon ", "fromage"], usage: { prompt: 21, completion: 4 } });
    mock.enqueue({ chunks: ["It says *bon fromage*."], usage: { prompt: 200, completion: 5 } });
    await send(page, "Translate it with a model call");

    await ask().getByRole("button", { name: "Allow once" }).waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page)).toMatch(/^Waiting for permission/);
    const shown = (await ask().textContent()) ?? "";
    expect(shown).toContain("Translate to French: good cheese");
    expect(shown).toContain("50 tokens");
    expect(await ask().getByRole("button").allTextContents()).toEqual([
      "Allow once",
      "Always allow for this session",
      "Deny",
    ]);
    expect(chats()).toHaveLength(1);
    await answerAsk(ask(), "Allow once");
    await waitDone(page);

    const [, call, feedback] = chats();
    expect(call.body.messages).toEqual([
      { role: "system", content: "You translate." },
      { role: "user", content: "Translate to French: good cheese" },
    ]);
    expect(call.body.max_tokens ?? call.body.max_completion_tokens).toBe(50);
    expect(call.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const heard = JSON.stringify(feedback.body.messages.at(-1).content);
    expect(heard).toContain("answer: Bon fromage");
    expect(heard).toContain("a model call's answer");
    expect(heard).toContain("untrusted content");

    // Two turns; the call's tokens (21 in, 4 out) count with theirs.
    const summary = page.getByRole("group", { name: "Interaction summary" });
    await expect
      .poll(async () =>
        (await summary.count()) === 1 ? await summary.locator(".lm-summary__counts").textContent() : "",
      )
      .toMatch(/· 2 turns · .*model calls: 1 call, 25 tokens · tokens: 321 in \/ 19 out ·/);

    // The audit list has the call, its tokens and its outcome; the usage is shown.
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    const row = dialog.getByRole("row").filter({ hasText: "complete" });
    await expect
      .poll(() => row.textContent())
      .toMatch(/ai.*complete Translate to French: good cheese.*allowed-once.*ok · tokens 21 in \/ 4 out/);
    await expect
      .poll(() => dialog.getByRole("region", { name: "Model calls from code" }).textContent())
      .toContain("Used: 25 of 50,000 tokens");
  });

  it("from a button: asks, the UI shows the answer, and no chat message or feedback turn follows; Deny and the budget give their errors", async () => {
    mock.enqueue(
      codeTurn(
        `const name = new Data({ text: "" })\n` +
          `mount({ title: "Cheese", ui: () => (\n` +
          `  <div><Button onClick={() => ai.complete("Name a French cheese", { maxTokens: 40 }).then((text) => (name.text = text), (error) => (name.text = "failed: " + error.message))}>Ask the model</Button>\n` +
          `  <p>{name.text}</p></div>\n` +
          `) })\n`,
        "A button.",
        "tsx",
      ),
    );
    await send(page, "A button that asks the model");
    await waitDone(page);
    await waitQuiet(page);
    const before = await replies();
    expect(chats()).toHaveLength(1);

    mock.enqueue({ chunks: ["Comté"], usage: { prompt: 12, completion: 3 } });
    await page.getByRole("button", { name: "Ask the model" }).click();
    expect((await ask().textContent()) ?? "").toContain("Name a French cheese");
    expect(chats()).toHaveLength(1);
    // The reply is done, but the ask from the click waits: the status says so (and names no turn).
    await expect.poll(() => statusText(page)).toBe("Waiting for permission");
    await answerAsk(ask(), "Allow once");
    await expect.poll(() => statusText(page)).toMatch(/^Done/);
    await expect.poll(() => page.getByText("Comté", { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    expect(chats()[1].body.messages).toEqual([{ role: "user", content: "Name a French cheese" }]);

    // Deny: the UI shows the error; nothing reached the mock.
    await page.getByRole("button", { name: "Ask the model" }).click();
    await answerAsk(ask(), "Deny");
    await expect
      .poll(() => page.getByText(/^failed: The person denied this model call/).count(), { timeout: 15_000 })
      .toBe(1);

    // A budget below what a call may take: refused without asking, the error names the budget.
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    const section = dialog.getByRole("region", { name: "Model calls from code" });
    await expect.poll(() => section.textContent()).toContain("Used: 15 of 50,000 tokens");
    const budget = section.getByLabel("Token budget for this session");
    await budget.fill("30");
    await budget.press("Enter");
    await expect.poll(() => section.textContent()).toContain("Used: 15 of 30 tokens");
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "Ask the model" }).click();
    await expect
      .poll(() => page.getByText(/^failed: The session's budget for model calls from code is 30 tokens/).count(), {
        timeout: 15_000,
      })
      .toBe(1);
    expect(await ask().count()).toBe(0);

    // None of it was a turn: no reply, no feedback request.
    await waitQuiet(page);
    expect(chats()).toHaveLength(2);
    expect(await replies()).toBe(before);
  });

  it("off: refused without asking", async () => {
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await dialog.getByRole("region", { name: "Model calls from code" }).getByLabel("Off").check();
    await dialog.getByRole("button", { name: "Close" }).click();
    mock.enqueue(
      codeTurn(`try { await ai.complete("hello") } catch (error) { console.log("refused:", error.message) }\n`),
    );
    mock.enqueue({ chunks: ["Off, then."] });
    await send(page, "Call the model");
    await waitDone(page);
    expect(await ask().count()).toBe(0);
    expect(chats()).toHaveLength(2);
    expect(JSON.stringify(chats()[1].body.messages.at(-1).content)).toContain(
      "refused: Model calls from code are off for this session",
    );
  });

  it("a render loop calling ai.complete is stopped by the limits: paused, its asks withdrawn, no call reaches the model", async () => {
    mock.enqueue(
      codeTurn(
        `function Loop() {\n` +
          `  const [n, setN] = useState(0)\n` +
          `  useEffect(() => { ai.complete("again " + n).catch(() => {}); const t = setTimeout(() => setN(n + 1), 0); return () => clearTimeout(t) })\n` +
          `  return <p>renders: {n}</p>\n` +
          `}\n` +
          `mount({ ui: Loop })\n`,
        "A loop.",
        "tsx",
      ),
    );
    mock.enqueue({ chunks: ["I will fix the effect."] });
    await send(page, "Make a loop that calls the model");
    await page.getByLabel("Mounted UI").getByText("this UI updates too fast — paused").waitFor({ timeout: 20_000 });
    await waitDone(page);
    await expect.poll(() => ask().count()).toBe(0);
    // No model call went out (a call is one user message; turns carry the system prompt).
    expect(chats().filter((request) => request.body.messages.length === 1)).toEqual([]);
    // The host heard of 4 calls at most; the realm refused the rest itself.
    await page.getByRole("button", { name: "Session settings" }).click();
    const rows = page.getByRole("dialog", { name: "Session settings" }).getByRole("row").filter({ hasText: "again" });
    expect(await rows.count()).toBeLessThanOrEqual(4);
    expect((await rows.allTextContents()).filter((row) => /allowed/.test(row))).toEqual([]);
  });

  it("the key is never reachable from the realm: not in any global or object it can walk, not in any message it receives", async () => {
    mock.enqueue(
      codeTurn(
        // Walk everything the realm can name, a few levels deep, and look for the key.
        // The key's start, built at run time: the code itself must not carry it.
        `const needle = ["sk", "test", "ai", "calls"].join("-"); const seen = new Set(); const found = []\n` +
          `function walk(value, path, depth) {\n` +
          `  if (value === null || (typeof value !== "object" && typeof value !== "function")) { if (String(value).includes(needle)) found.push(path); return }\n` +
          `  if (seen.has(value) || depth > 3) return; seen.add(value)\n` +
          `  if (typeof value === "function") { try { if (Function.prototype.toString.call(value).includes(needle)) found.push(path) } catch {} }\n` +
          `  let names = []; try { names = Reflect.ownKeys(value) } catch {}\n` +
          `  for (const name of names) { let child; try { child = value[name] } catch { continue } walk(child, path + "." + String(name), depth + 1) }\n` +
          `}\n` +
          `walk(globalThis, "globalThis", 0)\n` +
          `walk(ai, "ai", 0)\n` +
          `const answer = await ai.complete("Say hi")\n` +
          `console.log("found:", found.length, "answer:", answer)\n`,
      ),
    );
    mock.enqueue({ chunks: ["hi"] });
    mock.enqueue({ chunks: ["Nothing found."] });
    await send(page, "Look for the key");
    await answerAsk(ask(), "Allow once");
    await waitDone(page);
    // The call went out with the key (from the page)…
    expect(chats()[1].headers.authorization).toBe(`Bearer ${API_KEY}`);
    // …and the realm saw none of it.
    expect(JSON.stringify(chats()[2].body.messages.at(-1).content)).toContain("found: 0 answer: hi");
    const posted = await page.evaluate(() => (window as unknown as { __posted: string[] }).__posted);
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.filter((message) => message.includes("sk-test-ai-calls"))).toEqual([]);
    expect(posted.filter((message) => message.includes(mock.url))).toEqual([]);
  });
});

const demo = appTest();
describe("the demo model", () => {
  demo(
    "the demo's translator works offline: Translate asks, then shows the demo responder's translation",
    async ({ page: shown }) => {
      await send(shown, "Build me a small translator");
      await waitDone(shown);
      await shown.getByRole("button", { name: "Translate" }).click();
      const asked = shown.getByRole("group", { name: "Permission request" });
      expect((await asked.textContent()) ?? "").toContain("Translate to French: Good morning, my friend");
      await answerAsk(asked, "Allow once");
      await expect
        .poll(() => shown.getByText("Bonjour, mon ami", { exact: true }).count(), { timeout: 15_000 })
        .toBe(1);
    },
  );
});
