import { z } from "zod";
import type { BlockView } from "../agent/reply";
import type { ChatMessage } from "../agent/types";
import { utf8Bytes } from "../wire/appData";
import { MAX_STORAGE_KEY_LENGTH, MAX_STORAGE_SESSION_BYTES, MAX_STORAGE_VALUE_BYTES } from "../wire/capabilities";
import { EXPORT_VERSION, SESSION_FORMAT, type SessionExport } from "./exportSchema";
import { IMPORT_LIMITS, parseJsonSafely, type ImportProblem } from "./safeJson";
import {
  compressToBase64Url,
  fromBase64Url,
  kilobytes,
  MAX_SHARE_JSON_BYTES,
  MAX_SHARE_LENGTH,
  readAll,
  streamOf,
} from "./share";
import { MAX_TITLE_LENGTH } from "./types";

/**
 * App links (issue 29 §1): what it takes to run one reply's UIs on their
 * own — the code and data blocks of the session's replies up to that reply,
 * the reply's mount titles, the app's title and, when it has any, its app
 * data — compressed into `#app=…` like a share link (share.ts). Nothing
 * else of the session goes in: no prose, no user message, no settings,
 * grants, audit or key. The same document is the `.json` file of
 * **Download app**. Decoding validates everything and never writes.
 */

export const APP_FORMAT = "livemark.app";
export const APP_VERSION = 1;
/** `#app=<payload>`: an app link. `#app/<sessionId>/<replyId>`: a reply of a session in this browser. `#app`: open a file. */
export const APP_LINK_PREFIX = "#app=";

const MAX_SOURCE = 4_000_000;

const codeBlock = z.strictObject({
  kind: z.literal("code"),
  index: z.number().int().min(0).max(1e6),
  lang: z.enum(["tsx", "ts", "typescript", "jsx", "js"]),
  line: z.number().int().min(0).max(1e9),
  source: z.string().max(MAX_SOURCE),
  unterminated: z.boolean(),
});
const dataBlock = z.strictObject({
  kind: z.literal("data"),
  index: z.number().int().min(0).max(1e6),
  id: z.string().max(1_000),
  line: z.number().int().min(0).max(1e9),
  source: z.string().max(MAX_SOURCE),
  unterminated: z.boolean(),
});

const appDataEntry = z.strictObject({
  key: z.string().min(1).max(MAX_STORAGE_KEY_LENGTH),
  json: z.string().max(MAX_STORAGE_VALUE_BYTES),
});

const appPayloadSchema = z.strictObject({
  format: z.literal(APP_FORMAT),
  version: z.literal(APP_VERSION),
  title: z.string().max(MAX_TITLE_LENGTH),
  /** The replies whose code runs, in order; the last one is the app's (its mounts are the app). */
  replies: z
    .array(
      z.strictObject({
        blocks: z.array(z.discriminatedUnion("kind", [codeBlock, dataBlock])).max(10_000),
        mounts: z.array(z.string().max(MAX_TITLE_LENGTH)).max(1_000),
      }),
    )
    .min(1)
    .max(10_000),
  appData: z.array(appDataEntry).max(100_000).optional(),
});

export type AppPayload = z.infer<typeof appPayloadSchema>;
export type AppBlock = AppPayload["replies"][number]["blocks"][number];

export type AppLinkProblem = { code: "app-invalid" | "app-too-large"; message: string; cause?: unknown };
export type DecodeAppResult = { ok: true; payload: AppPayload } | { ok: false; error: AppLinkProblem };
export type EncodeAppResult = { ok: true; fragment: string; length: number } | { ok: false; error: AppLinkProblem };

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** The app's title: the first mount's title of the reply, else the session's. */
export function appTitle(reply: AssistantMessage | undefined, sessionTitle: string): string {
  const first = reply?.reply.mounts?.find((mount) => mount.title?.trim())?.title?.trim();
  return (first || sessionTitle.trim() || "App").slice(0, MAX_TITLE_LENGTH);
}

/**
 * The payload of the app of reply `replyId`: the code and data blocks of
 * every reply up to it (replies with none are left out; the app's own stays
 * last), its mounts' titles, the app data given. Undefined when the session
 * has no such reply.
 */
