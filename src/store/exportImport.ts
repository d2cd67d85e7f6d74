import Dexie from "dexie";
import type { ChatMessage } from "../agent/types";
import { StoreError, storeError, toStoreError } from "./errors";
import {
  BACKUP_FORMAT,
  EXPORT_VERSION,
  SESSION_FORMAT,
  parseExportText,
  type BackupExport,
  type ExportDocument,
  type ExportedAppData,
  type ExportedAudit,
  type ExportedGrant,
  type ExportedMount,
  type ExportedSession,
  type SessionBody,
  type SessionExport,
} from "./exportSchema";
import { formatMegabytes, IMPORT_LIMITS, type ImportProblem } from "./safeJson";
import { searchRowOf } from "./searchText";
import type { AppDataRecord } from "./appData";
import { utf8Bytes } from "../wire/appData";
import { guard, messageFromRecord } from "./sessions";
import { everyMessageId, shownRecords } from "./timelineEdits";
import type { Store } from "./store";
import {
  DEFAULT_SESSION_SETTINGS,
  type AuditEntry,
  type MessageRecord,
  type MountSnapshot,
  type SearchTextRecord,
  type Session,
  type SuggestedChatSettings,
} from "./types";

/**
 * Export and import (DESIGN.md §3 "Persistence"). An export is one JSON
 * document holding everything needed to show the session and nothing from
 * the `settings` table (API key, model): only session tables are read.
 *
 * Import: validate everything first (`parseExportText`, pure), then write in
 * one transaction; any failure rolls it back, so the database is unchanged.
 * Never overwrites: a session, message or mount id already in the database
 * gets a fresh one (references follow). Imported sessions are content from
 * outside (DESIGN.md §4): `origin: "imported"`, and rights do not travel —
 * capability settings start at the defaults (network: ask) and grants are
 * not imported (their count is reported); the audit list is kept as history.
 * Nor does the file choose the model, the token budget or the system prompt:
 * its model settings are kept as a suggestion (`suggestedChat`) that the
 * person applies by hand.
 */

function exportedSession(session: Session): ExportedSession {
  const exported: ExportedSession = {
    id: session.id,
    title: session.title,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    origin: session.origin,
    settings: {
      network: session.settings.network,
      allowedHosts: [...session.settings.allowedHosts],
      ...(session.settings.strict ? { strict: true } : {}),
      ...(session.settings.readOnlyToolServers?.length
        ? { readOnlyToolServers: [...session.settings.readOnlyToolServers] }
        : {}),
      ...(session.settings.capabilities ? { capabilities: structuredClone(session.settings.capabilities) } : {}),
    },
  };
  if (session.importedAt !== undefined) exported.importedAt = session.importedAt;
  if (session.chat) exported.chat = { ...session.chat };
  if (session.suggestedChat) exported.suggestedChat = { ...session.suggestedChat };
  return exported;
}

/**
 * What a file's model settings become where it is imported: a suggestion,
 * never the session's settings (issue 32). Everything the file says counts
 * as the file's: its `chat` (the sender's own settings, and an instruction
 * the sender had applied from another file) over its own suggestion.
 */
export function suggestionOf(session: ExportedSession): SuggestedChatSettings | undefined {
  const { chat, suggestedChat } = session;
  const instructions = [chat?.instruction, chat?.importedInstruction].filter((part): part is string => !!part?.trim());
  const suggestion: SuggestedChatSettings = {
    ...suggestedChat,
    ...(chat?.model !== undefined ? { model: chat.model } : {}),
    ...(chat?.temperature !== undefined ? { temperature: chat.temperature } : {}),
    ...(chat?.maxOutputTokens !== undefined ? { maxOutputTokens: chat.maxOutputTokens } : {}),
    ...(instructions.length > 0 ? { instruction: instructions.join("\n\n") } : {}),
  };
  return Object.keys(suggestion).length > 0 ? suggestion : undefined;
}

function withoutKeys(record: object, keys: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const key of keys) delete copy[key];
  return copy;
}

/** Read one session's body in one transaction; `undefined` if absent. */
async function readBody(store: Store, id: string, withAppData = true): Promise<SessionBody | undefined> {
  const { db } = store;
  return db.transaction("r", [db.sessions, db.messages, db.mounts, db.grants, db.audit, db.appData], async () => {
    const session = await db.sessions.get(id);
    if (!session) return undefined;
    const [records, mounts, grants, audit, appData] = await Promise.all([
      db.messages.where("[sessionId+order]").between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray(),
      db.mounts.where("sessionId").equals(id).toArray(),
      db.grants.where("sessionId").equals(id).toArray(),
      db.audit.where("[sessionId+at]").between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray(),
      withAppData ? db.appData.where("[sessionId+key]").between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray() : [],
    ]);
    return {
      session: exportedSession(session),
      messages: shownRecords(records).map(messageFromRecord),
      mounts: mounts.map((mount): ExportedMount => ({
        mountId: mount.mountId,
        messageId: mount.messageId,
        snapshot: mount.snapshot,
        updatedAt: mount.updatedAt,
      })),
      grants: grants.map((grant) => withoutKeys(grant, ["id", "sessionId"]) as ExportedGrant),
      audit: audit.map((entry) => withoutKeys(entry, ["id", "sessionId"]) as ExportedAudit),
      ...(appData.length > 0 ? { appData: appData.map(({ key, json }): ExportedAppData => ({ key, json })) } : {}),
    };
  });
}

