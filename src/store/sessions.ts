import { endUnfinished } from "../agent/reply";
import type { ChatMessage } from "../agent/types";
import type { JsonValue } from "../wire/mount";
import { StoreError, storeError, toStoreError } from "./errors";
import { normalizeForSearch, queryTerms, searchRowOf, snippetAround } from "./searchText";
import type { SessionWrite, Store } from "./store";
import {
  DEFAULT_SESSION_SETTINGS,
  DEFAULT_TITLE,
  MAX_TITLE_LENGTH,
  type LoadedSession,
  type MessageRecord,
  type MountSnapshot,
  type SearchTextRecord,
  type Session,
  type SessionChatSettings,
  type SuggestedChatSettings,
  type SessionSettings,
} from "./types";

/**
 * Dexie.minKey and Dexie.maxKey (the lowest key, and the highest key where
 * array keys are supported: every IndexedDB the app runs on), spelled out
 * so this module, which the first load needs, does not bring Dexie along:
 * the database code loads with openStore().
 */
const MIN_KEY = -Infinity;
const MAX_KEY: [never[]] = [[]];

/**
 * Session repository: the functions the UI calls. Each takes the `Store`
 * first, runs in one Dexie transaction where it writes, and rejects only with
 * a `StoreError` (code + plain message + cause), so the UI catches at the top.
 */

export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof StoreError ? error : new StoreError(toStoreError(error));
  }
}

function notFound(id: string): StoreError {
  return new StoreError(
    storeError("not-found", undefined, `There is no session with id "${id}"; it may have been deleted in another tab.`),
  );
}

export function cleanTitle(title: string | undefined): string {
  const clean = (title ?? "").replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_LENGTH);
  return clean || DEFAULT_TITLE;
}

/** Sort key for the session list: an imported session counts as active when imported. */
export function lastActivity(session: Session): number {
  return Math.max(session.updatedAt, session.importedAt ?? 0);
}

const byActivity = (a: Session, b: Session) =>
  lastActivity(b) - lastActivity(a) || b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1);

export interface NewSession {
  title?: string;
  settings?: Partial<SessionSettings>;
  chat?: SessionChatSettings;
  suggestedChat?: SuggestedChatSettings;
}

export async function createSession(store: Store, init: NewSession = {}): Promise<Session> {
  const now = store.now();
  const session: Session = {
    id: store.newId(),
    title: cleanTitle(init.title),
    createdAt: now,
    updatedAt: now,
    origin: "local",
    settings: {
      network: init.settings?.network ?? DEFAULT_SESSION_SETTINGS.network,
      allowedHosts: [...(init.settings?.allowedHosts ?? DEFAULT_SESSION_SETTINGS.allowedHosts)],
    },
    ...(init.chat && Object.keys(init.chat).length > 0 ? { chat: { ...init.chat } } : {}),
    ...(init.suggestedChat && Object.keys(init.suggestedChat).length > 0
      ? { suggestedChat: { ...init.suggestedChat } }
      : {}),
  };
  await guard(() => store.db.sessions.add(session));
  store.orders.set(session.id, { byId: new Map(), next: 0 });
  return session;
}

export function getSession(store: Store, id: string): Promise<Session | undefined> {
  return guard(() => store.db.sessions.get(id));
}

/** Sessions not deleted, most recent activity first. */
export async function listSessions(store: Store): Promise<Session[]> {
  const sessions = await guard(() => store.db.sessions.filter((session) => session.deletedAt === undefined).toArray());
  return sessions.sort(byActivity);
}

/** Soft-deleted sessions (the trash), most recently deleted first. */
export async function listDeletedSessions(store: Store): Promise<Session[]> {
  const sessions = await guard(() => store.db.sessions.where("deletedAt").above(-Infinity).toArray());
  return sessions.sort((a, b) => (b.deletedAt ?? 0) - (a.deletedAt ?? 0));
}

