/**
 * The page's end of the bridge (src/agent/agentChannel.ts) over a fake
 * socket, with the real agent loop and an in-process realm: what the page
 * sends, what it refuses, and what the timeline records.
 */
import { describe, expect, it, vi } from "vitest";
import { Agent, type ChatMessage } from "../src/agent/agent";
import {
  AgentChannel,
  NOT_ALLOWED,
  RUN_REJECTED,
  STORED_CHANNEL_KEY,
  openBridgeSocket,
  storedChannel,
  type AgentChannelOptions,
  type ChannelAudit,
  type SocketLike,
} from "../src/agent/agentChannel";
import { createProtocolParser } from "../src/protocol/parser";
import { wrapFeedback } from "../src/llm/feedbackMessage";
import { bridgeMessageSchema, pageMessageSchema, type BridgeMessage, type PageMessage } from "../src/wire/bridge";
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

function setup(extra: Partial<AgentChannelOptions> = {}, connect = true) {
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
    ...extra,
  });
  if (!connect) return { agent, channel, socket: undefined as unknown as FakeSocket, sockets };
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

  describe("rights for the room", () => {
    const request = (
      socket: FakeSocket,
      requestId: number,
      body: Extract<BridgeMessage, { type: "request" }>["request"],
    ) => socket.receive({ type: "request", requestId, agent: "helper-agent", request: body });
    const answerTo = (socket: FakeSocket, requestId: number) =>
      socket.sent.find(
        (message) => (message.type === "response" || message.type === "failure") && message.requestId === requestId,
      );

    it("a right switched off refuses its tool in the page, with a plain message; every decision is audited with the agent's name", async () => {
      const audit: ChannelAudit[] = [];
      const { agent, channel, socket } = setup({ audit: (entry) => audit.push(entry) });
      expect(channel.getState().rights).toEqual({ read: true, run: true, confirm: false });
      channel.setRights({ run: false, read: false });
      request(socket, 1, {
        method: "run",
        commandId: "c1",
        markdown: `${FENCE}ts agent.run\nconsole.log(1)\n${FENCE}\n`,
      });
      request(socket, 2, { method: "read-session" });
      request(socket, 3, { method: "join" });
      await until(() => [1, 2, 3].every((id) => answerTo(socket, id) !== undefined));
      expect(answerTo(socket, 1)).toMatchObject({ type: "failure", error: NOT_ALLOWED.run });
      expect(NOT_ALLOWED.run).toBe("the person has not allowed this agent to run code in this session");
      expect(answerTo(socket, 2)).toMatchObject({ type: "failure", error: NOT_ALLOWED.read });
      // Joined, but without the session's title or mounts.
      expect(answerTo(socket, 3)).toMatchObject({ type: "response", result: { title: "", mounts: [] } });
      // Nothing ran.
      expect(agent.getState().messages.some((message) => message.role === "assistant")).toBe(false);
      expect(audit.map((entry) => `${entry.method} ${entry.agent} ${entry.decision}`)).toEqual([
        "rights the person off",
        "rights the person off",
        "livemark_run helper-agent refused",
        "livemark_read_session helper-agent refused",
        "livemark_join helper-agent joined",
      ]);
      // Switched on again: the next call is allowed (and audited).
      channel.setRights({ run: true });
      request(socket, 4, {
        method: "run",
        commandId: "c1",
        markdown: `${FENCE}ts agent.run\nconsole.log("ran", 2)\n${FENCE}\n`,
      });
      await until(() => answerTo(socket, 4) !== undefined);
      expect(answerTo(socket, 4)).toMatchObject({ type: "response", result: { state: "done" } });
      expect(audit.at(-1)).toMatchObject({ method: "livemark_run", agent: "helper-agent", decision: "allowed" });
    });

    it("Confirm each run holds the run until Allow once; Reject answers that the person rejected it and nothing runs; an approval is spent by its run and bound to its Markdown", async () => {
      const audit: ChannelAudit[] = [];
      const { agent, channel, socket } = setup({ audit: (entry) => audit.push(entry) });
      channel.setRights({ confirm: true });
      channel.sendCommand("Log something");
      const commandId = (
        socket.sent.find((message) => message.type === "command") as { command: { commandId: string } }
      ).command.commandId;
      const first = `${FENCE}ts agent.run\nconsole.log("first", 1)\n${FENCE}\n`;
      request(socket, 1, { method: "run", commandId, markdown: first });
      await until(() => channel.getState().pendingRuns.length === 1);
      const pending = channel.getState().pendingRuns[0];
      expect(pending).toMatchObject({
        agent: "helper-agent",
        commandId,
        commandText: "Log something",
        markdown: first,
      });
      expect(pending.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(answerTo(socket, 1)).toBeUndefined();
      // Reject: the agent hears it, nothing ran.
      channel.rejectRun(pending.id);
      await until(() => answerTo(socket, 1) !== undefined);
      expect(answerTo(socket, 1)).toMatchObject({ type: "failure", error: RUN_REJECTED });
      expect(agent.getState().messages.some((message) => message.role === "assistant")).toBe(false);

      // Two runs wait; Allow once for one runs that one only.
      const second = `${FENCE}ts agent.run\nconsole.log("second", 2)\n${FENCE}\n`;
      const third = `${FENCE}ts agent.run\nconsole.log("third", 3)\n${FENCE}\n`;
      request(socket, 2, { method: "run", commandId, markdown: second });
      await until(() => channel.getState().pendingRuns.length === 1);
      request(socket, 3, { method: "run", commandId, markdown: third });
      await until(() => channel.getState().pendingRuns.length === 2);
      channel.allowRun(channel.getState().pendingRuns[0].id);
      await until(() => answerTo(socket, 2) !== undefined);
      expect((answerTo(socket, 2) as { result: { feedback: string } }).result.feedback).toContain("second 2");
      expect(answerTo(socket, 3)).toBeUndefined();
      expect(channel.getState().pendingRuns.map((run) => run.markdown)).toEqual([third]);
      // The same Markdown again asks again: the approval was spent.
      channel.rejectRun(channel.getState().pendingRuns[0].id);
      await until(() => answerTo(socket, 3) !== undefined);
      request(socket, 4, { method: "run", commandId, markdown: second });
      await until(() => channel.getState().pendingRuns.length === 1);
      expect(answerTo(socket, 4)).toBeUndefined();
      // Switching Run code off answers a waiting run too.
      channel.setRights({ run: false });
      await until(() => answerTo(socket, 4) !== undefined);
      expect(answerTo(socket, 4)).toMatchObject({ type: "failure", error: RUN_REJECTED });
      expect(channel.getState().pendingRuns).toEqual([]);
      expect(audit.filter((entry) => entry.method === "livemark_run").map((entry) => entry.decision)).toEqual([
        "rejected",
        "allowed once",
        "rejected",
        "rejected",
      ]);
    });
  });

  describe("a presence that follows the person", () => {
    it("switching sessions keeps the channel: the next command names the new session and the one left; a report on the earlier session's command goes there", async () => {
      let session = { id: "s1", title: "Trip" };
      const elsewhere: [string, ChatMessage][] = [];
      const { agent, channel, socket } = setup({
        session: () => session,
        recordIn: async (sessionId, message) => void elsewhere.push([sessionId, message]),
      });
      socket.receive({ type: "agents", joined: 1 });
      channel.sendCommand("first");
      const commands = () => socket.sent.flatMap((message) => (message.type === "command" ? [message.command] : []));
      expect(commands()[0]).toMatchObject({ sessionId: "s1", sessionTitle: "Trip" });
      expect(commands()[0].switchedFrom).toBeUndefined();
      session = { id: "s2", title: "Budget" };
      channel.sessionChanged();
      expect(channel.active).toBe(true);
      channel.sendCommand("second");
      expect(commands()[1]).toMatchObject({
        sessionId: "s2",
        sessionTitle: "Budget",
        switchedFrom: { sessionId: "s1", title: "Trip" },
      });
      channel.sendCommand("third");
      expect(commands()[2].switchedFrom).toBeUndefined();
      // The agent reports on the first command: it shows in session s1, not here.
      socket.receive({
        type: "request",
        requestId: 1,
        agent: "a",
        request: { method: "report", commandId: commands()[0].commandId, kind: "reply", text: "done with first" },
      });
      // …and cannot run code for it here.
      socket.receive({
        type: "request",
        requestId: 2,
        agent: "a",
        request: { method: "run", commandId: commands()[0].commandId, markdown: "hi" },
      });
      await until(
        () => socket.sent.filter((message) => message.type === "response" || message.type === "failure").length === 2,
      );
      expect(elsewhere).toEqual([["s1", expect.objectContaining({ role: "agent", text: "done with first" })]]);
      expect(agent.getState().messages.some((message) => message.role === "agent")).toBe(false);
      expect(socket.sent.find((message) => message.type === "failure")).toMatchObject({
        error: expect.stringMatching(/session the person has left/),
      });
    });

    it("a reload resumes the channel from this tab's storage; a resume the bridge refuses ends it, and says so", () => {
      const memory = new Map<string, string>();
      const storage = {
        getItem: (key: string) => memory.get(key) ?? null,
        setItem: (key: string, value: string) => void memory.set(key, value),
        removeItem: (key: string) => void memory.delete(key),
      };
      const { channel, socket } = setup({ storage });
      socket.receive({ type: "channel", code: "ABCD-EFGH", expiresAt: 601_000, channelId: "secret-channel-id" });
      socket.receive({ type: "agents", joined: 1 });
      channel.setRights({ confirm: true });
      channel.sendCommand("before the reload");
      const stored = storedChannel(storage, 1_000)!;
      expect(stored).toMatchObject({
        channelId: "secret-channel-id",
        code: "ABCD-EFGH",
        everJoined: true,
        rights: { read: true, run: true, confirm: true },
      });
      expect(stored.commands.map(([, command]) => command.text)).toEqual(["before the reload"]);

      // The page reloads: a new channel object takes it up.
      const after = setup({ storage }, false);
      after.channel.resume(stored);
      const resumeSocket = after.sockets.at(-1)!;
      resumeSocket.open();
      expect(resumeSocket.sent[0]).toMatchObject({
        type: "hello",
        resume: { channelId: "secret-channel-id", code: "ABCD-EFGH" },
      });
      resumeSocket.receive({
        type: "channel",
        code: "ABCD-EFGH",
        expiresAt: 601_000,
        channelId: "secret-channel-id",
        resumed: true,
      });
      resumeSocket.receive({ type: "agents", joined: 1 });
      expect(after.channel.getState()).toMatchObject({
        connection: "joined",
        everJoined: true,
        rights: { confirm: true },
      });
      expect(after.agent.getState().messages.map((message) => message.role === "notice" && message.text)).toContain(
        "The page reloaded: the agent's channel goes on (nothing was lost).",
      );

      // Too late: the bridge ended it meanwhile.
      const late = setup({ storage }, false);
      late.channel.resume(storedChannel(storage, 1_000)!);
      const lateSocket = late.sockets.at(-1)!;
      lateSocket.open();
      lateSocket.receive({ type: "resume-failed" });
      expect(late.channel.getState().connection).toBe("ended");
      expect(memory.has(STORED_CHANNEL_KEY)).toBe(false);
      expect(late.agent.getState().messages.map((message) => message.role === "notice" && message.text)).toContain(
        "The agent's channel ended while this page was away (over two minutes, or the bridge restarted).",
      );
    });

    it("an unused code's expiry ends the channel and says so; New code opens a new one", () => {
      const { agent, channel, socket, sockets } = setup();
      socket.receive({ type: "code-expired" });
      expect(channel.getState()).toMatchObject({ connection: "expired", code: undefined });
      expect(agent.getState().messages.map((message) => message.role === "notice" && message.text)).toContain(
        "The channel code expired before an agent joined: the channel ended.",
      );
      channel.newCode();
      expect(sockets).toHaveLength(2);
      sockets[1].open();
      expect(sockets[1].sent[0]).toMatchObject({ type: "hello" });
      expect((sockets[1].sent[0] as { resume?: unknown }).resume).toBeUndefined();
    });
  });

  it("under an agent's reply: what really happened while it held the command, from the page's own records", async () => {
    const sinces: number[] = [];
    let written: ((sessionId: string, key: string) => void) | undefined;
    const { agent, channel, socket } = setup({
      onAppDataWritten: (listener) => {
        written = listener;
        return () => undefined;
      },
      capabilityUses: (since) => {
        sinces.push(since);
        return ["network GET https://example.test/a (allowed-once)"];
      },
    });
    socket.receive({ type: "agents", joined: 1 });
    channel.sendCommand("Do two things");
    const commandId = (socket.sent.find((message) => message.type === "command") as { command: { commandId: string } })
      .command.commandId;
    socket.receive({ type: "claimed", commandId, agent: "a" });
    socket.receive({
      type: "request",
      requestId: 1,
      agent: "a",
      request: {
        method: "run",
        commandId,
        markdown: `${FENCE}ts agent.run\nconsole.log("one")\nthrow new TypeError("broken on purpose")\n${FENCE}\n`,
      },
    });
    await until(() => socket.sent.some((message) => message.type === "response" && message.requestId === 1));
    // Writes of this session while the command is held count; another session's do not.
    written!("s1", "notes");
    written!("s2", "elsewhere");
    socket.receive({
      type: "request",
      requestId: 2,
      agent: "a",
      request: {
        method: "report",
        commandId,
        kind: "reply",
        text: "Done",
        summary: { status: "done", changed: { mounts: ["Chart"] } },
      },
    });
    await until(() => agent.getState().messages.some((message) => message.role === "agent"));
    const report = agent.getState().messages.find((message) => message.role === "agent")!;
    expect(report.role === "agent" && report.observed).toEqual({
      runs: [{ statements: 2, errors: [expect.stringContaining("broken on purpose")] }],
      mountsCreated: [],
      mountsUpdated: [],
      capabilities: ["network GET https://example.test/a (allowed-once)"],
      dataKeys: ["notes"],
    });
    expect(sinces).toEqual([1_000]);
    // A status report is not a finish: it carries nothing.
    socket.receive({
      type: "request",
      requestId: 3,
      agent: "a",
      request: { method: "report", commandId, kind: "status", text: "still here" },
    });
    await until(() => agent.getState().messages.filter((message) => message.role === "agent").length === 2);
    const status = agent.getState().messages.filter((message) => message.role === "agent")[1];
    expect(status.role === "agent" && status.observed).toBeUndefined();
  });
});

