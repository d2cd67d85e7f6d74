/**
 * The tool broker (DESIGN.md §4): the host service behind `tools.<name>(args)`
 * in the realm (TOOL_CALL). It decides with the pure rules (toolPolicy.ts),
 * asks the person when they say so — showing the tool, its server and the
 * arguments — and makes the MCP call through the host's client (the
 * connection, its URL and any token never leave the host). Every decision
 * and call becomes one audit record; a result is outside content (the
 * controller labels the feedback that follows it untrusted).
 *
 * The realm's payload is read for the call only (tool name, arguments):
 * nothing in it can choose the decision. A tool's grants are keyed by its
 * server's address (`ConnectedTool.address`: the URL's origin and path),
 * never by the name the server gives itself. The realm validated the arguments
 * against the tool's schema already; the server validates them again.
 */
import { HostServiceError } from "../../sandbox/HostServiceError";
import type { HostService } from "../../sandbox/types";
import type { ToolCallResponse, ToolDescriptor } from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import { createCapabilityCore, sha256Hex } from "../createCapabilityCore";
import type { ToolUi } from "./mcpApps/toolUi";
import { formatToolArguments, type ShownArgument } from "./toolArguments";
import {
  DEFAULT_TOOL_POLICY,
  allowTool,
  answerToolAsk,
  canonicalJson,
  decideTool,
  forgetServer,
  parseToolKey,
  revokeTool as withoutTool,
  setReadOnlyAllowed,
  spendToolGrant,
  toolKey,
  type ToolAction,
  type ToolAnswer,
  type ToolAuditDecision,
  type ToolPolicyState,
} from "./toolPolicy";

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** The largest result handed to code (its JSON). */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 5 * 1024 * 1024;

/** A tool call's result as MCP returns it (CallToolResult). */
export interface McpToolResult {
  content?: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** A tool the host can call: its descriptor and the call itself (the host's MCP client). */
export interface ConnectedTool {
  descriptor: ToolDescriptor;
  /** Its server's address (`serverAddress(url)`): what its grants and the read-only switch are keyed by. */
  address: string;
  call(args: Record<string, JsonValue>, signal: AbortSignal): Promise<McpToolResult>;
  /** Its MCP App view, when it declares one (mcpApps/). */
  ui?: ToolUi;
}

/** What the person is asked (shown inline in the timeline). */
export interface ToolPermissionAsk {
  id: string;
  capability: "tool";
  /** The property of `tools` the code called. */
  name: string;
  /** The server's short name (made unique in this page), for the person to read. */
  server: string;
  /** The server's address (origin and path of its URL): what "Always allow this tool" is granted for. */
  serverUrl: string;
  tool: string;
  /**
   * Every top-level argument, whole (toolArguments.ts: names and JSON values with invisible
   * characters marked). A call too large to show this way is refused instead of asked.
   */
  arguments: readonly ShownArgument[];
  readOnly: boolean;
  /** Set when the tool's MCP App view made the call, not the code. */
  via?: "app";
}

export interface ToolAuditRecord {
  at: number;
  capability: "tool";
  method: "CALL";
  /** `server/tool`, as the person knows it. */
  url: string;
  /** The server's address (origin and path of its URL). */
  server: string;
  decision: ToolAuditDecision;
  /** Argument bytes. */
  bytesOut: number;
  /** Result bytes (its JSON). */
  bytes?: number;
  /** "ok", "tool-error", or why it failed (denied, too-large-to-ask, failed, timeout, revoked, aborted, too-large). */
  result: string;
  reason?: string;
  /** Set when the tool's MCP App view made the call, not the code. */
  via?: "app";
}

export interface ToolBrokerOptions {
  initial?: ToolPolicyState;
  ask(request: ToolPermissionAsk, signal: AbortSignal): Promise<ToolAnswer>;
  audit(record: ToolAuditRecord): void;
  /** The rules changed (a tool allowed, a switch set): persist them. */
  onChange?(state: ToolPolicyState): void;
  sha256?(text: string): Promise<string>;
  newId?(): string;
  now?(): number;
  timeoutMs?: number;
  maxResultBytes?: number;
}

export interface ToolBroker {
  /** Provide it as `realm.provide(TOOL_CALL, broker.service)`. */
  service: HostService;
  /**
   * A call by a tool's MCP App view (`tools/call`, mcpApps/): its own server's tool, under the same rules,
   * asks and audit as the code's (the ask and the record say a view made it). Resolves with the server's
   * result as is (an `isError` one too).
   */
  callFromView(tool: ConnectedTool, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult>;
  state(): ToolPolicyState;
  /**
   * Another session opened: its rules replace these; calls in flight are aborted, unless
   * `keepCalls` (the same session's saved grants arriving: the rules only widen).
   */
  load(state: ToolPolicyState, options?: { keepCalls?: boolean }): void;
  setStrict(strict: boolean): void;
  /** "Always allow this tool", from outside an ask (e.g. restoring a grant); `key` is `toolKey(address, tool)`. */
  allowTool(key: string): void;
  /** Later calls of the tool ask again; calls in flight that it allowed are aborted. */
  revokeTool(key: string): void;
  /** Allow (or stop allowing) a server's read-only-annotated tools without asking (`address`: its serverAddress). */
  setReadOnlyAllowed(address: string, allowed: boolean): void;
  /** A server was removed: its tools' grants and its read-only switch go with it (calls in flight they allowed are aborted). */
  forgetServer(address: string): void;
  /** The connected tools (replaces the list; a call of a tool no longer listed fails `unknown-tool`). */
  setTools(tools: readonly ConnectedTool[]): void;
  tools(): ToolDescriptor[];
  inFlight(): number;
  subscribe(listener: (state: ToolPolicyState) => void): () => void;
}

/** The text parts of a result, joined; other parts are named, not inlined. */
export function resultText(content: readonly unknown[] | undefined): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      const item = part as {
        type?: unknown;
        text?: unknown;
        mimeType?: unknown;
        resource?: { uri?: unknown; text?: unknown };
      } | null;
      if (!item || typeof item !== "object") return "";
      if (item.type === "text" && typeof item.text === "string") return item.text;
      if (item.type === "resource" && typeof item.resource?.text === "string") return item.resource.text;
      if (item.type === "resource_link" || item.type === "resource")
        return `[resource ${String((item as { uri?: unknown }).uri ?? item.resource?.uri ?? "")}]`;
      return `[${String(item.type)}${typeof item.mimeType === "string" ? ` ${item.mimeType}` : ""}]`;
    })
    .filter((text) => text !== "")
    .join("\n");
}

