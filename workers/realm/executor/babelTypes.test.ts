import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as real from "@babel/types";
import { describe, expect, it } from "vitest";
import { parser } from "./babel";
import * as shim from "./babelTypes";
import data from "./babelTypesData.json";

const require = createRequire(import.meta.url);
const PARSE = { sourceType: "script", allowAwaitOutsideFunction: true, plugins: ["jsx", "typescript"] } as const;
const parse = (source: string) => parser.parse(source, PARSE as never) as unknown as real.File;

const isFlow = (type: string) => real.FLIPPED_ALIAS_KEYS.Flow.includes(type as never);

/** Loads a fresh @babel/generator whose `require("@babel/types")` gets the stand-in, as in the realm bundle. */
function generatorOnShim(): typeof import("@babel/generator").default {
  const typesPath = require.resolve("@babel/types");
  const generatorDir = dirname(require.resolve("@babel/generator"));
  const saved = require.cache[typesPath];
  const generatorFiles = Object.keys(require.cache).filter((file) => file.startsWith(generatorDir));
  for (const file of generatorFiles) delete require.cache[file];
  require.cache[typesPath] = { id: typesPath, filename: typesPath, loaded: true, exports: shim } as never;
  try {
    return require("@babel/generator").default;
  } finally {
    require.cache[typesPath] = saved;
    for (const file of Object.keys(require.cache)) if (file.startsWith(generatorDir)) delete require.cache[file];
  }
}

const CORPUS = [
  "const { a, b: [c = 1] = [] } = input; let x = a ?? (b || c);",
  "async function* f(a, ...rest) { for await (const x of y) yield* x; label: for (;;) break label; }",
  "class A extends (B ?? C) { static #p = 1; get x() { return this.#p; } static { init(); } }",
  "const o = { 'a-b': 1, [k]: 2, m() {}, async *g() {}, ...rest }; new (f())(); (function () {})(); (a, b) => ({ a });",
  "x = a ? b : c ? d : e; y = (a, b); z = -(-x) + +(+y); w = typeof (() => 1); v = (await p)?.q?.[r]?.(s);",
  "if (a) b; else if (c) d; else { e } switch (x) { case 1: f(); default: g() } try { h() } catch { } finally { i() }",
  "const t = tag`a${b}c`; const r = /re/g.test(s) ? 1e21 : 0x10; do x++; while (x < 3)",
  'React.createElement("div", { className: "x", ...props }, "text", React.createElement(Child, null));',
];