describe("openBridgeSocket", () => {
  const open = (current = () => true) => {
    let socket!: FakeSocket;
    const heard: BridgeMessage[] = [];
    const made = openBridgeSocket("ws://127.0.0.1:4737/page", {
      createSocket: (url) => (socket = new FakeSocket(url)),
      schema: bridgeMessageSchema,
      isCurrent: (candidate) => candidate === socket && current(),
      onMessage: (message) => heard.push(message),
    });
    return { made, socket, heard };
  };

  it("hands on each frame the schema accepts, and drops the rest", () => {
    const { made, socket, heard } = open();
    expect(made).toBe(socket);
    expect(socket.url).toBe("ws://127.0.0.1:4737/page");
    socket.receive({ type: "agents", joined: 2 });
    socket.receive("not json");
    socket.receive(JSON.stringify({ type: "agents", joined: "two" }));
    socket.onmessage?.({ data: new ArrayBuffer(4) });
    expect(heard).toEqual([{ type: "agents", joined: 2 }]);
    expect(() => socket.onerror?.({})).not.toThrow();
  });

  it("drops the frames of a socket that is no longer the current one", () => {
    let current = true;
    const { socket, heard } = open(() => current);
    current = false;
    socket.receive({ type: "agents", joined: 1 });
    expect(heard).toEqual([]);
  });

  it("is undefined when the socket cannot be made", () => {
    const made = openBridgeSocket("ws://127.0.0.1:4737/page", {
      createSocket: () => {
        throw new SyntaxError("The URL is invalid");
      },
      schema: bridgeMessageSchema,
      isCurrent: () => true,
      onMessage: () => undefined,
    });
    expect(made).toBeUndefined();
  });
});
