/**
 * Values a generated UI must not receive without the person's say-so: the
 * stored API key (registered by the app), and anything shaped like a
 * provider key. A look-alike "Settings" card with a password field is the
 * obvious phishing move for model code that read a hostile page.
 *
 * Typing sends one event per keystroke, so a prefix of the stored key (from
 * MIN_PREFIX characters on) counts too: the key must not leak a character
 * at a time.
 */
import type { UiEventPayload } from "./contract";

const MIN_PREFIX = 6;
/** Common provider key shapes (OpenAI, OpenRouter, Anthropic, Groq, Google, generic bearer tokens). */
const KEY_SHAPE =
  /(?:^|[^A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|sk_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{16,}|AIza[A-Za-z0-9_-]{30,}|xai-[A-Za-z0-9]{16,})/;

let secrets: readonly string[] = [];

/** The app's secrets (the API key), re-registered whenever settings change. */
export function setSensitiveValues(values: readonly string[]): void {
  secrets = values.filter((value) => typeof value === "string" && value.length >= MIN_PREFIX);
}

export function isSensitiveText(text: string): boolean {
  if (text.length < MIN_PREFIX) return false;
  for (const secret of secrets) {
    if (text.includes(secret)) return true;
    // A prefix of the key being typed, or the key pasted with its head cut.
    const trimmed = text.trim();
    if (trimmed.length >= MIN_PREFIX && secret.includes(trimmed)) return true;
  }
  return KEY_SHAPE.test(text);
}

/** Whether any string in an event payload (values of a form too) looks like a secret. */
export function payloadHasSensitiveValue(payload: UiEventPayload | unknown, depth = 0): boolean {
  if (typeof payload === "string") return isSensitiveText(payload);
  if (depth > 4 || typeof payload !== "object" || payload === null) return false;
  const values = Array.isArray(payload) ? payload : Object.values(payload);
  return values.some((value) => payloadHasSensitiveValue(value, depth + 1));
}
