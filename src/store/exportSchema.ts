import { z } from "zod";
import { EXEC_ERROR_CODE_LIST } from "../wire/events";
import type { ChatMessage, MessageVersions } from "../agent/types";
import {
  formatPath,
  parseJsonSafely,
  type ImportProblem,
  type JsonLimits,
  IMPORT_LIMITS,
  type PathSegment,
} from "./safeJson";
import { REPORT_KINDS, reportSummarySchema } from "../wire/bridge";
import {
  CAPABILITY_TAG_PATTERN,
  MAX_TITLE_LENGTH,
  type AuditEntry,
  type GrantRecord,
  type MountSnapshot,
  type Session,
} from "./types";
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from "../agent/attachments";
import { formatStorageBytes, utf8Bytes } from "../wire/appData";
import { MAX_STORAGE_KEY_LENGTH, MAX_STORAGE_SESSION_BYTES, MAX_STORAGE_VALUE_BYTES } from "../wire/capabilities";

/**
 * The export format and its validator. Pure: text in, a typed document or a
 * precise problem out, nothing written (the import and the share-link preview
 * both go through `parseExportText`).
 *
 * Strictness: the envelope, the session and mount records are strict (an
 * unknown field is an error). Messages and everything inside a reply are
 * typed field by field but keep fields they do not list, because src/agent
 * owns that shape and may add fields without a new file version; those extra
 * values have still passed the generic limits (size, depth, forbidden keys).
 * Discriminators (`role`, `kind`, `state`, statuses) are closed enums: the UI
 * switches on them.
 */

export const SESSION_FORMAT = "livemark.session";
export const BACKUP_FORMAT = "livemark.backup";
export const EXPORT_VERSION = 1;

/**
 * Compile-time agreement between a schema and a type another area owns (the
 * agent's `ChatMessage`, the store's capability records): what the schema
 * accepts is a `T` (its output is assignable to `T`), and every `T` the app
 * writes passes the schema (`T` is assignable to its input). Drift on either
 * side fails `npm run typecheck`; no cast joins them.
 */
function agreesWith<T>() {
  return <S extends z.ZodType<T>>(schema: S & ([T] extends [Known<z.input<S>>] ? unknown : never)): z.ZodType<T> =>
    schema;
}

/**
 * A type without its index signatures, deeply: a loose schema's input allows
 * any extra key, which an interface (no index signature) is not assignable to.
 */
type Known<T> = T extends readonly (infer E)[]
  ? Known<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Known<T[K]> }
    : T;

const MAX_TEXT = 4_000_000;
const MAX_SHORT = 10_000;

const id = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:-]+$/, "an id made of letters, digits, _ . : or - (at most 128 characters)");
const timestamp = z.number().min(0).max(8.64e15);
const count = z.number().int().min(0).max(1e9);
const text = (max = MAX_TEXT) => z.string().max(max);

const execError = z.looseObject({
  code: z.enum(EXEC_ERROR_CODE_LIST),
  name: text(200),
  message: text(),
  block: count,
  line: count.optional(),
  column: count.optional(),
  lineText: text(MAX_SHORT).optional(),
});

const consoleLevel = z.enum(["debug", "log", "info", "warn", "error"]);
const blockStatus = z.enum(["streaming", "queued", "running", "done", "error", "skipped"]);

const statement = z.looseObject({
  statement: count,
  line: count,
  endLine: count,
  source: text(),
  status: z.enum(["pending", "running", "done", "error", "skipped"]),
  error: execError.optional(),
  logs: z.array(z.looseObject({ level: consoleLevel, text: text() })).max(100_000),
});

