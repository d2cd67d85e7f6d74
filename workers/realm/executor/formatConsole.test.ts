import { describe, expect, it } from "vitest";
import { CONSOLE_MAX_CHARS, formatConsoleArguments } from "./formatConsole";

describe("formatConsoleArguments", () => {
  it("prints strings as they are at top level and inspects everything else", () => {
    expect(formatConsoleArguments(["a", "b c", 1, true, null, undefined])).toBe("a b c 1 true null undefined");
    expect(formatConsoleArguments([{ s: "quoted inside", n: [1, 2] }])).toBe("{ s: 'quoted inside', n: [ 1, 2 ] }");
    expect(formatConsoleArguments([new Set([1]), 2n, Symbol("s")])).toBe("Set (1) {1} 2n Symbol(s)");
  });

  it("prints errors as `Name: message`", () => {
    expect(formatConsoleArguments(["failed:", new RangeError("too big")])).toBe("failed: RangeError: too big");
  });

  it("limits depth", () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    expect(formatConsoleArguments([deep])).toContain("[Object]");
  });

  it("applies printf-style substitutions", () => {
    expect(formatConsoleArguments(["%s is %d years and %f m; %i%%", "Ada", 36, 1.5, 7.9])).toBe(
      "Ada is 36 years and 1.5 m; 7%",
    );
    expect(formatConsoleArguments(["%o and %j", { a: 1 }, { b: 2 }])).toBe('{ a: 1 } and {"b":2}');
    expect(formatConsoleArguments(["%cstyled", "color: red", "rest"])).toBe("styled rest");
    expect(formatConsoleArguments(["%s and %s", "one"])).toBe("one and %s");
  });

  it("survives hostile values", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("nope");
        },
      },
    );
    expect(formatConsoleArguments([hostile])).toContain("uninspectable");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(formatConsoleArguments([circular])).toBe("{ self: [Circular] }");
  });

  it("caps one line", () => {
    const text = formatConsoleArguments(["x".repeat(CONSOLE_MAX_CHARS + 50)]);
    expect(text.length).toBeLessThan(CONSOLE_MAX_CHARS + 40);
    expect(text).toMatch(/… \(50 more characters\)$/);
  });
});
