import { exportSession } from "./exportImport";
import { SESSION_FORMAT, parseExportText, type SessionExport } from "./exportSchema";
import type { ImportProblem } from "./safeJson";
import type { Store } from "./store";

/**
 * Share links: a small session export, deflate-raw compressed
 * (CompressionStream, in browsers and Node ≥ 20) and base64url-encoded into
 * the URL fragment `#share=…`. The fragment never reaches a server. Opening
 * one gives a validated export (the import validator) for a read-only
 * preview; saving it goes through `importFile` like any file.
 */

export const SHARE_PREFIX = "#share=";
/** Characters of the encoded payload; long URLs break in chat apps and address bars well before browsers' own limits. */
export const MAX_SHARE_LENGTH = 32 * 1024;
/** Bound on the decompressed JSON, so a small link cannot inflate into a huge document. */
export const MAX_SHARE_JSON_BYTES = 4 * 1024 * 1024;

export type ShareResult = { ok: true; fragment: string; length: number } | { ok: false; error: ImportProblem };
export type DecodeShareResult = { ok: true; document: SessionExport } | { ok: false; error: ImportProblem };

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export async function readAll(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export function streamOf(bytes: Uint8Array<ArrayBuffer>): ReadableStream<BufferSource> {
  return new ReadableStream<BufferSource>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

export function kilobytes(length: number): string {
  return `${Math.ceil(length / 1024)} KB`;
}

/** Text, deflate-raw compressed and base64url-encoded (share links, app links). */
export async function compressToBase64Url(text: string): Promise<string> {
  const compressed = await readAll(
    streamOf(new TextEncoder().encode(text)).pipeThrough(new CompressionStream("deflate-raw")),
    Infinity,
  );
  return toBase64Url(compressed!);
}

/** Encode an export into `#share=…`, or say why it does not fit. */
export async function encodeShare(document: SessionExport): Promise<ShareResult> {
  const payload = await compressToBase64Url(JSON.stringify(document));
  if (payload.length > MAX_SHARE_LENGTH) {
    return {
      ok: false,
      error: {
        code: "share-too-large",
        message: `This session is too big for a share link: it takes ${kilobytes(payload.length)} compressed and a link holds at most ${kilobytes(MAX_SHARE_LENGTH)}. Use Export and send the file instead.`,
      },
    };
  }
  return { ok: true, fragment: SHARE_PREFIX + payload, length: payload.length };
}

/**
 * A full share URL for a session: `base` (e.g. `location.href`) with its
 * fragment replaced. The session's app data travels only with
 * `includeAppData` (the person ticked **Include app data**).
 */
export async function createShareLink(
  store: Store,
  sessionId: string,
  base: string,
  options: { includeAppData?: boolean } = {},
): Promise<{ ok: true; url: string; length: number } | { ok: false; error: ImportProblem }> {
  const document = await exportSession(store, sessionId, { appData: options.includeAppData === true });
  const encoded = await encodeShare(document);
  if (!encoded.ok) return encoded;
  return { ok: true, url: base.replace(/#.*$/s, "") + encoded.fragment, length: encoded.length };
}

/** Whether a URL or fragment carries a share link (cheap; decoding validates). */
export function isShareFragment(fragmentOrUrl: string): boolean {
  return fragmentOrUrl.includes(SHARE_PREFIX);
}

function invalid(message: string, cause?: unknown): DecodeShareResult {
  return { ok: false, error: { code: "share-invalid", message, cause } };
}

/**
 * Decode `#share=…` (or a whole URL holding one) into a validated session
 * export. Never throws, never writes.
 */
export async function decodeShare(fragmentOrUrl: string): Promise<DecodeShareResult> {
  try {
    const at = fragmentOrUrl.indexOf(SHARE_PREFIX);
    if (at < 0) return invalid("This link holds no shared session (it has no #share= part).");
    const payload = fragmentOrUrl.slice(at + SHARE_PREFIX.length).trim();
    if (payload.length > MAX_SHARE_LENGTH) {
      return {
        ok: false,
        error: {
          code: "share-too-large",
          message: `This share link is ${kilobytes(payload.length)} long; Livemark opens links up to ${kilobytes(MAX_SHARE_LENGTH)}.`,
        },
      };
    }
    if (payload === "" || !/^[A-Za-z0-9_-]+$/.test(payload) || payload.length % 4 === 1) {
      return invalid(
        "This share link is damaged: it holds characters a share link never has, or was cut short. Ask for the link again.",
      );
    }
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readAll(
        streamOf(fromBase64Url(payload)).pipeThrough(new DecompressionStream("deflate-raw")),
        MAX_SHARE_JSON_BYTES,
      );
    } catch (error) {
      return invalid(
        "This share link is damaged (it does not decompress); it was probably cut short when copied. Ask for the link again.",
        error,
      );
    }
    if (!bytes) {
      return {
        ok: false,
        error: {
          code: "share-too-large",
          message: `This share link expands to more than ${kilobytes(MAX_SHARE_JSON_BYTES)}; Livemark does not open it.`,
        },
      };
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (error) {
      return invalid("This share link is damaged (its content is not text).", error);
    }
    const parsed = parseExportText(text);
    if (!parsed.ok) return parsed;
    if (parsed.document.format !== SESSION_FORMAT) {
      return {
        ok: false,
        error: {
          code: "wrong-format",
          message: `A share link holds one session ("format": "${SESSION_FORMAT}"), not a backup.`,
          path: "$.format",
        },
      };
    }
    return { ok: true, document: parsed.document };
  } catch (error) {
    return invalid("This share link could not be opened.", error);
  }
}
