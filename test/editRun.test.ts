/**
 * Edit code and re-run (issue 29 §2) through the agent and the real realm in
 * this process: the edited block runs as a new run of that block, takes over
 * its earlier mount (one panel, new content), re-binds its own const, marks
 * the blocks that read what it declares stale, and tells the model's next
 * turn what the person ran.
 */
import { describe, expect, it } from "vitest";
import { Agent, type ChatMessage } from "../src/agent/agent";
import { applyExecEvent, applyProtocolEvent, emptyReply, type BlockView, type ReplyView } from "../src/agent/reply";
import { createProtocolParser } from "../src/protocol/parser";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";

function savedReply(id: string, text: string): ChatMessage {
  const parser = createProtocolParser();
  let reply: ReplyView = emptyReply();
  for (const event of [...parser.push(text), ...parser.end()]) reply = applyProtocolEvent(reply, event);
  for (const block of reply.blocks) reply = applyExecEvent(reply, { type: "block-done", block: block.index });
  return { id, role: "assistant", text, reply, state: "done", createdAt: 1 };
}

/** An agent over these messages and this realm that never calls the model (editing and Revive never do). */
function agentOver(realm: ReturnType<typeof createInProcessRealm>, messages: ChatMessage[]): Agent {
  return new Agent(
    {
      model: () => {
        throw new Error("Running an edited block or Revive never calls the model");
      },
      system: "",
      realm,
      createParser: createProtocolParser,
      describeError: () => ({ code: "unknown", message: "", retryable: false }),
      wrapFeedback: (body) => body,
    },
    messages,
  );
}

const REPLY = [
  "A price.",
  "",
  `${FENCE}tsx agent.run`,
  "const price = 3;",
  'mount({ title: "Price", ui: () => <p>price {price}</p> });',
  FENCE,
  "",
  `${FENCE}tsx agent.run`,
  'console.log("doubled", price * 2);',
  FENCE,
  "",
  `${FENCE}tsx agent.run`,
  'console.log("unrelated");',
  FENCE,
  "",
].join("\n");

function setUp() {
  const realm = createInProcessRealm();
  const agent = agentOver(realm, [{ id: "u1", role: "user", text: "Price", createdAt: 0 }, savedReply("a1", REPLY)]);
  const reply = () => {
    const message = agent.getState().messages.find((item) => item.id === "a1");
    if (message?.role !== "assistant") throw new Error("no reply");
    return message.reply;
  };
  const code = (index: number) =>
    reply().blocks.find((block) => block.index === index) as Extract<BlockView, { kind: "code" }>;
  return { realm, agent, reply, code };
}

