import type { ChatMessage } from "../agent/types";
import { toStoreError, type StoreErrorInfo } from "./errors";
import { putSessionChangesNow, writeSessionChanges, type MountSnapshotInput } from "./sessions";
import type { Store } from "./store";
import { createWriteBehind, type Timer } from "./writeBehind";

/**
 * The shell that binds the write-behind scheduler to one session: the app
 * calls `markDirty(message)` on every change of the agent state (every token
 * while a reply streams) and `flush()` at the end of a reply and when the
 * page is hidden. Writes happen at most every 500 ms, messages and mount
 * snapshots together in one transaction (a long streaming reply less often:
 * STREAMING_SAVE_CHARS_PER_SECOND).
 *
 * A reply saved mid-stream is stored with the agent's `state: "streaming"`;
 * `loadSession` reads that back as "interrupted", so a tab closed mid-reply
 * reopens showing the cut.
 */

export type SessionFlushResult = { ok: true } | { ok: false; error: StoreErrorInfo };

/**
 * A streaming reply is saved whole at each write, so a long one is saved
 * less often: after a write holding streaming replies of N characters in
 * all, the next timed write waits N / STREAMING_SAVE_CHARS_PER_SECOND
 * seconds when that is more than the 500 ms cadence (a 200k-character reply:
 * every 2 s). The characters copied per second stay bounded however long the
 * reply grows; `flush` (the reply's end), `writeNow` (the page going away) and
 * a mount's snapshot still write at once.
 */
export const STREAMING_SAVE_CHARS_PER_SECOND = 100_000;

/** How soon a marked mount snapshot's write starts (the snapshot itself is taken within MOUNT_SNAPSHOT_DELAY_MS of the change, src/session). */
export const MOUNT_WRITE_WITHIN_MS = 100;

export interface SessionWriter {
  readonly sessionId: string;
  markDirty(message: ChatMessage): void;
  /**
   * Mark, from a whole message list (the agent's `state.messages`), only the
   * messages whose object changed since the last call or load: cheap to call
   * on every agent update.
   */
  markChanged(messages: readonly ChatMessage[]): void;
  /** A mount's latest snapshot: written within MOUNT_WRITE_WITHIN_MS (a mount's state is durable within 0.5 s of its change). */
  markMountDirty(mount: MountSnapshotInput): void;
  flush(): Promise<SessionFlushResult>;
  /** After a failed write, try again now rather than after the backoff (space was freed, the person acted). */
  retry(): Promise<SessionFlushResult>;
  /**
   * Start writing every change not known to be on disk (pending, or in a
   * write still under way) now, in this task, in one IndexedDB transaction
   * with no reads: the page is being hidden or left. `flush` reads before it
   * writes, and a page that is going away runs no more tasks for those reads
   * to answer in, so a reload right after a reply ended lost the exchange.
   * The changes also stay with the writer for the next `flush`, which writes
   * the same values.
   */
  writeNow(): void;
  /** Changes not yet on disk (kept in memory, retried). */
  readonly pendingCount: number;
  /** A write is under way. */
  readonly writing: boolean;
  readonly failing: boolean;
  readonly writeCount: number;
  /** Resolves when no write is in flight (tests, benchmarks). */
  whenIdle(): Promise<void>;
  /** Flush what is pending and stop the timer (switching sessions, unmount). */
  close(): Promise<SessionFlushResult>;
}

export interface SessionWriterOptions {
  intervalMs?: number;
  timer?: Timer;
  /** A write failed (it is kept and retried); show `error.message`. */
  onError?: (error: StoreErrorInfo) => void;
  /** Writes succeed again after a failure; clear the warning. */
  onRecovered?: () => void;
}

/** The writers not yet closed, for the test probe (src/testProbe.ts): read-only status, never the changes. */
const openWriters = new Set<SessionWriter>();
export function openSessionWriters(): readonly SessionWriter[] {
  return [...openWriters];
}

type Change = { kind: "message"; message: ChatMessage } | { kind: "mount"; mount: MountSnapshotInput };

