import { describe, expect, test } from "vitest";
import type { ExecEvent } from "../../../src/wire/events";
import { createConsoleLimiter } from "./createConsoleLimiter";

const line = (statement: number, text: string): ExecEvent => ({
  type: "console",
  block: 0,
  statement,
  level: "log",
  text,
  reply: 1,
});

describe("createConsoleLimiter", () => {
  test("a million-line statement sends its first lines and then one count", () => {
    const sent: ExecEvent[] = [];
    const flushes: (() => void)[] = [];
    const limit = createConsoleLimiter({
      forward: (event) => sent.push(event),
      schedule: (flush) => flushes.push(flush),
      now: () => 0,
      maxPerStatement: 500,
    });
    for (let index = 0; index < 1_000_000; index += 1) limit(line(0, `line ${index}`));
    expect(sent).toHaveLength(500);
    expect(flushes).toHaveLength(1);
    flushes[0]();
    expect(sent.at(-1)).toEqual({
      type: "console",
      block: 0,
      statement: 0,
      level: "info",
      text: "",
      omitted: 999_500,
      reply: 1,
    });
  });

  test("the count goes out before the statement's end, in order", () => {
    const sent: ExecEvent[] = [];
    const limit = createConsoleLimiter({
      forward: (event) => sent.push(event),
      schedule: () => undefined,
      now: () => 0,
      maxPerStatement: 2,
    });
    for (const text of ["a", "b", "c", "d"]) limit(line(0, text));
    limit({ type: "statement-end", block: 0, statement: 0, status: "done", durationMs: 1 });
    expect(sent.map((event) => (event.type === "console" ? event.text || `+${event.omitted}` : event.type))).toEqual([
      "a",
      "b",
      "+2",
      "statement-end",
    ]);
  });

  test("the per-second budget is shared by all statements; other events always pass", () => {
    const sent: ExecEvent[] = [];
    let time = 0;
    const limit = createConsoleLimiter({
      forward: (event) => sent.push(event),
      schedule: () => undefined,
      now: () => time,
      maxPerSecond: 10,
    });
    for (let statement = 0; statement < 5; statement += 1)
      for (let index = 0; index < 5; index += 1) limit(line(statement, "x"));
    expect(sent.filter((event) => event.type === "console" && event.text === "x")).toHaveLength(10);
    time = 1000;
    limit(line(9, "later"));
    expect(sent.at(-1)).toMatchObject({ text: "later" });
  });
});
