export {
  createRealmHost,
  DEFAULT_FLUSH_TIMEOUT_MS,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  REALM_HOST_MARK,
  REALM_READY_MARK,
} from "./createRealmHost";
export { HostServiceError } from "./HostServiceError";
export { RealmHostError, isRealmHostError, type RealmHostErrorCode } from "./RealmHostError";
export type {
  FlushOptions,
  HostService,
  HostServiceContext,
  RealmErrorCode,
  RealmEvent,
  RealmHost,
  RealmHostOptions,
  RealmHostStatus,
  RealmResetReason,
  RunningStatement,
} from "./types";
