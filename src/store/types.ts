import type { ChatMessage } from "../agent/types";
import type { JsonValue } from "../wire/mount";

/**
 * What the store keeps. Records are stored as they come: fields this version
 * does not know (written by a newer build, or by a later migration) are carried
 * along untouched, which is why the record types allow extra keys only where
 * other areas own the shape (messages, mount snapshots, capability records).
 */

export type SessionOrigin = "local" | "imported";

export type NetworkPolicy = "off" | "ask" | "allowed";

/** Per-session capability rights (DESIGN.md §4). Never the app's settings. */
export interface SessionSettings {
  network: NetworkPolicy;
  allowedHosts: string[];
  /** Ask for every network call, even on allowed hosts (absent: false). */
  strict?: boolean;
  /** MCP servers (by name) whose read-only-annotated tools run without asking (absent: none). */
  readOnlyToolServers?: string[];
  /**
   * Each capability module's own settings, by its name (a mode, a budget):
   * what it saves with `OpenSession.save` (src/capabilities). Exported with
   * the session; an import never sets them (rights are never a file's).
   */
  capabilities?: Record<string, JsonValue>;
}

export const DEFAULT_SESSION_SETTINGS: Readonly<SessionSettings> = Object.freeze({
  network: "ask",
  allowedHosts: Object.freeze([]) as unknown as string[],
});

/**
 * The model settings a file may suggest: what shapes the replies, never a
 * key or an endpoint.
 */
export interface SuggestedChatSettings {
  model?: string;
  temperature?: number;
  maxOutputTokens?: number;
  instruction?: string;
}

/**
 * The session's own model settings (Session settings → Model); each absent
 * field falls back to the app's Settings. Exported with the session: no key,
 * no endpoint, only what shapes the replies. Only the person sets them (by
 * hand, or with Apply suggested settings): an import never does.
 */
export interface SessionChatSettings extends SuggestedChatSettings {
  /** The person's extra system instruction for this session. */
  instruction?: string;
  /**
   * An instruction that came with an imported file, applied by the person:
   * sent to the model inside the untrusted-content bracket, marked as the
   * file's, never as the person's instruction.
   */
  importedInstruction?: string;
}

export const DEFAULT_TITLE = "New session";
export const MAX_TITLE_LENGTH = 200;

export interface Session {
  id: string;
  title: string;
  createdAt: number;
  /** Last activity: a message saved, settings changed. Renaming does not count. */
  updatedAt: number;
  origin: SessionOrigin;
  settings: SessionSettings;
  /** Model, temperature, max tokens, instruction for this session (absent: the app's Settings). */
  chat?: SessionChatSettings;
  /**
   * The model settings an imported file or share link carried: shown in
   * Session settings → Model as "Suggested by the file", applied only when the
   * person presses Apply suggested settings (an import never chooses what the
   * person's key is spent on, nor what the system prompt says).
   */
  suggestedChat?: SuggestedChatSettings;
  /** Set on sessions that came from a file or a share link. */
  importedAt?: number;
  /** Soft delete: hidden from the list until `undoDelete` or a purge. */
  deletedAt?: number;
}

/** A message row: the agent's `ChatMessage` plus where it belongs. */
export type MessageRecord = ChatMessage & { sessionId: string; order: number };

/** The host's JSON snapshot of one mount's tree (src/render owns `snapshot`). */
export interface MountSnapshot {
  sessionId: string;
  mountId: string;
  messageId: string;
  snapshot: unknown;
  updatedAt: number;
}

/**
 * The tag an audit line or a grant carries: a capability's own name for its
 * records (`network`, `file`, `tool`, or a new module's), lower-case
 * (`CAPABILITY_TAG_PATTERN`).
 */
export type Capability = string;
export const CAPABILITY_TAG_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Network: how a call was allowed (once, by its host, by the session's mode)
 * or that it was denied. Files: the person chose a file (`chosen`), code
 * offered one (`offered`), the person saved it (`saved`). Tools: allowed once,
 * by "Always allow this tool" (`allowed-tool`), by the server's read-only
 * switch (`allowed-read-only`), or denied.
 */
export type CapabilityDecision = string;
/** The decisions network, files and tools record (a new capability may record its own words). */
export type KnownCapabilityDecision =
  | "allowed-once"
  | "allowed-host"
  | "allowed-session"
  | "allowed-tool"
  | "allowed-read-only"
  | "denied"
  | "chosen"
  | "offered"
  | "saved";

/** One use of a capability, allowed or not (DESIGN.md §4 audit list). */
export interface AuditEntry {
  /** Auto-increment key, assigned by the database. */
  id?: number;
  sessionId: string;
  at: number;
  capability: Capability;
  method: string;
  url: string;
  decision: CapabilityDecision;
  /** Came with an imported file (set by the import, whatever the file said): history of another browser, shown as "from the file". */
  fromFile?: boolean;
  [field: string]: unknown;
}

/** A standing grant ("Always for this host in this session"). */
export interface GrantRecord {
  id?: number;
  sessionId: string;
  capability: Capability;
  host: string;
  grantedAt: number;
  [field: string]: unknown;
}

/** Lower-cased, bounded text of one message, for search (schema version 2). */
export interface SearchTextRecord {
  sessionId: string;
  messageId: string;
  text: string;
}

/** What `loadSession` returns: everything needed to show a session. */
export interface LoadedSession {
  session: Session;
  messages: ChatMessage[];
  mounts: MountSnapshot[];
}