async function modifySession(store: Store, id: string, change: (session: Session) => void): Promise<Session> {
  return guard(() =>
    store.db.transaction("rw", store.db.sessions, async () => {
      const session = await store.db.sessions.get(id);
      if (!session) throw notFound(id);
      change(session);
      await store.db.sessions.put(session);
      return session;
    }),
  );
}

/** Rename; whitespace is collapsed, an empty title becomes "New session". Does not reorder the list. */
export function renameSession(store: Store, id: string, title: string): Promise<Session> {
  return modifySession(store, id, (session) => {
    session.title = cleanTitle(title);
  });
}

export function updateSessionSettings(store: Store, id: string, settings: SessionSettings): Promise<Session> {
  return modifySession(store, id, (session) => {
    session.settings = {
      network: settings.network,
      allowedHosts: [...settings.allowedHosts],
      ...(settings.strict ? { strict: true } : {}),
      ...(settings.readOnlyToolServers?.length ? { readOnlyToolServers: [...settings.readOnlyToolServers] } : {}),
      // The capability modules' own settings are saved by updateCapabilitySettings: kept here as they are.
      ...(session.settings.capabilities ? { capabilities: session.settings.capabilities } : {}),
    };
    session.updatedAt = store.now();
  });
}

/**
 * The rules a session kept before capability modules had settings of their own
 * (`network`, `allowedHosts`, `strict`, `readOnlyToolServers`), each changed
 * alone: the others, and the modules' own settings, stay as they are. Absent,
 * false or empty is the default (not stored).
 */
export function updateSessionRules(
  store: Store,
  id: string,
  rules: Partial<Omit<SessionSettings, "capabilities">>,
): Promise<Session> {
  return modifySession(store, id, (session) => {
    const next = { ...session.settings, ...rules };
    if (!next.strict) delete next.strict;
    if (!next.readOnlyToolServers?.length) delete next.readOnlyToolServers;
    session.settings = { ...next, allowedHosts: [...next.allowedHosts] };
    session.updatedAt = store.now();
  });
}

/** One capability module's own settings (`settings.capabilities[name]`), replacing what it saved before. */
export function updateCapabilitySettings(store: Store, id: string, name: string, value: JsonValue): Promise<Session> {
  return modifySession(store, id, (session) => {
    session.settings = {
      ...session.settings,
      capabilities: { ...session.settings.capabilities, [name]: structuredClone(value) },
    };
    session.updatedAt = store.now();
  });
}

/** The session's model settings; an empty object clears them (the app's Settings apply). */
export function updateSessionChat(store: Store, id: string, chat: SessionChatSettings): Promise<Session> {
  return modifySession(store, id, (session) => {
    const kept = Object.fromEntries(
      Object.entries(chat).filter(([, value]) => value !== undefined && value !== ""),
    ) as SessionChatSettings;
    if (Object.keys(kept).length > 0) session.chat = kept;
    else delete session.chat;
    session.updatedAt = store.now();
  });
}

/**
 * Apply what an imported file suggested (Apply suggested settings): its
 * model, temperature and max tokens become the session's; its instruction
 * becomes `importedInstruction` (sent inside the untrusted bracket), never
 * the person's own `instruction`, which stays as it was.
 */
export function applySuggestedChat(store: Store, id: string): Promise<Session> {
  return modifySession(store, id, (session) => {
    const suggestion = session.suggestedChat;
    if (!suggestion) return;
    const { instruction, ...settings } = suggestion;
    const chat: SessionChatSettings = { ...session.chat, ...settings };
    if (instruction?.trim()) chat.importedInstruction = instruction.trim();
    session.chat = chat;
    delete session.suggestedChat;
    session.updatedAt = store.now();
  });
}

/** Soft delete: hidden from `listSessions` and search until `undoDelete` or `purgeDeleted`. */
export async function deleteSession(store: Store, id: string): Promise<Session> {
  return modifySession(store, id, (session) => {
    session.deletedAt = store.now();
  });
}

export async function undoDelete(store: Store, id: string): Promise<Session> {
  return modifySession(store, id, (session) => {
    delete session.deletedAt;
  });
}

