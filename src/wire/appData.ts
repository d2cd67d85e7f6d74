/**
 * The app data limits as both sides check them (issue 28 §1): the realm
 * before it sends (the model's code learns at once), the host again on
 * what arrives (it never trusts the realm). The words are the model's
 * lesson: each names the limit and what to do, `storage.delete` among it.
 */
import { MAX_STORAGE_KEY_LENGTH, MAX_STORAGE_SESSION_BYTES, MAX_STORAGE_VALUE_BYTES } from "./capabilities";

/** How code fails to store: its `code` on the realm's StorageError and the host's answer. */
export type StorageErrorCode = "invalid-key" | "not-json" | "too-large" | "session-full" | "failed";

export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** `1 MB`, `10 MB`, `1.05 MB`, `300 KB`: precise enough that a value just over a limit never reads as the limit. */
export function formatStorageBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(2))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** `storage.set("todos")` as an error names the call. */
export function storageCall(method: string, key: unknown): string {
  const shown = typeof key === "string" ? JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key) : "…";
  return `storage.${method}(${shown})`;
}

/** Why a key is refused, or undefined. */
export function keyProblem(method: string, key: unknown): string | undefined {
  if (typeof key !== "string")
    return `${storageCall(method, key)}: a key must be a string (got ${key === null ? "null" : typeof key}), e.g. "todos"`;
  if (key.length === 0) return `${storageCall(method, key)}: a key must not be empty`;
  if (key.length > MAX_STORAGE_KEY_LENGTH)
    return `${storageCall(method, key)}: a key may be at most ${MAX_STORAGE_KEY_LENGTH} characters (this one has ${key.length}); use a shorter key`;
  return undefined;
}

/** A size over `limit` in words that never read as the limit itself (`more than 1 MB` for 1 MB and 2 bytes). */
function over(bytes: number, limit: number): string {
  const shown = formatStorageBytes(bytes);
  return shown === formatStorageBytes(limit) ? `more than ${shown}` : shown;
}

export function valueTooLarge(key: string, bytes: number): string {
  return `${storageCall("set", key)}: the value is ${over(bytes, MAX_STORAGE_VALUE_BYTES)} as JSON; one value may be at most ${formatStorageBytes(MAX_STORAGE_VALUE_BYTES)}. Split it over several keys, or remove what you no longer need with storage.delete(key)`;
}

export function sessionFull(key: string, bytes: number): string {
  return `${storageCall("set", key)}: this session's app data would be ${over(bytes, MAX_STORAGE_SESSION_BYTES)}; a session may keep at most ${formatStorageBytes(MAX_STORAGE_SESSION_BYTES)}. Remove keys you no longer need with storage.delete(key) (storage.keys() lists them)`;
}
