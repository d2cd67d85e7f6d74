/**
 * Files in and out of the realm (DESIGN.md §2, §4), over host services:
 * - a file the person chose in a mounted `<input type="file">` arrives as a
 *   File-like object (`name`, `size`, `type`, `lastModified`, `text()`,
 *   `arrayBuffer()`, `bytes()`); its bytes are read from the host on demand
 *   (FILE_READ), within the host's size limit;
 * - `download(name, data, mimeType?)` offers a file: the host shows a Save
 *   button in the timeline and writes nothing until the person clicks it
 *   (FILE_OFFER). It resolves once the offer is shown, not when saved.
 */
import {
  DOWNLOAD_PART_BYTES,
  FILE_ATTACHMENT,
  FILE_OFFER,
  FILE_READ,
  MAX_DOWNLOAD_BYTES,
  type FileOfferPayload,
  type FileReadResponse,
} from "../../../../src/wire/capabilities";
import type { ChosenFile, JsonValue } from "../../../../src/wire/mount";
import { CapabilityError } from "../CapabilityError";
import type { HostRequests } from "../createHostRequests";

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** What model code gets for a chosen file. */
export class RealmFile {
  readonly name: string;
  readonly size: number;
  readonly type: string;
  readonly lastModified: number;
  readonly #read: () => Promise<Uint8Array<ArrayBuffer>>;

  constructor(chosen: ChosenFile, read: () => Promise<Uint8Array<ArrayBuffer>>) {
    this.name = chosen.name;
    this.size = chosen.size;
    this.type = chosen.type;
    this.lastModified = chosen.lastModified;
    this.#read = read;
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#read();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.#read()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#read());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.#read()], { type: this.type });
  }

  get [Symbol.toStringTag]() {
    return "File";
  }
}

export function createRealmFile(chosen: ChosenFile, requests: () => HostRequests | undefined): RealmFile {
  let cached: Promise<Uint8Array<ArrayBuffer>> | undefined;
  const read = () => {
    cached ??= (async () => {
      const host = requests();
      if (!host) throw new CapabilityError("file", `reading ${chosen.name}`, "the realm is not connected");
      try {
        const answer = (await host.request(
          FILE_READ,
          { handle: chosen.handle },
          { timeoutMs: 60_000 },
        )) as unknown as FileReadResponse;
        return fromBase64(answer.body);
      } catch (error) {
        const { code, message } = error as { code?: string; message?: string };
        const failure = new Error(message ?? String(error));
        failure.name = code === "too-large" ? "FileTooLargeError" : "FileReadError";
        throw failure;
      }
    })();
    // A failed read may be retried.
    cached.catch(() => (cached = undefined));
    return cached;
  };
  return new RealmFile(chosen, read);
}

async function toBytes(data: unknown): Promise<Uint8Array> {
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof Blob !== "undefined" && data instanceof Blob) return new Uint8Array(await data.arrayBuffer());
  if (data instanceof RealmFile) return data.bytes();
  if (data !== undefined && typeof data !== "function" && typeof data !== "symbol")
    return new TextEncoder().encode(JSON.stringify(data, null, 2));
  throw new TypeError("download(name, data, mimeType?): data must be a string, bytes, a Blob or a JSON value");
}

function guessMime(name: string, data: unknown): string {
  const extension = name.toLowerCase().split(".").pop() ?? "";
  const known: Record<string, string> = {
    csv: "text/csv",
    json: "application/json",
    txt: "text/plain",
    md: "text/markdown",
    html: "text/html",
    svg: "image/svg+xml",
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    tsv: "text/tab-separated-values",
  };
  if (known[extension]) return known[extension];
  if (typeof Blob !== "undefined" && data instanceof Blob && data.type) return data.type;
  return typeof data === "string" ? "text/plain" : "application/octet-stream";
}

/**
 * `attachment(name)`: a file the person attached to a message of this
 * session, as the same File-like object a mounted file input gives. The
 * host answers only for files the person attached (their choice is the
 * consent); anything else is a clear error naming what is attached.
 */
export function createAttachment(requests: () => HostRequests | undefined) {
  return async function attachment(name: unknown): Promise<RealmFile> {
    if (typeof name !== "string" || name.trim() === "")
      throw new TypeError('attachment(name): name must be the attached file\'s name, e.g. "sales.csv"');
    const host = requests();
    if (!host) throw new CapabilityError("file", `attachment(${name})`, "the realm is not connected");
    let chosen: ChosenFile;
    try {
      chosen = (await host.request(FILE_ATTACHMENT, { name }, { timeoutMs: 30_000 })) as unknown as ChosenFile;
    } catch (error) {
      const failure = new Error((error as { message?: string }).message ?? String(error));
      failure.name = "AttachmentNotFoundError";
      throw failure;
    }
    return createRealmFile(chosen, requests);
  };
}

let offers = 0;

export function createDownload(requests: () => HostRequests | undefined) {
  return async function download(
    name: unknown,
    data: unknown,
    mimeType?: unknown,
  ): Promise<{ name: string; size: number }> {
    if (typeof name !== "string" || name.trim() === "")
      throw new TypeError('download(name, data, mimeType?): name must be a file name such as "sales.csv"');
    const fileName = name
      .trim()
      .replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
      .slice(0, 200);
    const bytes = await toBytes(data);
    if (bytes.length > MAX_DOWNLOAD_BYTES) {
      throw new RangeError(
        `download: ${fileName} is ${bytes.length} bytes; files up to ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB can be offered`,
      );
    }
    const host = requests();
    if (!host) throw new CapabilityError("file", `download(${fileName})`, "the realm is not connected");
    const type =
      typeof mimeType === "string" && /^[\w.+-]+\/[\w.+-]+$/.test(mimeType) ? mimeType : guessMime(fileName, data);
    const parts = Math.max(1, Math.ceil(bytes.length / DOWNLOAD_PART_BYTES));
    const offer = `o${(offers += 1)}`;
    for (let part = 0; part < parts; part += 1) {
      const payload: FileOfferPayload = {
        offer,
        part,
        parts,
        name: fileName,
        mimeType: type,
        size: bytes.length,
        body: toBase64(bytes.subarray(part * DOWNLOAD_PART_BYTES, (part + 1) * DOWNLOAD_PART_BYTES)),
      };
      await host.request(FILE_OFFER, payload as unknown as JsonValue, { timeoutMs: 30_000 });
    }
    return { name: fileName, size: bytes.length };
  };
}
