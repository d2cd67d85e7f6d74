/**
 * Reasoning models and cut replies, through the mock endpoint in Chromium:
 * drafts in a `<think>` section or in the provider's reasoning stream never
 * run, and a reply cut at the token limit is named as cut, with Continue.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { createGate, type MockLlm } from "./mockLlm";
import { appTest, FENCE, send, waitQuiet } from "./fixture";

const it = appTest({ configure: true, probe: true });
let mock: MockLlm;
let page: Page;

it.beforeEach(({ mock: started, page: opened }) => {
  mock = started;
  page = opened;
});

it.afterEach(() => {
  expect(mock.pending).toBe(0);
});

const status = () => page.getByRole("status").first();
const reply = () => page.getByRole("article", { name: "Reply" }).first();
const thinking = () => reply().locator("details.lm-thinking");

function messagesOf(index: number): { role: string; content: unknown }[] {
  return mock.requests.filter((request) => request.path.startsWith("/v1/chat/completions"))[index].body.messages;
}
const contentText = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

describe("thinking", () => {
  it("a fence inside <think> does not run while the answer's fence does; the thinking stays out of the next prompt", async () => {
    mock.enqueue({
      chunks: [
        "<think>\nLet me draft it:\n",
        `${FENCE}tsx agent.run\nconsole.log("DRAFT " + "RAN")\n${FENCE}\n`,
        "Good, now for real.\n</think>\n\n",
        `${FENCE}tsx agent.run\nconsole.log("ANSWER " + "RAN")\n${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["All done."] });
    await send(page, "Log something");
    await page.getByText("All done.").waitFor({ timeout: 15_000 });
    await expect.poll(() => status().textContent(), { timeout: 10_000 }).toMatch(/^Done/);

    // The answer ran and printed (its output drawn once its block is: on a loaded machine after Done); the draft did not.
    await expect
      .poll(() => page.getByText("ANSWER RAN", { exact: true }).count(), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(await page.getByText("DRAFT RAN", { exact: true }).count()).toBe(0);
    const feedback = messagesOf(1).at(-1)!;
    expect(contentText(feedback.content)).toContain("ANSWER RAN");
    expect(contentText(feedback.content)).not.toContain("DRAFT RAN");
    // The model is not sent its thinking back.
    const assistant = messagesOf(1).find((message) => message.role === "assistant")!;
    expect(contentText(assistant.content)).not.toContain("<think>");
    expect(contentText(assistant.content)).not.toContain("Let me draft it");

    // Shown apart, collapsed, as "Thought for N s"; it expands on a click.
    await expect(thinking().locator("summary").textContent()).resolves.toMatch(/^Thought for \d+ s$/);
    expect(await thinking().evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    await thinking().locator("summary").click();
    await expect(thinking().getByLabel("Thinking").textContent()).resolves.toContain('console.log("DRAFT " + "RAN")');

    // Stored with the message: still there, apart and collapsed, after a reload.
    await page.reload();
    await page.getByText("All done.").waitFor({ timeout: 15_000 });
    await expect(thinking().locator("summary").textContent()).resolves.toMatch(/^Thought for \d+ s$/);
    expect(await thinking().evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
  });

  it("a reply that ends inside <think> is shown as thinking, and the person and the model are told", async () => {
    mock.enqueue({ chunks: ["<think>\nPlan: ", `${FENCE}tsx agent.run\nconsole.log("PLAN " + "RAN")\n`] });
    mock.enqueue({ chunks: ["Answer after all."] });
    await send(page, "Plan it");
    await page.getByText("Answer after all.").waitFor({ timeout: 15_000 });
    await expect(thinking().locator("summary").textContent()).resolves.toContain("the reply ended inside its thinking");
    expect(await page.getByText("PLAN RAN", { exact: true }).count()).toBe(0);
    expect(contentText(messagesOf(1).at(-1)!.content)).toContain("Your reply ended inside its thinking section");
  });

  it("reasoning deltas are shown collapsed under Thinking… while they stream, and never run", async () => {
    const gate = createGate();
    mock.enqueue({
      chunks: [
        { reasoning: "Maybe this:\n" },
        { reasoning: `${FENCE}tsx agent.run\nconsole.log("REASONING " + "RAN")\n${FENCE}\n`, field: "reasoning" },
        { waitFor: gate.promise },
        { reasoning: "No, simpler.\n" },
        "Here is a plain answer.",
      ],
    });
    await send(page, "Think first");
    await thinking().waitFor({ timeout: 15_000 });
    await expect.poll(() => thinking().locator("summary").textContent(), { timeout: 10_000 }).toBe("Thinking…");
    expect(await thinking().evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    gate.open();
    await page.getByText("Here is a plain answer.").waitFor({ timeout: 15_000 });
    await expect.poll(() => status().textContent(), { timeout: 10_000 }).toMatch(/^Done/);
    await expect(thinking().locator("summary").textContent()).resolves.toMatch(/^Thought for \d+ s$/);
    // Nothing ran: no output, so no feedback turn (nothing left to run, apply or write).
    await waitQuiet(page);
    expect(mock.requests.filter((request) => request.path.startsWith("/v1/chat/completions"))).toHaveLength(1);
    expect(await page.getByText("REASONING RAN", { exact: true }).count()).toBe(0);
    await thinking().locator("summary").click();
    await expect(thinking().getByLabel("Thinking").textContent()).resolves.toContain("No, simpler.");
  });
});

describe("cut replies", () => {
  it("a length finish mid-fence shows the cut with Continue and tells the model plainly what ran", async () => {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByLabel("Max tokens per reply").fill("4096");
    await page.getByRole("button", { name: "Save" }).click();
    mock.enqueue({
      chunks: [
        "Setting up.\n\n",
        `${FENCE}tsx agent.run\n`,
        'console.log("step " + "one");\n',
        "const rows = [1, 2, 3].map((n) => ({\n",
        "  id: n,\n",
        "  label: `Row ${",
      ],
      finishReason: "length",
    });
    mock.enqueue({ chunks: ["Continuing."] });
    await send(page, "Build a table");
    // Said once, on the reply (a strict locator finds exactly one).
    await page.getByText("cut at the token limit", { exact: false }).waitFor({ timeout: 15_000 });
    await expect(reply().textContent()).resolves.toContain("raise max tokens in Settings");
    // The line's output arrives from the realm on its own path: waited for, not assumed drawn with the cut.
    await expect
      .poll(() => page.getByText("step one", { exact: true }).count(), { timeout: 10_000 })
      .toBeGreaterThan(0);
    // The cut block says where it was cut, not a bare syntax error.
    const block = page.getByRole("figure", { name: "Code block 1" });
    await expect(block.locator(".lm-code__status").textContent()).resolves.toBe("cut");
    await expect(block.textContent()).resolves.toContain(
      "The reply was cut here: this statement is incomplete and did not run.",
    );
    expect(await block.getByText("SyntaxError", { exact: false }).count()).toBe(0);
    const continueButton = page.getByRole("button", { name: "Continue" });
    await continueButton.waitFor({ timeout: 10_000 });
    expect(mock.requests[0].body.max_tokens).toBe(4096);
    // The cut waits for the person: no automatic turn.
    expect(mock.requests).toHaveLength(1);

    await continueButton.click();
    await page.getByText("Continuing.").waitFor({ timeout: 15_000 });
    const feedback = contentText(messagesOf(1).at(-1)!.content);
    expect(feedback).toContain("step one");
    expect(feedback).toContain("was cut at the token limit");
    expect(feedback).toContain("in block 1 (code), at line 7");
    expect(feedback).toContain("What ran: block 1: line 4 (1 statement)");
    expect(feedback).toContain("What did not run: block 1 from line 5 to 7");
    expect(feedback).toContain("without repeating what already ran");
    expect(feedback).not.toContain("SyntaxError");
  });

  it("a content-filter finish is named in its own words", async () => {
    mock.enqueue({ chunks: ["Here is the story you asked for. Once upon"], finishReason: "content_filter" });
    await send(page, "Tell a story");
    await page.getByText("content filter stopped this reply", { exact: false }).waitFor({ timeout: 15_000 });
    await page.getByRole("button", { name: "Continue" }).waitFor({ timeout: 10_000 });
  });
});
