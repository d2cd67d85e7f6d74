import { createElement } from "react";
import { describe, expect, test } from "vitest";
import { HANDLER_MARKER } from "../../../src/wire/mount";
import { jsonEqual, toWireProps, type PropIssue } from "./toWireProps";

describe("toWireProps", () => {
  test("JSON the way JSON.stringify makes it, without children/key/ref", () => {
    const when = new Date("2024-01-02T03:04:05.000Z");
    expect(
      toWireProps("div", {
        children: "x",
        key: "k",
        ref: {},
        className: "a",
        n: 1,
        nan: NaN,
        inf: Infinity,
        flag: false,
        none: null,
        skip: undefined,
        style: { color: "red", width: undefined },
        list: [1, undefined, () => {}],
        when,
        big: 10n,
      }),
    ).toEqual({
      className: "a",
      n: 1,
      nan: null,
      inf: null,
      flag: false,
      none: null,
      style: { color: "red" },
      list: [1, null, null],
      when: "2024-01-02T03:04:05.000Z",
      big: "10",
    });
  });

  test("functions become markers; non-event functions and element props are reported", () => {
    const issues: PropIssue[] = [];
    const props = toWireProps(
      "XAxis",
      {
        onClick: () => {},
        tickFormatter: (v: number) => `${v}`,
        icon: createElement("StarIcon"),
        data: [{ label: createElement("b") }],
      },
      { report: (issue) => issues.push(issue) },
    );
    expect(props).toEqual({ onClick: HANDLER_MARKER, tickFormatter: HANDLER_MARKER, data: [{}] });
    expect(issues).toEqual([
      { kind: "function-prop", type: "XAxis", prop: "tickFormatter" },
      { kind: "element-prop", type: "XAxis", prop: "icon" },
      { kind: "element-prop", type: "XAxis", prop: "data" },
    ]);
  });

  test("cycles and excessive depth are cut, never thrown", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(toWireProps("div", { cycle })).toEqual({ cycle: { a: 1, self: null } });
    let deep: unknown = 0;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(() => JSON.stringify(toWireProps("div", { deep }))).not.toThrow();
  });

  test("unwrap lets realm objects stand for their value", () => {
    const special = { secret: true };
    expect(
      toWireProps(
        "LineChart",
        { data: special },
        { unwrap: (value) => (value === special ? { value: [1, 2] } : undefined) },
      ),
    ).toEqual({ data: [1, 2] });
  });

  test("__proto__ keys never reach a prototype", () => {
    const props = JSON.parse('{"__proto__": {"polluted": 1}, "style": {"__proto__": {"x": 1}, "color": "red"}}');
    const wire = toWireProps("div", props);
    expect(Object.getPrototypeOf(wire)).toBe(Object.prototype);
    expect(wire).toEqual({ style: { color: "red" } });
  });

  test("jsonEqual", () => {
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
  });
});