export function buildAppPayload(input: {
  sessionTitle: string;
  messages: readonly ChatMessage[];
  replyId: string;
  appData?: readonly { key: string; json: string }[];
}): AppPayload | undefined {
  const end = input.messages.findIndex((message) => message.id === input.replyId);
  const reply = input.messages[end];
  if (end < 0 || reply.role !== "assistant") return undefined;
  const replies: AppPayload["replies"] = [];
  for (const message of input.messages.slice(0, end + 1)) {
    if (message.role !== "assistant") continue;
    const blocks = message.reply.blocks.flatMap((block): AppBlock[] =>
      block.kind === "code"
        ? [
            {
              kind: "code",
              index: block.index,
              lang: block.lang,
              line: block.line,
              source: block.source,
              unterminated: block.unterminated,
            },
          ]
        : block.kind === "data"
          ? [
              {
                kind: "data",
                index: block.index,
                id: block.id,
                line: block.line,
                source: block.source,
                unterminated: block.unterminated,
              },
            ]
          : [],
    );
    const own = message.id === input.replyId;
    if (blocks.length === 0 && !own) continue;
    replies.push({ blocks, mounts: own ? (message.reply.mounts ?? []).map((mount) => mount.title ?? "") : [] });
  }
  return {
    format: APP_FORMAT,
    version: APP_VERSION,
    title: appTitle(reply, input.sessionTitle),
    replies,
    ...(input.appData && input.appData.length > 0
      ? { appData: input.appData.map(({ key, json }) => ({ key, json })) }
      : {}),
  };
}

function problem(message: string, cause?: unknown): { ok: false; error: AppLinkProblem } {
  return { ok: false, error: { code: "app-invalid", message, cause } };
}

/** Check a value as an app document: the schema, and app data that is JSON within the storage limits. */
export function validateAppPayload(value: unknown): DecodeAppResult {
  const parsed = appPayloadSchema.safeParse(value);
  if (!parsed.success) {
    const format = (value as { format?: unknown } | null)?.format;
    if (format !== APP_FORMAT)
      return problem(`This is not a Livemark app: it has no "format": "${APP_FORMAT}".`, parsed.error);
    const issue = parsed.error.issues[0];
    return problem(
      `This app is damaged: ${issue ? `$.${issue.path.join(".")}: ${issue.message}` : "it does not have the expected shape"}.`,
      parsed.error,
    );
  }
  const payload = parsed.data;
  let total = 0;
  const keys = new Set<string>();
  for (const entry of payload.appData ?? []) {
    if (keys.has(entry.key)) return problem(`This app is damaged: its app data has the key "${entry.key}" twice.`);
    keys.add(entry.key);
    try {
      JSON.parse(entry.json);
    } catch (error) {
      return problem(`This app is damaged: its app data for "${entry.key}" is not JSON.`, error);
    }
    const bytes = utf8Bytes(entry.key) + utf8Bytes(entry.json);
    if (bytes > MAX_STORAGE_VALUE_BYTES) return problem(`This app is damaged: its value "${entry.key}" is over 1 MB.`);
    total += bytes;
  }
  if (total > MAX_STORAGE_SESSION_BYTES) return problem("This app is damaged: its app data is over 10 MB.");
  return { ok: true, payload };
}

/** Encode the payload into `#app=…`, or say why it does not fit (then: Download app). */
export async function encodeAppLink(payload: AppPayload): Promise<EncodeAppResult> {
  const encoded = await compressToBase64Url(JSON.stringify(payload));
  if (encoded.length > MAX_SHARE_LENGTH) {
    return {
      ok: false,
      error: {
        code: "app-too-large",
        message: `This app is too big for a link: it takes ${kilobytes(encoded.length)} compressed and a link holds at most ${kilobytes(MAX_SHARE_LENGTH)}. Use Download app and send the file instead.`,
      },
    };
  }
  return { ok: true, fragment: APP_LINK_PREFIX + encoded, length: encoded.length };
}

