/**
 * What a mount's `onKeyDown`/`onKeyUp` may learn of a key. Pure.
 *
 * A key handler on a look-alike field would otherwise receive the person's
 * typing one character at a time, past the check on values
 * (sensitiveValues.ts looks at strings of 6+ characters; a keystroke is
 * one). So only the keys UIs steer by cross — Enter, Escape, Tab, arrows,
 * Home/End/PageUp/PageDown, Backspace/Delete, the modifiers themselves and
 * F-keys; every other key (a printable character, Space, a dead key, an
 * IME's Process) reaches the realm as `UNIDENTIFIED_KEY`, with no `code`.
 * Text reaches the realm only through the value path (onChange, form
 * values), which holds back what looks like the key.
 *
 * The event itself still arrives (a UI can react to "a key was pressed"),
 * so the realm learns when keys are pressed, never which.
 */

/** DOM's own word for a key it cannot name (UI Events KeyboardEvent key values). */
export const UNIDENTIFIED_KEY = "Unidentified";

const NAMED_KEYS: ReadonlySet<string> = new Set([
  "Enter",
  "Escape",
  "Tab",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "Backspace",
  "Delete",
  "Shift",
  "Control",
  "Alt",
  "AltGraph",
  "Meta",
]);
const FUNCTION_KEY = /^F(?:[1-9]|1\d|2[0-4])$/;

/** The `key` the realm is told for a DOM `KeyboardEvent.key`. */
export function keyForRealm(key: unknown): string {
  if (typeof key !== "string") return UNIDENTIFIED_KEY;
  return NAMED_KEYS.has(key) || FUNCTION_KEY.test(key) ? key : UNIDENTIFIED_KEY;
}
