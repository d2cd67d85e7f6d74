import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { DEMO_MODEL_ID, createDemoModel, splitIntoPieces } from "./demoModel";
import { DEMO_SCRIPTS } from "./demoScripts";
import { formatFeedbackMessage } from "./feedbackMessage";

const scriptText = (name: string, step = 0) => {
  const found = DEMO_SCRIPTS.find((script) => script.name === name)!.steps[step];
  if (typeof found !== "string") throw new Error("expected a string step");
  return found;
};

describe("splitIntoPieces", () => {
  it("cuts into 2–6 character pieces that rebuild the text, the same way every time", () => {
    const text = scriptText("primes");
    const pieces = splitIntoPieces(text);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces.slice(0, -1)) {
      expect(piece.length).toBeGreaterThanOrEqual(2);
      expect(piece.length).toBeLessThanOrEqual(7); // 6, or 7 to keep a surrogate pair whole
    }
    expect(new Set(pieces.map((piece) => piece.length)).size).toBeGreaterThan(3);
    expect(splitIntoPieces(text)).toEqual(pieces);
  });

  it("never splits a surrogate pair", () => {
    const text = "🙂".repeat(200);
    for (const piece of splitIntoPieces(text)) expect(piece.length % 2).toBe(0);
  });
});

describe("the demo model through streamText", () => {
  it("streams the chosen script in many pieces, and the text equals the script", async () => {
    const result = streamText({ model: createDemoModel({ delayMs: 0 }), prompt: "Compute some primes" });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    const expected = scriptText("primes");
    expect(pieces.join("")).toBe(expected);
    expect(pieces.length).toBeGreaterThan(expected.length / 7);
    expect(await result.finishReason).toBe("stop");
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(pieces.length);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect((await result.response).modelId).toBe(DEMO_MODEL_ID);
  });

  it("follows the conversation: runtime output advances the script", async () => {
    const result = streamText({
      model: createDemoModel({ delayMs: 0 }),
      system: "the system prompt",
      messages: [
        { role: "user", content: "Compute some primes" },
        { role: "assistant", content: scriptText("primes") },
        { role: "user", content: formatFeedbackMessage(["25 primes below 100"]) },
      ],
    });
    expect(await result.text).toContain("**25 primes**");
  });

  it("streams at the configured pace", async () => {
    const text = "x".repeat(400);
    const model = createDemoModel({
      tokensPerSecond: 1000,
      firstTokenDelayMs: 0,
      scripts: [{ name: "x", title: "", suggestion: "", keywords: [], steps: [text] }],
    });
    const started = Date.now();
    const result = streamText({ model, prompt: "go" });
    expect(await result.text).toBe(text);
    const expectedMs = splitIntoPieces(text).length; // one piece per millisecond
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(expectedMs * 0.8);
    expect(elapsed).toBeLessThan(expectedMs * 4 + 500);
  });

  it("stops when aborted: no more text, and an abort part", async () => {
    const controller = new AbortController();
    const result = streamText({
      model: createDemoModel({ tokensPerSecond: 200, firstTokenDelayMs: 0 }),
      prompt: "hello",
      abortSignal: controller.signal,
    });
    let text = "";
    let aborted = false;
    const stopAt = 20;
    let deltas = 0;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        text += part.text;
        if (++deltas === stopAt) controller.abort();
      }
      if (part.type === "abort") aborted = true;
    }
    expect(aborted).toBe(true);
    expect(deltas).toBeLessThanOrEqual(stopAt + 1);
    expect(scriptText("intro").startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(scriptText("intro").length);
  });

  it("refuses to start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = streamText({
      model: createDemoModel({ delayMs: 0 }),
      prompt: "hello",
      abortSignal: controller.signal,
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain("abort");
    expect(types).not.toContain("text-delta");
  });

  it("also answers generateText (doGenerate)", async () => {
    const result = await generateText({ model: createDemoModel(), prompt: "Run an infinite loop" });
    expect(result.text).toBe(scriptText("infinite-loop"));
  });
});
