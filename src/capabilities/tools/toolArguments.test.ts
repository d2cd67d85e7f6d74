import { describe, expect, it } from "vitest";
import {
  MAX_ASKED_ARGUMENTS,
  MAX_ASKED_ARGUMENTS_BYTES,
  formatToolArguments,
  previewArgument,
  showInvisibles,
} from "./toolArguments";

describe("what the tool ask shows of a call's arguments", () => {
  it("every top-level argument is its own entry, however long the one before it", () => {
    const shown = formatToolArguments({ body: "x".repeat(4_100), to: "attacker@evil.example" });
    expect(shown).toEqual({
      ok: true,
      arguments: [
        { name: "body", value: JSON.stringify("x".repeat(4_100)) },
        { name: "to", value: '"attacker@evil.example"' },
      ],
    });
  });

  it("values are pretty JSON; a name that is not an identifier is a JSON string", () => {
    const shown = formatToolArguments({ "to\nbcc": 1, options: { cc: ["a@b.example"] } });
    expect(shown.ok && shown.arguments).toEqual([
      { name: '"to\\nbcc"', value: "1" },
      { name: "options", value: '{\n  "cc": [\n    "a@b.example"\n  ]\n}' },
    ]);
  });

  it("a bidi override and other invisible characters are shown as marks, in values and names", () => {
    // "\u202E" makes "elpmaxe.live@rekcatta" read as "attacker@evil.example".
    const shown = formatToolArguments({
      to: "\u202Eelpmaxe.live@rekcatta",
      ["n\u200Bame"]: "a\u2028b\u2066c\u2069\u0085\u0000",
    });
    expect(shown.ok && shown.arguments).toEqual([
      { name: "to", value: '"⟨U+202E⟩elpmaxe.live@rekcatta"' },
      { name: '"n⟨U+200B⟩ame"', value: '"a⟨U+2028⟩b⟨U+2066⟩c⟨U+2069⟩⟨U+0085⟩\\u0000"' },
    ]);
    for (const character of [
      "\u202A",
      "\u202B",
      "\u202C",
      "\u202D",
      "\u2067",
      "\u2068",
      "\u200E",
      "\u200F",
      "\u061C",
      "\u2029",
      "\u200C",
      "\u200D",
      "\u2060",
      "\uFEFF",
      "\u00AD",
      "\u007F",
      "\u009B",
      "\u3164",
      "\u{E0041}",
      "\u{E0100}",
    ]) {
      expect(showInvisibles(`a${character}b`)).toBe(
        `a⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩b`,
      );
    }
    expect(showInvisibles("line\nbreak")).toBe("line⟨U+000A⟩break");
    expect(showInvisibles("line\nbreak", { keepNewlines: true })).toBe("line\nbreak");
  });

  it("an emoji keeps its presentation selector; a run of selectors (hidden text) does not", () => {
    expect(showInvisibles("I \u2764\uFE0F it")).toBe("I \u2764\uFE0F it");
    expect(showInvisibles("a\uFE0Fb")).toBe("a⟨U+FE0F⟩b");
    expect(showInvisibles("\u2764\uFE0F\uFE01")).toBe("\u2764⟨U+FE0F⟩⟨U+FE01⟩");
  });

  it("a call too large to show whole is not shown: too many bytes or too many arguments", () => {
    const big = formatToolArguments({ body: "x".repeat(MAX_ASKED_ARGUMENTS_BYTES), to: "a@b.example" });
    expect(big).toMatchObject({ ok: false, reason: expect.stringMatching(/64 KB/) });
    const many = formatToolArguments(
      Object.fromEntries(Array.from({ length: MAX_ASKED_ARGUMENTS + 1 }, (_, index) => [`a${index}`, index])),
    );
    expect(many).toMatchObject({ ok: false, reason: expect.stringMatching(/51 top-level arguments/) });
    expect(
      formatToolArguments(
        Object.fromEntries(Array.from({ length: MAX_ASKED_ARGUMENTS }, (_, index) => [`a${index}`, index])),
      ).ok,
    ).toBe(true);
  });

  it("a long value is collapsed to its start, never inside a mark or a surrogate pair", () => {
    expect(previewArgument('"short"')).toBeUndefined();
    expect(previewArgument("x".repeat(400))).toEqual({ text: "x".repeat(300), hiddenCharacters: 100 });
    expect(previewArgument("1\n2\n3\n4\n5\n6\n7\n8")).toEqual({ text: "1\n2\n3\n4\n5\n6", hiddenCharacters: 4 });
    const marked = "x".repeat(295) + "⟨U+202E⟩" + "y".repeat(20);
    expect(previewArgument(marked)?.text).toBe("x".repeat(295));
    const emoji = "x".repeat(299) + "😀" + "y".repeat(20);
    expect(previewArgument(emoji)?.text).toBe("x".repeat(299));
  });
});
