import { describe, expect, it } from "vitest";
import {
  allMessageIds,
  editedTimeline,
  interactionStart,
  regeneratedTimeline,
  switchedTimeline,
  versionOf,
} from "./messageActions";
import { toModelMessages } from "./modelMessages";
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
  it("Edit and resend keeps what came before, shows the new message and keeps the rest as the earlier version", () => {
    const edited = editedTimeline(timeline, "u1", "  second  ", () => ({ id: "u9", createdAt: 9 }));
    expect(edited).toEqual([
      { id: "u9", role: "user", text: "second", createdAt: 9, versions: { at: 1, others: [timeline] } },
    ]);
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

  describe("versions", () => {
    const long: ChatMessage[] = Array.from({ length: 30 }, (_, index) =>
      index % 2 === 0
        ? { id: `m${index}`, role: "user", text: `question ${index}`, createdAt: index }
        : { ...reply(`m${index}`), text: `answer ${index}` },
    );
    const fresh = (id: string) => () => ({ id, createdAt: 100 });
    const reachable = (messages: readonly ChatMessage[]) => allMessageIds(messages);

    it("editing message 3 of 30 keeps all 30 reachable as version 1/2 and shows the edit as 2/2", () => {
      const edited = editedTimeline(long, "m2", "question 2, edited", fresh("e2"))!;
      expect(edited.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      expect(versionOf(edited[2])).toEqual({ at: 1, total: 2 });
      for (const message of long) expect(reachable(edited).has(message.id)).toBe(true);
      // Back to version 1: the whole earlier timeline is shown again, in order, and the edit is kept.
      const back = switchedTimeline(edited, "e2", 0)!.messages;
      expect(back.map((message) => message.id)).toEqual(long.map((message) => message.id));
      expect(back.map((message) => message.text)).toEqual(long.map((message) => message.text));
      expect(versionOf(back[2])).toEqual({ at: 0, total: 2 });
      expect(reachable(back).has("e2")).toBe(true);
      // …and forth: the edit, and only it, after the branch point.
      const forth = switchedTimeline(back, "m2", 1)!.messages;
      expect(forth.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      expect(reachable(forth).size).toBe(31);
      // No such version, or the one shown: nothing to do.
      expect(switchedTimeline(forth, "e2", 2)).toBeUndefined();
      expect(switchedTimeline(forth, "e2", 1)).toBeUndefined();
      expect(switchedTimeline(forth, "m0", 0)).toBeUndefined();
    });

    it("a later edit inside an earlier version keeps its own versions when the outer version switches", () => {
      const edited = editedTimeline(long, "m2", "edit A", fresh("a"))!;
      const back = switchedTimeline(edited, "a", 0)!.messages;
      const inner = editedTimeline(back, "m10", "edit B", fresh("b"))!;
      expect(inner.map((message) => message.id)).toEqual([...long.slice(0, 10).map((message) => message.id), "b"]);
      const outer = switchedTimeline(inner, "m2", 1)!.messages;
      expect(outer.map((message) => message.id)).toEqual(["m0", "m1", "a"]);
      const again = switchedTimeline(outer, "a", 0)!.messages;
      expect(again.at(-1)?.id).toBe("b");
      expect(versionOf(again[10])).toEqual({ at: 1, total: 2 });
      expect(reachable(again).size).toBe(32);
    });

    it("regenerating twice gives three versions of the reply, each with what followed it", () => {
      const notice = (id: string): ChatMessage => ({ id, role: "notice", text: "again", level: "info", createdAt: 5 });
      const first = regeneratedTimeline(timeline, 0, notice("n1"));
      expect(first.map((message) => message.id)).toEqual(["u1", "n1"]);
      expect(versionOf(first[1])).toEqual({ at: 1, total: 2 });
      const second = regeneratedTimeline([...first, reply("b1")], 0, notice("n2"));
      expect(second.map((message) => message.id)).toEqual(["u1", "n2"]);
      expect(versionOf(second[1])).toEqual({ at: 2, total: 3 });
      const oldest = switchedTimeline(second, "n2", 0)!.messages;
      expect(oldest.map((message) => message.id)).toEqual(timeline.map((message) => message.id));
      expect(versionOf(oldest[1])).toEqual({ at: 0, total: 3 });
      const middle = switchedTimeline(oldest, "a1", 1)!.messages;
      expect(middle.map((message) => message.id)).toEqual(["u1", "n1", "b1"]);
      expect(versionOf(middle[1])).toEqual({ at: 1, total: 3 });
    });

    it("the model reads only the version shown", () => {
      const edited = editedTimeline(long, "m2", "the new question", fresh("e2"))!;
      const sent = JSON.stringify(toModelMessages(edited, () => false));
      expect(sent).toContain("the new question");
      expect(sent).not.toContain('question 2"');
      expect(sent).not.toContain("answer 29");
      const back = JSON.stringify(toModelMessages(switchedTimeline(edited, "e2", 0)!.messages, () => false));
      expect(back).toContain("answer 29");
      expect(back).not.toContain("the new question");
    });
  });
});
