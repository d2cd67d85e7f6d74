import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as Babel from "@babel/standalone";
import { createStatementSplitter, type SplitError, type SplitStatement } from "./statementSplitter";
import { MODEL_CORPUS, jsxStatement } from "../../../bench/split.bench";

interface Fed {
  statements: SplitStatement[];
  error?: SplitError;
  /** For each statement, the input length after which it was yielded (Infinity: at end()). */
  yieldedAt: number[];
  /** Input length after which the error came (Infinity: at end()). */
  errorAt?: number;
}

/** Feeds `source` cut at `cuts` (sorted offsets), then ends. */
function feed(source: string, cuts: number[]): Fed {
  const splitter = createStatementSplitter();
  const fed: Fed = { statements: [], yieldedAt: [] };
  const record = (result: ReturnType<typeof splitter.push>, at: number) => {
    for (const statement of result.statements) {
      fed.statements.push(statement);
      fed.yieldedAt.push(at);
    }
    if (result.error) {
      expect(fed.error, "a second error").toBeUndefined();
      fed.error = result.error;
      fed.errorAt = at;
    }
  };
  let previous = 0;
  for (const cut of [...cuts, source.length]) {
    if (cut <= previous) continue;
    const result = splitter.push(source.slice(previous, cut));
    if (fed.error)
      expect(result).toEqual({ statements: [] }); // nothing after an error
    else record(result, cut);
    previous = cut;
  }
  const last = splitter.end();
  if (fed.error) expect(last).toEqual({ statements: [] });
  else record(last, Infinity);
  return fed;
}

function every(size: number, length: number): number[] {
  const cuts: number[] = [];
  for (let offset = size; offset < length; offset += size) cuts.push(offset);
  return cuts;
}

const CHUNK_SIZES = [1, 2, 3, 4, 7];

const parse = (source: string) =>
  Babel.packages.parser.parse(source, {
    sourceType: "script",
    plugins: ["typescript", "jsx"],
    allowAwaitOutsideFunction: true,
    errorRecovery: false,
  });

/**
 * Splits `source` whole, in 1/2/3/4/7-character chunks and at random cuts, and
 * checks that every way gives the same statements and error. Returns the result
 * of the one-chunk run.
 */
function split(source: string, runs = 25): Fed {
  const whole = feed(source, []);
  for (const size of CHUNK_SIZES) {
    const fed = feed(source, every(size, source.length));
    expect(fed.statements, `chunks of ${size}`).toEqual(whole.statements);
    expect(fed.error, `chunks of ${size}`).toEqual(whole.error);
  }
  if (source.length > 1) {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: source.length - 1 }), { maxLength: 40 }), (cuts) => {
        const fed = feed(
          source,
          [...cuts].sort((a, b) => a - b),
        );
        expect(fed.statements).toEqual(whole.statements);
        expect(fed.error).toEqual(whole.error);
      }),
      { numRuns: runs },
    );
  }
  for (const statement of whole.statements) {
    // Each statement stands alone: it is what the runner will parse.
    expect(source.slice(statement.start, statement.start + statement.source.length)).toBe(statement.source);
    const program = parse(statement.source).program;
    expect(program.body.length + program.directives.length, statement.source).toBe(1);
    const before = source.slice(0, statement.start).split("\n");
    expect(statement.line).toBe(before.length);
    expect(statement.column).toBe(before[before.length - 1].length + 1);
    expect(statement.endLine).toBe(statement.line + (statement.source.match(/\n/g)?.length ?? 0));
  }
  return whole;
}

function sources(source: string, runs?: number): string[] {
  const fed = split(source, runs);
  expect(fed.error).toBeUndefined();
  return fed.statements.map((statement) => statement.source);
}

/**
 * What has been yielded once `prefix` arrived, before the fence closed — the
 * same whether the prefix came in one chunk or character by character.
 */
function yieldedAfter(prefix: string): string[] {
  const results = [[prefix.length], every(1, prefix.length), every(3, prefix.length)].map((cuts) => {
    const splitter = createStatementSplitter();
    const out: string[] = [];
    let previous = 0;
    for (const cut of [...cuts, prefix.length]) {
      if (cut <= previous) continue;
      out.push(...splitter.push(prefix.slice(previous, cut)).statements.map((s) => s.source));
      previous = cut;
    }
    return out;
  });
  expect(results[1]).toEqual(results[0]);
  expect(results[2]).toEqual(results[0]);
  return results[0];
}

