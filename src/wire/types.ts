/**
 * The host ↔ realm message protocol: one table per direction
 * (`hostMessageSchema`, `realmMessageSchema`), one entry per tag, the tag
 * being the entry's key, written in the schema kit (schema.ts). The message
 * types, the tags and the host's port gate (`checkRealmMessage`) all come
 * from the tables: a new message is one entry here; each side dispatches
 * through a handler record typed by its table (`HostMessageHandlers`,
 * `RealmMessageHandlers`), so the compiler asks for its handler, and sends
 * with a `send(message)` typed by it. Messages are plain data; nothing here
 * may hold a function, a class instance or a host object.
 *
 * Mount trees (mount.ts) travel on the same port: their entries are declared
 * there (MOUNT_REALM_ENTRIES: one `mount` message by `kind`; UI_EVENT_ENTRY)
 * and joined into these tables.
 *
 * Requests go both ways as the same three entries (REQUEST_ENTRIES, in
 * both tables; createRequests.ts runs them on both ends): `call` `{id, method,
 * payload, timeoutMs}` with an `id` unique per sender and a `timeoutMs` after
 * which the caller stops waiting (`null`: until cancelled), answered once by
 * `result` (a JSON value, or an error with a `ServiceErrorCode`) or withdrawn
 * by `cancel`.
 * - host → realm: the HostMethods `flush`, `abort`, `tools` (answered `null`).
 * - realm → host: the host services (`net.fetch`, `tool.call`, …) by name
 *   with a JSON payload. The host also answers with an error when the reply
 *   is stopped (`aborted`) or the call outlives its `timeoutMs` (`timeout`);
 *   a realm reset ends the realm and every call with it.
 * Everything else is fire-and-forget; the port keeps order, so a `flush`
 * answers for every message sent before it.
 */
