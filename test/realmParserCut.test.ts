/**
 * The realm bundle's @babel/parser has its Flow, ESTree, placeholders and
 * V8-intrinsic plugins cut out at build time (vite.realm.config.ts). The cut
 * parser must read what the realm gives it exactly as the whole one does:
 * same trees, same errors, with both option sets the realm uses.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import * as fullParser from "@babel/parser";
import { cutParserPlugins } from "../vite.realm.config";
import { MODEL_CORPUS } from "../bench/split.bench";

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve("@babel/parser"), "utf8");

function load(code: string): typeof fullParser {
  const module = { exports: {} as Record<string, unknown> };
  new Function("module", "exports", code)(module, module.exports);
  return module.exports as unknown as typeof fullParser;
}

const OPTION_SETS = [
  // statementSplitter.ts (sloppy, then strict first) and transform.ts.
  {
    sourceType: "script",
    plugins: ["typescript", "jsx"],
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
    attachComment: false,
  },
  {
    sourceType: "script",
    plugins: ["typescript", "jsx"],
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
    attachComment: false,
    strictMode: true,
  },
  {
    sourceType: "script",
    strictMode: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
    plugins: ["jsx", "typescript"],
  },
] as const;

const EXTRA = [
  "enum Color { Red, Green = 'g' }\nnamespace N { export const x = 1 }\ndeclare const d: number",
  "class Box<T> { constructor(public value: T) {} get(): T { return this.value } }",
  "const v = <Card title={`a${1}`}>{[1, 2].map((n) => <b key={n}>{n}</b>)}</Card>; const w = <></>",
  "for await (const item of source) { if (item) console.log(item as string) }",
  "const f = async <T,>(x: T): Promise<T> => x satisfies T; label: for (;;) break label",
  "import x from 'y'\nexport default 1",
  "if (x) {",
  "let = 1",
  "with (Math) max(1, 2)",
  "const x = 010",
  "a ?? b || c",
  "<div>{</div>",
  "type A = { [K in keyof B]?: B[K] } & Partial<C>",
  '"use strict"; x = 1',
];

describe("the realm's cut @babel/parser", () => {
  const cut = load(cutParserPlugins(source));

  it("is smaller: the four unused plugins are gone, jsx and typescript stay", () => {
    const code = cutParserPlugins(source);
    expect(code.length).toBeLessThan(source.length * 0.8);
    for (const gone of ["FlowParserMixin", "ESTreeParserMixin", "PlaceholdersParserMixin", "V8IntrinsicMixin"])
      expect(code).not.toContain(gone);
    for (const kept of ["JSXParserMixin", "TypeScriptParserMixin"]) expect(code).toContain(kept);
  });

  it("gives the same trees and the same errors as the whole parser for the realm's options", () => {
    const outcome = (parser: typeof fullParser, text: string, options: object) => {
      try {
        return { tree: JSON.parse(JSON.stringify(parser.parse(text, options as fullParser.ParserOptions))) };
      } catch (error) {
        const { message, reasonCode, pos } = error as { message: string; reasonCode?: string; pos?: number };
        return { error: { message, reasonCode, pos } };
      }
    };
    let compared = 0;
    for (const text of [...MODEL_CORPUS, ...EXTRA]) {
      for (const options of OPTION_SETS) {
        expect(outcome(cut, text, options), text).toEqual(outcome(fullParser, text, options));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it("stops the build with a clear message when @babel/parser no longer has what it cuts", () => {
    expect(() =>
      cutParserPlugins(source.replace("class FlowScope extends Scope {", "class FlowScope2 extends Scope {")),
    ).toThrow(/@babel\/parser changed/);
  });
});
