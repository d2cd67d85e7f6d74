import { describe, expect, it } from "vitest";
import { blockMounts, blockToRun, codeBlocksAfter, editContext, unifiedDiff, type CodeBlockView } from "./editBlock";
import { emptyReply } from "./reply";
import type { ChatMessage } from "./types";

const block: CodeBlockView = {
  index: 1,
  kind: "code",
  lang: "tsx",
  line: 3,
  source: "const a = 1;",
  closed: true,
  unterminated: false,
  status: "done",
  statements: [{ statement: 0, line: 3, endLine: 3, source: "const a = 1;", status: "done", logs: [] }],
  stale: true,
};

describe("blockToRun", () => {
  it("keeps the model's code as original, clears the results and the stale mark", () => {
    const next = blockToRun(block, "const a = 2;");
    expect(next).toMatchObject({ source: "const a = 2;", original: "const a = 1;", statements: [], status: "queued" });
    expect(next.stale).toBeUndefined();
    // Edited again: the model's code is still the original.
    expect(blockToRun(next, "const a = 3;").original).toBe("const a = 1;");
    // Edited back to the model's code: no longer edited.
    expect(blockToRun(next, "const a = 1;").original).toBeUndefined();
  });
});

describe("blockMounts and codeBlocksAfter", () => {
  it("lists a block's mounts in order and the code blocks after it across replies", () => {
    const reply = {
      ...emptyReply(),
      blocks: [block, { ...block, index: 2, source: "b()" }],
      mounts: [
        { mountId: "m1", afterBlock: 1, title: "One" },
        { mountId: "m2", afterBlock: 2 },
        { mountId: "m3", afterBlock: 1 },
      ],
    };
    expect(blockMounts(reply, 1)).toEqual([{ mountId: "m1", title: "One" }, { mountId: "m3" }]);
    // Another block's titled mount is offered by title only (a mount shows after the block running when it drew).
    expect(
      blockMounts({ ...reply, mounts: [...reply.mounts, { mountId: "m4", afterBlock: 2, title: "Four" }] }, 1),
    ).toEqual([{ mountId: "m1", title: "One" }, { mountId: "m3" }, { mountId: "m4", title: "Four", titleOnly: true }]);
    const messages: ChatMessage[] = [
      { id: "a1", role: "assistant", text: "", reply, state: "done", createdAt: 0 },
      { id: "u2", role: "user", text: "more", createdAt: 0 },
      {
        id: "a2",
        role: "assistant",
        text: "",
        reply: { ...emptyReply(), blocks: [{ ...block, index: 0, source: "c()" }] },
        state: "done",
        createdAt: 0,
      },
    ];
    expect(codeBlocksAfter(messages, { replyId: "a1", index: 1 })).toEqual([
      { ref: { replyId: "a1", index: 2 }, code: "b()" },
      { ref: { replyId: "a2", index: 0 }, code: "c()" },
    ]);
  });
});

describe("unifiedDiff", () => {
  it("shows changed lines with two lines of context and hunk headers", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g"].join("\n");
    const after = ["a", "b", "c", "D", "e", "f", "g", "h"].join("\n");
    expect(unifiedDiff(before, after)).toBe(
      ["@@ -2,6 +2,7 @@", " b", " c", "-d", "+D", " e", " f", " g", "+h"].join("\n"),
    );
    expect(unifiedDiff("same", "same")).toBe("");
  });
});

describe("editContext", () => {
  const long = Array.from({ length: 40 }, (_, line) => `console.log("line ${line}");`).join("\n");

  it("sends a diff when it is shorter than the new code, with what the run printed", () => {
    const edited = long.replace('"line 20"', '"line twenty"');
    const text = editContext({
      block: 3,
      original: long,
      code: edited,
      output: "[block 3 line 22] line twenty",
      failed: false,
    });
    expect(text).toContain("The person edited code block 3 of your reply and ran it again in the current realm");
    expect(text).toContain('-console.log("line 20");\n+console.log("line twenty");');
    expect(text).not.toContain('console.log("line 5")');
    expect(text).toContain("What it printed or threw:\n[block 3 line 22] line twenty");
  });

  it("sends the code when shorter than a diff, and says a failed run left the statements before the error", () => {
    const text = editContext({
      block: 1,
      original: "let x = 1",
      code: "let x = 2",
      output: "Error: boom",
      failed: true,
    });
    expect(text).toContain("Their code:\nlet x = 2");
    expect(text).toContain("The run failed: the statements before the error ran");
    expect(text).toContain("Error: boom");
  });

  it("a block run again unchanged says so and carries no code", () => {
    const text = editContext({ block: 2, original: "f()", code: "f()", output: "", failed: false });
    expect(text).toContain("ran code block 2 of your reply again, unchanged");
    expect(text).toContain("It printed nothing.");
    expect(text).not.toContain("Their");
  });
});
