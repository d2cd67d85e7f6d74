/**
 * What the tool ask shows of a call's arguments (DESIGN.md §4), pure: the
 * person is never asked about what they cannot see whole.
 *
 * Invariants:
 * 1. Every top-level argument is one entry, `name: value`, in the order the
 *    code passed them; nothing is cut here (the view collapses a long value
 *    behind **Show all**, never drops it).
 * 2. A call too large to show — more than `MAX_ASKED_ARGUMENTS_BYTES` of JSON
 *    or more than `MAX_ASKED_ARGUMENTS` top-level arguments — is not shown
 *    at all: `formatToolArguments` says why, and the broker refuses the call
 *    (`too-large-to-ask`) instead of asking.
 * 3. Characters that are invisible or reorder text — C0/C1 controls, bidi
 *    embeddings, overrides, isolates and marks, line and paragraph
 *    separators, zero-width and other format characters, fillers, variation
 *    selectors and tag characters — are shown as marks (`⟨U+202E⟩`), so what
 *    the person reads is what the tool gets. Values are JSON (strings keep
 *    their quotes and escapes); a name that is not a plain identifier is a
 *    JSON string too.
 */

/** The most JSON (UTF-8 bytes, canonical) a call may have and still be asked about. */
export const MAX_ASKED_ARGUMENTS_BYTES = 64 * 1024;
/** The most top-level arguments a call may have and still be asked about. */
export const MAX_ASKED_ARGUMENTS = 50;

/** One top-level argument as the ask shows it (invisible characters already marked). */
export interface ShownArgument {
  name: string;
  /** The value as pretty JSON (two-space indent); may span lines. */
  value: string;
}

export type FormattedArguments = { ok: true; arguments: ShownArgument[] } | { ok: false; reason: string };

// Cc: C0, DEL, C1. Cf: bidi marks/embeddings/overrides/isolates, zero-width characters, word joiner,
// BOM, soft hyphen, interlinear annotations, tag characters. Zl/Zp: U+2028/U+2029. Then the fillers and
// joiners that render as nothing although they are not Cf (Hangul fillers, combining grapheme joiner,
// Mongolian variation selectors) and every variation selector.
const INVISIBLE =
  /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034F\u115F\u1160\u180B-\u180D\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]$/u;
const VARIATION_SELECTOR = /^[\u180B-\u180D\uFE00-\uFE0F\u{E0100}-\u{E01EF}]$/u;
const EMOJI = /^\p{Emoji}$/u;

const mark = (character: string) => `⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;

/**
 * `text` with every invisible or reordering character replaced by a visible
 * mark. With `keepNewlines`, "\n" stays a line break (the indentation of
 * pretty JSON, whose strings escape their own newlines). A text or emoji
 * presentation selector (U+FE0E, U+FE0F) right after an emoji-capable
 * character, and not followed by another selector, is kept (❤️ stays a
 * heart); any other variation selector is marked, since runs of them can
 * carry hidden text.
 */
export function showInvisibles(text: string, options: { keepNewlines?: boolean } = {}): string {
  const characters = Array.from(text);
  let shown = "";
  characters.forEach((character, index) => {
    if (!INVISIBLE.test(character) || (character === "\n" && options.keepNewlines)) {
      shown += character;
      return;
    }
    const presentation = character === "\uFE0E" || character === "\uFE0F";
    const previous = characters[index - 1];
    const next = characters[index + 1];
    if (
      presentation &&
      previous !== undefined &&
      EMOJI.test(previous) &&
      !(next !== undefined && VARIATION_SELECTOR.test(next))
    ) {
      shown += character;
      return;
    }
    shown += mark(character);
  });
  return shown;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

const PLAIN_NAME = /^[A-Za-z_$][\w$-]*$/;

/** An argument's name as shown: plain when it is an identifier, else a JSON string (quotes, escapes, marks). */
export function showArgumentName(name: string): string {
  return PLAIN_NAME.test(name) ? name : showInvisibles(JSON.stringify(name));
}

/** A value as shown: pretty JSON with invisible characters marked. */
export function showArgumentValue(value: unknown): string {
  return showInvisibles(JSON.stringify(value, null, 2) ?? "null", { keepNewlines: true });
}

/**
 * The arguments object as the ask shows it, or why it cannot be shown whole.
 * `jsonBytes` is the size of its JSON when the caller measured it already.
 */
export function formatToolArguments(args: Record<string, unknown>, jsonBytes?: number): FormattedArguments {
  const names = Object.keys(args);
  if (names.length > MAX_ASKED_ARGUMENTS) {
    return {
      ok: false,
      reason: `it has ${names.length} top-level arguments, more than the ${MAX_ASKED_ARGUMENTS} a permission ask shows`,
    };
  }
  const bytes = jsonBytes ?? new TextEncoder().encode(JSON.stringify(args)).length;
  if (bytes > MAX_ASKED_ARGUMENTS_BYTES) {
    return {
      ok: false,
      reason: `its arguments are ${bytes} bytes of JSON, more than the ${MAX_ASKED_ARGUMENTS_BYTES / 1024} KB a permission ask shows whole`,
    };
  }
  return {
    ok: true,
    arguments: names.map((name) => ({ name: showArgumentName(name), value: showArgumentValue(args[name]) })),
  };
}

/** How much of a value the ask shows before **Show all**. */
export const ARGUMENT_PREVIEW = Object.freeze({ maxCharacters: 300, maxLines: 6 });

/**
 * The collapsed form of a long value: its start (at most `maxLines` lines and
 * `maxCharacters` characters, never splitting a mark or a surrogate pair) and
 * how many characters are behind **Show all**; undefined when it is short
 * enough to show as it is.
 */
export function previewArgument(
  value: string,
  limits: { maxCharacters: number; maxLines: number } = ARGUMENT_PREVIEW,
): { text: string; hiddenCharacters: number } | undefined {
  let end = Math.min(value.length, limits.maxCharacters);
  let lineBreak = -1;
  for (let line = 0; line < limits.maxLines; line += 1) {
    lineBreak = value.indexOf("\n", lineBreak + 1);
    if (lineBreak < 0) break;
  }
  if (lineBreak >= 0) end = Math.min(end, lineBreak);
  if (end >= value.length) return undefined;
  // Never end inside a mark (⟨U+202E⟩) or between the halves of a surrogate pair.
  const open = value.lastIndexOf("⟨U+", end);
  if (open >= 0 && value.indexOf("⟩", open) >= end) end = open;
  if (end > 0 && isLowSurrogate(value.charCodeAt(end))) end -= 1;
  return { text: value.slice(0, end), hiddenCharacters: value.length - end };
}
