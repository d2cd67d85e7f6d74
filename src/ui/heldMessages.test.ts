/**
 * How many of a long session's last messages are drawn when it opens
 * (HeldMessages.tsx `openDrawnCount`): enough to fill the window by their
 * held boxes' heights (a reply's 480 px, another message's 48 px, each with
 * the 14 px gap), never none, never more than OPEN_DRAWN_MESSAGES.
 */
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { assistantMessage, userMessage } from "../store/testSupport";
import { openDrawnCount } from "./HeldMessages";
import { OPEN_DRAWN_MESSAGES } from "./Timeline";

const user = (id: string): ChatMessage => userMessage(id, `Question ${id}`, 0);
/** Questions and replies in turn, the last a reply. */
const turns = (count: number): ChatMessage[] =>
  Array.from({ length: count }, (_, index) => [
    user(`q${index}`),
    assistantMessage(`a${index}`, `Answer ${index}\n\`\`\`js\nconsole.log(${index})\n\`\`\`\n`, { seed: index }),
  ]).flat();

describe("openDrawnCount", () => {
  it("draws what fills the window: an 800 px window over questions and replies takes the last reply, its question and the reply before", () => {
    const messages = turns(100);
    expect(messages.at(-1)!.role).toBe("assistant");
    // 494 + 62 = 556 < 800; + 494 = 1,050 fills it.
    expect(openDrawnCount(messages, 800)).toBe(3);
    expect(openDrawnCount(messages, 494)).toBe(1);
    expect(openDrawnCount(messages, 495)).toBe(2);
    expect(openDrawnCount(messages, 1_100)).toBe(4);
  });

  it("draws at least the last message, at most OPEN_DRAWN_MESSAGES, and no more than there are", () => {
    const shortOnes = Array.from({ length: 100 }, (_, index) => user(`u${index}`));
    expect(openDrawnCount(shortOnes, 0)).toBe(1);
    expect(openDrawnCount(shortOnes, 620)).toBe(10);
    expect(openDrawnCount(shortOnes, 10_000)).toBe(OPEN_DRAWN_MESSAGES);
    expect(openDrawnCount(shortOnes.slice(0, 3), 10_000)).toBe(3);
    expect(openDrawnCount([], 800)).toBe(0);
  });
});