/** How long a deleted session stays in **Recently deleted** before `purgeExpired` removes it. */
export const KEEP_DELETED_MS = 30 * 24 * 60 * 60 * 1000;

const SESSION_TABLES = (db: Store["db"]) => [
  db.sessions,
  db.messages,
  db.mounts,
  db.grants,
  db.audit,
  db.searchText,
  db.appData,
];

/** Every row of these sessions, the sessions included. Deletes only: it works on a full store. */
async function removeSessionRows(store: Store, ids: readonly string[]): Promise<void> {
  const { db } = store;
  for (const id of ids) {
    await db.messages.where("[sessionId+order]").between([id, MIN_KEY], [id, MAX_KEY]).delete();
    await db.mounts.where("sessionId").equals(id).delete();
    await db.grants.where("sessionId").equals(id).delete();
    await db.audit.where("sessionId").equals(id).delete();
    await db.searchText.where("sessionId").equals(id).delete();
    await db.appData.where("sessionId").equals(id).delete();
  }
  await db.sessions.bulkDelete([...ids]);
  for (const id of ids) store.orders.delete(id);
}

/**
 * Remove for good the sessions deleted before `deletedBefore` (default: all
 * deleted ones), with every row that belongs to them. Returns how many.
 */
export async function purgeDeleted(store: Store, options: { deletedBefore?: number } = {}): Promise<number> {
  const { db } = store;
  const before = options.deletedBefore ?? Infinity;
  return guard(() =>
    db.transaction("rw", SESSION_TABLES(db), async () => {
      const ids = (await db.sessions.where("deletedAt").below(before).primaryKeys()) as string[];
      await removeSessionRows(store, ids);
      return ids.length;
    }),
  );
}

/** Purge the sessions deleted more than KEEP_DELETED_MS ago (by the store's clock). */
export function purgeExpired(store: Store): Promise<number> {
  return purgeDeleted(store, { deletedBefore: store.now() - KEEP_DELETED_MS });
}

/**
 * **Delete forever**: the session and every row of it, deleted or not, at
 * once. It only deletes (no `put`), so it frees space even when the store is
 * full and a soft delete (`deleteSession`, a write) fails with `quota-exceeded`.
 * False when there was no such session.
 */
export async function deleteSessionForever(store: Store, id: string): Promise<boolean> {
  const { db } = store;
  return guard(() =>
    db.transaction("rw", SESSION_TABLES(db), async () => {
      const exists = (await db.sessions.where("id").equals(id).count()) > 0;
      await removeSessionRows(store, [id]);
      return exists;
    }),
  );
}

/**
 * A stored message as the agent knows it; a reply cut mid-stream reads as interrupted, and a reply that ended
 * early (interrupted, stopped) has no code left running (`endUnfinished`: a block saved mid-statement no longer
 * says "running" under "Stopped.").
 */
export function messageFromRecord(record: MessageRecord): ChatMessage {
  const { sessionId: _sessionId, order: _order, ...message } = record as MessageRecord & Record<string, unknown>;
  const chat = message as unknown as ChatMessage;
  if (chat.role !== "assistant" || chat.state === "done") return chat;
  const state = chat.state === "streaming" ? "interrupted" : chat.state;
  const reply = endUnfinished(chat.reply);
  return state === chat.state && reply === chat.reply ? chat : { ...chat, state, reply };
}

function sessionMessages(store: Store, sessionId: string) {
  return store.db.messages.where("[sessionId+order]").between([sessionId, MIN_KEY], [sessionId, MAX_KEY]);
}

/** Records read per request when a session opens: the browser deserializes each page in a task of its own. */
const LOAD_PAGE = 200;

/**
 * A session's messages in order, a page at a time: a long session's records
 * (2,000 replies are megabytes) read in one request were deserialized in
 * one task the page could not draw through.
 */
