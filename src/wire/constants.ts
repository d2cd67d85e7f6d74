/**
 * Wire constants shared by the host (src/sandbox) and the realm
 * (workers/realm). Message tags are plain strings so a message stays readable
 * in a debugger and survives structured clone.
 *
 * Bump WIRE_VERSION whenever a message changes shape; the realm announces its
 * version in READY and the host refuses a realm built against another one
 * (a stale cached realm.js next to a newer app).
 */
import type { HostMessageType, RealmMessageType } from "./types";
import type { RealmCapabilityMethod } from "./capabilities";

export const WIRE_VERSION = 5;

// The port's tags are the keys of the tables in types.ts (a new message is
// one entry there). The names below are aliases for tags code names often;
// each is held to its table by the compiler.

// Host → realm, over the MessagePort.
/** One protocol event of a code or data block (`BlockEvent`), or `begin-reply`, in protocol order. */
export const BLOCK = "block" satisfies HostMessageType;
/** Liveness probe; the realm answers HEARTBEAT with the same sequence number. */
export const PING = "ping" satisfies HostMessageType;

// Realm → host, over the MessagePort. Every one is validated by the host.
export const READY = "ready" satisfies RealmMessageType;
export const HEARTBEAT = "heartbeat" satisfies RealmMessageType;
export const EXEC_EVENT = "exec-event" satisfies RealmMessageType;

// Requests, both ways over the MessagePort (createRequests.ts).
/** Request: `{id, method, payload, timeoutMs}`; the other side answers RESULT or is told CANCEL. */
export const CALL = "call" satisfies HostMessageType & RealmMessageType;
/** The answer to a CALL: `{id, ok: true, value}` or `{id, ok: false, error: {code, message}}`. */
export const RESULT = "result" satisfies HostMessageType & RealmMessageType;
/** Forget a pending CALL; the other side sends no answer for it. */
export const CANCEL = "cancel" satisfies HostMessageType & RealmMessageType;

// Methods the host calls on the realm (the realm answers them with `null`).
/** Answer once everything sent before it has run. */
export const FLUSH = "flush";
/** Stop what runs now; answer once the executor is idle. */
export const ABORT = "abort";
/** Payload `{tools}`: the person's MCP tools, whole (capabilities.ts `ToolDescriptor`); the realm's `tools` global shows exactly these. */
export const TOOLS = "tools";
/** What the host may call on the realm. */
export type HostMethod = typeof FLUSH | typeof ABORT | typeof TOOLS | RealmCapabilityMethod;

// Bootstrap, before the port exists. These travel by window/worker
// postMessage, and public/sandbox.html (plain HTML, not bundled) spells the
// same strings: change both together.
/** sandbox document → host: loaded at an opaque origin, send me the realm. */
export const SANDBOX_HELLO = "livemark-sandbox-hello";
/** host → sandbox document: `{ bundle: Blob }` plus the realm's MessagePort. */
export const SANDBOX_START = "livemark-sandbox-start";
/** sandbox document → host: the realm worker fired `error` (untrusted text; a hint only). */
export const SANDBOX_WORKER_ERROR = "livemark-sandbox-worker-error";
/** host → sandbox document: are you alive? (asked when the realm stops answering) */
export const SANDBOX_PING = "livemark-sandbox-ping";
/** sandbox document → host: yes. No answer means the sandbox's process is gone. */
export const SANDBOX_PONG = "livemark-sandbox-pong";
/**
 * sandbox document → the worker's loader (started with the document, before the bundle arrives): `{ bundle: Blob }`,
 * evaluated once; the realm it defines then hears REALM_CONNECT.
 */
export const REALM_BUNDLE = "livemark-realm-bundle";
/** sandbox document → realm worker: here is your MessagePort. */
export const REALM_CONNECT = "livemark-realm-connect";

/** A method's name (a host service's, or a HostMethod): lower-case words joined by `.` or `-` (`echo`, `net.fetch`). */
export const SERVICE_NAME_PATTERN = /^[a-z][a-z0-9.-]{0,63}$/;
/** An error code a host service may answer with (the catalog is in types.ts). */
export const SERVICE_ERROR_CODE_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
/** A realm → host call that names no timeout waits at most this long. */
export const DEFAULT_SERVICE_TIMEOUT_MS = 30_000;

/** Upper bound on any string the host accepts from the realm; longer ones are truncated. */
export const MAX_WIRE_STRING = 256 * 1024;
