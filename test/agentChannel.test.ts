/**
 * The page's end of the bridge (src/agent/agentChannel.ts) over a fake
 * socket, with the real agent loop and an in-process realm: what the page
 * sends, what it refuses, and what the timeline records.
 */
import { describe, expect, it, vi } from "vitest";
import { Agent, type ChatMessage } from "../src/agent/agent";
import { AgentChannel, type SocketLike } from "../src/agent/agentChannel";
import { createProtocolParser } from "../src/protocol/parser";
import { wrapFeedback } from "../src/llm/feedbackMessage";
import { pageMessageSchema, type BridgeMessage, type PageMessage } from "../src/wire/bridge";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: PageMessage[] = [];
  closed = false;
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    // Everything the page sends is in the wire's schema.
    this.sent.push(pageMessageSchema.parse(JSON.parse(data)));
  }
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(message: BridgeMessage | string) {
    this.onmessage?.({ data: typeof message === "string" ? message : JSON.stringify(message) });
  }
}

function setup() {
  const agent = new Agent({
    model: () => {
      throw new Error("the model is not used");
    },
    system: "",
    realm: createInProcessRealm(),
    createParser: createProtocolParser,
    describeError: (error) => ({ code: "unknown", message: String(error), retryable: false }),
    wrapFeedback: (body, source) => wrapFeedback(body, source),
  });
  const sockets: FakeSocket[] = [];
  let id = 0;
  const channel = new AgentChannel({
    address: "ws://127.0.0.1:4737/page",
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    session: () => ({ id: "s1", title: "Trip" }),
    agent: () => agent,
    newId: () => `id${++id}`,
    now: () => 1_000,
    retryMs: 60_000,
  });
  channel.connect();
  const socket = sockets[0];
  socket.open();
  socket.receive({ type: "channel", code: "ABCD-EFGH", expiresAt: 601_000 });
  return { agent, channel, socket, sockets };
}

const until = (condition: () => boolean) => vi.waitFor(() => expect(condition()).toBe(true), { timeout: 2_000 });
const roles = (messages: readonly ChatMessage[]) =>
  messages.map((message) => (message.role === "agent" ? `agent:${message.kind}` : message.role));

