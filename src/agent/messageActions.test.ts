import { describe, expect, it } from "vitest";
import { editedTimeline, interactionStart } from "./messageActions";
import { emptyReply } from "./reply";
import type { ChatMessage } from "./types";

const reply = (id: string): ChatMessage => ({
  id,
  role: "assistant",
  text: "ok",
  reply: emptyReply(),
  state: "done",
  createdAt: 2,
});
const timeline: ChatMessage[] = [
  { id: "u1", role: "user", text: "first", createdAt: 1 },
  reply("a1"),
  { id: "f1", role: "feedback", text: "[ui] clicked", body: "clicked", source: "ui-event", createdAt: 3 },
  reply("a2"),
  { id: "f2", role: "feedback", text: "[runtime] out", body: "out", source: "runtime", createdAt: 4 },
  reply("a3"),
];

describe("message actions", () => {
  it("Edit and resend keeps what came before, replaces the message and drops the rest", () => {
    const edited = editedTimeline(timeline, "u1", "  second  ", () => ({ id: "u9", createdAt: 9 }));
    expect(edited).toEqual([{ id: "u9", role: "user", text: "second", createdAt: 9 }]);
    expect(editedTimeline(timeline, "a1", "x", () => ({ id: "u9", createdAt: 9 }))).toBeUndefined();
    expect(editedTimeline(timeline, "u1", "   ", () => ({ id: "u9", createdAt: 9 }))).toBeUndefined();
  });

  it("an edited imported message is the person's unless it keeps the file's attachments", () => {
    const attachment = { name: "a.txt", mediaType: "text/plain", size: 1, data: "YQ==" };
    const imported: ChatMessage[] = [
      { id: "u1", role: "user", text: "from the file", createdAt: 1, imported: true },
      { id: "u2", role: "user", text: "", createdAt: 1, imported: true, attachments: [attachment] },
    ];
    expect(editedTimeline(imported, "u1", "mine", () => ({ id: "n", createdAt: 2 }))?.[0].imported).toBeUndefined();
    expect(editedTimeline(imported, "u2", "mine", () => ({ id: "n", createdAt: 2 }))?.at(-1)?.imported).toBe(true);
  });

  it("an interaction starts at the person's message or the UI event before its reply", () => {
    expect(interactionStart(timeline, "a1")).toBe(0);
    expect(interactionStart(timeline, "a2")).toBe(2);
    expect(interactionStart(timeline, "a3")).toBe(2);
    expect(interactionStart(timeline, "u1")).toBe(-1);
    expect(interactionStart(timeline, "nope")).toBe(-1);
  });
});
