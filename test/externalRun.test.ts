/**
 * An invited agent's Markdown runs through the same turn as a model's reply
 * (Agent.runExternal): the real parser, executor and UI runtime in one
 * process. What it returns is exactly what a model's next turn carries.
 */
import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { Agent } from "../src/agent/agent";
import { createExternalReply } from "../src/agent/externalReply";
import { createProtocolParser } from "../src/protocol/parser";
import { wrapFeedback } from "../src/llm/feedbackMessage";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const REPLY = `Here is a counter.

${FENCE}tsx agent.run
const total = [1, 2, 3].reduce((a, b) => a + b, 0)
console.log("total", total)
mount({ title: "Counter", ui: () => <Button>{total}</Button> })
console.warn({ nested: { list: [1, 2] } })
${FENCE}

And an error:

${FENCE}ts agent.run
undefinedThing.call()
${FENCE}
`;

/** A model that answers REPLY first, then "Done." — and records what it was told. */
function model() {
  const prompts: string[] = [];
  return {
    prompts,
    model: new MockLanguageModelV3({
      doStream: async (options) => {
        prompts.push(JSON.stringify(options.prompt));
        const text = prompts.length === 1 ? REPLY : "Done.";
        const chunks: LanguageModelV3StreamPart[] = [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: text },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ];
        return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0, initialDelayInMs: 0 }) };
      },
    }),
  };
}

function agentWith(languageModel: MockLanguageModelV3) {
  return new Agent({
    model: () => languageModel,
    system: "",
    realm: createInProcessRealm(),
    createParser: createProtocolParser,
    describeError: (error) => ({ code: "unknown", message: String(error), retryable: false }),
    wrapFeedback: (body, source) => wrapFeedback(body, source),
  });
}

describe("Agent.runExternal", () => {
  it("returns the feedback a model's next turn carries, shows the reply with its lifecycle, and starts no turn of its own", async () => {
    const viaModel = model();
    const modelAgent = agentWith(viaModel.model);
    await modelAgent.send("Make a counter");
    const heard = JSON.parse(viaModel.prompts[1]) as { role: string; content: { type: string; text: string }[] }[];
    const modelFeedback = heard[heard.length - 1].content[0].text;
    expect(modelFeedback).toContain("total 6");

    const unused = model();
    const agent = agentWith(unused.model);
    const run = await agent.runExternal(createExternalReply(REPLY, "test agent"), "test agent");
    expect(run).toMatchObject({ kind: "ran", state: "done" });
    if (run.kind !== "ran") throw new Error("not run");
    expect(run.feedback).toBe(modelFeedback);
    expect(run.feedback).toMatch(/ReferenceError/);
    // The session's model was never called.
    expect(unused.prompts).toHaveLength(0);

    const messages = agent.getState().messages;
    const reply = messages.find((message) => message.id === run.replyId);
    expect(reply?.role).toBe("assistant");
    if (reply?.role !== "assistant") return;
    expect(reply.text).toBe(REPLY);
    expect(reply.by).toBe("test agent");
    expect(reply.reply.mounts?.map((mount) => mount.title)).toEqual(["Counter"]);
    expect(reply.summary).toMatchObject({ turns: 1, mountsCreated: 1, errors: 1 });
    expect(messages[messages.length - 1]).toMatchObject({ role: "feedback", text: modelFeedback, to: "agent" });
    expect(agent.getState().phase).toBe("done");
  });

  it("a run without output returns no feedback; a run while a reply runs is refused", async () => {
    const agent = agentWith(model().model);
    const quiet = await agent.runExternal(createExternalReply(`${FENCE}ts agent.run\nconst x = 1\n${FENCE}\n`));
    expect(quiet).toMatchObject({ kind: "ran", state: "done", feedback: "" });
    expect(agent.getState().phase).toBe("done");
    const first = agent.runExternal(createExternalReply(`${FENCE}ts agent.run\nawait sleep(50)\n${FENCE}\n`));
    expect(await agent.runExternal(createExternalReply("x"))).toEqual({ kind: "busy" });
    await first;
  });
});
