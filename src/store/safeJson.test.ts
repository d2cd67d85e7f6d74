import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonValue, formatPath, IMPORT_LIMITS, locateJsonError, parseJsonSafely } from "./safeJson";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("safe JSON", () => {
  it("locates an error exactly when JSON.parse rejects (random text)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'{}[]:,"\\ 0123456789-.eE+truefalsn\n\tu'.split("")), maxLength: 40 }),
        (text) => {
          expect(locateJsonError(text) === undefined).toBe(parses(text));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("locates an error exactly when JSON.parse rejects (damaged JSON)", () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.nat(4), fc.string({ maxLength: 3 }), (json, at, drop, insert) => {
        const position = at % (json.length + 1);
        const text = json.slice(0, position) + insert + json.slice(position + drop);
        expect(locateJsonError(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it("formats JSON paths", () => {
    expect(formatPath([])).toBe("$");
    expect(formatPath(["messages", 3, "reply", "blocks", 0])).toBe("$.messages[3].reply.blocks[0]");
    expect(formatPath(["props", "data-seed", "a b"])).toBe('$.props["data-seed"]["a b"]');
  });

  it("bounds values, depth and keys without recursion", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200; level += 1) deep = { next: deep };
    expect(checkJsonValue(deep)?.code).toBe("too-deep");
    expect(checkJsonValue({ a: [1, 2, { b: "x" }] })).toBeUndefined();
    expect(
      checkJsonValue(
        Array.from({ length: 20 }, () => 1),
        { ...IMPORT_LIMITS, maxValues: 10 },
      )?.code,
    ).toBe("too-many-values");
    expect(checkJsonValue({ ["k".repeat(300)]: 1 })?.code).toBe("invalid");
    expect(checkJsonValue(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toMatchObject({
      code: "forbidden-key",
      path: "$.a.__proto__",
    });
  });

  it("parses with a BOM and refuses what is not JSON", () => {
    expect(parseJsonSafely('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonSafely("")).toMatchObject({ ok: false, error: { code: "empty" } });
    expect(parseJsonSafely('{"a":')).toMatchObject({ ok: false, error: { code: "truncated" } });
    expect(parseJsonSafely("NaN")).toMatchObject({ ok: false, error: { code: "not-json" } });
  });
});
