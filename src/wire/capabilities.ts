/**
 * The capability host services (DESIGN.md §4): their names and the JSON
 * payloads they carry as realm → host requests (types.ts, SERVICE_REQUEST).
 * Bytes travel as base64 strings: a payload is JSON, never a transferable.
 */

/** `fetch` in the realm: the host broker asks the person when needed, then performs it. */
export const NET_FETCH = "net.fetch";
/** Read a file the person chose in a mounted `<input type="file">` (by its handle). */
export const FILE_READ = "file.read";
/** `download(name, data, mimeType?)`: offer a file; the host saves it only on the person's click. */
export const FILE_OFFER = "file.offer";

/**
 * Request bodies cross the port as one string, and the host caps realm
 * strings (MAX_WIRE_STRING): base64 of 128 KiB stays below that cap.
 */
export const MAX_FETCH_REQUEST_BODY = 128 * 1024;
/** A download offered by the realm: base64 of this stays below MAX_WIRE_STRING. */
export const MAX_DOWNLOAD_BYTES = 128 * 1024;

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

export interface FileOfferPayload {
  name: string;
  mimeType: string;
  /** Base64 of the content. */
  body: string;
}