describe("babelTypes, the realm's stand-in for @babel/types", () => {
  it("has the node tables of the installed @babel/types (run scripts/generate-babel-types-data.mjs after an upgrade)", () => {
    expect(data.version).toBe(require("@babel/types/package.json").version);
    for (const [type, keys] of Object.entries(real.VISITOR_KEYS)) {
      if (!isFlow(type)) expect([type, shim.VISITOR_KEYS[type]]).toEqual([type, keys]);
    }
    for (const [alias, types] of Object.entries(data.aliases)) {
      expect(types).toEqual(real.FLIPPED_ALIAS_KEYS[alias].filter((type) => !isFlow(type)));
    }
  });

  it("exports everything @babel/generator takes from @babel/types", () => {
    const names = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith(".js")) {
          const text = readFileSync(path, "utf8");
          for (const match of text.matchAll(/const \{([^}]*)\} = _t;/g)) {
            for (const part of match[1].split(",")) if (part.trim()) names.add(part.trim().split(":")[0].trim());
          }
          for (const match of text.matchAll(/_t\.([A-Za-z_]+)/g)) names.add(match[1]);
        }
      }
    };
    walk(dirname(require.resolve("@babel/generator")));
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !(name in shim))).toEqual([]);
  });

  it("lets @babel/generator print exactly what it prints with the real package", () => {
    const generateOnShim = generatorOnShim();
    const generateReal = require("@babel/generator").default as typeof generateOnShim;
    expect(generateOnShim).not.toBe(generateReal);
    for (const source of CORPUS) {
      for (const options of [
        {},
        { retainLines: true, comments: false },
        { compact: true },
        { sourceMaps: true, sourceFileName: "s" },
      ]) {
        const a = generateOnShim(parse(source) as never, options as never, source);
        const b = generateReal(parse(source) as never, options as never, source);
        expect(a.code).toBe(b.code);
        expect(a.map).toEqual(b.map);
      }
    }
  });

  it("checks node types and aliases like the real validators", () => {
    const nodes: real.Node[] = [];
    for (const source of CORPUS) real.traverseFast(parse(source), (node) => void nodes.push(node));
    const checks = Object.keys(shim).filter((name) => /^is[A-Z]/.test(name) && name !== "isValidIdentifier");
    for (const name of checks) {
      for (const node of [...nodes, null, undefined]) {
        expect([name, node?.type, (shim as never as Record<string, (n: unknown) => boolean>)[name](node)]).toEqual([
          name,
          node?.type,
          (real as never as Record<string, (n: unknown) => boolean>)[name](node),
        ]);
      }
    }
    expect(shim.isIdentifier({ type: "Identifier", name: "a" }, { name: "a" })).toBe(true);
    expect(shim.isIdentifier({ type: "Identifier", name: "a" }, { name: "b" })).toBe(false);
  });

  it("builds the same nodes as the real builders", () => {
    const id = real.identifier("x");
    const samples: Record<string, unknown[]> = {
      arrayExpression: [[id]],
      assignmentExpression: ["=", id, id],
      awaitExpression: [id],
      binaryExpression: ["+", id, id],
      blockStatement: [[]],
      booleanLiteral: [true],
      callExpression: [id, [id]],
      classExpression: [null, null, real.classBody([])],
      emptyStatement: [],
      expressionStatement: [id],
      functionExpression: [null, [id], real.blockStatement([])],
      identifier: ["y"],
      logicalExpression: ["||", id, id],
      memberExpression: [id, id],
      nullLiteral: [],
      numericLiteral: [3],
      objectExpression: [[]],
      objectProperty: [id, id],
      returnStatement: [id],
      sequenceExpression: [[id, id]],
      spreadElement: [id],
      stringLiteral: ["s"],
      thisExpression: [],
      unaryExpression: ["-", id],
      variableDeclaration: ["var", [real.variableDeclarator(id)]],
      variableDeclarator: [id, id],
    };
    const builders = Object.keys(shim).filter(
      (name) =>
        /^[a-z]/.test(name) &&
        typeof (shim as Record<string, unknown>)[name] === "function" &&
        !/^(is|traverse|clone|get)/.test(name),
    );
    expect(builders.sort()).toEqual(Object.keys(samples).sort());
    for (const [name, args] of Object.entries(samples)) {
      const mine = (shim as never as Record<string, (...a: unknown[]) => unknown>)[name](...args);
      const theirs = (real as never as Record<string, (...a: unknown[]) => unknown>)[name](...args);
      expect([name, mine]).toEqual([name, theirs]);
    }
  });

  it("agrees on identifiers, binding names, JSX children and copies", () => {
    for (const name of [
      "a",
      "$b",
      "_c",
      "ünïcode",
      "data-id",
      "aria-label",
      "class",
      "await",
      "let",
      "yield",
      "enum",
      "of",
      "async",
      "1a",
      "",
      "a b",
    ]) {
      expect([name, shim.isValidIdentifier(name, false), shim.isValidIdentifier(name)]).toEqual([
        name,
        real.isValidIdentifier(name, false),
        real.isValidIdentifier(name),
      ]);
    }
    const declaration = parse("const { a, b: [c, ...d], e = 1, ...f } = x;").program.body[0];
    expect(Object.keys(shim.getBindingIdentifiers(declaration))).toEqual(
      Object.keys(real.getBindingIdentifiers(declaration)),
    );
    const element = (
      parse("<p>\n  Hello {name}\n  again {/* c */}   there\t!\n</p>").program.body[0] as real.ExpressionStatement
    ).expression as real.JSXElement;
    expect(shim.react.buildChildren(element as never)).toEqual(real.react.buildChildren(element));
    for (const tag of ["div", "Card", "a", "_x", ""])
      expect(shim.react.isCompatTag(tag)).toBe(real.react.isCompatTag(tag));
    const node = parse("const { a } = b;").program.body[0];
    const copy = shim.cloneNode(node) as real.VariableDeclaration;
    const generate = require("@babel/generator").default;
    expect(generate(copy).code).toBe(generate(real.cloneNode(node)).code);
    expect(copy.declarations[0].id).not.toBe((node as real.VariableDeclaration).declarations[0].id);
    expect(copy.loc).toBe(node.loc);
  });
});