import { execEventSchema } from "./events";
import { MOUNT_REALM_ENTRIES, UI_EVENT_ENTRY, jsonSchema, type JsonValue } from "./mount";
import {
  CALL,
  CANCEL,
  REALM_BUNDLE,
  REALM_CONNECT,
  RESULT,
  SANDBOX_HELLO,
  SANDBOX_START,
  SANDBOX_PING,
  SANDBOX_PONG,
  SANDBOX_WORKER_ERROR,
  SERVICE_NAME_PATTERN,
  SERVICE_ERROR_CODE_PATTERN,
} from "./constants";
import {
  array,
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
const BLOCK_EVENT_ENTRIES = {
  "block-start": variants("kind", {
    /**
     * `reuse` (a block the person edited and runs again): the mounts the
     * block made before, in order; a `mount()` of this run with the same
     * title (else at the same position) updates that mount in place.
     * `titleOnly`: another mount of the reply, taken over by its title only.
     */
    code: {
      index: int(),
      line: int(),
      reuse: optional(
        array(object({ mountId: text(), title: optional(text()), titleOnly: optional(bool()) }), { max: 200 }),
      ),
    },
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
} as const;
export const blockEventSchema = variants("type", BLOCK_EVENT_ENTRIES);
export type BlockEvent = Infer<typeof blockEventSchema>;

/**
 * What the host's `block` message carries: a BlockEvent, or `begin-reply`
 * before the first block of a reply (the executor numbers replies by it and
 * settles the last one's skipped counts).
 */
const wireBlockEventSchema = variants("type", { "begin-reply": {}, ...BLOCK_EVENT_ENTRIES });
export type WireBlockEvent = Infer<typeof wireBlockEventSchema>;

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
  /** Call a method of the other side: a host service (realm → host) or a HostMethod (host → realm). */
  call: {
    id: requestId,
    method: name(64, SERVICE_NAME_PATTERN, "a method name"),
    payload: jsonSchema,
    timeoutMs: nullable(duration()),
  },
  /** The one answer to a CALL of the other side. */
  result: resultSchema,
  /** Withdraw a CALL of ours; the other side stops its work and sends no answer. */
  cancel: { id: requestId },
} as const;

/**
 * Host → realm, one entry per tag: the keys are the tags. The realm takes
 * these as they come (the host is trusted) except `ui-event`, which its UI
 * runtime checks with its entry (mount.ts `validateUiEvent`).
 */
export const hostMessageSchema = variants("type", {
  /** One protocol event of a code or data block (`BlockEvent`) in protocol order, or `begin-reply` before a reply's first. */
  block: { event: wireBlockEventSchema },
  /** Liveness probe; the realm answers `heartbeat` with the same sequence number. */
  ping: { seq: int() },
  /** `call` (a HostMethod: `flush`, `abort`, `tools`), `result` (answers the realm's calls), `cancel`. */
  ...REQUEST_ENTRIES,
  /** The person acted on a mounted UI (mount.ts). */
  "ui-event": UI_EVENT_ENTRY,
});
export type HostMessage = Infer<typeof hostMessageSchema>;

/**
 * Realm → host, one entry per tag: the keys are the tags. The realm runs
 * model-written code, so a message may be anything structured clone can
 * carry: wrong types, extra fields, Maps, huge strings, cycles. The host
 * checks each one with this table, once, at the port (`checkRealmMessage`),
 * which rebuilds it from scratch with only the declared fields.
 */
export const realmMessageSchema = variants("type", {
  /**
   * Listening, Babel loaded. `loadMs`: from the bundle's arrival in the
   * worker to its entry running (compile and evaluation of the bundle);
   * `setupMs`: the entry's set-up after that, up to READY. Babel's first-use
   * warm-up runs right after READY, in the same task, so whatever the host
   * sends at READY is handled once it is done (version 5; until version 4
   * READY came after the warm-up and carried `warmupMs`).
   */
  ready: { version: int(), loadMs: duration(), setupMs: duration() },
  heartbeat: { seq: int() },
  "exec-event": { event: execEventSchema },
  /** `call` (a host service), `result` (answers the host's methods), `cancel`. */
  ...REQUEST_ENTRIES,
  /** `mount {kind, mountId, …}`: mount trees for the host's renderer (mount.ts). */
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
/** The host message (or realm message) with tag `T`. */
export type HostMessageOf<T extends HostMessageType> = Extract<HostMessage, { type: T }>;
export type RealmMessageOf<T extends RealmMessageType> = Extract<RealmMessage, { type: T }>;
/**
 * One handler per tag of a table: dispatch through a record of this type, so
 * that the compiler asks for exactly one handler per table entry.
 */
export type HostMessageHandlers = { [T in HostMessageType]: (message: HostMessageOf<T>) => void };
export type RealmMessageHandlers = { [T in RealmMessageType]: (message: RealmMessageOf<T>) => void };

/**
 * Hand `message` to the handler of its tag (a tag with none, which the types
 * rule out, is ignored). The cast TypeScript needs to pair a union member with
 * its handler is made here, once. No intrinsic is called on the way (the
 * realm runs this after model code, which may have patched them): a property
 * read and a direct call.
 */
export function dispatch<M extends { type: string }>(
  handlers: { [T in M["type"]]: (message: Extract<M, { type: T }>) => void },
  message: M,
): void {
  const handler = handlers[message.type as M["type"]] as ((message: M) => void) | undefined;
  if (typeof handler === "function") handler(message);
}

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

/**
 * sandbox document → realm worker (worker.postMessage): first the bundle, to the loader the worker starts with,
 * then the port (transferred), to the realm the bundle defines.
 */
export const realmConnectSchema = variants("type", {
  /** `bundle`: the realm's code, evaluated once by the worker's loader. */
  [REALM_BUNDLE]: { bundle: blobSchema },
  [REALM_CONNECT]: { version: int() },
});
export type RealmConnectMessage = Infer<typeof realmConnectSchema>;
