/**
 * Every demo script, played by the real demo model through the real agent
 * loop, protocol parser and executor: the conversation must end on its own,
 * each step must see the output it expects, and the code must behave as the
 * prose around it says.
 */
import { describe, expect, it } from "vitest";
import { Agent, type ChatMessage } from "../src/agent/agent";
import { createProtocolParser } from "../src/protocol/parser";
import { createDemoModel, describeLlmError, DEMO_SCRIPTS, wrapFeedback } from "../src/llm";
import { createInProcessRealm } from "./inProcessRealm";

function play(message: string) {
  const agent = new Agent({
    model: () => createDemoModel({ delayMs: 0, firstTokenDelayMs: 0 }),
    system: "",
    realm: createInProcessRealm(),
    createParser: createProtocolParser,
    describeError: (error) => describeLlmError(error),
    wrapFeedback,
  });
  return agent.send(message).then(() => agent.getState());
}

const replies = (messages: ChatMessage[]) => messages.filter((message) => message.role === "assistant");
const feedback = (messages: ChatMessage[]) =>
  messages.flatMap((message) => (message.role === "feedback" ? [message.body] : []));

describe("demo scripts", () => {
  it.each(DEMO_SCRIPTS.map((script) => [script.name, script] as const))(
    "%s plays to the end through the real loop",
    async (_, script) => {
      const state = await play(script.suggestion);
      expect(state.phase).toBe("done");
      const all = replies(state.messages);
      expect(all.length).toBeGreaterThanOrEqual(1);
      for (const reply of all) {
        expect(reply.state).toBe("done");
        expect(reply.text).not.toMatch(/did not expect/);
        if (reply.role === "assistant") expect(reply.reply.protocolErrors).toEqual([]);
      }
      // The last reply hands control back: no code left running, no output.
      const last = all[all.length - 1];
      if (last.role === "assistant") {
        expect(last.reply.blocks.filter((block) => block.kind === "code" && block.statements.some((s) => s.logs.length > 0))).toEqual([]);
      }
      expect(state.messages.filter((message) => message.role === "notice")).toEqual([]);
    },
    30_000,
  );

  it("the error script really throws a TypeError and the fix really works", async () => {
    const script = DEMO_SCRIPTS.find((candidate) => candidate.name === "fix-error")!;
    const state = await play(script.suggestion);
    const outputs = feedback(state.messages);
    expect(outputs[0]).toMatch(/TypeError/);
    expect(outputs.slice(1).join("\n")).not.toMatch(/TypeError/);
  }, 30_000);

  it("the infinite-loop script is stopped by the loop guard", async () => {
    const script = DEMO_SCRIPTS.find((candidate) => candidate.name === "infinite-loop")!;
    const state = await play(script.suggestion);
    expect(feedback(state.messages)[0]).toMatch(/LoopGuardError|without yielding/);
  }, 30_000);
});