async function messagesInPages(store: Store, sessionId: string): Promise<MessageRecord[]> {
  const records: MessageRecord[] = [];
  for (;;) {
    const last = records.at(-1);
    const page = await store.db.messages
      .where("[sessionId+order]")
      .between([sessionId, last ? last.order : MIN_KEY], [sessionId, MAX_KEY], !last, true)
      .limit(LOAD_PAGE)
      .toArray();
    records.push(...page);
    if (page.length < LOAD_PAGE) return records;
  }
}

/** Session, its messages in order, and its mount snapshots; `undefined` if there is no such session. */
export async function loadSession(store: Store, id: string): Promise<LoadedSession | undefined> {
  const { db } = store;
  const loaded = await guard(() =>
    db.transaction("r", [db.sessions, db.messages, db.mounts], async () => {
      const session = await db.sessions.get(id);
      if (!session) return undefined;
      // Mount snapshots can be megabytes each: read them with a cursor, one record per event, so the
      // browser does not deserialize every one of them in a single task.
      const mounts: MountSnapshot[] = [];
      const [records] = await Promise.all([
        messagesInPages(store, id),
        db.mounts
          .where("sessionId")
          .equals(id)
          .each((mount) => void mounts.push(mount)),
      ]);
      return { session, records, mounts };
    }),
  );
  if (!loaded) return undefined;
  // Versions (timelineEdits.ts) load with the first session that has some.
  const shown = loaded.records.some((record) => record.versions)
    ? (await import("./timelineEdits")).shownRecords(loaded.records)
    : loaded.records;
  store.orders.set(id, {
    // A row left behind (kept by a version) is not a place: shown again, its message goes after the others.
    byId: new Map(shown.map((record) => [record.id, record.order])),
    next: (loaded.records.at(-1)?.order ?? -1) + 1,
  });
  const messages = shown.map((record) => {
    const message = messageFromRecord(record);
    store.saved.set(message, id);
    return message;
  });
  return { session: loaded.session, messages, mounts: loaded.mounts };
}

/** The newest messages `openSession` reads before it returns: more than the timeline draws at once (src/ui/Timeline.tsx). */
export const OPEN_NEWEST = 40;

/**
 * Rows shown, in order, of `records` (in order), given the ids hidden by the
 * rows after them; adds to `hidden` what these rows keep as versions. Read
 * from the newest row back, as `shownRecords` (timelineEdits.ts) does for a
 * whole session: a row a later row keeps as a version is not shown.
 */
export function shownBefore(records: readonly MessageRecord[], hidden: Set<string>): MessageRecord[] {
  const hide = (messages: readonly ChatMessage[]) => {
    for (const message of messages) {
      hidden.add(message.id);
      for (const tail of message.versions?.others ?? []) hide(tail);
    }
  };
  const shown: MessageRecord[] = [];
  for (let index = records.length - 1; index >= 0; index -= 1) {
    const record = records[index];
    if (hidden.has(record.id)) continue;
    shown.push(record);
    for (const tail of record.versions?.others ?? []) hide(tail);
  }
  return shown.reverse();
}

/** A session opened on its newest messages (`openSession`). */
export interface OpenedSession extends LoadedSession {
  /** Its newest OPEN_NEWEST messages (fewer when hidden rows are among them), in order. */
  messages: ChatMessage[];
  /** Whether messages older than `messages` remain to be read. */
  hasOlder: boolean;
  /**
   * Reads the older messages, LOAD_PAGE rows a request, the newest page
   * first: each page (in order) goes to `onPage` as it is read, before the
   * next request; `onPage` returning false stops the reading. Resolves once
   * every older message was handed over (or it was stopped); rejects with a
   * `StoreError`. Messages handed over count as saved, like `loadSession`'s.
   */
  readOlder(onPage: (messages: ChatMessage[]) => boolean | void): Promise<void>;
}

/**
 * Open a session the way a person sees it: its newest messages (and its
 * mount snapshots) in one short read, so the page draws the end of a long
 * session without waiting for its first 1,990 messages; the rest with
 * `readOlder`. `undefined` if there is no such session. The shown rows are
 * those `loadSession` shows (the newest row wins).
 */
