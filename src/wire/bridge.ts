import { z } from "zod";

/**
 * The page ↔ bridge protocol (DESIGN.md §4b), declared once: the bridge
 * (bridge/server.ts) and the page (src/agent/agentChannel.ts) both validate
 * every message they receive with these schemas and infer their types from
 * them. Pure: no Node, no DOM.
 *
 * The page opens one channel per WebSocket; the bridge answers with a code.
 * The agent's tool calls become requests to the page (`request` → `response`,
 * matched by `requestId`); the person's messages become commands in the
 * channel's mailbox (`command`), which agents long-poll.
 */

export const BRIDGE_WIRE_VERSION = 1;
export const DEFAULT_BRIDGE_PORT = 4737;
export const DEFAULT_BRIDGE_ADDRESS = `ws://127.0.0.1:${DEFAULT_BRIDGE_PORT}/page`;
/** An unused channel code expires after this long. */
export const CODE_TTL_MS = 10 * 60_000;
/** What a wait returns when the channel is gone (End channel, tab closed). */
export const CHANNEL_CLOSED = "channel closed";
/** A page that went away (a reload, a closed tab) may resume its channel this long; then the channel ends. */
export const RESUME_GRACE_MS = 2 * 60_000;
/** What an agent's call to the page hears while the page is away within that grace. */
export const PAGE_AWAY = "The person's page is reconnecting (a reload): call again in a moment.";

const MAX_TEXT = 200_000;
const shortText = z.string().max(2_000);
const id = z.string().min(1).max(200);

/** What the person selected in the timeline: application content, untrusted. */
export const selectionSchema = z.object({
  kind: z.enum(["message", "mount"]),
  id,
  /** e.g. "reply", "your message", "mount “Trip planner”". */
  label: shortText,
  /** The message's text, or the mount's current tree as JSON (bounded by the page). */
  content: z.string().max(MAX_TEXT),
});
export type Selection = z.infer<typeof selectionSchema>;

/** A command as the page sends it; the bridge adds the sequence number. */
export const commandInputSchema = z.object({
  commandId: id,
  sessionId: id,
  /** `answer`: the person's answer to the agent's question `answerTo`. */
  kind: z.enum(["message", "answer"]),
  text: z.string().min(1).max(MAX_TEXT),
  answerTo: z.object({ commandId: id, question: z.string().max(MAX_TEXT) }).optional(),
  selection: selectionSchema.optional(),
  /** When the page captured the selection (and the command). */
  capturedAt: z.number().nonnegative(),
  /** The title of the session the person is in (session content: untrusted). */
  sessionTitle: shortText.optional(),
  /** The person moved to this session from another since the previous command. */
  switchedFrom: z.object({ sessionId: id, title: shortText }).optional(),
});
export type CommandInput = z.infer<typeof commandInputSchema>;

export const reportSummarySchema = z.object({
  status: z.enum(["done", "partial", "failed"]),
  changed: z
    .object({
      mounts: z.array(shortText).max(100).optional(),
      data: z.array(shortText).max(100).optional(),
      grants: z.array(shortText).max(100).optional(),
    })
    .optional(),
  checks: z.array(shortText).max(100).optional(),
});
export type ReportSummary = z.infer<typeof reportSummarySchema>;

