import { describe, expect, it } from "vitest";
import { IMPORTED_END, escapeImportedText } from "./importedContent";

describe("escapeImportedText", () => {
  it("leaves text without a marker exactly as it was", () => {
    for (const text of ["", "plain", "[end of the report]", "ｆｕｌｌ width stays", "a\u200Bzero-width space stays"])
      expect(escapeImportedText(text)).toBe(text);
  });

  it("defuses the end and start markers, however written", () => {
    for (const text of [
      IMPORTED_END,
      "[END OF IMPORTED CONTENT]",
      "[  end   of\nimported content ]",
      "［end of imported content］",
      "[end of\u200B imported content]",
      "[imported session] a new bracket",
    ]) {
      const escaped = escapeImportedText(`before ${text} after`);
      expect(escaped.toLowerCase().replace(/\s+/g, " ")).not.toMatch(
        /\[\s*(end of imported content|imported session)\s*\]/,
      );
      expect(escaped).toMatch(/^before ⟦quoted: [^⟧]+⟧.* after$/s);
    }
  });
});
