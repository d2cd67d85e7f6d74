import type { SearchTextRecord } from "./types";

/**
 * Search text: pure helpers shared by the writer, the version-2 upgrade and
 * the search itself. Matching is case-insensitive substring matching on
 * NFKC-normalised text, every query word must appear somewhere in the session
 * (title or any message). No ranking beyond most-recent-first.
 */

/** Per message; a 20k-token reply is ~80k characters. */
export const MAX_SEARCH_TEXT = 100_000;

/** Compatibility forms folded, accents dropped, lower case: "Zürich" and "ZURICH" match "zurich". */
export function normalizeForSearch(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** Where `term` (already normalised) starts in the original `text`, or -1. */
export function indexInOriginal(text: string, term: string): number {
  let normalized = "";
  const origins: number[] = [];
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index)!;
    const width = codePoint > 0xffff ? 2 : 1;
    const piece = normalizeForSearch(text.slice(index, index + width));
    for (let offset = 0; offset < piece.length; offset += 1) origins.push(index);
    normalized += piece;
    index += width;
  }
  const at = normalized.indexOf(term);
  return at < 0 ? -1 : origins[at];
}

export function queryTerms(query: string): string[] {
  return Array.from(new Set(normalizeForSearch(query).split(/\s+/).filter(Boolean)));
}

/**
 * The searchable text of a stored message, read defensively: the version-2
 * upgrade feeds it rows written by older builds, whose shape it must not assume.
 */
export function searchTextOf(message: unknown): string {
  if (!message || typeof message !== "object") return "";
  const record = message as Record<string, unknown>;
  // Feedback rows carry the wrapped text sent to the model and the raw body; the body is what people see.
  const text =
    record.role === "feedback" && typeof record.body === "string"
      ? record.body
      : typeof record.text === "string"
        ? record.text
        : "";
  return normalizeForSearch(text.slice(0, MAX_SEARCH_TEXT));
}

export function searchRowOf(record: unknown): SearchTextRecord | undefined {
  if (!record || typeof record !== "object") return undefined;
  const { sessionId, id } = record as Record<string, unknown>;
  if (typeof sessionId !== "string" || typeof id !== "string") return undefined;
  return { sessionId, messageId: id, text: searchTextOf(record) };
}

/** About `width` characters of `text` around the first `term`, on word-ish boundaries. */
export function snippetAround(text: string, term: string, width = 80, original = false): string {
  const at = original ? indexInOriginal(text, term) : text.indexOf(term);
  if (at < 0) return text.slice(0, width).replace(/\s+/g, " ").trim();
  const start = Math.max(0, at - Math.floor((width - term.length) / 2));
  const end = Math.min(text.length, start + width);
  const body = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}