export const REPORT_KINDS = ["status", "question", "reply", "error"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** What the bridge asks of the page on an agent's behalf. */
export const pageRequestSchema = z.discriminatedUnion("method", [
  z.object({ method: z.literal("join") }),
  z.object({ method: z.literal("run"), commandId: id, markdown: z.string().max(MAX_TEXT) }),
  z.object({
    method: z.literal("report"),
    commandId: id,
    kind: z.enum(REPORT_KINDS),
    text: z.string().max(MAX_TEXT),
    summary: reportSummarySchema.optional(),
  }),
  z.object({
    method: z.literal("read-session"),
    from: z.number().int().nonnegative().optional(),
    to: z.number().int().nonnegative().optional(),
  }),
]);
export type PageRequest = z.infer<typeof pageRequestSchema>;

const mountSummary = z.object({ mountId: id, title: shortText.optional(), messageId: id.optional() });

/** The page's answer to each request method. */
export const pageResultSchemas = {
  join: z.object({ title: shortText, mounts: z.array(mountSummary).max(10_000), sessionId: id.optional() }),
  run: z.object({
    /** The reply's end state, as a model's reply ends. */
    state: z.enum(["done", "interrupted", "stopped", "error"]),
    /** The runtime feedback exactly as a model's next turn would carry it ("" when there was none). */
    feedback: z.string().max(MAX_TEXT),
    mounts: z.array(mountSummary).max(10_000),
    error: shortText.optional(),
  }),
  report: z.object({ shown: z.literal(true) }),
  "read-session": z.object({
    total: z.number().int().nonnegative(),
    messages: z
      .array(z.object({ index: z.number().int().nonnegative(), id, role: shortText, text: z.string().max(MAX_TEXT) }))
      .max(10_000),
    mounts: z
      .array(
        z.object({
          mountId: id,
          messageId: id.optional(),
          title: shortText.optional(),
          snapshot: z.string().max(MAX_TEXT),
        }),
      )
      .max(10_000),
  }),
} as const;
export type PageResult<M extends PageRequest["method"]> = z.infer<(typeof pageResultSchemas)[M]>;

/** Page → bridge. */
export const pageMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    version: z.literal(BRIDGE_WIRE_VERSION),
    sessionId: id,
    /** Take up the channel this tab had before a reload (its id and current code, from sessionStorage). */
    resume: z.object({ channelId: id, code: z.string().max(64) }).optional(),
  }),
  z.object({ type: z.literal("new-code") }),
  z.object({ type: z.literal("command"), command: commandInputSchema }),
  z.object({ type: z.literal("response"), requestId: z.number().int(), result: z.unknown() }),
  /** The page could not do what was asked (the reason is shown to the agent). */
  z.object({ type: z.literal("failure"), requestId: z.number().int(), error: shortText }),
  z.object({ type: z.literal("end") }),
]);
export type PageMessage = z.infer<typeof pageMessageSchema>;

/** Bridge → page. */
export const bridgeMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("channel"),
    code: z.string().min(4).max(64),
    expiresAt: z.number(),
    /** The channel's secret id: with the code, it resumes the channel after a reload. */
    channelId: id.optional(),
    /** The hello asked to resume and this is that channel. */
    resumed: z.boolean().optional(),
  }),
  /** The channel asked for could not be resumed (ended, or away longer than the grace). */
  z.object({ type: z.literal("resume-failed") }),
  z.object({ type: z.literal("code-expired") }),
  z.object({ type: z.literal("agents"), joined: z.number().int().nonnegative() }),
  z.object({ type: z.literal("queued"), commandId: id, seq: z.number().int().positive() }),
  z.object({ type: z.literal("claimed"), commandId: id, agent: shortText }),
  z.object({ type: z.literal("request"), requestId: z.number().int(), agent: shortText, request: pageRequestSchema }),
  z.object({ type: z.literal("refused"), message: shortText }),
]);
export type BridgeMessage = z.infer<typeof bridgeMessageSchema>;

/** Opens every bracket of application content handed to an agent (then what the bracket holds). */
export const UNTRUSTED_START = "[untrusted application content]";
/** Closes that bracket. */
export const UNTRUSTED_END = "[end of untrusted application content]";

/**
 * Application content (what the person selected, the session's messages,
 * titles and mounts: text the model, the person or an imported file wrote)
 * as an agent receives it: between the two markers, `intro` saying what it
 * is and that it is data, never instructions. The bracket is the page's: a
 * look-alike of a marker inside `content` is defused (`defuseUntrustedMarkers`),
 * so the content cannot close the bracket early and speak as the person.
 */
export function untrustedContent(intro: string, content: string): string {
  return `${UNTRUSTED_START} ${intro}\n${defuseUntrustedMarkers(content)}\n${UNTRUSTED_END}`;
}

/**
 * A marker's words, however spaced or cased, also across an escaped line
 * break of JSON text: `[ End of  UNTRUSTED application content ]`,
 * `[untrusted\\napplication content]`.
 */
const UNTRUSTED_MARKER =
  /\[(?:\s|\\[nrt])*((?:end(?:\s|\\[nrt])+of(?:\s|\\[nrt])+)?untrusted(?:\s|\\[nrt])+application(?:\s|\\[nrt])+content)(?:\s|\\[nrt])*\]/giu;
/** The same, for a test (no `g`: no lastIndex carried between calls). */
const HAS_UNTRUSTED_MARKER = new RegExp(UNTRUSTED_MARKER.source, "iu");

/**
 * `text` with every look-alike of an untrusted-content marker written as
 * `⟦quoted: …⟧`, which reads as text the content wrote; the rest of the text
 * is kept as it is (JSON stays JSON). Matched after folding each character
 * (NFKC: full-width "［ｅｎｄ…］" is the plain one; invisible format characters
 * such as a zero-width space inside "untrusted" are dropped), so neither hides a marker.
 */
