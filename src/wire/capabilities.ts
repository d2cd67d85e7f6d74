/**
 * The capability host services (DESIGN.md §4): their names and the JSON
 * payloads they carry as realm → host calls (types.ts, CALL).
 * Bytes travel as base64 strings: a payload is JSON, never a transferable.
 */
import type { JsonValue } from "./mount";

/** `fetch` in the realm: the host broker asks the person when needed, then performs it. */
export const NET_FETCH = "net.fetch";
/** Read a file the person chose in a mounted `<input type="file">` (by its handle). */
export const FILE_READ = "file.read";
/** `download(name, data, mimeType?)`: offer a file; the host saves it only on the person's click. */
export const FILE_OFFER = "file.offer";
/**
 * `attachment(name)`: a file the person attached to one of this session's
 * messages; answered with its handle (a ChosenFile), read with FILE_READ.
 */
export const FILE_ATTACHMENT = "file.attachment";

/**
 * Request bodies cross the port as one string, and the host caps realm
 * strings (MAX_WIRE_STRING): base64 of 128 KiB stays below that cap.
 */
export const MAX_FETCH_REQUEST_BODY = 128 * 1024;
/** The largest file `download(...)` may offer. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
/** A download crosses in parts of at most this many bytes (base64 of it stays below MAX_WIRE_STRING). */
export const DOWNLOAD_PART_BYTES = 96 * 1024;
/** The largest chosen file handed to code (reading a larger one fails with a clear error). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface FetchRequestPayload {
  url: string;
  method: string;
  headers: [string, string][];
  /** Base64 of the body; null when there is none. */
  body: string | null;
}

export interface FetchResponsePayload {
  url: string;
  status: number;
  statusText: string;
  redirected: boolean;
  headers: [string, string][];
  /** Base64 of the body. */
  body: string;
}

/** What the realm knows of a chosen file; the bytes stay on the host until read. */
export interface FileHandlePayload {
  /** Random, unguessable, valid for the session. */
  handle: string;
  name: string;
  size: number;
  type: string;
  lastModified: number;
}

export interface FileReadPayload {
  handle: string;
}

export interface FileReadResponse {
  /** Base64 of the whole file. */
  body: string;
}

/**
 * One part of an offered file. Parts of one offer share `offer` (an id the
 * realm picks) and arrive in order; the last one (`part === parts - 1`)
 * makes the offer visible, with its Save button.
 */
export interface FileOfferPayload {
  offer: string;
  part: number;
  parts: number;
  name: string;
  mimeType: string;
  /** Total size in bytes. */
  size: number;
  /** Base64 of this part. */
  body: string;
}

/**
 * `tools.<name>(args)` in the realm (DESIGN.md §2): one call of a tool of an
 * MCP server the person connected. The host's tool broker asks the person
 * when needed and makes the call with its own MCP client; the realm never
 * holds a connection, a URL's credentials or a token.
 */
export const TOOL_CALL = "tool.call";

/**
 * One tool as the realm and the model see it; the host pushes the whole list
 * (the realm's TOOLS method, constants.ts) whenever a server is added or
 * removed, and to every new realm. A type, not an interface: it is JSON.
 */
export type ToolDescriptor = {
  /** The property of `tools`: the MCP name, or `server/tool` when two servers share it. */
  name: string;
  /** The server's short name (from its own `serverInfo.name`, made unique). */
  server: string;
  /** The tool's MCP name. */
  tool: string;
  description: string;
  /** The tool's JSON Schema for its arguments (an object schema). */
  inputSchema: JsonValue;
  /** Annotated `readOnlyHint: true` by its server (a hint: the person decides what it means). */
  readOnly: boolean;
};

export interface ToolCallPayload {
  /** `ToolDescriptor.name`. */
  name: string;
  arguments: JsonValue;
}

/** A tool's result: `structured` when the tool returned structuredContent, else null and its text. */
export interface ToolCallResponse {
  structured: JsonValue | null;
  text: string;
}

/** The most tools pushed to a realm (a larger list is cut, with the rest named in the system prompt's note). */
export const MAX_TOOLS = 200;

/**
 * `storage` and `useStored` in the realm (issue 28 §1): app data kept per
 * session by the host in IndexedDB. Values cross as JSON text, in parts of
 * at most STORAGE_PART_CHARS (the host caps realm strings); the checks both
 * sides run and their words are in appData.ts.
 */
export const STORAGE_GET = "storage.get";
export const STORAGE_SET = "storage.set";
export const STORAGE_DELETE = "storage.delete";
export const STORAGE_KEYS = "storage.keys";
/**
 * Host → realm: the person erased the session's app data (Session settings →
 * Erase app data); the realm forgets what it knew and every `useStored`
 * shows its initial value again. Answered `null`.
 */
export const STORAGE_ERASED = "storage.erased";
/** The methods capabilities' realm halves serve for the host (`RealmHost.tell`). */
export type RealmCapabilityMethod = typeof STORAGE_ERASED;

export interface StorageKeyPayload {
  key: string;
}

export interface StorageSetPayload {
  key: string;
  /** The value's JSON text, cut into parts of at most STORAGE_PART_CHARS. */
  parts: string[];
}

export interface StorageKeysPayload {
  prefix: string;
}

/** STORAGE_GET's answer: the value's JSON text, null when the key is absent. */
export interface StorageGetResponse {
  json: string | null;
}

/** STORAGE_SET's and STORAGE_DELETE's answer, once the host has committed the write: the session's app data now. */
export interface StorageWriteResponse {
  bytes: number;
}

export interface StorageKeysResponse {
  keys: string[];
}

/** The longest key (characters). */
export const MAX_STORAGE_KEY_LENGTH = 256;
/** The largest value: its JSON text in UTF-8 bytes. */
export const MAX_STORAGE_VALUE_BYTES = 1024 * 1024;
/** A session's app data at most: every key and value, in UTF-8 bytes. */
export const MAX_STORAGE_SESSION_BYTES = 10 * 1024 * 1024;
/** A value's JSON text crosses in parts of at most this many characters (below MAX_WIRE_STRING). */
export const STORAGE_PART_CHARS = 128 * 1024;

/**
 * `ai.complete(…)` / `ai.stream(…)` in the realm: one call of the session's
 * model, which the host's model-call broker asks about (per the session's
 * rules and token budget) and performs with the person's key; the realm
 * never sees the key, the base URL or the headers. A complete call answers
 * `{ text }`; a streamed one `{ stream }`, an id the realm pulls with AI_NEXT.
 */
export const AI_CALL = "ai.call";
/** The next text of a streamed model call (`{ stream }` → `{ text, done }`); `cancel: true` ends it. */
export const AI_NEXT = "ai.next";
/** The most model calls a session has under way at once (waiting for the person included); the realm refuses more itself. */
export const MAX_AI_CALLS_IN_FLIGHT = 4;
/** The most characters a model call's prompt may carry (the system text and every message together). */
export const MAX_AI_PROMPT_CHARS = 100_000;

export interface AiMessagePayload {
  role: "user" | "assistant";
  content: string;
}

export interface AiCallPayload {
  messages: AiMessagePayload[];
  system?: string;
  maxTokens?: number;
  temperature?: number;
  stream: boolean;
}

export type AiCallResponse = { text: string } | { stream: string };

export interface AiNextPayload {
  stream: string;
  cancel?: boolean;
}

export interface AiNextResponse {
  /** The text that arrived since the last pull (may be empty when done). */
  text: string;
  done: boolean;
}
