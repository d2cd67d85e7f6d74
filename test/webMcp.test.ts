/**
 * The session offered to in-browser agents (src/agent/webMcp.ts) against a
 * stand-in ModelContext, with the real agent loop and an in-process realm:
 * when the tools are registered and unregistered, and what each tool does.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../src/agent/agent";
import type { ChannelAudit } from "../src/agent/agentChannel";
import {
  WEBMCP_NOT_OFFERED,
  WEBMCP_RUN_REJECTED,
  WEBMCP_TOOL_NAMES,
  WebMcpTools,
  findModelContext,
  type ModelContextLike,
  type WebMcpTool,
} from "../src/agent/webMcp";
import { createProtocolParser } from "../src/protocol/parser";
import { wrapFeedback } from "../src/llm/feedbackMessage";
import { createInProcessRealm } from "./inProcessRealm";

const FENCE = "```";

/** The current draft's shape: registerTool(tool, { signal }) → a promise; the signal unregisters. */
class StandInContext implements ModelContextLike {
  readonly tools = new Map<string, WebMcpTool>();
  readonly calls: { tool: WebMcpTool; signal: AbortSignal | undefined }[] = [];
  unregisterTool?: (name: string) => void;
  registerTool(tool: WebMcpTool, options?: { signal?: AbortSignal }): Promise<void> {
    if (this.tools.has(tool.name)) return Promise.reject(new DOMException("exists", "InvalidStateError"));
    this.tools.set(tool.name, tool);
    this.calls.push({ tool, signal: options?.signal });
    const signal = options?.signal;
    return new Promise((resolve, reject) => {
      signal?.addEventListener("abort", () => {
        if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
        reject(signal.reason);
      });
      resolve();
    });
  }
}