export async function openSession(store: Store, id: string, newest = OPEN_NEWEST): Promise<OpenedSession | undefined> {
  const { db } = store;
  const opened = await guard(() =>
    db.transaction("r", [db.sessions, db.messages, db.mounts], async () => {
      const session = await db.sessions.get(id);
      if (!session) return undefined;
      const mounts: MountSnapshot[] = [];
      const [records, first] = await Promise.all([
        sessionMessages(store, id).reverse().limit(newest).toArray(),
        // The first row's place: where the older pages end.
        sessionMessages(store, id).limit(1).keys(),
        // Mount snapshots with a cursor, one record per event (see loadSession).
        db.mounts
          .where("sessionId")
          .equals(id)
          .each((mount) => void mounts.push(mount)),
      ]);
      const firstOrder = (first[0] as unknown as [string, number] | undefined)?.[1];
      return { session, records: records.reverse(), mounts, firstOrder };
    }),
  );
  if (!opened) return undefined;
  const { records, firstOrder } = opened;
  const orders = { byId: new Map<string, number>(), next: (records.at(-1)?.order ?? -1) + 1 };
  store.orders.set(id, orders);
  // Rows hidden by the versions of rows read so far (newer ones).
  const hidden = new Set<string>();
  const messagesOf = (page: readonly MessageRecord[]) =>
    shownBefore(page, hidden).map((record) => {
      // A row left behind (kept by a version) is not a place: shown again, its message goes after the others.
      orders.byId.set(record.id, record.order);
      const message = messageFromRecord(record);
      store.saved.set(message, id);
      return message;
    });
  const messages = messagesOf(records);
  const oldest = records[0]?.order;
  const hasOlder = oldest !== undefined && firstOrder !== undefined && firstOrder < oldest;
  return {
    session: opened.session,
    messages,
    mounts: opened.mounts,
    hasOlder,
    async readOlder(onPage) {
      if (!hasOlder) return;
      // Places are whole numbers, one a message (gaps where rows were removed): a page is a range of LOAD_PAGE places.
      for (let before = oldest; before > firstOrder;) {
        const from = Math.max(firstOrder, before - LOAD_PAGE);
        const upTo = before;
        const page = await guard(() =>
          db.messages.where("[sessionId+order]").between([id, from], [id, upTo], true, false).toArray(),
        );
        before = from;
        const shown = messagesOf(page);
        if (shown.length > 0 && onPage(shown) === false) return;
      }
    },
  };
}

export type MountSnapshotInput = Omit<MountSnapshot, "sessionId" | "updatedAt"> & { updatedAt?: number };

export interface SessionChanges {
  messages?: readonly ChatMessage[];
  mounts?: readonly MountSnapshotInput[];
}

/**
 * Upsert messages and mount snapshots of one session in one transaction.
 * Messages already on disk as they are (same object as last saved or loaded)
 * are skipped. A message keeps the order it was first saved with; new ones
 * are appended in the order given. Nothing is ever deleted here.
 */