const block = z.discriminatedUnion("kind", [
  z.looseObject({ index: count, kind: z.literal("text"), line: count, text: text() }),
  z.looseObject({
    index: count,
    kind: z.literal("code"),
    lang: z.enum(["tsx", "ts", "typescript", "jsx", "js"]),
    line: count,
    source: text(),
    closed: z.boolean(),
    unterminated: z.boolean(),
    status: blockStatus,
    statements: z.array(statement).max(100_000),
    skippedFromLine: count.optional(),
    error: execError.optional(),
    /** The model's code of a block the person edited (Edit code; `source` is then theirs). */
    original: text().optional(),
    stale: z.boolean().optional(),
  }),
  z.looseObject({
    index: count,
    kind: z.literal("data"),
    id: text(1_000),
    line: count,
    source: text(),
    closed: z.boolean(),
    unterminated: z.boolean(),
    status: blockStatus,
    error: execError.optional(),
  }),
]);

/** A reasoning model's thinking (src/agent/reply.ts `ThinkingView`); absent in replies without one and in older files. */
const thinking = z.looseObject({
  source: z.enum(["think", "thinking", "provider"]),
  text: text(),
  closed: z.boolean(),
  unterminated: z.boolean(),
  startedAt: timestamp.optional(),
  endedAt: timestamp.optional(),
});

const reply = z.looseObject({
  thinking: thinking.optional(),
  blocks: z.array(block).max(100_000),
  protocolErrors: z.array(z.looseObject({ line: count, info: text(MAX_SHORT), message: text(MAX_SHORT) })).max(100_000),
  notices: z.array(text(MAX_SHORT)).max(100_000),
});

/** A file the person attached to a message (src/agent/attachments.ts): base64 within the size cap. */
const attachment = z.strictObject({
  name: text(255),
  mediaType: z.string().max(255),
  size: z.number().int().min(0).max(MAX_ATTACHMENT_BYTES),
  data: z
    .string()
    .max(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64"),
});

/** True on every message an import wrote, whatever the file said (src/agent `ImportMark`); a file's own value is overwritten. */
const imported = z.boolean().optional();

/** How many versions one branch point may keep, and how deep versions may nest, in a file. */
const MAX_VERSIONS = 1_000;

/**
 * The other versions on a version's first message (src/agent `MessageVersions`):
 * `at` the shown one's place, `others` whole tails of messages, each checked
 * as a message of the file (their own versions too); the problem names the
 * nested field. Absent in older files.
 */
const versions = z.custom<MessageVersions>().superRefine((value, context) => {
  const shape = value as { at?: unknown; others?: unknown } | null;
  const others = shape !== null && typeof shape === "object" ? shape.others : undefined;
  if (
    !Array.isArray(others) ||
    others.length === 0 ||
    others.length > MAX_VERSIONS ||
    !Number.isInteger(shape?.at) ||
    (shape!.at as number) < 0 ||
    (shape!.at as number) > others.length ||
    Object.keys(shape!).some((key) => key !== "at" && key !== "others") ||
    others.some((tail) => !Array.isArray(tail) || tail.length === 0 || tail.length > 100_000)
  ) {
    context.addIssue({
      code: "custom",
      message: `versions as { "at": the shown version's place, "others": 1 to ${MAX_VERSIONS} lists of messages, none empty }`,
    });
    return;
  }
  for (let index = 0; index < others.length; index += 1) {
    const tail = others[index] as unknown[];
    for (let at = 0; at < tail.length; at += 1) {
      const checked = message.safeParse(tail[at]);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        context.addIssue({
          code: "custom",
          message: problemFromIssue(issue, tail[at], 0).expected ?? issue.message,
          path: ["others", index, at, ...(issue.path as PathSegment[])],
        });
        return;
      }
    }
  }
});

