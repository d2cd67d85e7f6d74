/**
 * The host ↔ realm message protocol: one table per direction
 * (`hostMessageSchema`, `realmMessageSchema`), one entry per tag (values in
 * constants.ts), written in the schema kit (schema.ts). The message types
 * are inferred from the tables and the host's port gate
 * (`checkRealmMessage`) is the realm table's own check: a new message is one
 * entry here (plus the case that handles it; the `never` default of each
 * dispatch switch points at it). Messages are plain data; nothing here may
 * hold a function, a class instance or a host object.
 *
 * Mount trees (mount.ts) travel on the same port: their entries are declared
 * there (MOUNT_REALM_ENTRIES, UI_EVENT_ENTRY) and joined into these tables.
 *
 * Requests go both ways as the same three entries (REQUEST_ENTRIES, in
 * both tables; createRequests.ts runs them on both ends): CALL `{id, method,
 * payload, timeoutMs}` with an `id` unique per sender and a `timeoutMs` after
 * which the caller stops waiting (`null`: until cancelled), answered once by
 * RESULT (a JSON value, or an error with a `ServiceErrorCode`) or withdrawn
 * by CANCEL.
 * - host → realm: the methods FLUSH and ABORT (answered `null`).
 * - realm → host: the host services (`net.fetch`, `tool.call`, …) by name
 *   with a JSON payload. The host also answers with an error when the reply
 *   is stopped (`aborted`) or the call outlives its `timeoutMs` (`timeout`);
 *   a realm reset ends the realm and every call with it.
 * Everything else is fire-and-forget; the port keeps order, so a FLUSH
 * answers for every message sent before it.
 */
import { execEventSchema } from "./events";
import { MOUNT_REALM_ENTRIES, UI_EVENT, UI_EVENT_ENTRY, jsonSchema, type JsonValue } from "./mount";
import {
  BEGIN_REPLY,
  BLOCK,
  CALL,
  CANCEL,
  EXEC_EVENT,
  HEARTBEAT,
  PING,
  READY,
  REALM_CONNECT,
  RESULT,
  SANDBOX_HELLO,
  SANDBOX_START,
  SANDBOX_PING,
  SANDBOX_PONG,
  SANDBOX_WORKER_ERROR,
  SERVICE_NAME_PATTERN,
  SERVICE_ERROR_CODE_PATTERN,
  TOOLS,
} from "./constants";
import type { ToolDescriptor } from "./capabilities";
import {
  bool,
  check,
  custom,
  duration,
  fail,
  int,
  name,
  nullable,
  object,
  optional,
  plainRecord,
  text,
  variants,
  within,
  type CheckResult,
  type Infer,
} from "./schema";

export type RequestId = number;
const requestId = int();

/**
 * Why a call failed (RESULT's `error.code`). The first six belong to the contract;
 * a service may add its own codes (e.g. `denied`), matching
 * SERVICE_ERROR_CODE_PATTERN.
 */
export type ServiceErrorCode =
  /** No answer within the request's `timeoutMs`. */
  | "timeout"
  /** The realm withdrew it (its caller's AbortSignal). */
  | "cancelled"
  /** The person pressed Stop (or the agent stopped the reply). */
  | "aborted"
  /** The realm was reset; seen only by realm-side code that outlives its port (tests). */
  | "realm-reset"
  /** No host service by that name. */
  | "unknown-service"
  /** The service threw without a code of its own. */
  | "failed"
  | (string & {});

export interface ServiceError {
  code: ServiceErrorCode;
  message: string;
}

/**
 * The protocol parser's events (src/protocol/types.ts) for code and data
 * blocks — the only verbs of a reply, declared here once. The parser's own
 * events are assignable to these; text blocks never reach the realm. Each
 * block is `block-start`, any number of `block-delta`s, one `block-end`, in
 * reply order; `index` counts all blocks of the reply from 0, `line` is the
 * reply line of the first body line.
 */
export const blockEventSchema = variants("type", {
  "block-start": variants("kind", {
    code: { index: int(), line: int() },
    data: { index: int(), id: text(), line: int() },
  }),
  "block-delta": { index: int(), text: text() },
  /**
   * `unterminated`: the stream ended before the closing fence. `cut`: it
   * ended because the reply was cut (token limit, filter, error, dropped
   * connection): the statement it stopped in must not run, even if its text
   * parses; statements whose end came before the cut run as usual.
   */
  "block-end": { index: int(), unterminated: bool(), cut: optional(bool()) },
});
export type BlockEvent = Infer<typeof blockEventSchema>;

const serviceErrorSchema = object({ code: name(32, SERVICE_ERROR_CODE_PATTERN, "an error code"), message: text() });

/** The fields of RESULT after `type`: a JSON value, or an error with a code. */
const resultSchema = custom<
  { id: RequestId; ok: true; value: JsonValue } | { id: RequestId; ok: false; error: ServiceError }
>((value, key) => {
  const input = plainRecord(value, key);
  try {
    const id = requestId.parse(input.id, "id");
    if (input.ok === true) return { id, ok: true, value: jsonSchema.parse(input.value, "value") };
    if (input.ok !== false) fail("is not a boolean", "ok");
    return { id, ok: false, error: serviceErrorSchema.parse(input.error, "error") };
  } catch (error) {
    throw within(error, key);
  }
});

