import { describe, expect, it } from "vitest";
import { MAX_WIRE_STRING } from "./constants";
import {
  array,
  check,
  int,
  name,
  nullable,
  object,
  oneOf,
  optional,
  record,
  text,
  variants,
  type Infer,
} from "./schema";

const point = object({ x: int(), y: int(), label: optional(text()) });
const shape = variants("kind", {
  dot: { at: point },
  line: { from: point, to: point, tags: array(name(8), { max: 2 }) },
  group: variants("layout", { row: { gap: int() }, column: {} }),
});
type ShapeValue = Infer<typeof shape>;

describe("the schema kit", () => {
  it("rebuilds a valid value with only its declared fields, sharing nothing", () => {
    const input = {
      kind: "line",
      from: { x: 1, y: 2, z: 3 },
      to: { x: 3, y: 4, label: "end" },
      tags: ["a"],
      extra: true,
    };
    const result = check(shape, input);
    expect(result).toEqual({
      ok: true,
      message: { kind: "line", from: { x: 1, y: 2 }, to: { x: 3, y: 4, label: "end" }, tags: ["a"] },
    });
    if (result.ok && result.message.kind === "line") expect(result.message.from).not.toBe(input.from);
    const group: ShapeValue = { kind: "group", layout: "row", gap: 2 };
    expect(check(shape, group)).toEqual({ ok: true, message: group });
  });

  it("names the path of what fails, only when it fails", () => {
    expect(check(shape, { kind: "line", from: { x: 1, y: 2 }, to: { x: 1, y: -2 }, tags: [] })).toEqual({
      ok: false,
      reason: "to.y is not a non-negative integer",
    });
    expect(
      check(shape, { kind: "line", from: { x: 1, y: 2 }, to: { x: 1, y: 2 }, tags: ["a", "toolongname"] }),
    ).toEqual({ ok: false, reason: "tags[1] is not a short non-empty string" });
    expect(check(shape, { kind: "line", from: { x: 1, y: 2 }, to: { x: 1, y: 2 }, tags: ["a", "b", "c"] })).toEqual({
      ok: false,
      reason: "tags has too many entries",
    });
    expect(check(shape, { kind: "group", layout: "grid" })).toEqual({
      ok: false,
      reason: "layout has an unknown value",
    });
    expect(check(shape, { kind: "blob" })).toEqual({ ok: false, reason: "kind has an unknown value" });
    expect(check(shape, null)).toEqual({ ok: false, reason: "message is not an object" });
    expect(check(array(point), [{ x: 1, y: 1 }, new Date()], "points")).toEqual({
      ok: false,
      reason: "points[1] is not a plain object",
    });
  });

  it("caps strings and says so; drops __proto__ keys; keeps null where declared", () => {
    const long = "z".repeat(MAX_WIRE_STRING + 3);
    const result = check(
      record(nullable(text())),
      JSON.parse(`{"__proto__": "x", "a": ${JSON.stringify(long)}, "b": null}`),
    );
    expect(result.ok && Object.keys(result.message)).toEqual(["a", "b"]);
    expect(result.ok && result.message.a).toBe(
      `${"z".repeat(MAX_WIRE_STRING)}… [3 more characters dropped by the host]`,
    );
    expect(check(oneOf({ a: true }), "toString").ok).toBe(false);
  });
});
