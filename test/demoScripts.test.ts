/**
 * Every demo script, played by the real demo model through the real agent
 * loop, protocol parser, executor and UI runtime: the conversation must end
 * on its own, each step must see the output it expects, and the code must
 * behave as the prose around it says. Where a script waits for the person,
 * the test acts as the person: it submits the form once the mount says it is
 * waiting, and clicks the button once the interaction has ended.
 */
import { describe, expect, it } from "vitest";
import { Agent, type AgentState, type ChatMessage } from "../src/agent/agent";
import { createProtocolParser } from "../src/protocol/parser";
import { createDemoModel, describeLlmError, DEMO_SCRIPTS, DEMO_UI_EVENT_REPLY, wrapFeedback } from "../src/llm";
import { MOUNT_OPEN, MOUNT_WAITING, UI_EVENT, type MountRealmMessage } from "../src/wire/mount";
import { createVirtualClock } from "./virtualClock";
import { createInProcessRealm, type InProcessRealm } from "./inProcessRealm";
import { createFakeCapabilityHost, type FakeCapabilityHost } from "./fakeCapabilityHost";
import { FETCH_CHART_URL } from "../src/llm/demoScripts/fetchChart";
import { createMcpServers } from "../src/capabilities/tools/createMcpServers";
import { createDemoMcpServer } from "../src/capabilities/tools/demoMcpServer";
import { createToolBroker, type ToolPermissionAsk } from "../src/capabilities/tools/createToolBroker";
import type { ToolAnswer } from "../src/capabilities/tools/toolPolicy";
import { createAiBroker, type AiAsk } from "../src/capabilities/ai/createAiBroker";
import { createDemoResponder } from "../src/capabilities/ai/demoResponder";
import { AI_CALL } from "../src/wire/capabilities";

/** The page's capabilities: the fetch demo's API answers with a fixed language breakdown. */
const LANGUAGES = {
  JavaScript: 4_300_000,
  TypeScript: 120_000,
  HTML: 60_000,
  CSS: 30_000,
  "C++": 20_000,
  CoffeeScript: 10_000,
  Shell: 5_000,
};
type FetchAnswer = Parameters<typeof createFakeCapabilityHost>[0];
const answerFetch: FetchAnswer = (request) =>
  request.url === FETCH_CHART_URL
    ? { body: JSON.stringify(LANGUAGES) }
    : { error: { code: "denied", message: "The person denied this request." } };

/**
 * The page's wiring, in Node. Tools: the demo model's `prepare` connects the
 * built-in demo MCP server (the SDK over an in-memory transport), its list
 * goes to the realm's `tools`, and calls go through the real tool broker,
 * where `answer` plays the person at the ask.
 */
function createAgent(options: { fetch?: FetchAnswer; answer?: ToolAnswer } = {}) {
  const servers = createMcpServers({ demoServer: createDemoMcpServer });
  const asked: ToolPermissionAsk[] = [];
  const answer = options.answer ?? "once";
  const broker = createToolBroker({ ask: async (request) => (asked.push(request), answer), audit: () => undefined });
  // Model calls from code: the real broker, the demo model's responder, a person who allows each call once.
  const aiAsked: AiAsk[] = [];
  const ai = createAiBroker({
    ask: async (request) => (aiAsked.push(request), "once"),
    audit: () => undefined,
    model: async () => ({ model: createDemoResponder({ delayMs: 0 }), name: "demo", failure: () => "unknown" }),
  });
  const host: FakeCapabilityHost = createFakeCapabilityHost(
    options.fetch ?? answerFetch,
    (payload) =>
      Promise.resolve(broker.service(payload, { signal: new AbortController().signal, service: "tool.call" })),
    (service, payload) =>
      Promise.resolve(
        (service === AI_CALL ? ai.call : ai.next)(payload, { signal: new AbortController().signal, service }),
      ),
  );
  // The scripts' `await sleep(800)` pace the demo for a person: a virtual clock keeps their order, not their wait.
  const realm = createInProcessRealm({ requests: host.requests, timers: createVirtualClock() });
  let prepared = 0;
  const agent = new Agent({
    model: () =>
      createDemoModel({
        delayMs: 0,
        firstTokenDelayMs: 0,
        prepare: async () => {
          prepared += 1;
          await servers.addDemo();
          broker.setTools(servers.connected());
          realm.setTools(servers.descriptors());
        },
      }),
    system: "",
    realm,
    createParser: createProtocolParser,
    describeError: (error) => describeLlmError(error),
    wrapFeedback,
  });
  return { agent, realm, host, asked, aiAsked, prepared: () => prepared, servers };
}

