import { describe, expect, it } from "vitest";
import { emptyReply } from "./reply";
import { STOPPED_NOTE, toModelMessages } from "./modelMessages";
import type { ChatMessage } from "./types";

const reply = (id: string, text: string, state: "done" | "stopped"): ChatMessage => ({
  id,
  role: "assistant",
  text,
  reply: emptyReply(),
  state,
  createdAt: 1,
});

describe("toModelMessages", () => {
  it("tells the model where the person pressed Stop (a reply of prose only), and only there", () => {
    const messages = toModelMessages(
      [
        { id: "u1", role: "user", text: "Write a long story", createdAt: 0 },
        reply("a1", "Once upon a time there was a", "stopped"),
        { id: "u2", role: "user", text: "Shorter please", createdAt: 2 },
        reply("a2", "A short one.", "done"),
      ],
      () => false,
    );
    expect(messages).toEqual([
      { role: "user", content: "Write a long story" },
      { role: "assistant", content: "Once upon a time there was a" },
      { role: "user", content: STOPPED_NOTE },
      { role: "user", content: "Shorter please" },
      { role: "assistant", content: "A short one." },
    ]);
  });
});
