/**
 * The host ↔ realm message protocol: one discriminated union per direction,
 * tagged by `type` (values in constants.ts). Messages are plain data; nothing
 * here may hold a function, a class instance or a host object.
 *
 * Mount trees (mount.ts) travel on the same port: MountRealmMessage from
 * the realm, UI_EVENT from the host, with their own validators.
 *
 * Requests (FLUSH, ABORT) carry an `id` unique per host, a `timeoutMs` after
 * which the host stops waiting (`null`: wait until cancelled), and can be
 * withdrawn with CANCEL. Everything else is fire-and-forget; the port keeps
 * order, so a FLUSH answers for every message sent before it.
 */
import type { ExecEvent } from "./events";
import type { MountRealmMessage, UiEventMessage } from "./mount";
import type {
  ABORT, ABORTED, BEGIN_REPLY, CANCEL, END_CODE, END_DATA, EXEC_EVENT, FLUSH, FLUSHED, HEARTBEAT,
  OPEN_CODE, OPEN_DATA, PING, PUSH_CODE, PUSH_DATA, READY, REALM_CONNECT, SANDBOX_HELLO, SANDBOX_START,
  SANDBOX_PING, SANDBOX_PONG, SANDBOX_WORKER_ERROR,
} from "./constants";

export type RequestId = number;

export type HostMessage =
  | { type: typeof BEGIN_REPLY }
  | { type: typeof OPEN_CODE; block: number; line: number }
  | { type: typeof PUSH_CODE; block: number; delta: string }
  | { type: typeof END_CODE; block: number; unterminated: boolean }
  | { type: typeof OPEN_DATA; block: number; id: string; line: number }
  | { type: typeof PUSH_DATA; block: number; delta: string }
  | { type: typeof END_DATA; block: number; unterminated: boolean }
  | { type: typeof FLUSH; id: RequestId; timeoutMs: number | null }
  | { type: typeof ABORT; id: RequestId; timeoutMs: number | null }
  | { type: typeof CANCEL; id: RequestId }
  | { type: typeof PING; seq: number }
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