describe("Edit code and re-run", () => {
  it("updates the block's panel in place, re-binds its own const and marks the block that reads it stale", async () => {
    const { realm, agent, reply, code } = setUp();
    await agent.revive();
    const opens = () => realm.host.messages.filter((message) => message.kind === "open");
    expect(opens()).toHaveLength(1);
    const mountId = opens()[0].mountId;
    expect(realm.host.html(mountId)).toContain("price 3");
    const [first, second, third] = reply()
      .blocks.filter((block) => block.kind === "code")
      .map((block) => block.index);

    const edited = 'const price = 5;\nmount({ title: "Price", ui: () => <p>price {price}</p> });';
    expect(await agent.runBlocks([{ ref: { replyId: "a1", index: first }, code: edited }])).toBe(true);

    // One panel, the same mount, new content.
    expect(opens()).toHaveLength(1);
    expect(reply().mounts).toEqual([{ mountId, afterBlock: first, title: "Price" }]);
    expect(realm.host.html(mountId)).toContain("price 5");
    // The block shows the person's code and its run; the model's code is kept.
    expect(code(first).source).toBe(edited);
    expect(code(first).original).toContain("const price = 3;");
    expect(code(first).status).toBe("done");
    expect(code(first).statements.map((statement) => statement.status)).toEqual(["done", "done"]);
    // Block 2 reads price: stale; block 3 does not.
    expect(code(second).stale).toBe(true);
    expect(code(third).stale).toBeUndefined();
    // The model's next turn is told, as runtime output.
    const feedback = agent.getState().messages.at(-1);
    expect(feedback?.role).toBe("feedback");
    expect(feedback?.role === "feedback" && feedback.source).toBe("runtime");
    expect(feedback?.text).toContain(`edited code block ${first}`);
    // Two lines: the code is shorter than a diff, so the model gets the code.
    expect(feedback?.text).toContain(`Their code:\n${edited}`);

    // Run again: the stale block sees the new price and is no longer stale.
    expect(await agent.runBlocks([{ ref: { replyId: "a1", index: second }, code: code(second).source }])).toBe(true);
    expect(code(second).stale).toBeUndefined();
    expect(code(second).original).toBeUndefined();
    expect(code(second).statements[0].logs).toEqual([{ level: "log", text: "doubled 10" }]);
  });

  it("an edited panel keeps its state when the edit calls the same hooks, and starts afresh when it calls others", async () => {
    const counter = (label: string, hooks = "const [count, setCount] = useState(0)") =>
      `mount({ title: "Counter", ui: () => { ${hooks}; return <Button onClick={() => setCount(count + 1)}>${label} {count}</Button> } })`;
    const text = ["A counter.", "", `${FENCE}tsx agent.run`, counter("clicks"), FENCE, ""].join("\n");
    const realm = createInProcessRealm();
    const agent = agentOver(realm, [{ id: "u1", role: "user", text: "Counter", createdAt: 0 }, savedReply("a1", text)]);
    await agent.revive();
    const mountId = realm.host.messages.find((message) => message.kind === "open")!.mountId;
    const click = async () => {
      realm.sendUiEvent(realm.host.clickEvent(mountId));
      await realm.flush();
    };
    await click();
    await click();
    expect(realm.host.html(mountId)).toContain("clicks 2");
    const block = (agent.getState().messages[1] as Extract<ChatMessage, { role: "assistant" }>).reply.blocks.find(
      (item) => item.kind === "code",
    )!.index;

    // A new label, the same hooks: the count the person made stays.
    await agent.runBlocks([{ ref: { replyId: "a1", index: block }, code: counter("taps") }]);
    expect(realm.host.html(mountId)).toContain("taps 2");
    await click();
    expect(realm.host.html(mountId)).toContain("taps 3");

    // Other hooks: the panel starts from its initial state (no hook-order error).
    await agent.runBlocks([
      {
        ref: { replyId: "a1", index: block },
        code: counter("fresh", 'const [count, setCount] = useState(10); const [, setNote] = useState("")'),
      },
    ]);
    expect(realm.host.html(mountId)).toContain("fresh 10");
    expect(realm.host.messages.filter((message) => message.kind === "open")).toHaveLength(1);
  });

  it("a failing edit leaves what ran before the error, says so, and editing back to the model's code clears 'edited'", async () => {
    const { agent, code, reply } = setUp();
    await agent.revive();
    const first = reply().blocks.find((block) => block.kind === "code")!.index;
    const original = code(first).source;
    const failing = 'const price = 7;\nconsole.log("before");\nthrow new Error("boom");\nconsole.log("after");';
    expect(await agent.runBlocks([{ ref: { replyId: "a1", index: first }, code: failing }])).toBe(false);
    expect(code(first).status).toBe("error");
    expect(code(first).error?.message).toContain("boom");
    const logs = code(first).statements.flatMap((statement) => statement.logs.map((log) => log.text));
    expect(logs).toEqual(["before"]);
    const [notice, feedback] = agent.getState().messages.slice(-2);
    // The person is told, and so is the model's next turn.
    expect(notice).toMatchObject({ role: "notice", level: "warn" });
    expect(notice.text).toBe(
      `Code block ${first} failed: the statements before the error ran and what they did stays in the sandbox; the rest did not run.`,
    );
    expect(feedback?.text).toContain("The run failed: the statements before the error ran");
    expect(feedback?.text).toContain("boom");
    // The statement before the error ran: price is 7 now, as the block that reads it sees.
    const second = reply().blocks.filter((block) => block.kind === "code")[1].index;
    expect(code(second).stale).toBe(true);
    await agent.runBlocks([{ ref: { replyId: "a1", index: second }, code: code(second).source }]);
    expect(code(second).statements[0].logs).toEqual([{ level: "log", text: "doubled 14" }]);
    await agent.runBlocks([{ ref: { replyId: "a1", index: first }, code: original }]);
    expect(code(first).original).toBeUndefined();
    expect(code(first).status).toBe("done");
  });

  it("Revive, Run all stale and the block's mounts use the edit: a fresh realm replays the person's code", async () => {
    const { agent, code, reply } = setUp();
    await agent.revive();
    const [first, second] = reply()
      .blocks.filter((block) => block.kind === "code")
      .map((block) => block.index);
    const edited = 'const price = 4;\nmount({ title: "Price", ui: () => <p>price {price}</p> });';
    await agent.runBlocks([{ ref: { replyId: "a1", index: first }, code: edited }]);
    expect(code(second).stale).toBe(true);
    expect(await agent.runAllStale()).toBe(true);
    expect(code(second).stale).toBeUndefined();
    expect(code(second).statements[0].logs).toEqual([{ level: "log", text: "doubled 8" }]);

    // A fresh realm (another agent over the saved messages): Revive runs the edited code.
    const saved = agent.getState().messages;
    const realm = createInProcessRealm();
    const revived = agentOver(realm, saved);
    await revived.revive();
    const opened = realm.host.messages.filter((message) => message.kind === "open");
    expect(opened).toHaveLength(1);
    expect(realm.host.html(opened[0].mountId)).toContain("price 4");
    const message = revived.getState().messages.find((item) => item.id === "a1");
    const secondBlock =
      message?.role === "assistant" ? message.reply.blocks.find((block) => block.index === second) : undefined;
    expect(secondBlock?.kind === "code" && secondBlock.statements[0].logs).toEqual([
      { level: "log", text: "doubled 8" },
    ]);
  });

  it("an untitled mount is taken over by its position among the block's mounts; a closed one is not", async () => {
    const text = [
      "Two panels.",
      "",
      `${FENCE}tsx agent.run`,
      "const first = mount(() => <p>one</p>);",
      "const second = mount(() => <p>two</p>);",
      FENCE,
      "",
    ].join("\n");
    const realm = createInProcessRealm();
    const agent = agentOver(realm, [{ id: "u1", role: "user", text: "Two", createdAt: 0 }, savedReply("b1", text)]);
    await agent.revive();
    const opens = () =>
      realm.host.messages.filter((message) => message.kind === "open").map((message) => message.mountId);
    expect(opens()).toHaveLength(2);
    const [one, two] = opens();
    const index = (() => {
      const message = agent.getState().messages.find((item) => item.id === "b1");
      return message?.role === "assistant" ? message.reply.blocks.find((block) => block.kind === "code")!.index : -1;
    })();
    // The second panel is closed by other code: the edit's second mount cannot take it over and opens anew.
    await agent.runBlocks([{ ref: { replyId: "b1", index }, code: "second.unmount();" }]);
    await agent.runBlocks([
      {
        ref: { replyId: "b1", index },
        code: "const first = mount(() => <p>ONE</p>);\nconst second = mount(() => <p>TWO</p>);",
      },
    ]);
    expect(realm.host.html(one)).toContain("ONE");
    expect(opens()).toHaveLength(3);
    expect(opens()[2]).not.toBe(two);
    expect(realm.host.html(opens()[2])).toContain("TWO");
  });
});