const message: z.ZodType<ChatMessage> = agreesWith<ChatMessage>()(
  z.discriminatedUnion("role", [
    z.looseObject({
      id,
      role: z.literal("user"),
      text: text(),
      createdAt: timestamp,
      imported,
      versions: versions.optional(),
      attachments: z.array(attachment).max(MAX_ATTACHMENTS).optional(),
      // Sent to an invited agent (src/agent/externalAgentTypes.ts); absent in older files.
      to: z.literal("agent").optional(),
      commandId: id.optional(),
      selection: z
        .looseObject({ kind: z.enum(["message", "mount"]), id: text(200), label: text(MAX_SHORT) })
        .optional(),
      answers: id.optional(),
      receivedBy: text(MAX_SHORT).optional(),
    }),
    z.looseObject({
      id,
      role: z.literal("assistant"),
      text: text(),
      reply,
      state: z.enum(["streaming", "done", "interrupted", "stopped", "error"]),
      error: z
        .looseObject({
          code: text(64),
          message: text(MAX_SHORT),
          retryAfterMs: timestamp.optional(),
          retryable: z.boolean(),
        })
        .optional(),
      createdAt: timestamp,
      imported,
      versions: versions.optional(),
      by: text(MAX_SHORT).optional(),
    }),
    z.looseObject({
      id,
      role: z.literal("feedback"),
      text: text(),
      body: text(),
      source: z.enum(["runtime", "ui-event"]),
      createdAt: timestamp,
      imported,
      versions: versions.optional(),
      to: z.literal("agent").optional(),
    }),
    z.looseObject({
      id,
      role: z.literal("notice"),
      text: text(),
      level: z.enum(["info", "warn", "error"]),
      createdAt: timestamp,
      imported,
      versions: versions.optional(),
    }),
    /** An invited agent's report (DESIGN.md §4b); absent in older files. */
    z.looseObject({
      id,
      role: z.literal("agent"),
      kind: z.enum(REPORT_KINDS),
      text: text(),
      commandId: id,
      agent: text(MAX_SHORT).optional(),
      summary: reportSummarySchema.optional(),
      answer: text().optional(),
      createdAt: timestamp,
      imported,
      versions: versions.optional(),
    }),
  ]),
);

// Any capability module's tag (CAPABILITY_TAG_PATTERN): network, file, tool, or a newer module's.
const capability = z.string().regex(CAPABILITY_TAG_PATTERN, "a capability's name such as network or tool");

const chatShape = {
  model: text(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).optional(),
  instruction: text(20_000).optional(),
};

const session = agreesWith<Omit<Session, "deletedAt">>()(
  z.strictObject({
    id,
    title: text(MAX_TITLE_LENGTH),
    createdAt: timestamp,
    updatedAt: timestamp,
    origin: z.enum(["local", "imported"]),
    settings: z.strictObject({
      network: z.enum(["off", "ask", "allowed"]),
      allowedHosts: z.array(text(253)).max(1_000),
      strict: z.boolean().optional(),
      // Server addresses (origin and path of the URL).
      readOnlyToolServers: z.array(text(4_096)).max(100).optional(),
      // Each capability module's own settings (a mode, a budget), by its name; an import drops them.
      capabilities: z.record(capability, z.json()).optional(),
    }),
    importedAt: timestamp.optional(),
    // The session's model settings (Session settings → Model); never a key or an endpoint.
    // Whatever a file says here is only a suggestion where it is imported (exportImport.ts).
    chat: z
      .strictObject({
        ...chatShape,
        importedInstruction: text(20_000).optional(),
      })
      .optional(),
    suggestedChat: z.strictObject(chatShape).optional(),
  }),
);

const mount = agreesWith<Omit<MountSnapshot, "sessionId">>()(
  z.strictObject({
    mountId: id,
    messageId: id,
    snapshot: z.unknown().refine((value): boolean => value !== undefined, "a JSON value (the mount's tree)"),
    updatedAt: timestamp,
  }),
);

/** A capability record as exported: no database key, no session (the records carry extra fields along). */
type Exported<T> = Omit<Known<T>, "id" | "sessionId">;

// A network grant's host (253), or a tool grant's `<server address>#<tool>` (a URL's origin and path, and a name).
const grant = agreesWith<Exported<GrantRecord>>()(
  z.looseObject({ capability, host: text(4_096), grantedAt: timestamp }),
);

const audit = agreesWith<Exported<AuditEntry>>()(
  z.looseObject({
    at: timestamp,
    capability,
    method: z.string().regex(/^[A-Za-z]{1,16}$/, "an HTTP method such as GET or POST"),
    url: text(8_192),
    // The decisions of every capability (allowed-once, denied, chosen, …), a new module's own words too.
    decision: z.string().regex(CAPABILITY_TAG_PATTERN, "a decision such as allowed-once or denied"),
    // Set to true by the import on every entry it writes; a file's own value is overwritten.
    fromFile: z.boolean().optional(),
  }),
);