/**
 * The request entries, the same in both tables (createRequests.ts runs them on
 * both ends). An id is unique per sender: a RESULT or CANCEL names an id of
 * the CALL it answers or withdraws, sent the other way.
 */
const REQUEST_ENTRIES = {
  /** Call a method of the other side: a host service (realm → host) or FLUSH / ABORT (host → realm). */
  [CALL]: {
    id: requestId,
    method: name(64, SERVICE_NAME_PATTERN, "a method name"),
    payload: jsonSchema,
    timeoutMs: nullable(duration()),
  },
  /** The one answer to a CALL of the other side. */
  [RESULT]: resultSchema,
  /** Withdraw a CALL of ours; the other side stops its work and sends no answer. */
  [CANCEL]: { id: requestId },
};

/**
 * Host → realm, one entry per tag. The realm takes these as they come (the
 * host is trusted) except UI_EVENT, which its UI runtime checks with its
 * entry (mount.ts `validateUiEvent`).
 */
export const hostMessageSchema = variants("type", {
  [BEGIN_REPLY]: {},
  /** One protocol event of a code or data block (`BlockEvent`), in protocol order. */
  [BLOCK]: { event: blockEventSchema },
  /** Liveness probe; the realm answers HEARTBEAT with the same sequence number. */
  [PING]: { seq: int() },
  /** The connected tools, whole (replaces what the realm had; capabilities.ts `ToolDescriptor`). */
  [TOOLS]: { tools: custom<ToolDescriptor[]>((value) => (Array.isArray(value) ? value : [])) },
  /** CALL (FLUSH, ABORT), RESULT (answers the realm's calls), CANCEL. */
  ...REQUEST_ENTRIES,
  /** The person acted on a mounted UI (mount.ts). */
  [UI_EVENT]: UI_EVENT_ENTRY,
});
export type HostMessage = Infer<typeof hostMessageSchema>;

/**
 * Realm → host, one entry per tag. The realm runs model-written code, so a
 * message may be anything structured clone can carry: wrong types, extra
 * fields, Maps, huge strings, cycles. The host checks each one with this
 * table, once, at the port (`checkRealmMessage`), which rebuilds it from
 * scratch with only the declared fields.
 */
export const realmMessageSchema = variants("type", {
  /**
   * Warm (Babel loaded and exercised) and listening. `loadMs`: from the
   * worker's start to its entry running (fetch, compile and evaluation of the
   * bundle); `warmupMs`: the warm-up after that.
   */
  [READY]: { version: int(), loadMs: duration(), warmupMs: duration() },
  [HEARTBEAT]: { seq: int() },
  [EXEC_EVENT]: { event: execEventSchema },
  /** CALL (a host service), RESULT (answers FLUSH, ABORT), CANCEL. */
  ...REQUEST_ENTRIES,
  /** Mount trees for the host's renderer (mount.ts). */
  ...MOUNT_REALM_ENTRIES,
});
export type RealmMessage = Infer<typeof realmMessageSchema>;

/** The host's one gate for what arrives on the realm's port: a rebuilt message or a reason, never a throw. */
export function checkRealmMessage(value: unknown): CheckResult<RealmMessage> {
  return check(realmMessageSchema, value);
}

/** A CALL, RESULT or CANCEL (the same shapes both ways). */
export type RequestMessage = Extract<HostMessage, { type: typeof CALL | typeof RESULT | typeof CANCEL }>;
export type CallMessage = Extract<RequestMessage, { type: typeof CALL }>;
export type ResultMessage = Extract<RequestMessage, { type: typeof RESULT }>;

export function isRequestMessage(message: HostMessage | RealmMessage): message is RequestMessage {
  return message.type === CALL || message.type === RESULT || message.type === CANCEL;
}

export type HostMessageType = HostMessage["type"];
export type RealmMessageType = RealmMessage["type"];

// Bootstrap, before the port exists (window and worker postMessage).
// public/sandbox.html spells these tags by hand (it cannot import this
// folder); src/wire/bootstrap.test.ts reads it and compares with these tables.

const blobSchema = custom<Blob>((value, key) => {
  if (!(value instanceof Blob)) fail("is not a Blob", key);
  return value;
});

/** host → sandbox document (window.postMessage; START transfers the realm's port). */
export const sandboxCommandSchema = variants("type", {
  /** `bundle`: the realm's code; the realm's MessagePort travels with it. */
  [SANDBOX_START]: { version: int(), bundle: blobSchema },
  /** Are you alive? (asked when the realm stops answering) */
  [SANDBOX_PING]: { seq: int() },
});
export type SandboxCommand = Infer<typeof sandboxCommandSchema>;

/** sandbox document → host (window.postMessage). */
export const sandboxMessageSchema = variants("type", {
  /** Loaded at an opaque origin: send me the realm. */
  [SANDBOX_HELLO]: { version: int() },
  /** Yes (answers SANDBOX_PING). No answer means the sandbox's process is gone. */
  [SANDBOX_PONG]: { seq: int() },
  /** The realm worker fired `error` (untrusted text; a hint only). */
  [SANDBOX_WORKER_ERROR]: { message: text() },
});
export type SandboxMessage = Infer<typeof sandboxMessageSchema>;

/** sandbox document → realm worker (worker.postMessage, with the port transferred). */
export const realmConnectSchema = variants("type", {
  [REALM_CONNECT]: { version: int() },
});
export type RealmConnectMessage = Infer<typeof realmConnectSchema>;
