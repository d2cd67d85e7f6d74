import { describe, expect, it } from "vitest";
import { createProtocolParser } from "../protocol/parser";
import { resolveOptions, turnContext } from "./agentOptions";
import { IMPORTED_END, IMPORTED_START } from "./importedContent";
import type { TurnTimeline } from "./turn";
import type { AgentOptions, AgentState, ChatMessage, RealmPort } from "./types";

const realm = {} as RealmPort;
const base: AgentOptions = {
  model: () => {
    throw new Error("not called");
  },
  system: "SYSTEM",
  realm,
  createParser: createProtocolParser,
  describeError: () => ({ code: "unknown", message: "", retryable: false }),
  wrapFeedback: (body) => body,
};

function timelineOf(messages: ChatMessage[]): TurnTimeline {
  const state: AgentState = { messages, phase: "idle", turn: 0, maxTurns: 10, canContinue: false };
  return {
    state: () => state,
    push: () => undefined,
    update: () => undefined,
    move: () => undefined,
    setDetail: () => undefined,
    setStalled: () => undefined,
    checkWaiting: () => undefined,
  };
}

describe("resolveOptions", () => {
  it("fills in ten automatic turns, two rate-limit retries and fresh ids; what the caller gives wins", () => {
    const resolved = resolveOptions(base);
    expect(resolved).toMatchObject({ maxTurns: 10, maxRetries: 2 });
    expect(resolved.newId()).not.toBe(resolved.newId());
    expect(resolveOptions({ ...base, maxTurns: 3, maxRetries: 0 })).toMatchObject({ maxTurns: 3, maxRetries: 0 });
  });
});

describe("turnContext", () => {
  it("reads the system prompt and call settings at each call", () => {
    let tools = "no tools";
    const options = resolveOptions({ ...base, system: () => `SYSTEM (${tools})` });
    const context = turnContext(options, timelineOf([]));
    expect(context.system()).toBe("SYSTEM (no tools)");
    tools = "one tool";
    expect(context.system()).toBe("SYSTEM (one tool)");
    expect(turnContext(resolveOptions(base), timelineOf([])).system()).toBe("SYSTEM");
    expect(context.callSettings()).toEqual({});
  });

  it("gives the model the timeline as it is at the call, imported messages inside the bracket by default", () => {
    const messages: ChatMessage[] = [{ id: "u", role: "user", text: "from a file", createdAt: 0, imported: true }];
    const history = turnContext(resolveOptions(base), timelineOf(messages)).history();
    expect(history.map((message) => message.content)).toEqual([IMPORTED_START, "from a file", IMPORTED_END]);
    const own = turnContext(resolveOptions({ ...base, isImported: () => false }), timelineOf(messages)).history();
    expect(own).toEqual([{ role: "user", content: "from a file" }]);
  });
});