/**
 * One key of the session's app data (`storage`, src/store/appData.ts): the
 * value as its JSON text, so no key or value of the code's is ever a key of
 * the file. The limits the page keeps (1 MB a value, 10 MB a session, JSON
 * text) are checked in `checkAppData`.
 */
const appDataEntry = z.strictObject({
  key: z.string().min(1).max(MAX_STORAGE_KEY_LENGTH),
  // UTF-8 has at least one byte a character: a longer text is over the limit whatever it holds.
  json: z.string().max(MAX_STORAGE_VALUE_BYTES),
});

const bodyShape = {
  session,
  messages: z.array(message).max(100_000),
  mounts: z.array(mount).max(10_000),
  grants: z.array(grant).max(10_000),
  audit: z.array(audit).max(100_000),
  /** Absent: none (files from before app data, or a share link without it). */
  appData: z.array(appDataEntry).max(100_000).optional(),
};

const bodySchema = z.strictObject(bodyShape);

const exportedAt = z.iso.datetime({ offset: true });

export const sessionExportSchema = z.strictObject({
  format: z.literal(SESSION_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exportedAt,
  ...bodyShape,
});

export const backupExportSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exportedAt,
  sessions: z.array(bodySchema).max(10_000),
});

// The file's types are what the schemas accept.
export type ExportedSession = z.infer<typeof session>;
export type ExportedMount = z.infer<typeof mount>;
export type ExportedGrant = z.infer<typeof grant>;
export type ExportedAudit = z.infer<typeof audit>;
export type ExportedAppData = z.infer<typeof appDataEntry>;
/** One session with everything needed to show it. */
export type SessionBody = z.infer<typeof bodySchema>;
export type SessionExport = z.infer<typeof sessionExportSchema>;
export type BackupExport = z.infer<typeof backupExportSchema>;
export type ExportDocument = SessionExport | BackupExport;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** How a found value reads in a message: `the string "robot"`, `an array of 3 items`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing (the field is missing)";
  if (value === null) return "null";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the text ${JSON.stringify(shown)}`;
  }
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? "" : "s"}`;
  return "an object";
}

const TYPE_WORDS: Record<string, string> = {
  string: "a text (string)",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list ([ … ])",
  object: "an object ({ … })",
};

function quoteAll(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(" | ");
}

function limitWords(origin: string | undefined, bound: number | bigint, big: boolean): string {
  const n = Number(bound);
  if (origin === "string") return big ? `at most ${n} characters` : `at least ${n} character${n === 1 ? "" : "s"}`;
  if (origin === "array") return big ? `at most ${n} items` : `at least ${n} item${n === 1 ? "" : "s"}`;
  return big ? `a number no greater than ${n}` : `a number no less than ${n}`;
}

