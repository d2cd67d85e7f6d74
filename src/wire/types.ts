/**
 * The host ↔ realm message protocol: one discriminated union per direction,
 * tagged by `type` (values in constants.ts). Messages are plain data; nothing
 * here may hold a function, a class instance or a host object.
 *
 * Mount trees (mount.ts) travel on the same port: MountRealmMessage from
 * the realm, UI_EVENT from the host, with their own validators.
 *
 * Requests go both ways and share one shape: an `id` unique per sender, a
 * `timeoutMs` after which the sender stops waiting (`null`: wait until
 * cancelled), and a way to withdraw it.
 * - host → realm: FLUSH and ABORT, answered by FLUSHED / ABORTED, withdrawn
 *   with CANCEL.
 * - realm → host: SERVICE_REQUEST names a host service and carries a JSON
 *   payload; the host answers SERVICE_RESPONSE (a JSON value, or an error with
 *   a `ServiceErrorCode`); the realm withdraws it with SERVICE_CANCEL. The
 *   host also answers with an error when the reply is stopped (`aborted`) or
 *   the request outlives its `timeoutMs` (`timeout`); a realm reset ends the
 *   realm and every request with it.
 * Everything else is fire-and-forget; the port keeps order, so a FLUSH
 * answers for every message sent before it.
 */
import type { ExecEvent } from "./events";
import type { JsonValue, MountRealmMessage, UiEventMessage } from "./mount";
import type {
  ABORT, ABORTED, BEGIN_REPLY, BLOCK, CANCEL, EXEC_EVENT, FLUSH, FLUSHED, HEARTBEAT, PING, READY, REALM_CONNECT, SANDBOX_HELLO, SANDBOX_START,
  SANDBOX_PING, SANDBOX_PONG, SANDBOX_WORKER_ERROR, SERVICE_CANCEL, SERVICE_REQUEST, SERVICE_RESPONSE, TOOLS,
} from "./constants";
import type { ToolDescriptor } from "./capabilities";

export type RequestId = number;

/**
 * Why a realm → host request failed. The first six belong to the contract;
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

export type ServiceResponse =
  | { type: typeof SERVICE_RESPONSE; id: RequestId; ok: true; value: JsonValue }
  | { type: typeof SERVICE_RESPONSE; id: RequestId; ok: false; error: ServiceError };

/**
 * The protocol parser's events (src/protocol/types.ts) for code and data
 * blocks — the only verbs of a reply, declared here once. The parser's own
 * events are assignable to these; text blocks never reach the realm. Each
 * block is `block-start`, any number of `block-delta`s, one `block-end`, in
 * reply order; `index` counts all blocks of the reply from 0, `line` is the
 * reply line of the first body line.
 */
export type BlockEvent =
  | { type: "block-start"; index: number; kind: "code"; line: number }
  | { type: "block-start"; index: number; kind: "data"; id: string; line: number }
  | { type: "block-delta"; index: number; text: string }
  /**
   * `unterminated`: the stream ended before the closing fence. `cut`: it
   * ended because the reply was cut (token limit, filter, error, dropped
   * connection): the statement it stopped in must not run, even if its text
   * parses; statements whose end came before the cut run as usual.
   */
  | { type: "block-end"; index: number; unterminated: boolean; cut?: boolean };

export type HostMessage =
  | { type: typeof BEGIN_REPLY }
  | { type: typeof BLOCK; event: BlockEvent }
  | { type: typeof FLUSH; id: RequestId; timeoutMs: number | null }
  | { type: typeof ABORT; id: RequestId; timeoutMs: number | null }
  | { type: typeof CANCEL; id: RequestId }
  | { type: typeof PING; seq: number }
  /** The connected tools, whole (replaces what the realm had). */
  | { type: typeof TOOLS; tools: ToolDescriptor[] }
  | ServiceResponse
  /** The person acted on a mounted UI (mount.ts). */
  | UiEventMessage;

export type RealmMessage =
  /**
   * Warm (Babel loaded and exercised) and listening. `loadMs`: from the
   * worker's start to its entry running (fetch, compile and evaluation of the
   * bundle); `warmupMs`: the warm-up after that.
   */
  | { type: typeof READY; version: number; loadMs: number; warmupMs: number }
  | { type: typeof HEARTBEAT; seq: number }
  | { type: typeof EXEC_EVENT; event: ExecEvent }
  | { type: typeof FLUSHED; id: RequestId }
  | { type: typeof ABORTED; id: RequestId }
  | { type: typeof SERVICE_REQUEST; id: RequestId; service: string; payload: JsonValue; timeoutMs: number | null }
  | { type: typeof SERVICE_CANCEL; id: RequestId }
  /** Mount trees for the host's renderer (mount.ts). */
  | MountRealmMessage;

export type HostMessageType = HostMessage["type"];
export type RealmMessageType = RealmMessage["type"];

/** host → sandbox document (window.postMessage; START transfers the realm's port). */
export type SandboxCommand =
  | { type: typeof SANDBOX_START; version: number; bundle: Blob }
  | { type: typeof SANDBOX_PING; seq: number };

/** sandbox document → host (window.postMessage). */
export type SandboxMessage =
  | { type: typeof SANDBOX_HELLO; version: number }
  | { type: typeof SANDBOX_PONG; seq: number }
  | { type: typeof SANDBOX_WORKER_ERROR; message: string };

/** sandbox document → realm worker (worker.postMessage, with the port transferred). */
export interface RealmConnectMessage {
  type: typeof REALM_CONNECT;
  version: number;
}
