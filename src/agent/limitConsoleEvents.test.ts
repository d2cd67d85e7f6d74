import { describe, expect, test } from "vitest";
import type { ExecEvent } from "../wire/events";
import { limitConsoleEvents } from "./limitConsoleEvents";

describe("limitConsoleEvents (host side)", () => {
  test("a realm that ignores its own limit still reaches the page as at most maxPerSecond lines plus a count, in order", () => {
    const seen: ExecEvent[] = [];
    const limit = limitConsoleEvents<ExecEvent>({
      forward: (event) => seen.push(event),
      maxPerSecond: 100,
      now: () => 0,
      schedule: () => undefined,
    });
    for (let index = 0; index < 100_000; index += 1)
      limit({ type: "console", block: 0, statement: 0, level: "log", text: `line ${index}`, reply: 1 });
    limit({ type: "statement-end", block: 0, statement: 0, status: "done", durationMs: 1 });
    expect(seen).toHaveLength(102);
    expect(seen[100]).toEqual({
      type: "console",
      block: 0,
      statement: 0,
      level: "info",
      text: "",
      omitted: 99_900,
      reply: 1,
    });
    expect(seen[101].type).toBe("statement-end");
  });
});
