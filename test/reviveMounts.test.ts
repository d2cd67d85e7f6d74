/**
 * Revive re-runs a session's code in a fresh realm, whose mounts get new ids:
 * each re-created mount belongs to the reply whose code made it, replacing
 * that reply's restored (inert) panel, never another reply's.
 */
import { describe, expect, it } from "vitest";
import { Agent, type ChatMessage } from "../src/agent/agent";
import { applyExecEvent, applyProtocolEvent, emptyReply, type ReplyView } from "../src/agent/reply";
import { createProtocolParser } from "../src/protocol/parser";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";

/** A saved reply as the agent would have kept it, with the mounts it showed. */
function savedReply(
  id: string,
  text: string,
  mounts: { mountId: string; afterBlock: number; title?: string }[],
): ChatMessage {
  const parser = createProtocolParser();
  let reply: ReplyView = emptyReply();
  for (const event of [...parser.push(text), ...parser.end()]) reply = applyProtocolEvent(reply, event);
  reply = applyExecEvent(reply, { type: "block-done", block: 1 });
  return { id, role: "assistant", text, reply: { ...reply, mounts }, state: "done", createdAt: 1 };
}

describe("Revive and mount identity", () => {
  it("each re-created mount replaces the restored one of its own reply", async () => {
    const first = savedReply(
      "a1",
      `Pizza.\n\n${FENCE}tsx agent.run\nmount({ title: "Order a pizza", ui: () => <p>pizza</p> })\n${FENCE}\n`,
      [{ mountId: "rold0001:m1", afterBlock: 1, title: "Order a pizza" }],
    );
    const second = savedReply(
      "a2",
      `Dice.\n\n${FENCE}tsx agent.run\nmount({ title: "Dice", ui: () => <p>dice</p> })\n${FENCE}\n`,
      [{ mountId: "rold0002:m1", afterBlock: 1, title: "Dice" }],
    );
    const realm = createInProcessRealm();
    const agent = new Agent(
      {
        model: () => {
          throw new Error("Revive never calls the model");
        },
        system: "",
        realm,
        createParser: createProtocolParser,
        describeError: () => ({ code: "unknown", message: "", retryable: false }),
        wrapFeedback: (body) => body,
      },
      [
        { id: "u1", role: "user", text: "Pizza", createdAt: 0 },
        first,
        { id: "u2", role: "user", text: "Dice", createdAt: 0 },
        second,
      ],
    );
    const result = await agent.revive();
    expect(result).toEqual({ blocks: 2, failures: [] });
    const mountsOf = (id: string) => {
      const message = agent.getState().messages.find((item) => item.id === id);
      return message?.role === "assistant" ? message.reply.mounts : undefined;
    };
    const opened = realm.host.messages.filter((message) => message.kind === "open");
    expect(opened.map((message) => message.kind === "open" && message.title)).toEqual(["Order a pizza", "Dice"]);
    expect(mountsOf("a1")).toEqual([{ mountId: opened[0].mountId, afterBlock: 1, title: "Order a pizza" }]);
    expect(mountsOf("a2")).toEqual([{ mountId: opened[1].mountId, afterBlock: 1, title: "Dice" }]);
  });
});