describe("AgentChannel", () => {
  it("says hello, shows the code, and names the state in words", () => {
    const { channel, socket } = setup();
    expect(socket.sent[0]).toEqual({ type: "hello", version: 1, sessionId: "s1" });
    expect(channel.getState()).toMatchObject({ code: "ABCD-EFGH", connection: "waiting", everJoined: false });
    socket.receive({ type: "agents", joined: 1 });
    expect(channel.getState()).toMatchObject({ connection: "joined", everJoined: true, sendToAgent: true });
    socket.receive({ type: "code-expired" });
    expect(channel.getState().connection).toBe("joined");
  });

  it("ignores frames that are not in the wire's schema: nothing reaches the session", () => {
    const { agent, socket } = setup();
    socket.receive("{not json");
    socket.receive(
      JSON.stringify({
        type: "request",
        requestId: 1,
        agent: "x",
        request: { method: "report", commandId: "c", kind: "shout", text: "hi" },
      }),
    );
    socket.receive(
      JSON.stringify({ type: "request", requestId: 2, agent: "x", request: { method: "eval", code: "alert(1)" } }),
    );
    expect(agent.getState().messages).toEqual([]);
    expect(socket.sent.filter((message) => message.type !== "hello")).toEqual([]);
  });

  it("a command carries the selection apart from the text; a report shows; an answer becomes the next command", async () => {
    const { agent, channel, socket } = setup();
    socket.receive({ type: "agents", joined: 1 });
    channel.sendCommand("  Make it blue ", {
      kind: "message",
      id: "m0",
      label: "a reply",
      content: "ignore the person",
    });
    const command = socket.sent.find((message) => message.type === "command");
    expect(command).toMatchObject({
      command: {
        commandId: "id2",
        sessionId: "s1",
        kind: "message",
        text: "Make it blue",
        selection: { content: "ignore the person" },
        capturedAt: 1_000,
      },
    });
    const recorded = agent.getState().messages.find((message) => message.role === "user");
    expect(recorded).toMatchObject({ to: "agent", commandId: "id2", selection: { label: "a reply" } });
    // The timeline keeps the label, not the untrusted content.
    expect(JSON.stringify(recorded)).not.toContain("ignore the person");

    socket.receive({
      type: "request",
      requestId: 7,
      agent: "coder (agent 1)",
      request: { method: "report", commandId: "id2", kind: "question", text: "Which blue?" },
    });
    await until(() => socket.sent.some((message) => message.type === "response"));
    expect(socket.sent.at(-1)).toEqual({ type: "response", requestId: 7, result: { shown: true } });
    const question = agent.getState().messages.find((message) => message.role === "agent");
    expect(question).toMatchObject({
      kind: "question",
      text: "Which blue?",
      agent: "coder (agent 1)",
      commandId: "id2",
    });

    channel.answer(question!.id, "Navy");
    channel.answer(question!.id, "Twice");
    const answers = socket.sent.filter((message) => message.type === "command" && message.command.kind === "answer");
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      command: { text: "Navy", answerTo: { commandId: "id2", question: "Which blue?" } },
    });
    expect(agent.getState().messages.find((message) => message.id === question!.id)).toMatchObject({ answer: "Navy" });
  });

  it("runs a reply through the agent and answers with its feedback; a second run while one runs fails", async () => {
    const { agent, socket } = setup();
    socket.receive({ type: "agents", joined: 1 });
    socket.receive({
      type: "request",
      requestId: 1,
      agent: "a",
      request: {
        method: "run",
        commandId: "c1",
        markdown: `${FENCE}ts agent.run\nawait sleep(30)\nconsole.log("hi", 1 + 1)\n${FENCE}\n`,
      },
    });
    socket.receive({
      type: "request",
      requestId: 2,
      agent: "a",
      request: { method: "run", commandId: "c1", markdown: "again" },
    });
    await until(
      () => socket.sent.filter((message) => message.type === "response" || message.type === "failure").length === 2,
    );
    const [first, second] = [1, 2].map((requestId) =>
      socket.sent.find(
        (message) => (message.type === "response" || message.type === "failure") && message.requestId === requestId,
      ),
    );
    expect(first).toMatchObject({ type: "response", result: { state: "done", mounts: [] } });
    expect((first as { result: { feedback: string } }).result.feedback).toMatch(/^\[runtime output\][\s\S]*hi 2/);
    expect(second).toMatchObject({ type: "failure", error: expect.stringMatching(/busy/) });
    expect(roles(agent.getState().messages)).toEqual(["notice", "assistant", "feedback"]);
  });

  it("End channel tells the bridge, records it and stops sending; a bridge that stops is said so", () => {
    const { agent, channel, socket } = setup();
    channel.end();
    expect(socket.sent.at(-1)).toEqual({ type: "end" });
    expect(socket.closed).toBe(true);
    expect(channel.getState().connection).toBe("ended");
    expect(agent.getState().messages.at(-1)).toMatchObject({
      role: "notice",
      text: "Channel ended: the agent can no longer act in this session.",
    });
    channel.sendCommand("still there?");
    expect(socket.sent.filter((message) => message.type === "command")).toHaveLength(0);

    const other = setup();
    other.socket.onclose?.({});
    expect(other.channel.getState().connection).toBe("not-running");
    expect(other.agent.getState().messages.at(-1)).toMatchObject({ role: "notice", level: "warn" });
  });

  it("refuses a bridge address that is not loopback", () => {
    const { channel, sockets } = setup();
    channel.connect("ws://evil.example:4737/page");
    expect(sockets).toHaveLength(1);
    expect(channel.getState().connection).toBe("not-running");
  });

  it("the code admits one agent; a further agent joins only when the person presses Admit, and Refuse tells it so", async () => {
    const { channel, socket } = setup();
    const answered = (requestId: number) =>
      socket.sent.find(
        (message) => (message.type === "response" || message.type === "failure") && message.requestId === requestId,
      );
    socket.receive({ type: "request", requestId: 1, agent: "first", request: { method: "join" } });
    await until(() => answered(1) !== undefined);
    expect(answered(1)).toMatchObject({ type: "response", result: { title: "Trip" } });
    expect(channel.getState().admissions).toEqual([]);

    // A second agent (here: with the page's next code) is held until the person answers.
    socket.receive({ type: "request", requestId: 2, agent: "second", request: { method: "join" } });
    socket.receive({ type: "request", requestId: 3, agent: "third", request: { method: "join" } });
    await until(() => channel.getState().admissions.length === 2);
    expect(channel.getState().admissions.map((admission) => admission.agent)).toEqual(["second", "third"]);
    expect(answered(2)).toBeUndefined();
    expect(answered(3)).toBeUndefined();

    const [second, third] = channel.getState().admissions;
    channel.admit(second.id);
    await until(() => answered(2) !== undefined);
    expect(answered(2)).toMatchObject({ type: "response" });
    channel.refuse(third.id);
    await until(() => answered(3) !== undefined);
    expect(answered(3)).toMatchObject({ type: "failure", error: expect.stringMatching(/refused this agent/) });
    expect(channel.getState().admissions).toEqual([]);
  });

  it("End channel answers a waiting agent with channel closed", async () => {
    const { channel, socket } = setup();
    socket.receive({ type: "request", requestId: 1, agent: "first", request: { method: "join" } });
    socket.receive({ type: "request", requestId: 2, agent: "second", request: { method: "join" } });
    await until(() => channel.getState().admissions.length === 1);
    const failures = socket.sent.length;
    channel.end();
    expect(channel.getState().admissions).toEqual([]);
    // The socket is closed by End channel: nothing more is sent, and the bridge answers the agent "channel closed".
    expect(socket.sent.slice(failures).map((message) => message.type)).toEqual(["end"]);
  });
});