/** The person: once the form says it is waiting and the agent shows it, submits `values`; notes whether the agent was still busy. */
function submitWhenWaiting(agent: Agent, realm: InProcessRealm, values: Record<string, string | boolean>) {
  let busyWhileWaiting = false;
  const submitted = realm.host
    .waitFor((message) => message.kind === MOUNT_WAITING && message.waiting)
    .then(async (message) => {
      await until(agent, (state) => state.phase === "waiting-input");
      busyWhileWaiting = agent.busy && realm.host.mount(message.mountId).waiting;
      return realm.sendUiEvent(realm.host.submitEvent(message.mountId, values));
    });
  return { submitted, busyWhileWaiting: () => busyWhileWaiting };
}

function until(agent: Agent, predicate: (state: AgentState) => boolean, timeoutMs = 10_000): Promise<AgentState> {
  return new Promise((resolve, reject) => {
    if (predicate(agent.getState())) return resolve(agent.getState());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out; phase ${agent.getState().phase}`));
    }, timeoutMs);
    const stop = agent.subscribe((state) => {
      if (!predicate(state)) return;
      clearTimeout(timer);
      stop();
      resolve(state);
    });
  });
}

const PIZZA = { name: "Ada", size: "large", count: "2", extraCheese: true };

/** The person sends `message`; when `form` is given, they also fill in the form the reply mounts. */
async function play(message: string, form?: Record<string, string | boolean>) {
  const { agent, realm } = createAgent();
  const person = form ? submitWhenWaiting(agent, realm, form) : undefined;
  await agent.send(message);
  return { state: agent.getState(), agent, realm, person };
}

const replies = (messages: ChatMessage[]) =>
  messages.flatMap((message) => (message.role === "assistant" ? [message] : []));
const feedback = (messages: ChatMessage[]) =>
  messages.flatMap((message) => (message.role === "feedback" ? [message.body] : []));
/** Runtime output as the code printed it, without the "[block 1 line 30] " the agent puts before each line. */
const printed = (messages: ChatMessage[]) =>
  feedback(messages).flatMap((body) => body.split("\n").map((line) => line.replace(/^\[block [^\]]*\] /, "")));
const opened = (messages: MountRealmMessage[]) =>
  messages.flatMap((message) => (message.kind === MOUNT_OPEN ? [message] : []));

function expectCleanEnd(state: AgentState) {
  expect(state.phase).toBe("done");
  const all = replies(state.messages);
  expect(all.length).toBeGreaterThanOrEqual(1);
  for (const reply of all) {
    expect(reply.state).toBe("done");
    expect(reply.text).not.toMatch(/did not expect/);
    expect(reply.reply.protocolErrors).toEqual([]);
  }
  // The last reply hands control back: no code left running, no output.
  const last = all[all.length - 1];
  expect(
    last.reply.blocks.filter((block) => block.kind === "code" && block.statements.some((s) => s.logs.length > 0)),
  ).toEqual([]);
  expect(state.messages.filter((message) => message.role === "notice")).toEqual([]);
  // No error anywhere: not in the feedback, not in a statement.
  expect(feedback(state.messages).join("\n")).not.toMatch(/Error\b/);
}

describe("demo scripts", () => {
  it.each(
    DEMO_SCRIPTS.filter((script) => script.name !== "fix-error" && script.name !== "infinite-loop").map(
      (script) => [script.name, script] as const,
    ),
  )(
    "%s plays to the end through the real loop, without errors",
    async (_, script) => {
      const { state, realm } = await play(script.suggestion, script.name === "form" ? PIZZA : undefined);
      expectCleanEnd(state);
      for (const mount of realm.host.mounts.values()) {
        expect(mount.error, mount.mountId).toBeNull();
        // The page draws every node as written: known components, no dropped props or classes.
        expect(realm.host.drawProblems(mount.mountId)).toEqual([]);
      }
    },
    30_000,
  );

  it.each(
    DEMO_SCRIPTS.filter((script) => script.name === "fix-error" || script.name === "infinite-loop").map(
      (script) => [script.name, script] as const,
    ),
  )(
    "%s plays to the end through the real loop (its first turn fails on purpose)",
    async (_, script) => {
      const { state } = await play(script.suggestion);
      expect(state.phase).toBe("done");
      for (const reply of replies(state.messages)) {
        expect(reply.state).toBe("done");
        expect(reply.text).not.toMatch(/did not expect/);
        expect(reply.reply.protocolErrors).toEqual([]);
      }
      expect(state.messages.filter((message) => message.role === "notice")).toEqual([]);
    },
    30_000,
  );

  it("the error script really throws a TypeError and the fix really works", async () => {
    const script = DEMO_SCRIPTS.find((candidate) => candidate.name === "fix-error")!;
    const { state } = await play(script.suggestion);
    const outputs = feedback(state.messages);
    expect(outputs[0]).toMatch(/TypeError/);
    expect(outputs.slice(1).join("\n")).not.toMatch(/TypeError/);
  }, 30_000);

  it("the infinite-loop script is stopped by the loop guard", async () => {
    const script = DEMO_SCRIPTS.find((candidate) => candidate.name === "infinite-loop")!;
    const { state } = await play(script.suggestion);
    expect(feedback(state.messages)[0]).toMatch(/LoopGuardError|without yielding/);
  }, 30_000);
});

describe("generative UI demo scripts", () => {
  const script = (name: string) => DEMO_SCRIPTS.find((candidate) => candidate.name === name)!;

  it("form: the code waits for the person, then the next turn answers their values by name", async () => {
    const { state, realm, person } = await play(script("form").suggestion, PIZZA);
    expect(await person!.submitted).toBe(true);
    // The interaction stayed open while the form waited (the host shows the mount as waiting).
    expect(person!.busyWhileWaiting()).toBe(true);
    const [open] = opened(realm.host.messages);
    expect(open.title).toBe("Order a pizza");
    expect(realm.host.types(open.mountId)).toEqual(
      expect.arrayContaining(["form", "Input", "Select", "SelectItem", "Checkbox", "Button"]),
    );
    expect(realm.host.mount(open.mountId).waiting).toBe(false);
    expect(printed(state.messages)).toEqual(['order: {"name":"Ada","size":"large","count":2,"extraCheese":true}']);
    const all = replies(state.messages);
    expect(all).toHaveLength(2);
    expect(all[1].text).toContain("Thanks, **Ada**! That's **2 large pizzas**, with extra cheese.");
    // The mount is placed after the block that mounted it.
    expect(all[0].reply.mounts?.map((mount) => mount.mountId)).toEqual([open.mountId]);
  }, 30_000);

  it("form: an invalid submit shows errors on the fields and the code keeps waiting", async () => {
    const { agent, realm } = createAgent();
    const done = agent.send(script("form").suggestion);
    const waiting = await realm.host.waitFor((message) => message.kind === MOUNT_WAITING && message.waiting);
    realm.sendUiEvent(
      realm.host.submitEvent(waiting.mountId, { name: " ", size: "medium", count: "12", extraCheese: false }),
    );
    await realm.host.waitFor((message) => message.kind === "form-errors");
    expect(realm.host.mount(waiting.mountId).formErrors).toEqual({ name: "Who is it for?", count: "Ten at most" });
    expect(agent.busy).toBe(true);
    expect(realm.host.mount(waiting.mountId).waiting).toBe(true);
    realm.sendUiEvent(
      realm.host.submitEvent(waiting.mountId, { name: "Grace", size: "small", count: "1", extraCheese: false }),
    );
    await done;
    expectCleanEnd(agent.getState());
    expect(replies(agent.getState().messages)[1].text).toContain("Thanks, **Grace**! That's **1 small pizza**.");
  }, 30_000);

  it("progress: one mount, moved to the end by later statements through Data", async () => {
    const { state, realm } = await play(script("progress").suggestion);
    const mounts = opened(realm.host.messages);
    expect(mounts).toHaveLength(1);
    const first = JSON.stringify(mounts[0].snapshot);
    expect(first).toContain('"value":0');
    const id = mounts[0].mountId;
    const [bar] = realm.host.findAll(id, (node) => node.type === "Progress");
    expect(bar.props.value).toBe(100);
    expect(realm.host.html(id).match(/✓/g)).toHaveLength(4);
    expect(printed(state.messages)).toEqual(["backup finished: 4 of 4 steps"]);
  }, 30_000);

  it("chart: mounted empty before the data block, then holds all 12 streamed months", async () => {
    const { state, realm } = await play(script("chart").suggestion);
    const [open] = opened(realm.host.messages);
    expect(open.snapshot.nodes[0]).toMatchObject({ type: "LineChart", props: { data: [] } });
    const [chart] = realm.host.findAll(open.mountId, (node) => node.type === "LineChart");
    expect(chart.props.data).toHaveLength(12);
    expect(realm.host.types(open.mountId)).toEqual([
      "LineChart",
      "CartesianGrid",
      "XAxis",
      "YAxis",
      "Tooltip",
      "Legend",
      "Line",
    ]);
    expect(printed(state.messages)).toEqual(["months: 12 | warmest: Jul 28 | coolest: Jan 8"]);
  }, 30_000);

  it("button: the first turn ends; each click runs the callback and its output starts a UI-event turn the demo answers", async () => {
    const { state, agent, realm } = await play(script("button").suggestion);
    expectCleanEnd(state);
    expect(replies(state.messages)).toHaveLength(1);
    const [open] = opened(realm.host.messages);

    for (let click = 1; click <= 2; click += 1) {
      const eventId = agent.noteUiEvent();
      expect(realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Roll the die"), eventId })).toBe(true);
      const after = await until(
        agent,
        (current) =>
          current.phase === "done" &&
          replies(current.messages).length === 1 + click &&
          replies(current.messages).at(-1)!.state === "done",
      );
      const events = after.messages.flatMap((message) =>
        message.role === "feedback" && message.source === "ui-event" ? [message.body] : [],
      );
      expect(events).toHaveLength(click);
      // The click's output, then the mount its handler changed (named by the UI event's id on its ops).
      const rolled = /^\[block 1\] rolled (\d) \| rolls so far: ([\d, ]+)\nmount "Dice" updated$/.exec(
        events[click - 1],
      );
      expect(rolled, events[click - 1]).not.toBeNull();
      expect(rolled![2].split(", ")).toHaveLength(click);
      const answer = replies(after.messages).at(-1)!;
      expect(answer.text).not.toBe(DEMO_UI_EVENT_REPLY);
      expect(answer.text).toMatch(new RegExp(`\\*\\*${rolled![1]}\\*\\*`));
      expectCleanEnd(after);
      // The panel shows every roll.
      expect(realm.host.html(open.mountId)).toContain(`Rolls: ${rolled![2]}`);
    }
  }, 30_000);

  it("translator: Translate calls the model from the UI (asked first) and shows the demo's translation; no turn follows", async () => {
    const { agent, realm, aiAsked } = createAgent();
    await agent.send(script("translator").suggestion);
    const state = agent.getState();
    expectCleanEnd(state);
    const [open] = opened(realm.host.messages);
    expect(open.title).toBe("Translator");
    const eventId = agent.noteUiEvent();
    expect(realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Translate"), eventId })).toBe(true);
    await expect.poll(() => realm.host.html(open.mountId), { timeout: 5_000 }).toContain("Bonjour, mon ami");
    expect(aiAsked).toMatchObject([{ excerpt: "Translate to French: Good morning, my friend", maxTokens: 200 }]);
    // Another language: the button picks it, the next call translates into it.
    realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Spanish"), eventId: agent.noteUiEvent() });
    await expect.poll(() => realm.host.html(open.mountId)).toMatch(/variant="default"[^>]*>Spanish/);
    realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Translate"), eventId: agent.noteUiEvent() });
    await expect.poll(() => realm.host.html(open.mountId), { timeout: 5_000 }).toContain("Buenos días, mi amigo");
    // The model call is not a turn: no feedback, no further reply.
    expect(agent.getState().phase).toBe("done");
    expect(replies(agent.getState().messages)).toHaveLength(1);
    expect(feedback(agent.getState().messages)).toEqual([]);
  }, 30_000);

  it("dashboard: the shell shows placeholders first, then every slot fills", async () => {
    const { state, realm } = await play(script("dashboard").suggestion);
    const [open] = opened(realm.host.messages);
    expect(JSON.stringify(open.snapshot).match(/"Skeleton"/g)).toHaveLength(3);
    expect(JSON.stringify(open.snapshot)).not.toContain("BarChart");
    const types = realm.host.types(open.mountId);
    expect(types).not.toContain("Skeleton");
    expect(types).toEqual(expect.arrayContaining(["Card", "BarChart", "Bar", "Table", "TableRow", "TableCell"]));
    expect(realm.host.html(open.mountId)).toContain("$12,930");
    expect(printed(state.messages)).toEqual(["revenue: 12930 | orders: 277 | busiest day: Sat 3120"]);
  }, 30_000);

  it("fetch: asks the host for the API, charts what came back, and explains it", async () => {
    const { agent, realm, host } = createAgent();
    await agent.send(script("fetch").suggestion);
    const state = agent.getState();
    expectCleanEnd(state);
    expect(host.fetched.map((request) => [request.method, request.url])).toEqual([["GET", FETCH_CHART_URL]]);
    const [open] = opened(realm.host.messages);
    const [chart] = realm.host.findAll(open.mountId, (node) => node.type === "BarChart");
    expect((chart.props.data as { name: string }[]).map((row) => row.name)).toEqual([
      "JavaScript",
      "TypeScript",
      "HTML",
      "CSS",
      "C++",
      "CoffeeScript",
    ]);
    expect(replies(state.messages).at(-1)!.text).toContain("**JavaScript** leads with about 4199 KB");
  }, 30_000);

  it("fetch: a denial ends the demo politely, without pretending", async () => {
    const { agent } = createAgent({
      fetch: () => ({ error: { code: "denied", message: "The person denied this request: GET x." } }),
    });
    await agent.send(script("fetch").suggestion);
    const last = replies(agent.getState().messages).at(-1)!;
    expect(last.text).toMatch(/You chose not to let that request through/);
    expect(agent.getState().phase).toBe("done");
  }, 30_000);

  it("fetch: offline, it says plainly that it needs the network, and charts nothing", async () => {
    // What the page's network capability answers when the request cannot leave the browser.
    const { agent, realm } = createAgent({
      fetch: (request) => ({
        error: {
          code: "cors",
          message: `GET ${request.url} failed: the server does not allow browser requests from this page (no CORS headers) or could not be reached. There is no proxy; use an API that allows browser requests.`,
        },
      }),
    });
    await agent.send(script("fetch").suggestion);
    const [first, last] = [replies(agent.getState().messages)[0], replies(agent.getState().messages).at(-1)!];
    expect(first.text).toContain("This one needs the network");
    expect(last.text).toMatch(/^This demo needs the network, and the request to api\.github\.com got no answer/);
    expect(opened(realm.host.messages)).toHaveLength(0);
    expect(agent.getState().phase).toBe("done");
  }, 30_000);

  it("csv: a file chosen in the mount is read, charted, and answered", async () => {
    const { agent, realm, host } = createAgent();
    await agent.send(script("csv").suggestion);
    const [open] = opened(realm.host.messages);
    const [input] = realm.host.findAll(open.mountId, (node) => node.type === "input");
    const file = host.choose("sales.csv", "month,sales\nJan,12\nFeb,19\nMar,7\n");
    const eventId = agent.noteUiEvent();
    expect(
      realm.sendUiEvent({
        type: UI_EVENT,
        mountId: open.mountId,
        nodeId: input.id,
        handler: "onChange",
        payload: { files: [file] },
        eventId,
      }),
    ).toBe(true);
    const after = await until(
      agent,
      (current) =>
        current.phase === "done" &&
        replies(current.messages).length === 2 &&
        replies(current.messages).at(-1)!.state === "done",
    );
    expectCleanEnd(after);
    expect(replies(after.messages).at(-1)!.text).toContain("Charted **sales.csv**: 3 rows of *sales* by *month*");
    const [chart] = realm.host.findAll(open.mountId, (node) => node.type === "BarChart");
    expect(chart.props.data).toEqual([
      { label: "Jan", value: 12 },
      { label: "Feb", value: 19 },
      { label: "Mar", value: 7 },
    ]);
  }, 30_000);

  it("tools: connects the demo MCP server, lists its tools, asks, and draws the film the tool returned", async () => {
    const { agent, realm, asked, prepared, servers } = createAgent();
    await agent.send(script("tools").suggestion);
    const state = agent.getState();
    expectCleanEnd(state);
    expect(prepared()).toBeGreaterThanOrEqual(1);
    expect(servers.list().map((server) => server.name)).toEqual(["demo-films"]);
    expect(asked.map((ask) => [ask.server, ask.tool, ask.arguments])).toEqual([
      ["demo-films", "lookup_film", [{ name: "title", value: '"Dune"' }]],
    ]);
    expect(printed(state.messages)).toContain("tools: lookup_film, add_to_watchlist");
    const [open] = opened(realm.host.messages);
    const [title] = realm.host.findAll(open.mountId, (node) => node.type === "CardTitle");
    expect(JSON.stringify(title)).toContain("Dune");
    expect(JSON.stringify(title)).toContain("2021");
    expect(replies(state.messages).at(-1)!.text).toContain("That's **Dune** (2021), directed by Denis Villeneuve");
  }, 30_000);

  it("tools: a denial ends the demo politely", async () => {
    const { agent } = createAgent({ answer: "deny" });
    await agent.send(script("tools").suggestion);
    expect(replies(agent.getState().messages).at(-1)!.text).toMatch(/You chose not to let that tool run/);
    expect(agent.getState().phase).toBe("done");
  }, 30_000);
});
