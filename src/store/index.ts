/**
 * The store's public surface (src/store/README.md). Everything persistent goes
 * through here; nothing in this folder imports React, the DOM's document
 * (except the optional page-hide helper) or `workers/`.
 */
export { openStore, createStore, closeStore, type Store, type OpenStoreOptions, type OpenStoreResult } from "./store";
export { DATABASE_NAME, SCHEMA_VERSION, LivemarkDatabase } from "./db";
export {
  createSession,
  getSession,
  listSessions,
  listDeletedSessions,
  renameSession,
  updateSessionSettings,
  deleteSession,
  undoDelete,
  purgeDeleted,
  purgeExpired,
  deleteSessionForever,
  KEEP_DELETED_MS,
  searchSessions,
  loadSession,
  openSession,
  OPEN_NEWEST,
  type OpenedSession,
  saveMessages,
  saveMounts,
  removeMounts,
  writeSessionChanges,
  lastActivity,
  type NewSession,
  type SearchHit,
  type MountSnapshotInput,
  type SessionChanges,
} from "./sessions";
export {
  createSessionWriter,
  flushOnPageHide,
  type SessionWriter,
  type SessionWriterOptions,
  type SessionFlushResult,
} from "./sessionWriter";
export { createWriteBehind, type WriteBehind, type Timer, type FlushResult } from "./writeBehind";
export { StoreError, toStoreError, type StoreErrorCode, type StoreErrorInfo } from "./errors";
export {
  exportSession,
  exportAll,
  importFile,
  serializeExport,
  exportFileName,
  type ImportResult,
  type ImportedSession,
} from "./exportImport";
export {
  SESSION_FORMAT,
  BACKUP_FORMAT,
  EXPORT_VERSION,
  parseExportText,
  type SessionExport,
  type BackupExport,
  type ExportDocument,
  type SessionBody,
} from "./exportSchema";
export { IMPORT_LIMITS, type ImportProblem, type ImportErrorCode } from "./safeJson";
export { encodeShare, decodeShare, createShareLink, isShareFragment, SHARE_PREFIX, MAX_SHARE_LENGTH } from "./share";
export { addAuditEntry, listAudit, addGrant, listGrants, removeGrant } from "./capabilities";
export * from "./types";
