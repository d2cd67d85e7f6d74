import * as Babel from "@babel/standalone";
import type * as T from "@babel/types";
import { describe, expect, it } from "vitest";
import { generate, parser } from "./babel";
import { UnsupportedSyntax } from "./lowerSyntax";
import { lowerRuntimeTypeScript } from "./lowerRuntimeTypeScript";

const PARSE = {
  sourceType: "script",
  strictMode: true,
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
  plugins: ["jsx", "typescript"],
} as const;

function lowered(source: string): string {
  const file = parser.parse(source, PARSE as never) as unknown as T.File;
  lowerRuntimeTypeScript(file.program);
  return generate(file as never, { comments: false }).code;
}

/** The reference: babel-core with the official typescript preset (a dev dependency only). */
function withPreset(source: string): string {
  return Babel.transform(source, {
    presets: [
      [
        Babel.availablePresets.typescript,
        { allExtensions: true, isTSX: true, onlyRemoveTypeImports: true, allowDeclareFields: true },
      ],
    ],
    babelrc: false,
    configFile: false,
    sourceType: "script",
    parserOpts: { allowImportExportEverywhere: true, allowAwaitOutsideFunction: true },
  } as never).code as string;
}

/** Runs `code` and returns the JSON of the names it declares. */
function evaluate(code: string, names: string[]): unknown {
  class Base {
    constructor(readonly from = "base") {}
  }
  const run = new Function("Base", "compute", `"use strict";${code}\nreturn { ${names.join(", ")} };`);
  return JSON.parse(JSON.stringify(run(Base, () => 40)));
}

// Each runs to the same values as the preset's output.
const SAME_VALUES: [string, string[]][] = [
  ["enum Flags { None = 0, A = 1 << 0, B = 1 << 1, AB = A | B, Mask = ~AB & 0xff }", ["Flags"]],
  ["enum Computed { A = compute(), B, C = A * 2, D = 'd'.length }", ["Computed"]],
  ["enum Str { A = 'a', B = `b`, C = A + 'c' }", ["Str"]],
  ["enum Neg { A = -1, B, C = -A }", ["Neg"]],
  ["enum Twice { A = 1 }\nenum Twice { B = 2 }", ["Twice"]],
  [
    "namespace Tools { export const x = 1; const hidden = 2; export function twice(n: number): number { return n * 2 * hidden; } export const { a, b }: { a: number; b: number } = { a: 3, b: 4 }; }\nconst out = [Tools.x, Tools.twice(5), Tools.a, Tools.b, (Tools as any).hidden];",
    ["out"],
  ],
  [
    "namespace Shapes { export class Square { constructor(public side: number) {} area() { return this.side ** 2; } } export enum Kind { Square = 'sq' } export namespace Inner { export const deep = true; } }\nconst out = [new Shapes.Square(3).area(), Shapes.Kind.Square, Shapes.Inner.deep];",
    ["out"],
  ],
  ["namespace A.B.C { export const v = 'abc'; }\nconst out = A.B.C.v;", ["out"]],
  [
    "namespace Merge { export const a = 1; }\nnamespace Merge { export const b = Merge.a + 1; }\nconst out = [Merge.a, Merge.b];",
    ["out"],
  ],
  ["namespace OnlyTypes { export type T = number; export interface I { a: string } }\nconst out = 1;", ["out"]],
  [
    "class R extends Base { constructor(public name: string, private n = 2) { if (name) { super(name); } else { super(); } } }\nconst out = [new R('x'), new R('')];",
    ["out"],
  ],
  [
    "function inside() { enum Local { A = 2 ** 3, B } namespace N { export const y = Local.B; } return N.y; }\nconst out = inside();",
    ["out"],
  ],
];

describe("lowerRuntimeTypeScript", () => {
  it.each(SAME_VALUES)("runs like the typescript preset's output: %s", (source, names) => {
    expect(evaluate(lowered(source), names)).toEqual(evaluate(withPreset(source), names));
  });

  it("folds constant members and reads earlier members of computed ones through the enum", () => {
    expect(lowered("enum E { A = 1 << 2, B = A | 1, C = compute() + A }")).toContain('E[E["B"] = 5] = "B"');
    expect(lowered("enum E { A = 1 << 2, B = A | 1, C = compute() + A }")).toContain(
      'E[E["C"] = compute() + E.A] = "C"',
    );
  });

  it.each([
    ["enum Mixed { A = 'a', B }", /needs an initializer/],
    ["declare module 'x' { export const a: number }\nmodule 'y' { export const b = 1 }", /declare module/],
    ["const el = <div>{...items}</div>;", /spread children/],
    ["namespace N { export { a }; const a = 1 }", /export declarations only/],
    ["namespace N { export import X = Y.Z; }", /export declarations only|import/],
    ["namespace N { export let counter = 0; }", /export `const` only/],
  ])("refuses what has no JavaScript form with a clear message: %s", (source, message) => {
    expect(() => lowered(source)).toThrow(UnsupportedSyntax);
    expect(() => lowered(source)).toThrow(message);
  });
});
