/**
 * Random ids for sessions and remapped records. Uses getRandomValues, which,
 * unlike `crypto.randomUUID`, also works on plain-http origins (a LAN address).
 */
export function newId(prefix = ""): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return prefix + text;
}