/** `null`: a browser without WebMCP. */
function setup(given: ModelContextLike | null = new StandInContext()) {
  const modelContext = given ?? undefined;
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
  const audit: ChannelAudit[] = [];
  let session: string | undefined = "s1";
  let id = 0;
  const tools = new WebMcpTools({
    modelContext,
    agent: () => agent,
    session: () => session,
    audit: (entry) => audit.push(entry),
    newId: () => `id${++id}`,
    now: () => 1_000,
  });
  return {
    agent,
    tools,
    audit,
    context: modelContext as StandInContext,
    open: (next: string | undefined) => {
      session = next;
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 500 && !check(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(check()).toBe(true);
}

describe("findModelContext", () => {
  it("prefers document.modelContext, falls back to navigator.modelContext, and finds nothing without registerTool", () => {
    const current = { registerTool: () => Promise.resolve() };
    const earlier = { registerTool: () => ({ unregister() {} }) };
    expect(findModelContext({ document: { modelContext: current }, navigator: { modelContext: earlier } })).toBe(
      current,
    );
    expect(findModelContext({ document: {}, navigator: { modelContext: earlier } })).toBe(earlier);
    expect(findModelContext({ document: {}, navigator: {} })).toBeUndefined();
    expect(findModelContext({ document: { modelContext: {} } })).toBeUndefined();
  });
});

describe("WebMcpTools registration", () => {
  it("never registers when the browser has no WebMCP", () => {
    const { tools } = setup(null);
    expect(tools.available).toBe(false);
    tools.update({ sessionId: "s1", enabled: true });
    expect(tools.getState().registeredFor).toBeUndefined();
  });

  it("registers the three tools only while switched on, with honest annotations, and the signal unregisters them when switched off", async () => {
    const { tools, context, audit } = setup();
    tools.update({ sessionId: "s1", enabled: false });
    expect(context.calls).toEqual([]);
    tools.update({ sessionId: "s1", enabled: true });
    expect([...context.tools.keys()]).toEqual([...WEBMCP_TOOL_NAMES]);
    const byName = Object.fromEntries(context.calls.map(({ tool }) => [tool.name, tool]));
    expect(byName.livemark_read_session.annotations).toEqual({ readOnlyHint: true, untrustedContentHint: true });
    expect(byName.livemark_run.annotations).toEqual({ readOnlyHint: false, untrustedContentHint: true });
    expect(byName.livemark_report.annotations).toEqual({ readOnlyHint: false, untrustedContentHint: false });
    expect(byName.livemark_run.inputSchema).toMatchObject({ type: "object", required: ["markdown"] });
    expect(context.calls.every(({ signal }) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
    expect(tools.getState().registeredFor).toBe("s1");
    // The same target again changes nothing.
    tools.update({ sessionId: "s1", enabled: true });
    expect(context.calls).toHaveLength(3);

    tools.update({ sessionId: "s1", enabled: false });
    expect(context.calls.every(({ signal }) => signal?.aborted)).toBe(true);
    expect(context.tools.size).toBe(0);
    expect(tools.getState().registeredFor).toBeUndefined();
    expect(audit.map((entry) => [entry.method, entry.decision, entry.reason])).toEqual([
      ["register", "registered", WEBMCP_TOOL_NAMES.join(", ")],
      ["unregister", "unregistered", "switched off"],
    ]);
  });

  it("a session switch unregisters the previous session's tools and registers the next one's only if its switch is on; unload unregisters", () => {
    const { tools, context, audit } = setup();
    tools.update({ sessionId: "s1", enabled: true });
    const first = context.calls.map(({ signal }) => signal);
    tools.update({ sessionId: "s2", enabled: true });
    expect(first.every((signal) => signal?.aborted)).toBe(true);
    expect(context.calls).toHaveLength(6);
    expect(tools.getState().registeredFor).toBe("s2");
    tools.update({ sessionId: "s3", enabled: false });
    expect(context.tools.size).toBe(0);
    expect(audit.filter((entry) => entry.method === "unregister").map((entry) => entry.reason)).toEqual([
      "another session opened",
      "another session opened",
    ]);
    tools.update({ sessionId: "s3", enabled: true });
    expect(context.tools.size).toBe(3);
    tools.dispose();
    expect(context.tools.size).toBe(0);
    expect(audit.at(-1)).toMatchObject({ method: "unregister", reason: "the page unloads" });
    // Nothing registers after unload.
    tools.update({ sessionId: "s4", enabled: true });
    expect(context.tools.size).toBe(0);
  });

  it("builds that answer with a handle, or that have unregisterTool, are unregistered through those too", async () => {
    const unregistered: string[] = [];
    const handles: ModelContextLike = {
      registerTool: (tool) => ({ unregister: () => unregistered.push(`handle ${tool.name}`) }),
      unregisterTool: (name) => unregistered.push(`unregisterTool ${name}`),
    };
    const { tools } = setup(handles);
    tools.update({ sessionId: "s1", enabled: true });
    // The handles arrive through a resolved promise.
    await new Promise((resolve) => setTimeout(resolve, 0));
    tools.update({ sessionId: "s1", enabled: false });
    expect(unregistered.sort()).toEqual(
      WEBMCP_TOOL_NAMES.flatMap((name) => [`handle ${name}`, `unregisterTool ${name}`]).sort(),
    );
  });
});

describe("WebMcpTools tools", () => {
  it("livemark_run waits for the person: Reject answers an error and nothing runs; Allow once runs it and answers its output", async () => {
    const { agent, tools, context, audit } = setup();
    tools.update({ sessionId: "s1", enabled: true });
    const run = context.tools.get("livemark_run")!;
    const rejected = run.execute({ markdown: `${FENCE}ts agent.run\nconsole.log("never", 0)\n${FENCE}\n` });
    await until(() => tools.getState().pendingRuns.length === 1);
    expect(tools.getState().pendingRuns[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    tools.rejectRun(tools.getState().pendingRuns[0].id);
    await expect(rejected).rejects.toThrow(WEBMCP_RUN_REJECTED);
    expect(agent.getState().messages.some((message) => message.role === "assistant")).toBe(false);

    const allowed = run.execute({ markdown: `${FENCE}ts agent.run\nconsole.log("sum", 2 + 3)\n${FENCE}\n` });
    await until(() => tools.getState().pendingRuns.length === 1);
    tools.allowRun(tools.getState().pendingRuns[0].id);
    const result = await allowed;
    expect(result.content[0].text).toContain("sum 5");
    expect(result.structuredContent).toMatchObject({ state: "done" });
    expect(agent.getState().messages.filter((message) => message.role === "assistant")).toHaveLength(1);
    expect(audit.filter((entry) => entry.method === "livemark_run").map((entry) => entry.decision)).toEqual([
      "asked",
      "rejected",
      "asked",
      "allowed once",
    ]);
  });

  it("switching off answers a waiting run, and a tool kept from an earlier registration refuses", async () => {
    const { agent, tools, context, audit } = setup();
    tools.update({ sessionId: "s1", enabled: true });
    const run = context.tools.get("livemark_run")!;
    const read = context.tools.get("livemark_read_session")!;
    const waiting = run.execute({ markdown: `${FENCE}ts agent.run\nconsole.log(1)\n${FENCE}\n` });
    await until(() => tools.getState().pendingRuns.length === 1);
    tools.update({ sessionId: "s1", enabled: false });
    await expect(waiting).rejects.toThrow(WEBMCP_NOT_OFFERED);
    expect(tools.getState().pendingRuns).toEqual([]);
    await expect(read.execute({})).rejects.toThrow(WEBMCP_NOT_OFFERED);
    expect(agent.getState().messages.some((message) => message.role === "assistant")).toBe(false);
    // Each refusal is one line of the session's audit list, with its reason.
    expect(
      audit
        .filter((entry) => entry.decision === "refused")
        .map((entry) => ({ method: entry.method, reason: entry.reason })),
    ).toEqual([
      { method: "livemark_run", reason: "not offered any more" },
      { method: "livemark_read_session", reason: "not offered any more" },
    ]);
  });

  it("a tool of the previous session refuses once another session is open, even before the switch reaches it", async () => {
    const { tools, context, open } = setup();
    tools.update({ sessionId: "s1", enabled: true });
    const read = context.tools.get("livemark_read_session")!;
    open("s2");
    await expect(read.execute({})).rejects.toThrow(WEBMCP_NOT_OFFERED);
  });

  it("livemark_read_session answers the session as untrusted content; livemark_report shows in the timeline; bad input is refused", async () => {
    const { agent, tools, context } = setup();
    agent.record({ id: "u1", role: "user", text: "Plan a trip", createdAt: 1 });
    tools.update({ sessionId: "s1", enabled: true });
    const read = await context.tools.get("livemark_read_session")!.execute({});
    expect(read.structuredContent).toMatchObject({
      trust: "untrusted",
      total: 1,
      messages: [{ index: 0, id: "u1", role: "user", text: "Plan a trip" }],
    });
    expect(read.content[0].text).toMatch(/^\[untrusted application content\]/);
    const report = context.tools.get("livemark_report")!;
    await report.execute({ kind: "reply", text: "Done: the trip is planned", summary: { status: "done" } });
    expect(agent.getState().messages.at(-1)).toMatchObject({
      role: "agent",
      kind: "reply",
      text: "Done: the trip is planned",
      agent: "agent in this browser",
    });
    await expect(report.execute({ kind: "question", text: "?" })).rejects.toThrow(/Invalid input/);
    await expect(context.tools.get("livemark_run")!.execute({ markdown: 42 })).rejects.toThrow(/Invalid input/);
  });
});
