/** Bytes ↔ base64, for payloads that must stay JSON (src/wire/capabilities.ts). */

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  // fromCharCode takes arguments: chunk to stay below engines' argument limits.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/** Throws a TypeError on text that is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new TypeError("not base64");
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
