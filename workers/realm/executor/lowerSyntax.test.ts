import * as Babel from "@babel/standalone";
import type * as T from "@babel/types";
import { describe, expect, it } from "vitest";
import { lowerSyntax, NEEDS_PRESETS, UnsupportedSyntax } from "./lowerSyntax";

const { parser, generator } = Babel.packages;

const PARSE = {
  sourceType: "script",
  strictMode: true,
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
  plugins: ["jsx", "typescript"],
} as const;

function parse(source: string): T.File {
  return parser.parse(source, PARSE as never) as unknown as T.File;
}

function print(file: T.File): string {
  return generator.default(file as never, { comments: false, compact: true }).code;
}

function lowered(source: string): string {
  const file = parse(source);
  lowerSyntax(file.program);
  return print(file);
}

function withPresets(source: string): string {
  const result = Babel.transformFromAst(parse(source) as never, source, {
    presets: [
      [
        Babel.availablePresets.typescript,
        { allExtensions: true, isTSX: true, onlyRemoveTypeImports: true, allowDeclareFields: true },
      ],
      [Babel.availablePresets.react, { runtime: "classic", useSpread: true, throwIfNamespace: false }],
    ],
    babelrc: false,
    configFile: false,
    ast: true,
    code: false,
  } as never) as unknown as { ast: T.File };
  return print(result.ast);
}

// Realistic model code: each must lower exactly as the official presets do.
const SAME_AS_PRESETS = [
  "const x: number = 1;",
  "let y!: string;",
  "function f<T extends object>(a: T, b?: number, ...rest: string[]): T | undefined { return a; }",
  "function g(this: Window, a: number): void {}",
  "const h = async <T,>(value: T): Promise<T> => value;",
  "const n = (value as unknown as number) + (other satisfies number) + thing!.length;",
  "const v = maybe?.deep?.[key]?.(arg) ?? fallback;",
  "type Row = { id: number; name?: string };",
  "interface Props { title: string; onPick(value: string): void }",
  "declare const external: number;",
  "declare function ext(a: string): void;",
  "function over(a: string): string; function over(a: any) { return a; }",
  "class Box<T> implements Holder<T> { private value: T; static readonly empty = 1; protected label?: string = 'x'; declare tag: string; #secret = 2; constructor(value: T) { this.value = value; } get(): T { return this.value; } }",
  "abstract class Shape { abstract area(): number; describe() { return `area ${this.area()}`; } }",
  "class Circle extends Shape<number> { override area() { return 1; } }",
  "const m = new Map<string, number[]>();",
  "const pick = fn<string>;",
  "const el = <div className=\"card\" data-id={id} aria-label='x' hidden>Hello {name}!</div>;",
  'const el = <Card.Header title="t" {...rest} key={1}><Badge>{count}</Badge></Card.Header>;',
  "const el = <>\n  <p>It's a test; really</p>\n  {items.map((item) => <li key={item.id}>{item.label}</li>)}\n</>;",
  "const el = <input value={text} onChange={(event) => setText(event.target.value)} disabled />;",
  'const el = <a href="x"\n   title="multi\n   line">  spaced   text\n   more  </a>;',
  'const el = <div {...{ a: 1, b: 2 }} c="3">&amp; &lt;tag&gt; &copy;</div>;',
  'const el = <svg:rect xlink:href="#a" />;',
  "const el = <this.Item />;",
  "const el = <div>{/* comment */}{value}</div>;",
  "const el = <Foo render={<Bar />} />;",
  'const el = <Generic<string> value="x" />;',
  "for (const [key, value] of Object.entries(record as Record<string, number>)) console.log(key, value);",
  "const { a, b: [c = 1] = [] }: { a: number; b?: number[] } = input;",
  "try { run(); } catch (error: unknown) { report(error as Error); }",
  "const arr = [1, , 3] as const;",
  "label: for (let i = 0; i < 3; i++) { if (i) continue label; }",
];

describe("lowerSyntax", () => {
  it.each(SAME_AS_PRESETS)("lowers like the typescript and react presets: %s", (source) => {
    expect(lowered(source)).toBe(withPresets(source));
  });

  it.each([
    "enum Color { Red, Green = 'g', Blue = 4, Cyan, 'my key' = -1, Next }",
    "const enum Size { S = 1, M = 2 }",
    "class P { constructor(public name: string, private readonly age = 3, plain: number) { console.log(plain); } }",
    "class Q extends Base { constructor(public name: string) { super(name); this.go(); } }",
  ])("lowers runtime TypeScript like the preset: %s", (source) => {
    expect(lowered(source)).toBe(withPresets(source));
  });

  it.each([
    "enum Flags { A = 1 << 0, B = A | 2 }",
    "enum Mixed { A = 'a', B }",
    "namespace Tools { export const x = 1; }",
    "class R extends Base { constructor(public name: string) { if (name) { super(); } } }",
  ])("asks for the presets when erasing is not enough: %s", (source) => {
    expect(() => lowered(source)).toThrow(expect.anything());
    try {
      lowered(source);
    } catch (error) {
      expect(error).toBe(NEEDS_PRESETS);
    }
  });

  it.each(["import x from 'y';", "export const x = 1;", "export default 1;", "import type { A } from 'b';"])(
    "refuses modules: %s",
    (source) => {
      expect(() => lowered(source)).toThrow(UnsupportedSyntax);
    },
  );

  it("keeps line positions of JSX for retainLines", () => {
    const file = parse("const el = (\n  <div>\n    <span>{x}</span>\n  </div>\n);");
    lowerSyntax(file.program);
    const code = generator.default(file as never, { retainLines: true, comments: false }).code;
    expect(code.split("\n")[2]).toContain('"span"');
  });
});
