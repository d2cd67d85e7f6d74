import { describe, expect, it } from "vitest";
import {
  createSessionScope,
  declare,
  declareAll,
  hoistVars,
  isDeclared,
  typeOf,
  type SessionScope,
} from "./sessionScope";
import {
  PARAMETERS,
  TransformError,
  transformStatement,
  warmUpTransform,
  WARM_UP_SAMPLE,
  type TransformEnvironment,
} from "./transform";

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as FunctionConstructor;

/** Runtime hooks without attribution or guard: enough to run compiled statements. */
const runtime = {
  d: declare,
  m: declareAll,
  v: hoistVars,
  ty: typeOf,
  tick: () => {},
  ea: () => null,
  re: (_context: unknown, value: unknown) => value,
  th: (target: Record<string, (...args: unknown[]) => unknown>, method: string, _text: string, ...args: unknown[]) =>
    target[method](...args),
  ce: (error: unknown) => error,
};

function environment(scope: SessionScope, globals: Record<string, unknown>): TransformEnvironment {
  let sites = 0;
  return {
    isRealmGlobal: (name) => Object.prototype.hasOwnProperty.call(globals, name),
    isPlatformGlobal: (name) => name in globalThis,
    isDeclared: (name) => isDeclared(scope, name),
    site: () => sites++,
  };
}

/** A session: statements run one after another against one scope. */
function session(globals: Record<string, unknown> = {}) {
  const scope = createSessionScope();
  const frozen = Object.freeze({ ...globals });
  const run = (source: string): unknown => {
    const result = transformStatement(source, environment(scope, frozen));
    const compiled = new (result.async ? AsyncFunction : Function)(...PARAMETERS, result.body) as (
      ...args: unknown[]
    ) => unknown;
    return compiled(scope, frozen, runtime, null);
  };
  return { scope, run };
}

function transformError(source: string, globals: Record<string, unknown> = {}): TransformError {
  try {
    transformStatement(source, environment(createSessionScope(), globals));
  } catch (error) {
    if (error instanceof TransformError) return error;
    throw error;
  }
  throw new Error(`no error for ${source}`);
}

