import { describe, expect, it } from "vitest";
import { blockNames, dependentBlocks } from "./blockNames";

const sorted = (names: string[]) => [...names].sort();

describe("blockNames", () => {
  it("declares top-level const, let, var, function, class and hoisted vars", () => {
    const names = blockNames(
      "const a = 1; let b; var c; function d() {} class E {}\nif (a) { var f = 2; let g = 3; }\nfor (var h of []) {}",
    );
    expect(sorted(names.declared)).toEqual(["E", "a", "b", "c", "d", "f", "h"]);
    expect(names.reads).toEqual([]);
  });

  it("declares every name of a destructuring and reads its defaults and source", () => {
    const names = blockNames("const { x, y: [z, ...rest], ...others } = data; const [p = fallback, { q }] = list;");
    expect(sorted(names.declared)).toEqual(["others", "p", "q", "rest", "x", "z"]);
    expect(sorted(names.reads)).toEqual(["data", "fallback", "list"]);
  });

  it("reads names no local binding shadows, and not the names it declares itself", () => {
    const names = blockNames(
      [
        "const total = items.reduce((sum, item) => sum + item.price * rate, 0);",
        "function show(items) { const rate = 2; return items.map((x) => x * rate + offset); }",
        "try { risky(); } catch (error) { console.log(error, total); }",
        "for (const row of rows) { let label = row.name; print(label); }",
      ].join("\n"),
    );
    expect(sorted(names.declared)).toEqual(["show", "total"]);
    // `items`, `rate` are read at the top of the first statement; the function's own are locals.
    expect(sorted(names.reads)).toEqual(["console", "items", "offset", "print", "rate", "risky", "rows"]);
  });

  it("a shadowing local is not a read, in functions, blocks, catch and class expressions", () => {
    const names = blockNames(
      "function f(count) { return count; }\n{ const count = 1; use(count); }\nconst g = function count() { return count; };\ntry {} catch (count) { count; }",
    );
    expect(names.reads).not.toContain("count");
    expect(names.reads).toContain("use");
  });

  it("function declarations are hoisted in their body: a call before the declaration reads nothing outside", () => {
    const names = blockNames("function outer() { helper(); function helper() { return base; } }");
    expect(names.declared).toEqual(["outer"]);
    expect(names.reads).toEqual(["base"]);
  });

  it("JSX: a capitalised tag reads the component, a lowercase tag does not; attributes and children are read", () => {
    const names = blockNames(
      'mount({ title: "Sales", ui: () => <Card><div className={style}>{rows.length}</div><Chart data={series} /><ui.Box /></Card> });',
    );
    expect(sorted(names.reads)).toEqual(["Card", "Chart", "mount", "rows", "series", "style", "ui"].sort());
    expect(names.reads).not.toContain("div");
  });

  it("property names, object keys, labels and types are not reads", () => {
    const names = blockNames(
      "type Row = { price: Price }; interface P { x: Q }\nconst v: Row = { price: obj.price } as Row;\nouter: for (;;) { break outer; }",
    );
    expect(names.declared).toEqual(["v"]);
    expect(names.reads).toEqual(["obj"]);
  });

  it("code that does not parse declares and reads nothing", () => {
    expect(blockNames("const = ;;; ((")).toEqual({ declared: [], reads: [] });
    expect(blockNames("let a = (")).toEqual({ declared: [], reads: [] });
  });
});

describe("dependentBlocks", () => {
  it("marks the later blocks that read a declared name, through what they declare in turn", () => {
    const later = [
      { key: 2, code: "console.log(price * 2);" },
      { key: 3, code: "const doubled = price * 2;" },
      { key: 4, code: "console.log(doubled);" },
      { key: 5, code: "console.log('unrelated', other);" },
      { key: 6, code: "const price = 1; console.log(price);" },
    ];
    expect(dependentBlocks(["price"], later)).toEqual([2, 3, 4]);
  });

  it("a later block that declares the name again hides the edited one's from the blocks after it", () => {
    const later = [
      { key: "b", code: "let price = 5;" },
      { key: "c", code: "console.log(price);" },
    ];
    expect(dependentBlocks(["price"], later)).toEqual([]);
  });
});