function problemFromIssue(issue: z.core.$ZodIssue, root: unknown, more: number): ImportProblem {
  let segments = issue.path as PathSegment[];
  let expected: string;
  let found: string | undefined;
  switch (issue.code) {
    case "invalid_type":
      expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      break;
    case "invalid_value":
      expected = issue.values.length === 1 ? quoteAll(issue.values) : `one of ${quoteAll(issue.values)}`;
      break;
    case "invalid_union":
      expected =
        "options" in issue && Array.isArray((issue as { options?: unknown[] }).options)
          ? `one of ${quoteAll((issue as { options: unknown[] }).options)}`
          : "one of the allowed shapes";
      break;
    case "too_big":
      expected = limitWords(issue.origin, issue.maximum, true);
      break;
    case "too_small":
      expected = limitWords(issue.origin, issue.minimum, false);
      break;
    case "invalid_format":
      expected =
        issue.format === "regex"
          ? issue.message
          : issue.format === "datetime"
            ? "a date and time in ISO 8601 form (2025-01-31T12:00:00.000Z)"
            : `a ${issue.format}`;
      break;
    case "unrecognized_keys":
      segments = [...segments, issue.keys[0]];
      expected = "no such field";
      found = `an unexpected field "${issue.keys[0]}"${issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more)` : ""}`;
      break;
    default:
      expected = issue.message;
  }
  const path = formatPath(segments);
  found ??= describeValue(valueAt(root, segments));
  const tail = more > 0 ? ` (and ${more} more problem${more === 1 ? "" : "s"})` : "";
  return {
    code: "invalid",
    message:
      issue.code === "unrecognized_keys"
        ? `${path}: ${found}; a ${documentName(root)} has no such field${tail}.`
        : `${path}: expected ${expected}, found ${found}${tail}.`,
    path,
    expected,
  };
}

function documentName(root: unknown): string {
  const format = valueAt(root, ["format"]);
  return `${format === BACKUP_FORMAT ? BACKUP_FORMAT : SESSION_FORMAT} version ${EXPORT_VERSION} file`;
}

function checkEnvelope(value: unknown): ImportProblem | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      code: "wrong-format",
      message: `This is not a Livemark session file: the file holds ${describeValue(value)}, expected an object with "format": "${SESSION_FORMAT}".`,
      path: "$",
      expected: "an object ({ … })",
    };
  }
  const format = valueAt(value, ["format"]);
  if (format !== SESSION_FORMAT && format !== BACKUP_FORMAT) {
    return {
      code: "wrong-format",
      message: `This is not a Livemark session file: $.format is ${describeValue(format)}, expected "${SESSION_FORMAT}" or "${BACKUP_FORMAT}".`,
      path: "$.format",
      expected: `"${SESSION_FORMAT}" | "${BACKUP_FORMAT}"`,
    };
  }
  const version = valueAt(value, ["version"]);
  if (version !== EXPORT_VERSION) {
    const message =
      typeof version === "number" && Number.isFinite(version)
        ? `This is a ${format} version ${version} file; this app reads version ${EXPORT_VERSION}.${version > EXPORT_VERSION ? " Open it with a newer Livemark." : ""}`
        : `$.version: expected the number ${EXPORT_VERSION}, found ${describeValue(version)}.`;
    return { code: "unsupported-version", message, path: "$.version", expected: String(EXPORT_VERSION) };
  }
  return undefined;
}

/** App data as the page would keep it: distinct keys, JSON text, 1 MB a value, 10 MB a session. */
function checkAppData(body: SessionBody, prefix: PathSegment[]): ImportProblem | undefined {
  const entries = body.appData ?? [];
  const seen = new Map<string, number>();
  let total = 0;
  for (let index = 0; index < entries.length; index += 1) {
    const { key, json } = entries[index];
    const at = (field: string) => formatPath([...prefix, "appData", index, field]);
    const first = seen.get(key);
    if (first !== undefined) {
      return {
        code: "duplicate-id",
        message: `${at("key")}: the key ${JSON.stringify(key)} is already used by ${formatPath([...prefix, "appData", first])}; app data keys must be unique in a session.`,
        path: at("key"),
        expected: "a unique key",
      };
    }
    seen.set(key, index);
    const bytes = utf8Bytes(json);
    if (bytes > MAX_STORAGE_VALUE_BYTES) {
      return {
        code: "invalid",
        message: `${at("json")}: the value is ${formatStorageBytes(bytes)}; one app data value may be at most ${formatStorageBytes(MAX_STORAGE_VALUE_BYTES)}.`,
        path: at("json"),
        expected: `at most ${formatStorageBytes(MAX_STORAGE_VALUE_BYTES)}`,
      };
    }
    try {
      JSON.parse(json);
    } catch {
      return {
        code: "invalid",
        message: `${at("json")}: expected a value as JSON text, found text that is not JSON.`,
        path: at("json"),
        expected: "JSON text",
      };
    }
    total += bytes + utf8Bytes(key);
    if (total > MAX_STORAGE_SESSION_BYTES) {
      const path = formatPath([...prefix, "appData"]);
      return {
        code: "invalid",
        message: `${path}: the session's app data is more than ${formatStorageBytes(MAX_STORAGE_SESSION_BYTES)}; a session keeps at most that much.`,
        path,
        expected: `at most ${formatStorageBytes(MAX_STORAGE_SESSION_BYTES)}`,
      };
    }
  }
  return undefined;
}