export async function writeSessionChanges(
  store: Store,
  sessionId: string,
  changes: SessionChanges,
): Promise<{ messages: number; mounts: number }> {
  const { db } = store;
  // Last one wins for a repeated id; its position stays the first one's.
  const byId = new Map<string, ChatMessage>();
  for (const message of changes.messages ?? []) byId.set(message.id, message);
  const pending = [...byId.values()].filter((message) => store.saved.get(message) !== sessionId);
  const mounts = changes.mounts ?? [];
  if (pending.length === 0 && mounts.length === 0) return { messages: 0, mounts: 0 };
  const now = store.now();
  const written: MessageRecord[] = [];
  let write: SessionWrite | undefined;
  await guard(() =>
    db.transaction("rw", [db.sessions, db.messages, db.mounts, db.searchText], async (transaction) => {
      written.length = 0;
      if (write) store.writing.delete(write);
      write = { sessionId, abort: () => transaction.abort() };
      store.writing.add(write);
      if (!(await db.sessions.get(sessionId))) throw notFound(sessionId);
      if (pending.length > 0) {
        // Places known here (a session opened or created in this tab): a message without one was kept
        // by a version and is shown again, so it goes after the others even if its old row is still there.
        // Known places are not read back: reading a row deserializes the whole message (a streaming reply
        // of megabytes, saved again and again, was a long task each time), and `putSessionChangesNow`
        // trusts the same places.
        const places = store.orders.get(sessionId)?.byId;
        const existing = places
          ? []
          : await db.messages.bulkGet(pending.map((message) => [sessionId, message.id] as [string, string]));
        let nextOrder: number | undefined;
        const records: MessageRecord[] = [];
        const rows: SearchTextRecord[] = [];
        for (let position = 0; position < pending.length; position += 1) {
          let order = places ? places.get(pending[position].id) : existing[position]?.order;
          if (order === undefined) {
            if (nextOrder === undefined)
              nextOrder = ((await sessionMessages(store, sessionId).last())?.order ?? -1) + 1;
            order = nextOrder;
            nextOrder += 1;
          }
          const record = { ...pending[position], sessionId, order } as MessageRecord;
          records.push(record);
          const row = searchRowOf(record);
          if (row) rows.push(row);
        }
        await db.messages.bulkPut(records);
        await db.searchText.bulkPut(rows);
        written.push(...records);
      }
      // One put per mount, each awaited: IndexedDB clones a value when it is
      // put, on the page's thread, so fifteen 10,000-node snapshots in one
      // bulkPut were one long task; each success event starts a new task.
      for (const mount of mounts) await db.mounts.put({ ...mount, sessionId, updatedAt: mount.updatedAt ?? now });
      await db.sessions.update(sessionId, { updatedAt: now });
    }),
  ).finally(() => write && store.writing.delete(write));
  // Only after the commit: a failed transaction leaves these to be written again.
  for (const message of pending) store.saved.set(message, sessionId);
  const orders = store.orders.get(sessionId);
  if (orders) {
    for (const record of written) {
      orders.byId.set(record.id, record.order);
      orders.next = Math.max(orders.next, record.order + 1);
    }
  }
  return { messages: pending.length, mounts: mounts.length };
}

/**
 * Upsert the changed messages of a session. Pass the whole list (the
 * agent's `messages`) or just some; unchanged ones cost nothing. Returns how
 * many were written.
 */
export async function saveMessages(store: Store, sessionId: string, messages: readonly ChatMessage[]): Promise<number> {
  return (await writeSessionChanges(store, sessionId, { messages })).messages;
}

/**
 * Put messages and mount snapshots in one transaction started in this task,
 * through the database's own IndexedDB connection (Dexie's calls hop through
 * promises first), with no reads: for a page that is going away. The browser
 * commits a transaction whose requests were all made before the page was
 * left; a transaction that must wait for a read to answer before it writes
 * (`writeSessionChanges`) is cut off with the page. A message takes the place
 * it was loaded or written with, a new one the next free place of the session
 * (`store.orders`); messages of a session not opened or created here are left
 * to the next flush. A write of the same session under way is aborted first
 * (`store.writing`): this one holds all of its changes, and would otherwise
 * wait behind it. Nothing is marked saved and errors are ignored: the same
 * changes stay with the writer, whose next flush writes the same values.
 * Returns whether a write under way was aborted.
 */
