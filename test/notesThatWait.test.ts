/**
 * Notes the model should hear but that are not worth a paid turn of their
 * own (issue 33 §3): the realm mounted a default export its block did not
 * mount; a plain tsx fence that looks meant to run was only shown. They go
 * with the next turn that happens anyway. Through the agent and the real
 * realm in this process, against the AI SDK's mock model.
 */
import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { Agent } from "../src/agent/agent";
import { createProtocolParser } from "../src/protocol/parser";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function scripted(replies: string[]) {
  const prompts: string[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      const text = replies[Math.min(prompts.length - 1, replies.length - 1)];
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0, initialDelayInMs: 0 }) };
    },
  });
  return { model, prompts };
}

function agentWith(replies: string[]) {
  const realm = createInProcessRealm();
  const { model, prompts } = scripted(replies);
  const agent = new Agent(
    {
      model: () => model,
      system: "",
      realm,
      createParser: createProtocolParser,
      describeError: () => ({ code: "unknown", message: "", retryable: false }),
      wrapFeedback: (body) => body,
    },
    [],
  );
  return { agent, realm, prompts };
}

const APP = `Here.\n\n${FENCE}tsx agent.run\nexport default function Counter() { return <p>count 0</p> }\n${FENCE}\n`;

describe("a default export the realm mounted", () => {
  it("is shown without a second model call; the model hears of it with the person's next message", async () => {
    const { agent, realm, prompts } = agentWith([APP, "Fine."]);
    await agent.send("a counter");
    expect(realm.host.messages.filter((message) => message.kind === "open")).toHaveLength(1);
    // One reply, no runtime-output turn.
    expect(prompts).toHaveLength(1);
    expect(agent.getState().messages.filter((message) => message.role === "feedback")).toHaveLength(0);
    expect(agent.getState().phase).toBe("done");

    await agent.send("thanks");
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("export default Counter");
    expect(prompts[1]).toContain("was not mounted by its block, so the realm mounted Counter");
  });

  it("still goes with the turn's other output when there is some (that output calls for a turn)", async () => {
    const { agent, prompts } = agentWith([
      `Here.\n\n${FENCE}tsx agent.run\nconsole.log("rows", 3)\nexport default function App() { return <p>x</p> }\n${FENCE}\n`,
      "Fine.",
    ]);
    await agent.send("an app");
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("rows 3");
    expect(prompts[1]).toContain("export default App");
  });
});

describe("a plain tsx fence that looks meant to run", () => {
  it("costs no turn; the model is told in one line with the next message that it was shown, not run", async () => {
    const shown = `A component:\n\n${FENCE}tsx\nexport default function App() {\n  return <p>hi</p>;\n}\n${FENCE}\n`;
    const { agent, prompts } = agentWith([shown, "Fine."]);
    await agent.send("an app");
    expect(prompts).toHaveLength(1);
    await agent.send("it did not run");
    expect(prompts).toHaveLength(2);
    const notes = prompts[1].match(/has no agent\.run, so it was only shown, not run/g) ?? [];
    expect(notes).toHaveLength(1);
    expect(prompts[1]).toContain("the ```tsx fence at line 3");
  });
});