describe("statement splitter", () => {
  describe("code without semicolons", () => {
    it("splits at newlines and runs each statement before the fence ends", () => {
      const source = "const a = 1\nconsole.log(a)\nfoo()\n";
      expect(sources(source)).toEqual(["const a = 1", "console.log(a)", "foo()"]);
      expect(yieldedAfter("a()\nb()\nc")).toEqual(["a()", "b()"]);
      expect(yieldedAfter("a()\nb()\n")).toEqual(["a()"]);
      expect(yieldedAfter("a()\nb()")).toEqual(["a()"]);
      expect(yieldedAfter("a()\n")).toEqual([]);
    });

    it("takes U+2028 and U+2029 as line ends, as JavaScript does (also ending a line comment)", () => {
      for (const separator of ["\u2028", "\u2029"]) {
        expect(yieldedAfter(`a()${separator}b()${separator}c`)).toEqual(["a()", "b()"]);
        expect(yieldedAfter(`a() // note${separator}b()\nc`)).toEqual(["a()", "b()"]);
        expect(sources(`const s = "x${separator}y"\nfoo()`)).toEqual([`const s = "x${separator}y"`, "foo()"]);
      }
    });

    it("yields all but each block's last statement before end() on a realistic corpus", () => {
      for (const block of MODEL_CORPUS) {
        const fed = split(block, 5);
        expect(fed.error, block).toBeUndefined();
        expect(fed.statements.length, block).toBeGreaterThan(1);
        const early = feed(block, every(3, block.length)).yieldedAt.filter((at) => at !== Infinity);
        expect(early.length, block).toBe(fed.statements.length - 1);
      }
    });

    it("keeps a statement open while the next line continues it", () => {
      expect(sources("fetch(url)\n  .then((r) => r.json())\n  ?.then(console.log)\nfoo()")).toEqual([
        "fetch(url)\n  .then((r) => r.json())\n  ?.then(console.log)",
        "foo()",
      ]);
      expect(sources("const v = ok\n  ? a\n  : b\nfoo()")).toEqual(["const v = ok\n  ? a\n  : b", "foo()"]);
      expect(sources("const total = a\n  + b\n  * c\n  || d\n  && e\nfoo()")).toEqual([
        "const total = a\n  + b\n  * c\n  || d\n  && e",
        "foo()",
      ]);
      expect(sources("const t = a\n  in b\nconst u = a\n  instanceof B")).toEqual([
        "const t = a\n  in b",
        "const u = a\n  instanceof B",
      ]);
      expect(sources("x\n  = 5\ny\n  += 1")).toEqual(["x\n  = 5", "y\n  += 1"]);
      expect(yieldedAfter("fetch(url)\n  .then(f)\n  .")).toEqual([]);
    });

    it("follows ASI: `a\\n++b` is two statements, `a\\n-b` one", () => {
      expect(sources("a\n++b\nc\n--d")).toEqual(["a", "++b", "c", "--d"]);
      expect(yieldedAfter("a\n+")).toEqual([]); // could still be `a\n+ b`
      expect(yieldedAfter("a\n++")).toEqual(["a"]);
      expect(sources("a\n- b\nx\n!y\nz\n!= w")).toEqual(["a\n- b", "x", "!y", "z\n!= w"]);
    });

    it("treats `(`, `[` and a template on the next line as JavaScript does", () => {
      expect(sources("let x = 1\n(foo)()\nbar()")).toEqual(["let x = 1\n(foo)()", "bar()"]);
      expect(sources("const a = b\n[0]\nbar()")).toEqual(["const a = b\n[0]", "bar()"]);
      expect(sources("const f = tag\n`x`\nbar()")).toEqual(["const f = tag\n`x`", "bar()"]);
      // After a declaration or a block the same tokens start a new statement.
      expect(sources("function f() {}\n(async () => { await f() })()\nbar()")).toEqual([
        "function f() {}",
        "(async () => { await f() })()",
        "bar()",
      ]);
      expect(sources("const f = () => {}\n[1, 2].forEach(f)\nif (x) {}\n`t`")).toEqual([
        "const f = () => {}",
        "[1, 2].forEach(f)",
        "if (x) {}",
        "`t`",
      ]);
      expect(yieldedAfter("function f() {}\n(")).toEqual(["function f() {}"]);
      expect(yieldedAfter("let x = 1\n(")).toEqual([]);
    });

    it("starts a new statement after a leading `;`", () => {
      expect(sources("foo()\n;[1, 2].forEach(f)")).toEqual(["foo()\n;", "[1, 2].forEach(f)"]);
    });

    it("splits at a newline inside a multi-line comment, as ASI does", () => {
      expect(sources("a() /* one\ntwo */ b()")).toEqual(["a()", "b()"]);
      expect(sources("a() /* one two */ + b()")).toEqual(["a() /* one two */ + b()"]);
    });

    it("decides on the first character of the next statement when it can", () => {
      expect(yieldedAfter("a()\nb()\nc")).toEqual(["a()", "b()"]); // `c…` cannot continue `b()`
      expect(yieldedAfter("a()\ni")).toEqual([]); // could be `in`
      expect(yieldedAfter("a()\nif")).toEqual(["a()"]);
      expect(yieldedAfter("a()\ne")).toEqual(["a()"]); // `a()` takes no `else`
      expect(yieldedAfter('a()\n"')).toEqual(["a()"]);
      expect(yieldedAfter("a()\n1")).toEqual(["a()"]);
      expect(yieldedAfter("a()\n<")).toEqual([]); // `a() < b`
      expect(yieldedAfter("a()\n// note\n/* more */\n")).toEqual([]);
    });
  });

  describe("semicolons", () => {
    it("yields at the `;`", () => {
      expect(sources("a(); b();c()")).toEqual(["a();", "b();", "c()"]);
      expect(yieldedAfter("a();")).toEqual(["a();"]);
      expect(yieldedAfter("a(); b()")).toEqual(["a();"]);
    });

    it("ignores `;` in comments", () => {
      expect(sources("foo() // a; b\nbar()")).toEqual(["foo()", "bar()"]);
      expect(sources("foo(/* ; */ 1); /* ; */ bar(/*;*/)")).toEqual(["foo(/* ; */ 1);", "bar(/*;*/)"]);
      expect(yieldedAfter("foo() // a; b")).toEqual([]);
    });

    it("ignores `;` in strings and template literals", () => {
      expect(sources('const s = \'a;b\' + "c;\\"d"\nfoo()')).toEqual(['const s = \'a;b\' + "c;\\"d"', "foo()"]);
      const template = "const t = `a; ${ {a: 1}.a }; ${`in; ${x}`} b`;\nfoo()";
      expect(sources(template)).toEqual(["const t = `a; ${ {a: 1}.a }; ${`in; ${x}`} b`;", "foo()"]);
      expect(sources("const t = `line 1;\nline 2; ${a\n}`\nfoo()")).toEqual([
        "const t = `line 1;\nline 2; ${a\n}`",
        "foo()",
      ]);
      expect(yieldedAfter("const t = `a; ${ {a: 1} };")).toEqual([]);
    });

    it("ignores `;` in regexes, including `/` in a character class", () => {
      expect(sources("const r = /a;[/;]b\\/;/g; r.test(s)")).toEqual(["const r = /a;[/;]b\\/;/g;", "r.test(s)"]);
      expect(sources("if (/;/.test(s)) ok()\nfoo()")).toEqual(["if (/;/.test(s)) ok()", "foo()"]);
      expect(sources("const parts = s.split(/[;,]/)\nfoo()")).toEqual(["const parts = s.split(/[;,]/)", "foo()"]);
    });

    it("tells division from regex", () => {
      expect(sources("const half = total / 2 / count; const r = /;/g")).toEqual([
        "const half = total / 2 / count;",
        "const r = /;/g",
      ]);
      expect(sources("const x = a\n  / 2 / b\nfoo()")).toEqual(["const x = a\n  / 2 / b", "foo()"]);
      expect(sources("const y = (a + b) / 2; const z = arr[0] / 2; i++ / 2")).toEqual([
        "const y = (a + b) / 2;",
        "const z = arr[0] / 2;",
        "i++ / 2",
      ]);
      // After a statement that cannot take an operator, `/` starts a regex and `<` JSX.
      expect(sources("let w\n/re;/.test(s)\ntype T = A | B\n/;/.exec(s)\nlet v: number\n<p>it's;</p>")).toEqual([
        "let w",
        "/re;/.test(s)",
        "type T = A | B",
        "/;/.exec(s)",
        "let v: number",
        "<p>it's;</p>",
      ]);
      // `a\n/re/.test(x)` is a division in JavaScript, so it is one (broken) statement.
      const fed = split("a\n/re/.test(x)\nfoo()");
      expect(fed.statements).toEqual([]);
      expect(fed.error).toMatchObject({ line: 2, column: 5, lineText: "/re/.test(x)" });
    });

    it("does not split for-headers", () => {
      expect(sources("for (let i = 0; i < 3; i++) console.log(i)\nfoo()")).toEqual([
        "for (let i = 0; i < 3; i++) console.log(i)",
        "foo()",
      ]);
      expect(sources("for (;;) { if (done()) break; }\nfoo()")).toEqual(["for (;;) { if (done()) break; }", "foo()"]);
      expect(sources("for await (const chunk of stream) { log(chunk); }\nfoo()")).toEqual([
        "for await (const chunk of stream) { log(chunk); }",
        "foo()",
      ]);
    });

    it("does not split object literals or class bodies", () => {
      expect(sources("const o = {\n  a: 1,\n  b: 'x;y',\n  c() { return 2; },\n}\nfoo()")).toEqual([
        "const o = {\n  a: 1,\n  b: 'x;y',\n  c() { return 2; },\n}",
        "foo()",
      ]);
      const klass =
        "class Counter {\n  count = 0;\n  #secret = 1;\n  static make() { return new Counter(); }\n  inc() { this.count++; }\n}\nnew Counter().inc()";
      expect(sources(klass)).toEqual([klass.slice(0, klass.lastIndexOf("\n")), "new Counter().inc()"]);
    });
  });

  describe("if / else, try / catch, do / while", () => {
    it("keeps `else` on the next line with its `if`", () => {
      expect(sources("if (x) a()\nelse b()\nfoo()")).toEqual(["if (x) a()\nelse b()", "foo()"]);
      expect(yieldedAfter("if (x) a()\ne")).toEqual([]);
      expect(yieldedAfter("if (x) a()\nelse b()\nf")).toEqual(["if (x) a()\nelse b()"]);
    });

    it("waits after `if (x) a();` for a possible `else`", () => {
      expect(sources("if (x) a();\nelse b();\nfoo()")).toEqual(["if (x) a();\nelse b();", "foo()"]);
      expect(yieldedAfter("if (x) a();")).toEqual([]);
      expect(yieldedAfter("if (x) a();\n")).toEqual([]);
      expect(yieldedAfter("if (x) a();\nels")).toEqual([]);
      expect(yieldedAfter("if (x) a();\nf")).toEqual(["if (x) a();"]);
      expect(yieldedAfter("if (x) a(); else b();")).toEqual(["if (x) a(); else b();"]);
      expect(yieldedAfter("a(); if (x) b();")).toEqual(["a();"]);
      expect(sources("if (x) a();")).toEqual(["if (x) a();"]);
    });

    it("handles nested and chained conditionals", () => {
      expect(sources("if (a) if (b) c(); else d();\nelse e()\nfoo()")).toEqual([
        "if (a) if (b) c(); else d();\nelse e()",
        "foo()",
      ]);
      expect(sources("if (a) {\n  x()\n}\nelse if (b) {\n  y()\n} else {\n  z()\n}\nfoo()")).toEqual([
        "if (a) {\n  x()\n}\nelse if (b) {\n  y()\n} else {\n  z()\n}",
        "foo()",
      ]);
      expect(sources("for (const x of xs) if (x) a();\nelse b();")).toEqual([
        "for (const x of xs) if (x) a();\nelse b();",
      ]);
    });

    it("keeps `catch` and `finally` on the next line with their `try`", () => {
      expect(sources("try {\n  a()\n}\ncatch (e) {\n  b()\n}\nfinally {}\nfoo()")).toEqual([
        "try {\n  a()\n}\ncatch (e) {\n  b()\n}\nfinally {}",
        "foo()",
      ]);
      expect(sources("try {}\ncatch {}\nfoo()")).toEqual(["try {}\ncatch {}", "foo()"]);
      expect(yieldedAfter("try {} catch {}\nf")).toEqual([]); // could be `finally`
      expect(yieldedAfter("try {} catch {}\nfo")).toEqual(["try {} catch {}"]);
    });

    it("keeps `while` on the next line with its `do`", () => {
      expect(sources("do {} \nwhile (x)\nfoo()")).toEqual(["do {} \nwhile (x)", "foo()"]);
      expect(sources("do x(); while (y); foo()")).toEqual(["do x(); while (y);", "foo()"]);
    });
  });

  describe("JSX", () => {
    it("keeps a many-line element with `;` and apostrophes in its text together", () => {
      const element = [
        "const card = (",
        '  <Card className="p-4" title=\'It&apos;s\' data-note="don\'t; stop">',
        "    <p>Don't do this; ok</p>",
        "    <>",
        '      <Input placeholder="Your name; please" disabled />',
        "      {items.map((item) => <li key={item.id}>{item.name}'s; {`${item.n};`}</li>)}",
        "    </>",
        "    {ok ? <Badge>yes</Badge> : <span>it's not</span>}",
        "    <br/>",
        "  </Card>",
        ")",
      ].join("\n");
      expect(sources(element + "\nfoo()")).toEqual([element, "foo()"]);
    });

    it("handles JSX at the top level of a statement, without parentheses", () => {
      expect(sources("const el = <p>Don't; stop</p>\nconst b = <br />; foo()")).toEqual([
        "const el = <p>Don't; stop</p>",
        "const b = <br />;",
        "foo()",
      ]);
      expect(yieldedAfter("const el = <p>Don't;")).toEqual([]);
    });

    it("handles a realistic mount() statement", () => {
      const statement = jsxStatement(3 * 1024);
      expect(sources(statement + "\nconsole.log('mounted')", 5)).toEqual([statement, "console.log('mounted')"]);
    });

    it("handles comments and arrows inside JSX expressions", () => {
      const source =
        "mount({ ui: () => <div onClick={() => { a(); b() }}>{/* x; y */}{c > 1 && <b>c</b>}</div> })\nfoo()";
      expect(sources(source)).toEqual([source.slice(0, source.indexOf("\n")), "foo()"]);
    });
  });

  describe("TypeScript", () => {
    it("handles generics, interfaces, type aliases, enums, as, satisfies and `!`", () => {
      const lines = [
        'const [name, setName] = useState<string>("")',
        "interface Item { id: number; label: string }",
        "type Maybe<T> = T | null",
        'type Shape =\n  | { kind: "a"; n: number }\n  | { kind: "b" }',
        "enum Color { Red, Green }",
        "const items = data as Item[]",
        "const config = { a: 1 } satisfies Record<string, number>",
        'const el = document.getElementById("x")!.textContent',
        "const n = new Map<string, Array<number>>()",
        "const isBig = n.size > 3",
        "function first<T>(xs: T[]): T | undefined { return xs[0] }",
        "const id = <T,>(x: T): T => x",
        "const keep = <T extends object>(x: T) => x",
        "let maybe: string | undefined",
        "declare const flag: boolean",
      ];
      expect(sources(lines.join("\n"), 10)).toEqual(lines);
    });

    it("keeps `as` and `satisfies` on the next line with the statement", () => {
      // Babel rejects a newline before `as`; the error lands on that line.
      const fed = split("const x = y\n  as Foo\nfoo()");
      expect(fed.statements).toEqual([]);
      expect(fed.error).toMatchObject({ line: 2, code: "MissingSemicolon" });
    });
  });

  describe("positions", () => {
    it("locates statements in the body", () => {
      const fed = split("  a(); b()\n\n  // c\n  if (x) {\n    y()\n  }\n");
      expect(
        fed.statements.map(({ source, start, line, column, endLine }) => ({ source, start, line, column, endLine })),
      ).toEqual([
        { source: "a();", start: 2, line: 1, column: 3, endLine: 1 },
        { source: "b()", start: 7, line: 1, column: 8, endLine: 1 },
        { source: "if (x) {\n    y()\n  }", start: 21, line: 4, column: 3, endLine: 6 },
      ]);
    });

    it("keeps a directive-like string as a statement", () => {
      expect(sources('"use strict"\nfoo()')).toEqual(['"use strict"', "foo()"]);
    });

    it("treats a stray carriage return as whitespace", () => {
      expect(sources("a()\r\nb()\r\n")).toEqual(["a()", "b()"]);
    });
  });

  describe("syntax errors", () => {
    it("reports an error in line 3 of 10 at line 3, after yielding lines 1 and 2", () => {
      const lines = ["const a = 1", "console.log(a)", "foo(1 2)"];
      for (let i = 3; i < 10; i++) lines.push(`step${i}()`);
      const source = lines.join("\n");
      const fed = split(source);
      expect(fed.statements.map((s) => s.source)).toEqual(["const a = 1", "console.log(a)"]);
      expect(fed.error).toEqual({
        message: 'Unexpected token, expected ","',
        line: 3,
        column: 7,
        lineText: "foo(1 2)",
        code: "UnexpectedToken",
      });
      // Reported as soon as line 4 begins, not at the end.
      expect(feed(source, every(1, source.length)).errorAt).toBeLessThan(source.indexOf("step4"));
      expect(feed(source, every(1, source.length)).yieldedAt[1]).toBe(source.indexOf("foo") + 1);
    });

    it("reports a certain error at its `;` or at the next statement", () => {
      // Certain at the `;`; returned once its line is complete, to quote it whole.
      const source = "a(); let x = ; b()\nc()";
      const semicolon = split(source);
      expect(semicolon.statements.map((s) => s.source)).toEqual(["a();"]);
      expect(semicolon.error).toEqual({
        message: "Unexpected token",
        line: 1,
        column: 14,
        lineText: "a(); let x = ; b()",
        code: "UnexpectedToken",
      });
      const streamed = feed(source, every(1, source.length));
      expect(streamed.yieldedAt).toEqual([4]);
      expect(streamed.errorAt).toBe(source.indexOf("\n") + 1);

      const declaration = split("const = 5\nfoo()");
      expect(declaration.error).toMatchObject({ line: 1, column: 7 });
      expect(declaration.errorAt).not.toBe(Infinity);
    });

    it("does not report an incomplete statement as an error while it streams", () => {
      expect(yieldedAfter("if (x)\n  foo()")).toEqual([]);
      expect(sources("if (x)\n  foo()\nbar()")).toEqual(["if (x)\n  foo()", "bar()"]);
      expect(sources("const f = async (\n  a: number,\n) =>\n  a * 2\nf(1)")).toEqual([
        "const f = async (\n  a: number,\n) =>\n  a * 2",
        "f(1)",
      ]);
    });

    it("reports an unparseable tail at end() with its line, after the complete statements", () => {
      const fed = split("a()\nb()\nfoo(1,\n  2");
      expect(fed.statements.map((s) => s.source)).toEqual(["a()", "b()"]);
      expect(fed.error).toMatchObject({
        line: 4,
        column: 4,
        lineText: "  2",
        message: 'Unexpected end of input, expected ","',
      });
      expect(fed.errorAt).toBe(Infinity);

      const elseless = split("a()\nif (x)\n");
      expect(elseless.statements.map((s) => s.source)).toEqual(["a()"]);
      expect(elseless.error).toMatchObject({ line: 2, column: 7, lineText: "if (x)" });
    });

    it("reports an unterminated string, template or JSX at end()", () => {
      const string = split('a()\nconst s = "abc');
      expect(string.statements.map((s) => s.source)).toEqual(["a()"]);
      expect(string.error).toMatchObject({ line: 2, column: 11, code: "UnterminatedString" });

      const template = split("a()\nconst t = `abc; ${x}\n");
      expect(template.statements.map((s) => s.source)).toEqual(["a()"]);
      expect(template.error).toMatchObject({ line: 2, code: "UnterminatedTemplate" });

      const jsx = split("a()\nmount({ ui: () => <div>\n  <p>hi</p>\n");
      expect(jsx.statements.map((s) => s.source)).toEqual(["a()"]);
      expect(jsx.error?.line).toBeGreaterThanOrEqual(2);
    });

    it("reports a string broken by a newline as soon as the next line starts", () => {
      const fed = split('const s = "abc\nfoo()\n');
      expect(fed.error).toMatchObject({ line: 1, column: 11, code: "UnterminatedString" });
      expect(fed.errorAt).not.toBe(Infinity);
    });

    it("reports unbalanced brackets", () => {
      const fed = split("a()\nfoo(1]\nbar()\n");
      expect(fed.statements.map((s) => s.source)).toEqual(["a()"]);
      expect(fed.error?.line).toBe(2);
      expect(fed.errorAt).not.toBe(Infinity);
      expect(split("a()\n}\nb()").error?.line).toBe(2);
    });
  });

  describe("empty input", () => {
    it("yields nothing and no error for empty, blank or comment-only input", () => {
      for (const source of ["", "   \n\n  ", "// just a note\n", "/* a\n; b */", "// a\n/* b */\n  // c"]) {
        const fed = split(source);
        expect(fed.statements).toEqual([]);
        expect(fed.error).toBeUndefined();
      }
    });

    it("drops lone semicolons", () => {
      expect(sources(";;\nfoo();;\n;")).toEqual(["foo();"]);
    });
  });

  describe("top-level await", () => {
    it("parses await outside functions", () => {
      expect(sources("const r = await fetch(url)\nawait sleep(10)\nconsole.log(await r.json())")).toEqual([
        "const r = await fetch(url)",
        "await sleep(10)",
        "console.log(await r.json())",
      ]);
    });
  });

  describe("agreement with Babel", () => {
    /** Statements a model might write, including the ones ASI treats specially. */
    const POOL = [
      "foo()",
      "x",
      "a.b",
      "(foo)()",
      "[1, 2].map(f)",
      "`t ${x}`",
      "tag`t`",
      "++x",
      "--y",
      "-y",
      "+y",
      "!ok",
      "ok = /re;/.test(s)",
      "<div className='a'>it's; ok</div>",
      "<></>",
      "<T,>(x: T) => x",
      '"str"',
      "'s'",
      "1.5",
      ".5",
      "if (a) b()",
      "if (a) b(); else c()",
      "if (a) {\n  b()\n}\nelse c()",
      "do x(); while (y)",
      "do {\n} while (y)",
      "try {} catch {}",
      "try {\n  a()\n}\nfinally {}",
      "function f() {}",
      "async function g() { await 1 }",
      "class A { x = 1; m() {} }",
      "const f = () => {}",
      "const h = () => 1",
      "let v = 1",
      "let w",
      "var u = a\n  ? b\n  : c",
      "label: for (;;) break label",
      "for (let i = 0; i < 3; i++) {}",
      "for await (const x of y) {}",
      "while (x) x--",
      "switch (x) { case 1: break; default: }",
      "type T = A | B",
      "type U =\n  | 'a'\n  | 'b'",
      "interface I { a: string; b?: number }",
      "enum E { A, B }",
      "declare const d: number",
      "await p",
      "p.then((r) => r)\n  .catch(console.error)",
      "const o = {\n  a: 1,\n  b: [2, 3],\n}",
      "{ block() }",
      "x!.y",
      "y as T",
      "z satisfies T",
      "a\n  + b",
      "a\n  instanceof B",
      "new Map<string, number>()",
      "x++",
      "mount({ ui: () => (\n  <p>Don't; stop</p>\n) })",
      "const s = `line;\n${a}`",
      "// note; here",
      "/* a; b */",
      "",
      ";",
    ];
    const BROKEN = [
      "foo(1 2)",
      "const = 5",
      "else x()",
      "}",
      "let x = ;",
      '"abc',
      "a b",
      "if (",
      "`t ${",
      "<div>",
      "x =",
    ];
    const SEPARATORS = ["\n", "\n", "\n", ";", "; ", ";\n", "\n\n", " // c;\n", " /* c\n */ ", "\n  "];

    it("yields Babel's own statements whenever Babel parses the whole block", () => {
      let compared = 0;
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...POOL), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 8 }),
          fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 30 }),
          (parts, cuts) => {
            const source = parts.map(([statement, separator]) => statement + separator).join("");
            let program;
            try {
              program = parse(source).program;
            } catch {
              return; // not a valid block as a whole (e.g. `else` after a non-if)
            }
            compared++;
            const expected = [...program.directives, ...program.body]
              .filter((node) => node.type !== "EmptyStatement")
              .map((node) => source.slice(node.start!, node.end!));
            const fed = feed(
              source,
              cuts.filter((cut) => cut < source.length).sort((a, b) => a - b),
            );
            expect(fed.error, source).toBeUndefined();
            expect(
              fed.statements.map((statement) => statement.source),
              source,
            ).toEqual(expected);
          },
        ),
        { numRuns: Number(process.env.SPLIT_RUNS ?? 400) },
      );
      expect(compared).toBeGreaterThan(100);
    }, 600_000);

    it("yields the same after any prefix, however the prefix was cut", () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...POOL, ...BROKEN), fc.constantFrom(...SEPARATORS)), {
            minLength: 1,
            maxLength: 8,
          }),
          fc.nat(),
          fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 30 }),
          (parts, at, cuts) => {
            const source = parts.map(([statement, separator]) => statement + separator).join("");
            const prefix = source.slice(0, at % (source.length + 1));
            const pushed = (points: number[]) => {
              const splitter = createStatementSplitter();
              const out: Array<SplitStatement | SplitError> = [];
              let previous = 0;
              for (const cut of [...points.filter((p) => p < prefix.length).sort((a, b) => a - b), prefix.length]) {
                if (cut <= previous) continue;
                const result = splitter.push(prefix.slice(previous, cut));
                out.push(...result.statements, ...(result.error ? [result.error] : []));
                previous = cut;
              }
              return out;
            };
            expect(pushed(cuts), JSON.stringify(prefix)).toEqual(pushed([]));
          },
        ),
        { numRuns: Number(process.env.SPLIT_RUNS ?? 300) },
      );
    }, 600_000);

    it("reports an error whenever Babel rejects the whole block", () => {
      let compared = 0;
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...POOL, ...BROKEN), fc.constantFrom(...SEPARATORS)), {
            minLength: 1,
            maxLength: 6,
          }),
          fc.uniqueArray(fc.integer({ min: 1, max: 300 }), { maxLength: 20 }),
          (parts, cuts) => {
            const source = parts.map(([statement, separator]) => statement + separator).join("");
            try {
              parse(source);
              return;
            } catch (error) {
              // Redeclarations across statements are the runner's business.
              if ((error as { reasonCode?: string }).reasonCode === "VarRedeclaration") return;
            }
            compared++;
            const fed = feed(
              source,
              cuts.filter((cut) => cut < source.length).sort((a, b) => a - b),
            );
            const last = fed.statements[fed.statements.length - 1];
            if (fed.error) {
              if (last) expect(fed.error.line, source).toBeGreaterThanOrEqual(last.endLine);
              return;
            }
            // The splitter may read a line start more leniently than Babel reads
            // the whole (`<></>⏎<div/>` is two JSX statements to it, a broken
            // comparison to Babel); then every piece must stand alone and the
            // pieces must cover all the code.
            let covered = 0;
            for (const statement of fed.statements) {
              const gap = source.slice(covered, statement.start);
              expect(gap.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|[\s;]/g, ""), source).toBe("");
              const program = parse(statement.source).program;
              expect(program.body.length + program.directives.length, source).toBe(1);
              covered = statement.start + statement.source.length;
            }
            expect(source.slice(covered).replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|[\s;]/g, ""), source).toBe("");
          },
        ),
        { numRuns: Number(process.env.SPLIT_RUNS ?? 300) },
      );
      expect(compared).toBeGreaterThan(50);
    }, 600_000);
  });

  describe("chunk invariance", () => {
    it("gives the same result for any cuts and any prefix of the whole corpus", () => {
      const corpus = MODEL_CORPUS.join("\n");
      split(corpus, 20);
      // Whatever has been yielded after a prefix does not depend on how the
      // prefix was cut.
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: corpus.length }),
          fc.uniqueArray(fc.integer({ min: 1, max: corpus.length }), { maxLength: 30 }),
          (length, cuts) => {
            const prefix = corpus.slice(0, length);
            const fed = (points: number[]) => {
              const splitter = createStatementSplitter();
              const out: SplitStatement[] = [];
              let previous = 0;
              for (const cut of [...points.filter((p) => p < length).sort((a, b) => a - b), length]) {
                if (cut <= previous) continue;
                out.push(...splitter.push(prefix.slice(previous, cut)).statements);
                previous = cut;
              }
              return out;
            };
            expect(fed(cuts)).toEqual(fed([]));
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});