/**
 * The `livemark.session` document for one session, with its app data
 * unless `appData: false` (a share link without **Include app data**).
 * Rejects with `StoreError` "not-found".
 */
export async function exportSession(
  store: Store,
  id: string,
  options: { appData?: boolean } = {},
): Promise<SessionExport> {
  const body = await guard(() => readBody(store, id, options.appData ?? true));
  if (!body) throw new StoreError(storeError("not-found", undefined, `There is no session with id "${id}" to export.`));
  return { format: SESSION_FORMAT, version: EXPORT_VERSION, exportedAt: new Date(store.now()).toISOString(), ...body };
}

/** Every session not in the trash, newest first, as one `livemark.backup` document. */
export async function exportAll(store: Store): Promise<BackupExport> {
  const sessions = await guard(() => store.db.sessions.filter((session) => session.deletedAt === undefined).toArray());
  sessions.sort((a, b) => Math.max(b.updatedAt, b.importedAt ?? 0) - Math.max(a.updatedAt, a.importedAt ?? 0));
  const bodies: SessionBody[] = [];
  for (const session of sessions) {
    const body = await guard(() => readBody(store, session.id));
    if (body) bodies.push(body);
  }
  return {
    format: BACKUP_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date(store.now()).toISOString(),
    sessions: bodies,
  };
}

/** The text to save: indented so a person can read it. */
export function serializeExport(document: ExportDocument): string {
  return JSON.stringify(document, null, 2);
}

/** A file name for the download: `livemark-<title>-<date>.json`. */
export function exportFileName(document: ExportDocument): string {
  const date = document.exportedAt.slice(0, 10);
  if (document.format === BACKUP_FORMAT) return `livemark-backup-${date}.json`;
  const slug =
    document.session.title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "session";
  return `livemark-${slug}-${date}.json`;
}

export interface ImportedSession {
  /** The id in this database (new if the file's id was taken). */
  id: string;
  /** The id in the file. */
  originalId: string;
  title: string;
  /** How many ids were replaced because they were already in use. */
  remapped: { session: boolean; messages: number; mounts: number };
}

export type ImportResult =
  { ok: true; sessions: ImportedSession[]; droppedGrants: number } | { ok: false; error: ImportProblem };

function fresh(store: Store, taken: Set<string>): string {
  for (;;) {
    const candidate = store.newId();
    if (!taken.has(candidate)) return candidate;
  }
}