/** Checks zod cannot express: unique ids within a session, mounts pointing at messages. */
function checkReferences(body: SessionBody, prefix: PathSegment[]): ImportProblem | undefined {
  // Every message, shown or kept in a version (whose ids are the session's too).
  const messageAt = new Map<string, PathSegment[]>();
  const walk = (messages: readonly ChatMessage[], at: PathSegment[]): ImportProblem | undefined => {
    for (let index = 0; index < messages.length; index += 1) {
      const messageId = messages[index].id;
      const first = messageAt.get(messageId);
      if (first !== undefined) {
        const path = formatPath([...at, index, "id"]);
        return {
          code: "duplicate-id",
          message: `${path}: the id "${messageId}" is already used by ${formatPath(first)}; message ids must be unique in a session.`,
          path,
          expected: "a unique message id",
        };
      }
      messageAt.set(messageId, [...at, index]);
      const others = messages[index].versions?.others ?? [];
      for (let version = 0; version < others.length; version += 1) {
        const problem = walk(others[version], [...at, index, "versions", "others", version]);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const duplicate = walk(body.messages, [...prefix, "messages"]);
  if (duplicate) return duplicate;
  const mountAt = new Map<string, number>();
  for (let index = 0; index < body.mounts.length; index += 1) {
    const { mountId, messageId } = body.mounts[index];
    const first = mountAt.get(mountId);
    if (first !== undefined) {
      const path = formatPath([...prefix, "mounts", index, "mountId"]);
      return {
        code: "duplicate-id",
        message: `${path}: the id "${mountId}" is already used by ${formatPath([...prefix, "mounts", first])}; mount ids must be unique in a session.`,
        path,
        expected: "a unique mount id",
      };
    }
    mountAt.set(mountId, index);
    if (!messageAt.has(messageId)) {
      const path = formatPath([...prefix, "mounts", index, "messageId"]);
      return {
        code: "unknown-reference",
        message: `${path}: there is no message with the id "${messageId}" in this session.`,
        path,
        expected: "the id of a message in the same session",
      };
    }
  }
  return undefined;
}

export type ParseExportResult = { ok: true; document: ExportDocument } | { ok: false; error: ImportProblem };

/** Validate an already-parsed value (it must have passed `checkJsonValue`). */
export function validateExportValue(value: unknown): ParseExportResult {
  const envelope = checkEnvelope(value);
  if (envelope) return { ok: false, error: envelope };
  const schema = (value as { format: string }).format === SESSION_FORMAT ? sessionExportSchema : backupExportSchema;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    return { ok: false, error: problemFromIssue(issues[0], value, issues.length - 1) };
  }
  const document: ExportDocument = parsed.data;
  const bodies: [SessionBody, PathSegment[]][] =
    document.format === SESSION_FORMAT
      ? [[document, []]]
      : document.sessions.map((body, index) => [body, ["sessions", index]]);
  for (const [body, prefix] of bodies) {
    const problem = checkReferences(body, prefix) ?? checkAppData(body, prefix);
    if (problem) return { ok: false, error: problem };
  }
  return { ok: true, document };
}

/** Text → validated export document. Never throws, never writes. */
export function parseExportText(text: string, limits: JsonLimits = IMPORT_LIMITS): ParseExportResult {
  try {
    const parsed = parseJsonSafely(text, limits);
    if (!parsed.ok) return parsed;
    return validateExportValue(parsed.value);
  } catch (error) {
    // A bug in the validator must still leave the database untouched and say something.
    return {
      ok: false,
      error: {
        code: "invalid",
        message: "This file could not be checked (an internal error in Livemark). Nothing was imported.",
        cause: error,
      },
    };
  }
}