/** Decode `#app=…` (or a whole URL holding one) into a checked payload. Never throws, never writes. */
export async function decodeAppLink(fragmentOrUrl: string): Promise<DecodeAppResult> {
  try {
    const at = fragmentOrUrl.indexOf(APP_LINK_PREFIX);
    if (at < 0) return problem("This link holds no app (it has no #app= part).");
    const encoded = fragmentOrUrl.slice(at + APP_LINK_PREFIX.length).trim();
    if (encoded.length > MAX_SHARE_LENGTH) {
      return {
        ok: false,
        error: {
          code: "app-too-large",
          message: `This app link is ${kilobytes(encoded.length)} long; Livemark opens links up to ${kilobytes(MAX_SHARE_LENGTH)}.`,
        },
      };
    }
    if (encoded === "" || !/^[A-Za-z0-9_-]+$/.test(encoded) || encoded.length % 4 === 1)
      return problem(
        "This app link is damaged: it holds characters an app link never has, or was cut short. Ask for the link again.",
      );
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readAll(
        streamOf(fromBase64Url(encoded)).pipeThrough(new DecompressionStream("deflate-raw")),
        MAX_SHARE_JSON_BYTES,
      );
    } catch (error) {
      return problem(
        "This app link is damaged (it does not decompress); it was probably cut short when copied. Ask for the link again.",
        error,
      );
    }
    if (!bytes)
      return {
        ok: false,
        error: {
          code: "app-too-large",
          message: `This app link expands to more than ${kilobytes(MAX_SHARE_JSON_BYTES)}; Livemark does not open it.`,
        },
      };
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (error) {
      return problem("This app link is damaged (its content is not text).", error);
    }
    return parseAppText(text);
  } catch (error) {
    return problem("This app link could not be opened.", error);
  }
}

/** A `.json` file of **Download app** (or the decoded text of a link), checked. */
export function parseAppText(text: string): DecodeAppResult {
  const parsed = parseJsonSafely(text, IMPORT_LIMITS);
  if (!parsed.ok) return problem(`This is not a Livemark app: ${(parsed.error as ImportProblem).message}`);
  return validateAppPayload(parsed.value);
}

/** The text of **Download app**'s file. */
export function serializeApp(payload: AppPayload): string {
  return JSON.stringify(payload, null, 2);
}

/** `livemark-app-<title>.json`. */
export function appFileName(payload: AppPayload): string {
  const slug = payload.title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return `livemark-app-${slug || "app"}.json`;
}

/**
 * The viewer's own id for this app (its app data and grants are kept under
 * it, never in the session list): `app-` and the SHA-256 of the payload.
 */
export async function appIdOf(payload: AppPayload): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(payload)));
  return (
    "app-" + Array.from(new Uint8Array(digest).subarray(0, 12), (byte) => byte.toString(16).padStart(2, "0")).join("")
  );
}

function blockView(block: AppBlock): BlockView {
  return block.kind === "code"
    ? { ...block, closed: !block.unterminated, status: "done", statements: [] }
    : { ...block, closed: !block.unterminated, status: "done" };
}

/** The payload as replies Revive re-runs (`reviveSession`): ids `<prefix>-r<n>`, no prose. */
export function appMessages(payload: AppPayload, createdAt: number, prefix = "app"): AssistantMessage[] {
  return payload.replies.map((reply, index) => ({
    id: `${prefix}-r${index}`,
    role: "assistant",
    text: "",
    reply: { blocks: reply.blocks.map(blockView), protocolErrors: [], notices: [] },
    state: "done",
    createdAt,
  }));
}

/** **Open in chat** for an app link: the payload as a session file (its code replies, its app data), imported like any. */
export function appSessionExport(payload: AppPayload, id: string, now: number): SessionExport {
  return {
    format: SESSION_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date(now).toISOString(),
    session: {
      id,
      title: payload.title,
      createdAt: now,
      updatedAt: now,
      origin: "imported",
      settings: { network: "ask", allowedHosts: [] },
    },
    messages: appMessages(payload, now, id),
    mounts: [],
    grants: [],
    audit: [],
    ...(payload.appData ? { appData: payload.appData } : {}),
  };
}