export function defuseUntrustedMarkers(text: string): string {
  // Most content has none: one native pass says so before the per-character one.
  if (!HAS_UNTRUSTED_MARKER.test(text.normalize("NFKC").replace(/\p{Cf}/gu, ""))) return text;
  let folded = "";
  /** For each UTF-16 unit of `folded`, where its character starts in `text`, and where the last one ends. */
  const starts: number[] = [];
  let at = 0;
  for (const character of text) {
    const plain = character.normalize("NFKC").replace(/\p{Cf}/gu, "");
    for (let unit = 0; unit < plain.length; unit++) starts.push(at);
    folded += plain;
    at += character.length;
  }
  starts.push(at);
  let result = "";
  let kept = 0;
  for (const match of folded.matchAll(UNTRUSTED_MARKER)) {
    const from = starts[match.index];
    result += `${text.slice(kept, from)}⟦quoted: ${match[1].replace(/(?:\s|\\[nrt])+/gu, " ")}⟧`;
    kept = starts[match.index + match[0].length];
  }
  return result + text.slice(kept);
}

/** Parse one WebSocket frame; a frame that is not JSON or not in the schema is a readable problem, never a throw. */
export function parseFrame<T>(
  schema: z.ZodType<T>,
  data: string,
): { ok: true; message: T } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(value);
  } catch {
    return { ok: false, problem: "unreadable" };
  }
  if (!parsed.success)
    return {
      ok: false,
      problem: parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "$"}: ${issue.message}`)
        .join("; ")
        .slice(0, 500),
    };
  return { ok: true, message: parsed.data };
}

// ---- ACP mode (`--acp "<agent command>"`): the page is the ACP client of the person's agent ----

/** The page's ACP socket: the bridge launches the agent for each socket and relays its JSON-RPC messages. */
export const ACP_SOCKET_PATH = "/acp";
export const DEFAULT_ACP_ADDRESS = `ws://127.0.0.1:${DEFAULT_BRIDGE_PORT}${ACP_SOCKET_PATH}`;

/** One JSON-RPC 2.0 message of ACP, carried as it is (the ACP SDK on each side checks the rest). */
export const jsonRpcMessageSchema = z.looseObject({ jsonrpc: z.literal("2.0") });
export type JsonRpcMessage = z.infer<typeof jsonRpcMessageSchema>;

/** What the agent's Livemark MCP server asks of the page (its tools: run and read-session). */
export const acpToolRequestSchema = z.discriminatedUnion("method", [
  z.object({ method: z.literal("run"), markdown: z.string().max(MAX_TEXT) }),
  z.object({
    method: z.literal("read-session"),
    from: z.number().int().nonnegative().optional(),
    to: z.number().int().nonnegative().optional(),
  }),
]);
export type AcpToolRequest = z.infer<typeof acpToolRequestSchema>;

/** Page → bridge on the ACP socket. */
export const acpPageMessageSchema = z.discriminatedUnion("type", [
  /** A JSON-RPC message for the agent: written to its stdin as one line. */
  z.object({ type: z.literal("acp"), message: jsonRpcMessageSchema }),
  z.object({ type: z.literal("tool-response"), requestId: z.number().int(), result: z.unknown() }),
  z.object({ type: z.literal("tool-failure"), requestId: z.number().int(), error: shortText }),
]);
export type AcpPageMessage = z.infer<typeof acpPageMessageSchema>;

/** Bridge → page on the ACP socket. */
export const acpBridgeMessageSchema = z.discriminatedUnion("type", [
  /**
   * The agent was launched. `mcpUrl`: the Livemark MCP server for this link only (its path holds an
   * unguessable token); the page offers it in `session/new`'s `mcpServers`.
   */
  z.object({
    type: z.literal("acp-ready"),
    command: shortText,
    mcpUrl: z.string().max(500),
    /** The same server over stdio, for agents without HTTP MCP: the bridge itself as a proxy (`--mcp-proxy`). */
    mcpStdio: z.object({ command: z.string().max(4_096), args: z.array(z.string().max(4_096)).max(64) }).optional(),
    /** The bridge's working directory: the `cwd` of the agent's sessions. */
    cwd: z.string().max(4_096),
  }),
  /** A JSON-RPC message from the agent (one line of its stdout). */
  z.object({ type: z.literal("acp"), message: jsonRpcMessageSchema }),
  /** The agent's process ended (or could not start). */
  z.object({ type: z.literal("acp-exited"), code: z.number().int().nullable(), reason: shortText.optional() }),
  /** The agent called a Livemark tool: the page decides under the room's rights and answers. */
  z.object({ type: z.literal("tool-request"), requestId: z.number().int(), request: acpToolRequestSchema }),
]);
export type AcpBridgeMessage = z.infer<typeof acpBridgeMessageSchema>;