export function putSessionChangesNow(store: Store, sessionId: string, changes: SessionChanges): boolean {
  let aborted = false;
  try {
    const idb = store.db.backendDB();
    if (!idb) return false;
    const now = store.now();
    const orders = store.orders.get(sessionId);
    const messages = orders ? (changes.messages ?? []).filter((message) => store.saved.get(message) !== sessionId) : [];
    const mounts = changes.mounts ?? [];
    if (messages.length === 0 && mounts.length === 0) return false;
    const { db } = store;
    // A write of this session under way would hold this one back until after the page is gone: it goes (its
    // changes are all in this one) and the writer retries it if the page stays.
    for (const write of [...store.writing]) {
      if (write.sessionId !== sessionId) continue;
      store.writing.delete(write);
      try {
        write.abort();
        aborted = true;
      } catch {
        // Already finished.
      }
    }
    const transaction = idb.transaction([db.messages.name, db.searchText.name, db.mounts.name], "readwrite");
    if (orders && messages.length > 0) {
      const messageTable = transaction.objectStore(db.messages.name);
      const searchTable = transaction.objectStore(db.searchText.name);
      for (const message of messages) {
        let order = orders.byId.get(message.id);
        if (order === undefined) {
          order = orders.next;
          orders.next += 1;
          orders.byId.set(message.id, order);
        }
        const record = { ...message, sessionId, order } as MessageRecord;
        messageTable.put(record);
        const row = searchRowOf(record);
        if (row) searchTable.put(row);
      }
    }
    const mountTable = transaction.objectStore(db.mounts.name);
    for (const mount of mounts) mountTable.put({ ...mount, sessionId, updatedAt: mount.updatedAt ?? now });
    transaction.commit?.();
  } catch {
    // Closed or not open yet, or a value the browser cannot clone: the writer's flush retries.
  }
  return aborted;
}

export async function saveMounts(
  store: Store,
  sessionId: string,
  mounts: readonly MountSnapshotInput[],
): Promise<number> {
  return (await writeSessionChanges(store, sessionId, { mounts })).mounts;
}

export async function removeMounts(store: Store, sessionId: string, mountIds: readonly string[]): Promise<void> {
  await guard(() => store.db.mounts.bulkDelete(mountIds.map((mountId) => [sessionId, mountId] as [string, string])));
}

export interface SearchHit {
  session: Session;
  /** The message the snippet comes from, when the match is in a message. */
  messageId?: string;
  /** A short excerpt around the first match in a message. */
  snippet?: string;
}

/**
 * Sessions (not deleted) in which every word of `query` appears, in the title
 * or in any message, case-insensitively; most recent first. An empty query
 * lists every session.
 */
export async function searchSessions(
  store: Store,
  query: string,
  options: { limit?: number } = {},
): Promise<SearchHit[]> {
  const limit = options.limit ?? 50;
  const terms = queryTerms(query);
  const sessions = await listSessions(store);
  if (terms.length === 0) return sessions.slice(0, limit).map((session) => ({ session }));
  // Per session: the words not found yet, and the message matching the most words (for the snippet).
  const progress = new Map<
    string,
    { missing: Set<string>; best: number; messageId?: string; term?: string; text?: string }
  >();
  for (const session of sessions) {
    const title = normalizeForSearch(session.title);
    progress.set(session.id, { missing: new Set(terms.filter((term) => !title.includes(term))), best: 0 });
  }
  await guard(() =>
    store.db.searchText.each((row) => {
      const entry = progress.get(row.sessionId);
      if (!entry || entry.best === terms.length) return;
      const matched = terms.filter((term) => row.text.includes(term));
      for (const term of matched) entry.missing.delete(term);
      if (matched.length > entry.best)
        Object.assign(entry, { best: matched.length, messageId: row.messageId, term: matched[0], text: row.text });
    }),
  );
  const hits: SearchHit[] = [];
  for (const session of sessions) {
    const entry = progress.get(session.id)!;
    if (entry.missing.size > 0) continue;
    hits.push({ session, messageId: entry.messageId });
    if (hits.length >= limit) break;
  }
  // Snippets from the original text (the search rows are lower-cased), only for the hits shown.
  const withMessage = hits.filter((hit) => hit.messageId !== undefined);
  const originals = await guard(() =>
    store.db.messages.bulkGet(withMessage.map((hit) => [hit.session.id, hit.messageId!] as [string, string])),
  );
  withMessage.forEach((hit, position) => {
    const entry = progress.get(hit.session.id)!;
    const original = originals[position];
    const text = original ? (original.role === "feedback" ? original.body : original.text) : undefined;
    hit.snippet =
      typeof text === "string" ? snippetAround(text, entry.term!, 80, true) : snippetAround(entry.text!, entry.term!);
  });
  return hits;
}
