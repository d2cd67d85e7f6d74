/**
 * A message sent while a session switch is saving the closing session is
 * never lost: the closing session's agent refuses it from the switch's first
 * moment (its caller keeps the text), and the session that opens takes it.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { Agent, type ChatMessage, type RealmPort } from "../agent/agent";
import { createProtocolParser } from "../protocol/parser";
import { loadSession } from "../store/sessions";
import { SessionController } from "./sessionController";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that answers every call with "Hello." */
function helloModel() {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Hello." },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ],
        chunkDelayInMs: 0,
        initialDelayInMs: 0,
      }),
    }),
  });
}

/** No code runs in these replies: a realm that has always finished. */
const idleRealm: RealmPort = {
  beginReply: () => undefined,
  sendBlock: () => undefined,
  flush: () => Promise.resolve(),
  abort: () => undefined,
  subscribe: () => () => undefined,
};

function makeAgent(messages: ChatMessage[], model: () => MockLanguageModelV3 = helloModel): Agent {
  return new Agent(
    {
      model,
      system: "SYSTEM",
      realm: idleRealm,
      createParser: createProtocolParser,
      describeError: (error) => ({ code: "unknown", message: String(error), retryable: false }),
      wrapFeedback: (body) => body,
    },
    messages,
  );
}

/**
 * A controller whose open session has a reply running: its model streams a
 * first chunk, then holds until `release()`.
 */
async function startWithHeldReply() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const slowModel = () =>
    new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream({
          async start(stream) {
            stream.enqueue({ type: "stream-start", warnings: [] });
            stream.enqueue({ type: "text-start", id: "t" });
            stream.enqueue({ type: "text-delta", id: "t", delta: "Thinking about it" });
            await held;
            stream.close();
          },
        }),
      }),
    });
  const controller = new SessionController({
    realm: { reset: async () => undefined },
    makeAgent: (messages) => makeAgent(messages, slowModel),
  });
  await controller.start();
  const running = controller.getState().agent!;
  const runningId = controller.getState().current!.id;
  void running.send("a long question");
  await vi.waitFor(() => expect(running.getState().phase).toBe("streaming"));
  return { controller, running, runningId, release };
}

afterEach(() => {
  vi.restoreAllMocks();
});

const texts = (messages: readonly ChatMessage[]) =>
  messages.filter((message) => message.role === "user").map((message) => message.text);

describe("session switch", () => {
  it("the closing session's agent refuses a message from the switch's first moment; the new session takes the next one", async () => {
    indexedDB.deleteDatabase("livemark");
    let clock = 1_900_000_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => (clock += 7));
    const controller = new SessionController({
      realm: { reset: async () => undefined },
      makeAgent: (messages) => makeAgent(messages),
    });
    await controller.start();
    const closing = controller.getState().agent!;
    const closingId = controller.getState().current!.id;
    expect(await closing.send("first message")).toBe(true);

    const switching = controller.newSession();
    // Whoever still holds the closing agent (a handler drawn before the
    // switch, the invited agent's channel) is refused while it saves.
    expect(closing.refusal).toBe("closed");
    expect(await closing.send("sent during the switch")).toBe(false);
    await switching;

    const opened = controller.getState().agent!;
    expect(opened).not.toBe(closing);
    expect(controller.getState().current!.id).not.toBe(closingId);
    expect(await opened.send("sent during the switch")).toBe(true);
    expect(texts(opened.getState().messages)).toEqual(["sent during the switch"]);
    // What the closing session saved is what it showed: the refused message is in neither session twice.
    const saved = await loadSession(controller.storeHandle()!, closingId);
    expect(texts(saved!.messages)).toEqual(["first message"]);
    expect(texts(closing.getState().messages)).toEqual(["first message"]);
  });

  it("switching away while a reply runs asks first; Stay keeps it running, Switch anyway records the true cause", async () => {
    indexedDB.deleteDatabase("livemark");
    let clock = 1_950_000_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => (clock += 7));
    const { controller, running, runningId, release } = await startWithHeldReply();

    const asked: string[] = [];
    controller.confirmLeave = async () => (asked.push("asked"), false);
    await controller.newSession();
    // Stay: nothing changed, the reply still streams.
    expect(asked).toEqual(["asked"]);
    expect(controller.getState().current!.id).toBe(runningId);
    expect(running.getState().phase).toBe("streaming");

    controller.confirmLeave = async () => (asked.push("asked"), true);
    await controller.newSession();
    expect(asked).toHaveLength(2);
    expect(controller.getState().current!.id).not.toBe(runningId);
    release();
    // What was saved says why the reply stopped: never "the page closed".
    const saved = await loadSession(controller.storeHandle()!, runningId);
    const reply = saved!.messages.find((message) => message.role === "assistant");
    expect(reply).toMatchObject({ state: "stopped" });
    expect(saved!.messages.filter((message) => message.role === "notice").map((message) => message.text)).toContain(
      "Interrupted: you switched sessions.",
    );
  });

  it("a session picked while a switch still closes the running one opens after that switch, with the cause it saved", async () => {
    indexedDB.deleteDatabase("livemark");
    let clock = 1_970_000_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => (clock += 7));
    const { controller, runningId, release } = await startWithHeldReply();

    controller.confirmLeave = async () => true;
    // The page shows no session while the closing one saves: that is when the person picks the one they left.
    let back: Promise<void> | undefined;
    const unsubscribe = controller.subscribe(() => {
      if (!back && controller.getState().agent === undefined) back = controller.open(runningId);
    });
    const switching = controller.newSession();
    await switching;
    unsubscribe();
    expect(back).toBeDefined();
    await back;
    release();

    // The session picked last is the one open, read after the switch saved it: it says why its reply stopped.
    expect(controller.getState().current!.id).toBe(runningId);
    const notices = controller
      .getState()
      .agent!.getState()
      .messages.filter((message) => message.role === "notice")
      .map((message) => message.text);
    expect(notices).toContain("Interrupted: you switched sessions.");
    // The new session the switch made is in the list, empty.
    expect(controller.getState().sessions.map((session) => session.id)).toContain(runningId);
    expect(controller.getState().sessions).toHaveLength(2);
  });
});