export function createSessionWriter(
  store: Store,
  sessionId: string,
  options: SessionWriterOptions = {},
): SessionWriter {
  let abortedByWriteNow = false;
  const scheduler = createWriteBehind<Change>({
    key: (change) => (change.kind === "message" ? `message:${change.message.id}` : `mount:${change.mount.mountId}`),
    write: async (changes) => {
      const messages: ChatMessage[] = [];
      const mounts: MountSnapshotInput[] = [];
      for (const change of changes) {
        if (change.kind === "message") messages.push(change.message);
        else mounts.push(change.mount);
      }
      await writeSessionChanges(store, sessionId, { messages, mounts });
    },
    intervalMs: options.intervalMs,
    spacingMs: (changes) => {
      let characters = 0;
      for (const change of changes)
        if (change.kind === "message" && change.message.role === "assistant" && change.message.state === "streaming")
          characters += change.message.text.length;
      return (characters / STREAMING_SAVE_CHARS_PER_SECOND) * 1000;
    },
    timer: options.timer,
    // A purged session or a value the browser cannot store will not heal by waiting.
    shouldRetry: (error) => toStoreError(error).retryable,
    onError: (error) => {
      const info = toStoreError(error);
      // `writeNow` aborted it (the page is being hidden or left); it is retried and nothing was lost.
      if (info.code === "aborted" && abortedByWriteNow) {
        abortedByWriteNow = false;
        return;
      }
      options.onError?.(info);
    },
    onRecovered: options.onRecovered,
  });
  const flush = async (): Promise<SessionFlushResult> => {
    const result = await scheduler.flush();
    return result.ok ? result : { ok: false, error: toStoreError(result.error) };
  };
  const lastSeen = new Map<string, ChatMessage>();
  const markDirty = (message: ChatMessage) => {
    lastSeen.set(message.id, message);
    scheduler.markDirty({ kind: "message", message });
  };
  const writer: SessionWriter = {
    sessionId,
    markDirty,
    markChanged(messages) {
      for (const message of messages) {
        if (lastSeen.get(message.id) === message || store.saved.get(message) === sessionId) continue;
        markDirty(message);
      }
    },
    markMountDirty: (mount) => scheduler.markDirty({ kind: "mount", mount }, MOUNT_WRITE_WITHIN_MS),
    flush,
    async retry() {
      const result = await scheduler.retry();
      return result.ok ? result : { ok: false, error: toStoreError(result.error) };
    },
    writeNow() {
      const messages: ChatMessage[] = [];
      const mounts: MountSnapshotInput[] = [];
      for (const change of scheduler.unsettledItems()) {
        if (change.kind === "message") messages.push(change.message);
        else mounts.push(change.mount);
      }
      if (putSessionChangesNow(store, sessionId, { messages, mounts })) abortedByWriteNow = true;
    },
    whenIdle: () => scheduler.whenIdle(),
    get pendingCount() {
      return scheduler.pendingCount;
    },
    get writing() {
      return scheduler.writing;
    },
    get failing() {
      return scheduler.failing;
    },
    get writeCount() {
      return scheduler.writeCount;
    },
    async close() {
      const result = await flush();
      scheduler.dispose();
      openWriters.delete(writer);
      return result;
    },
  };
  openWriters.add(writer);
  return writer;
}

interface PageEvents {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

/**
 * Flush when the page goes away: `visibilitychange` to hidden is the last
 * event browsers reliably deliver on mobile, `pagehide` covers desktop
 * navigation and bfcache. IndexedDB commits a transaction started there even
 * if the page is then frozen. Returns the unsubscribe function.
 */
export function flushOnPageHide(
  flush: () => unknown,
  target: { window?: PageEvents; document?: PageEvents & { visibilityState?: string } } = {
    window: globalThis.window,
    document: globalThis.document,
  },
): () => void {
  const onVisibility = () => {
    if (target.document?.visibilityState === "hidden") void flush();
  };
  const onPageHide = () => void flush();
  target.document?.addEventListener("visibilitychange", onVisibility);
  target.window?.addEventListener("pagehide", onPageHide);
  return () => {
    target.document?.removeEventListener("visibilitychange", onVisibility);
    target.window?.removeEventListener("pagehide", onPageHide);
  };
}