async function writeImport(
  store: Store,
  bodies: SessionBody[],
): Promise<{ sessions: ImportedSession[]; droppedGrants: number }> {
  const { db } = store;
  const now = store.now();
  return db.transaction("rw", [db.sessions, db.messages, db.mounts, db.audit, db.searchText, db.appData], async () => {
    // Ids in use: in the database (deleted sessions included) or already given out by this import.
    const sessionIds = bodies.map((body) => body.session.id);
    const messageIds = bodies.flatMap((body) => [...everyMessageId(body.messages)]);
    const mountIds = bodies.flatMap((body) => body.mounts.map((mount) => mount.mountId));
    const takenSessions = new Set((await db.sessions.where("id").anyOf(sessionIds).primaryKeys()) as string[]);
    const takenMessages = new Set((await db.messages.where("id").anyOf(messageIds).keys()) as string[]);
    const takenMounts = new Set((await db.mounts.where("mountId").anyOf(mountIds).keys()) as string[]);

    const imported: ImportedSession[] = [];
    let droppedGrants = 0;
    const sessions: Session[] = [];
    const messages: MessageRecord[] = [];
    const mounts: MountSnapshot[] = [];
    const audit: AuditEntry[] = [];
    const rows: SearchTextRecord[] = [];
    const appData: AppDataRecord[] = [];
    for (const body of bodies) {
      const originalId = body.session.id;
      const sessionId = takenSessions.has(originalId) ? fresh(store, takenSessions) : originalId;
      takenSessions.add(sessionId);
      const remapped = { session: sessionId !== originalId, messages: 0, mounts: 0 };
      // Mount ids first: a reply names its mounts, so a remapped id is rewritten there too.
      const mountMap = new Map<string, string>();
      for (const mount of body.mounts) {
        const mountId = takenMounts.has(mount.mountId) ? fresh(store, takenMounts) : mount.mountId;
        if (mountId !== mount.mountId) remapped.mounts += 1;
        takenMounts.add(mountId);
        mountMap.set(mount.mountId, mountId);
      }
      const messageMap = new Map<string, string>();
      // One message as this database keeps it; the versions it carries get the same treatment.
      const convert = (message: ChatMessage): ChatMessage => {
        const messageId = takenMessages.has(message.id) ? fresh(store, takenMessages) : message.id;
        if (messageId !== message.id) remapped.messages += 1;
        takenMessages.add(messageId);
        messageMap.set(message.id, messageId);
        // Nothing streams in an imported session: a reply cut mid-stream stays cut.
        const state =
          message.role === "assistant" && message.state === "streaming" ? { state: "interrupted" as const } : {};
        const mounts =
          message.role === "assistant" &&
          message.reply.mounts?.some((mount) => mountMap.get(mount.mountId) !== mount.mountId)
            ? {
                reply: {
                  ...message.reply,
                  mounts: message.reply.mounts.map((mount) => ({
                    ...mount,
                    mountId: mountMap.get(mount.mountId) ?? mount.mountId,
                  })),
                },
              }
            : {};
        const versions = message.versions
          ? { versions: { at: message.versions.at, others: message.versions.others.map((tail) => tail.map(convert)) } }
          : {};
        // Marked here, never told apart later by dates the file chose; a time past the import is the import's.
        return {
          ...message,
          ...state,
          ...mounts,
          ...versions,
          id: messageId,
          createdAt: Math.min(message.createdAt, now),
          imported: true,
        } as ChatMessage;
      };
      body.messages.forEach((message: ChatMessage, order) => {
        const record = { ...convert(message), sessionId, order } as MessageRecord;
        messages.push(record);
        const row = searchRowOf(record);
        if (row) rows.push(row);
      });
      for (const mount of body.mounts) {
        mounts.push({
          sessionId,
          mountId: mountMap.get(mount.mountId)!,
          messageId: messageMap.get(mount.messageId)!,
          snapshot: mount.snapshot,
          updatedAt: Math.min(mount.updatedAt, now),
        });
      }
      for (const entry of body.audit)
        audit.push({
          ...(withoutKeys(entry, ["id", "sessionId"]) as ExportedAudit),
          sessionId,
          at: Math.min(entry.at, now),
          fromFile: true,
        } as AuditEntry);
      // The app data comes along: it is the apps' own data, not a right (the code that reads it asks as before).
      for (const { key, json } of body.appData ?? [])
        appData.push({ sessionId, key, json, bytes: utf8Bytes(json) + utf8Bytes(key), updatedAt: now });
      droppedGrants += body.grants.length;
      const suggestion = suggestionOf(body.session);
      sessions.push({
        id: sessionId,
        title: body.session.title,
        createdAt: Math.min(body.session.createdAt, now),
        updatedAt: Math.min(body.session.updatedAt, now),
        origin: "imported",
        settings: { network: DEFAULT_SESSION_SETTINGS.network, allowedHosts: [] },
        // Never `chat`: the file does not choose the model, the budget or the system prompt.
        ...(suggestion ? { suggestedChat: suggestion } : {}),
        importedAt: now,
      });
      imported.push({ id: sessionId, originalId, title: body.session.title, remapped });
    }
    // `add`, never `put`: a key that appeared since the checks above fails the
    // whole transaction instead of overwriting.
    await db.sessions.bulkAdd(sessions);
    await db.messages.bulkAdd(messages);
    await db.mounts.bulkAdd(mounts);
    await db.audit.bulkAdd(audit);
    await db.searchText.bulkPut(rows);
    await db.appData.bulkAdd(appData);
    return { sessions: imported, droppedGrants };
  });
}

function storageProblem(error: unknown): ImportProblem {
  const info = toStoreError(error);
  return { code: "storage", message: `Nothing was imported: ${info.message}`, cause: info };
}

/**
 * Import a `livemark.session` or `livemark.backup` file (the text, or the
 * `File` from an `<input type="file">`). Never throws; on failure the
 * database is unchanged and `error.message` says what is wrong and where.
 */
export async function importFile(store: Store, input: string | Blob): Promise<ImportResult> {
  let text: string;
  try {
    if (typeof input === "string") {
      text = input;
    } else {
      if (input.size > IMPORT_LIMITS.maxLength) {
        return {
          ok: false,
          error: {
            code: "too-large",
            message: `The file is ${formatMegabytes(input.size)}; Livemark imports files up to ${formatMegabytes(IMPORT_LIMITS.maxLength)}.`,
          },
        };
      }
      text = await input.text();
    }
  } catch (error) {
    return { ok: false, error: { code: "not-json", message: "The file could not be read.", cause: error } };
  }
  const parsed = parseExportText(text);
  if (!parsed.ok) return parsed;
  const bodies = parsed.document.format === SESSION_FORMAT ? [parsed.document] : parsed.document.sessions;
  try {
    const result = await writeImport(store, bodies);
    return { ok: true, ...result };
  } catch (error) {
    return { ok: false, error: storageProblem(error) };
  }
}