describe("transformStatement", () => {
  it("lists the top-level names each declaration form binds", () => {
    const declared = (source: string) => transformStatement(source, environment(createSessionScope(), {})).declared;
    expect(declared("const a = 1, b = 2")).toEqual([
      { name: "a", kind: "const" },
      { name: "b", kind: "const" },
    ]);
    expect(
      declared("let { x, y: [z = 1], ...rest } = source")
        .map((item) => `${item.kind} ${item.name}`)
        .sort(),
    ).toEqual(["let rest", "let x", "let z"]);
    expect(declared("if (ok) { var hoisted = 1; let local = 2 }")).toEqual([{ name: "hoisted", kind: "var" }]);
    expect(declared("function f() { var inner = 1 }")).toEqual([{ name: "f", kind: "function" }]);
    expect(declared("class Box {}")).toEqual([{ name: "Box", kind: "class" }]);
    expect(declared("enum Color { Red }")).toEqual([{ name: "Color", kind: "var" }]);
    expect(declared("for (let i = 0; i < 2; i++) {}")).toEqual([]);
    expect(declared("type A = number; interface B {}")).toEqual([]);
  });

  it("compiles as async only a statement with a top-level await", () => {
    const isAsync = (source: string) => transformStatement(source, environment(createSessionScope(), {})).async;
    expect(isAsync("await x")).toBe(true);
    expect(isAsync("const r = await fetch(u)")).toBe(true);
    expect(isAsync("for await (const c of s) {}")).toBe(true);
    expect(isAsync("async function f() { await x }")).toBe(false);
    expect(isAsync("const g = async () => { for await (const c of s) {} }")).toBe(false);
    expect(isAsync("x.then(() => 1)")).toBe(false);
  });

  it("warms up on one statement that takes a first fence's paths: types, JSX, a template, an arrow, await", () => {
    const result = transformStatement(WARM_UP_SAMPLE, environment(createSessionScope(), {}));
    expect(result.async).toBe(true);
    expect(result.body).toContain("React.createElement(");
    expect(result.body).toMatch(/`n\$\{.*await /);
    expect(result.body).toMatch(/\.map\(\(?n\)? =>/);
    expect(result.body).not.toMatch(/: number|: unknown|as number|<div|<b /);
    expect(() => warmUpTransform()).not.toThrow();
  });

  it("keeps each line of the statement on its line", () => {
    const result = transformStatement(
      "const a = {\n  b: 1,\n  c: (() => { throw new Error('x') })\n}",
      environment(createSessionScope(), {}),
    );
    // The prologue takes the first line; the statement starts on the second.
    const lines = result.body.split("\n").slice(1);
    expect(lines[2]).toContain("throw");
  });

  it("maps generated columns back with source maps on demand", () => {
    const result = transformStatement("const total = price * count", environment(createSessionScope(), {}), {
      sourceMaps: true,
    });
    const code = result.body.split("\n")[1];
    const generated = code.indexOf("count");
    const mapping = result
      .mappings!.filter((entry) => entry.generatedLine === 1 && entry.generatedColumn <= generated)
      .at(-1)!;
    expect(mapping.originalColumn).toBe("const total = price * ".length);
  });

  describe("errors", () => {
    it("reports syntax errors with their position in the statement", () => {
      const error = transformError("const x = {\n  a: 1,\n  b: ]\n}");
      expect(error).toMatchObject({ code: "syntax", name: "SyntaxError", line: 3, column: 6 });
    });

    it("refuses to shadow platform and realm globals", () => {
      expect(transformError("const fetch = 1")).toMatchObject({ code: "shadow-global", line: 1, column: 7 });
      expect(transformError("function setTimeout() {}")).toMatchObject({ code: "shadow-global" });
      expect(transformError("if (x) { var Object = 1 }")).toMatchObject({ code: "shadow-global" });
      expect(transformError("const { mount } = api", { mount: () => {} })).toMatchObject({
        code: "shadow-global",
        line: 1,
        column: 9,
      });
      // Local names may shadow anything.
      expect(() =>
        transformStatement(
          "function f(fetch) { const console = 1; return fetch }",
          environment(createSessionScope(), {}),
        ),
      ).not.toThrow();
    });

    it("allows declaring instance-state globals such as `name`", () => {
      expect(() => transformStatement("const name = 'Ada'", environment(createSessionScope(), {}))).not.toThrow();
      expect(() => transformStatement("const constructor = 1", environment(createSessionScope(), {}))).not.toThrow();
    });

    it("has no `arguments` at top level, and the function's own inside one", () => {
      const { run, scope } = session();
      expect(() => run("arguments.length")).toThrow(new ReferenceError("arguments is not defined"));
      run("function count() { return (() => arguments.length)() }");
      run("const counted = count(1, 2, 3)");
      expect(scope.counted).toBe(3);
    });

    it("refuses modules and the realm's reserved names", () => {
      expect(transformError("import x from 'y'")).toMatchObject({ code: "unsupported" });
      expect(transformError("export * from 'y'")).toMatchObject({ code: "unsupported" });
      expect(transformError("const $$s = 1")).toMatchObject({ code: "unsupported" });
      expect(transformError("$$r.tick(1)")).toMatchObject({ code: "unsupported" });
    });
  });

  describe("persistent bindings", () => {
    it("shares one binding across statements, closures included", () => {
      const { run } = session();
      run("let count = 0");
      run("const increment = () => ++count");
      run("count = 10");
      expect(run("increment()")).toBe(undefined);
      run("const seen = increment()");
      expect(run("count")).toBe(undefined);
      const { scope } = session();
      void scope;
    });

    it("reads and writes through the scope object", () => {
      const { run, scope } = session();
      run("let count = 0");
      run("const increment = () => ++count");
      run("count = 10");
      run("increment()");
      expect(scope.count).toBe(11);
      run("var list = [1]; list.push(count)");
      expect(scope.list).toEqual([1, 11]);
    });

    it("keeps const constant, with the engine's message", () => {
      const { run, scope } = session();
      run("const fixed = 1");
      expect(() => run("fixed = 2")).toThrow(new TypeError("Assignment to constant variable."));
      expect(() => run("fixed++")).toThrow(TypeError);
      expect(() => run("({ fixed } = { fixed: 3 })")).toThrow(TypeError);
      expect(scope.fixed).toBe(1);
    });

    it("destructures with defaults that read earlier names of the same pattern", () => {
      const { run, scope } = session();
      run("const { a, b = a + 1, c: { d = b * 2 } = {} } = { a: 1 }");
      expect([scope.a, scope.b, scope.d]).toEqual([1, 2, 4]);
      run("let [first, , third = first, ...others] = [5, 6, undefined, 8, 9]");
      expect([scope.first, scope.third, scope.others]).toEqual([5, 5, [8, 9]]);
    });

    it("leaves the old binding when an initializer throws", () => {
      const { run, scope } = session();
      run("let value = 'old'");
      expect(() => run("let { value } = null as any")).toThrow(TypeError);
      expect(scope.value).toBe("old");
    });

    it("hoists `var` and functions, and lets a later statement replace a declaration", () => {
      const { run, scope } = session();
      run("for (var i = 0; i < 3; i++) { var last = i }");
      expect([scope.i, scope.last]).toEqual([3, 2]);
      run("for (var k in { p: 1 }) var key = k");
      expect([scope.k, scope.key]).toEqual(["p", "p"]);
      run("function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2) }");
      run("const calls: number[] = []");
      run("const plain = fib");
      // Recursion goes through the shared binding, so wrapping it is seen inside too.
      run("fib = (n: number) => { calls.push(n); return plain(n) }");
      run("plain(3)");
      expect((scope.calls as number[]).length).toBeGreaterThan(0);
      run("const fib2 = 1");
      run("let fib2 = 'replaced'");
      expect(scope.fib2).toBe("replaced");
    });

    it("keeps local names local", () => {
      const { run, scope } = session();
      run("let x = 'outer'");
      run("function shadow(x: string) { { let x = 'block' } return x }");
      expect(run("[1].map((x) => x)")).toBe(undefined);
      run(
        "const result = [shadow('param'), (() => { try { throw 'caught' } catch (x) { return x } })(), (function x() { return typeof x })()]",
      );
      expect(scope.result).toEqual(["param", "caught", "function"]);
      expect(scope.x).toBe("outer");
    });

    it("rewrites shorthand properties and patterns", () => {
      const { run, scope } = session();
      run("let a = 1, b = 2");
      run("const pair = { a, b }");
      run("({ a, b = 5 } = { a: 3 })");
      expect([scope.pair, scope.a, scope.b]).toEqual([{ a: 1, b: 2 }, 3, 5]);
    });

    it("resolves names declared later, and globals created later", () => {
      const { run, scope } = session();
      run("const useLater = () => later * 2");
      expect(() => run("useLater()")).toThrow(new ReferenceError("later is not defined"));
      expect(run("typeof later")).toBe(undefined);
      run("const kind = typeof later");
      expect(scope.kind).toBe("undefined");
      run("const later = 21");
      run("const doubled = useLater()");
      expect(scope.doubled).toBe(42);
      const key = "__transformTestGlobal";
      run(`globalThis.${key} = 7; var seen = ${key}`);
      expect(scope.seen).toBe(7);
      delete (globalThis as Record<string, unknown>)[key];
    });

    it("reads realm globals through $$g and leaves platform globals alone", () => {
      const { run, scope } = session({ answer: 42, React: { createElement: (type: string) => ({ type }) } });
      run("const both = [answer, Math.max(1, 2), <b />]");
      expect(scope.both).toEqual([42, 2, { type: "b" }]);
    });

    it("runs classes, enums, labels and getters", () => {
      const { run, scope } = session();
      run("enum Level { Low = 1, High = 10 }");
      run(
        "class Meter { private value = 0; constructor(public readonly max: number) {} add(n: number): this { this.value = Math.min(this.max, this.value + n); return this } get level(): Level { return this.value >= Level.High ? Level.High : Level.Low } static of(max: number) { return new Meter(max) } }",
      );
      run("const meter = Meter.of(20).add(15)");
      run(
        "outer: for (const row of [[1, 2], [3, 4]]) { for (const cell of row) { if (cell === 3) break outer; meter.add(1) } }",
      );
      expect((scope.meter as { level: number }).level).toBe(10);
      expect((scope.meter as { max: number }).max).toBe(20);
    });
  });
});

describe("the splitter's tree (no second parse)", () => {
  /** Records every site the transform asks for: lines, columns and ranges must match too. */
  function recording() {
    const sites: unknown[] = [];
    const env: TransformEnvironment = {
      isRealmGlobal: (name) => name === "mount" || name === "console",
      isPlatformGlobal: (name) => name in globalThis,
      isDeclared: () => false,
      site: (...args: unknown[]) => sites.push(args) - 1,
    };
    return { env, sites };
  }

  const BLOCK = [
    "// a comment before",
    "  const rows: { n: number }[] = [1, 2, 3].map((n) => ({ n })); let total = 0",
    "for (const row of rows) {",
    "  total += row.n",
    "}",
    "   function add(a: number, b = 2) { return a + b }; const view = <Card title={`t${total}`}>{rows.map((r) => <b key={r.n}>{r.n}</b>)}</Card>",
    "enum Dir { Up, Down = 5 }",
    "class Box<T> { constructor(public value: T) {} get(): T { return this.value } }",
    "const o = {",
    "  f0: () => { a(); b(); },",
    "  f1: async () => { await a(); },",
    "}",
    "if (total > 1) console.log((total as number).toFixed(2))",
    "else console.log(add(total))",
    '"a string"',
    "label: while (total--) { if (total < 2) break label }",
  ].join("\n");

  it("transforms every cut statement exactly as a parse of its source alone would (code, source map, sites)", async () => {
    const { createStatementSplitter, takeParsedStatement } = await import("./statementSplitter");
    const splitter = createStatementSplitter();
    const statements = [];
    for (let index = 0; index < BLOCK.length; index += 3)
      statements.push(...splitter.push(BLOCK.slice(index, index + 3)).statements);
    statements.push(...splitter.end().statements);
    expect(statements.length).toBeGreaterThanOrEqual(10);
    let handed = 0;
    for (const statement of statements) {
      const tree = takeParsedStatement(statement);
      expect(takeParsedStatement(statement)).toBeUndefined(); // handed out once: transforms mutate it
      if (!tree) continue;
      handed += 1;
      const fromTree = recording();
      const fromSource = recording();
      const viaTree = transformStatement(statement.source, fromTree.env, { parsed: tree, sourceMaps: true });
      const viaSource = transformStatement(statement.source, fromSource.env, { sourceMaps: true });
      expect(viaTree, statement.source).toEqual(viaSource);
      expect(fromTree.sites, statement.source).toEqual(fromSource.sites);
    }
    // Every statement but the lone string (alone it would read as a directive) comes with its tree.
    expect(handed).toBe(statements.length - 1);
  });

  it("code only sloppy mode accepts brings no tree: the runner's strict parse reports it as before", async () => {
    const { createStatementSplitter, takeParsedStatement } = await import("./statementSplitter");
    const splitter = createStatementSplitter();
    const { statements } = splitter.push("with (Math) { max(1, 2) }\nconst n = 010\n");
    statements.push(...splitter.end().statements);
    expect(statements.map((statement) => statement.source)).toEqual(["with (Math) { max(1, 2) }", "const n = 010"]);
    for (const statement of statements) {
      expect(takeParsedStatement(statement)).toBeUndefined();
      expect(() => transformStatement(statement.source, recording().env)).toThrow(TransformError);
    }
  });
});