export function createToolBroker(options: ToolBrokerOptions): ToolBroker {
  let connected = new Map<string, ConnectedTool>();
  /** A key in the person's words: `server/tool` while its server is connected, else the key itself. */
  const labelOf = (key: string) => {
    const tool = [...connected.values()].find((item) => toolKey(item.address, item.descriptor.tool) === key);
    return tool ? `${tool.descriptor.server}/${tool.descriptor.tool}` : key;
  };
  const sha256 = options.sha256 ?? ((text: string) => sha256Hex(new TextEncoder().encode(text)));
  const newId = options.newId ?? (() => crypto.randomUUID());
  const now = options.now ?? (() => Date.now());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxBytes = options.maxResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES;
  const core = createCapabilityCore({
    initial: options.initial ?? DEFAULT_TOOL_POLICY,
    rules: {
      decide: decideTool,
      answer: answerToolAsk,
      spend: spendToolGrant,
      remembers: "tool" as ToolAnswer,
      refuses: "deny" as ToolAnswer,
    },
    onChange: options.onChange,
    newId,
  });

  /**
   * One call under the session's rules, whoever makes it: the code (`service`) or a tool's own MCP App view
   * (`callFromView`, mcpApps/). Asks when they say so, records, calls within the time and size limits. An
   * `isError` result is recorded `tool-error` and returned: each caller says it its own way.
   */
  const decideAndCall = async (
    tool: ConnectedTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
    via: "code" | "app",
  ): Promise<{ result: McpToolResult; text: string; structured: JsonValue | null; size: number }> => {
    const { descriptor } = tool;
    const json = canonicalJson(args);
    const label = `${descriptor.server}/${descriptor.tool}`;
    const action: ToolAction = {
      server: tool.address,
      tool: descriptor.tool,
      label,
      readOnly: descriptor.readOnly,
      argumentsHash: await sha256(json),
      argumentsSize: new TextEncoder().encode(json).length,
    };
    const key = toolKey(tool.address, descriptor.tool);
    const record = (entry: Omit<ToolAuditRecord, "at" | "capability" | "method" | "url" | "server" | "bytesOut">) =>
      options.audit({
        at: now(),
        capability: "tool",
        method: "CALL",
        url: label,
        server: tool.address,
        bytesOut: action.argumentsSize,
        ...(via === "app" ? { via } : {}),
        ...entry,
      });

    const verdict = await core.decide(action, {
      ask: (id) => {
        // Never ask about what cannot be shown whole: the person's answer covers every byte of the call.
        const shown = formatToolArguments(args, action.argumentsSize);
        if (!shown.ok) {
          const message = `${label} was not called: ${shown.reason}. Pass less in one call (split the work, or pass a short reference instead of the content).`;
          // The core records the refusal (result "too-large-to-ask", the reason in its message).
          return Promise.reject(new HostServiceError("too-large-to-ask", message));
        }
        return options.ask(
          {
            id,
            capability: "tool",
            name: descriptor.name,
            server: descriptor.server,
            serverUrl: tool.address,
            tool: descriptor.tool,
            arguments: shown.arguments,
            readOnly: descriptor.readOnly,
            ...(via === "app" ? { via } : {}),
          },
          signal,
        );
      },
      signal,
      description: label,
      scope: key,
      record,
    });
    if (!verdict.allowed) {
      record({ decision: "denied", result: "denied", reason: verdict.reason });
      throw new HostServiceError("denied", verdict.decision.message);
    }
    const { decision, auditDecision } = verdict;

    const call = {
      scope: key,
      basis: decision.basis,
      description: label,
      signal,
      timeoutMs,
      cancelledMessage: `${label} was cancelled`,
      auditDecision,
      record,
    };
    return core.perform(call, async (callSignal, ended) => {
      let result: McpToolResult;
      try {
        result = await tool.call(args as Record<string, JsonValue>, callSignal);
      } catch (error) {
        if (ended()) throw ended();
        const message = String((error as Error)?.message ?? error);
        record({ decision: auditDecision, result: "failed", reason: message.slice(0, 500) });
        throw new HostServiceError("failed", `${label} failed: ${message}`);
      }
      // A call ended meanwhile (cancel, timeout, revoke) was settled and recorded already; a late result is dropped.
      if (ended()) throw ended();
      const text = resultText(result.content);
      const structured =
        result.structuredContent !== undefined && result.structuredContent !== null
          ? (result.structuredContent as JsonValue)
          : null;
      const answer: ToolCallResponse = { structured, text };
      const size = new TextEncoder().encode(JSON.stringify(answer)).length;
      if (result.isError) {
        record({ decision: auditDecision, bytes: size, result: "tool-error" });
        return { result, text, structured, size };
      }
      if (size > maxBytes) {
        record({ decision: auditDecision, bytes: size, result: "too-large" });
        throw new HostServiceError(
          "too-large",
          `the result of ${label} is ${size} bytes, over the ${maxBytes / 1024 / 1024} MB limit`,
        );
      }
      record({ decision: auditDecision, bytes: size, result: "ok" });
      return { result, text, structured, size };
    });
  };

  const service: HostService = async (payload, { signal }) => {
    const input = payload as { name?: unknown; arguments?: unknown } | null;
    if (!input || typeof input !== "object" || typeof input.name !== "string")
      throw new HostServiceError("invalid", "a tool call needs a tool name");
    const args = input.arguments;
    if (!args || typeof args !== "object" || Array.isArray(args))
      throw new HostServiceError("invalid", "a tool's arguments are one object");
    const tool = connected.get(input.name);
    if (!tool) {
      const names = [...connected.keys()];
      throw new HostServiceError(
        "unknown-tool",
        `no connected tool is named "${input.name.slice(0, 100)}"` +
          (names.length > 0
            ? `; connected: ${names.slice(0, 20).join(", ")}`
            : "; no MCP server is connected (Session settings)"),
      );
    }
    const { result, text, structured } = await decideAndCall(tool, args as Record<string, unknown>, signal, "code");
    if (result.isError)
      throw new HostServiceError(
        "tool-error",
        text || `${tool.descriptor.server}/${tool.descriptor.tool} reported an error without a message`,
      );
    const answer: ToolCallResponse = { structured, text };
    return answer as unknown as JsonValue;
  };

  return {
    service,
    async callFromView(tool, args, signal) {
      if (!args || typeof args !== "object" || Array.isArray(args))
        throw new HostServiceError("invalid", "a tool's arguments are one object");
      return (await decideAndCall(tool, args, signal, "app")).result;
    },
    state: core.state,
    load(state, options) {
      if (!options?.keepCalls)
        core.abortWhere(() => true, new HostServiceError("aborted", "another session was opened"));
      core.change(state, false);
    },
    setStrict(strict) {
      core.change({ ...core.state(), strict });
    },
    allowTool(key) {
      core.change(allowTool(core.state(), key));
    },
    revokeTool(key) {
      core.abortWhere(
        (flight) => flight.scope === key && flight.basis === "tool",
        new HostServiceError("revoked", `the person revoked ${labelOf(key)}; the call was aborted`),
      );
      core.change(withoutTool(core.state(), key));
    },
    setReadOnlyAllowed(address, allowed) {
      if (!allowed) {
        core.abortWhere(
          (flight) => parseToolKey(flight.scope)?.address === address && flight.basis === "read-only",
          new HostServiceError(
            "revoked",
            `the person stopped allowing the read-only tools of ${address}; the call was aborted`,
          ),
        );
      }
      core.change(setReadOnlyAllowed(core.state(), address, allowed));
    },
    forgetServer(address) {
      core.abortWhere(
        (flight) => parseToolKey(flight.scope)?.address === address,
        new HostServiceError("revoked", `the person removed the MCP server ${address}; the call was aborted`),
      );
      core.change(forgetServer(core.state(), address));
    },
    setTools(tools) {
      connected = new Map(tools.map((tool) => [tool.descriptor.name, tool]));
      const keys = new Set(tools.map((tool) => toolKey(tool.address, tool.descriptor.tool)));
      core.abortWhere(
        (flight) => !keys.has(flight.scope),
        new HostServiceError("aborted", "its MCP server was removed; the call was aborted"),
      );
    },
    tools: () => [...connected.values()].map((tool) => tool.descriptor),
    inFlight: core.inFlight,
    subscribe: core.subscribe,
  };
}
