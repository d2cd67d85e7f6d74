import { describe, expect, it } from "vitest";
import { EXEC_ERROR_CODE_LIST } from "../wire/events";
import { parseExportText, SESSION_FORMAT } from "./exportSchema";
import { assistantMessage, sampleReply } from "./testSupport";

/**
 * The export types are what the schemas accept (z.infer, checked against the
 * agent's `ChatMessage` at compile time). At run time that means a value the
 * app's types do not allow is refused on import with a path, not let through.
 */
function documentWithErrorCode(code: string) {
  const reply = sampleReply(1);
  const message = assistantMessage("a1", "hello", { state: "done" }) as { reply: typeof reply };
  message.reply = {
    ...reply,
    blocks: [
      {
        index: 0,
        kind: "code",
        lang: "tsx",
        line: 1,
        source: "boom()",
        closed: true,
        unterminated: false,
        status: "error",
        statements: [],
        error: { code: code as never, name: "Error", message: "boom", block: 0 },
      },
    ],
  };
  return JSON.stringify({
    format: SESSION_FORMAT,
    version: 1,
    exportedAt: "2026-01-01T00:00:00.000Z",
    session: {
      id: "s1",
      title: "t",
      createdAt: 1,
      updatedAt: 1,
      origin: "local",
      settings: { network: "ask", allowedHosts: [] },
    },
    messages: [message],
    mounts: [],
    grants: [],
    audit: [],
  });
}

describe("export types come from the schemas", () => {
  it("accepts every error code the realm reports", () => {
    for (const code of EXEC_ERROR_CODE_LIST) {
      const parsed = parseExportText(documentWithErrorCode(code));
      expect(parsed.ok, code).toBe(true);
    }
  });

  it("refuses an error code the app does not know, naming where", () => {
    const parsed = parseExportText(documentWithErrorCode("made-up"));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.path).toBe("$.messages[0].reply.blocks[0].error.code");
    expect(parsed.error.message).toContain('"syntax"');
    expect(parsed.error.message).toContain('found the text "made-up"');
  });
});
