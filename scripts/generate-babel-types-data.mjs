#!/usr/bin/env node
/**
 * Writes workers/realm/executor/babelTypesData.json from the installed
 * @babel/types: the node tables the realm's small stand-in for @babel/types
 * (babelTypes.ts) needs. Run after upgrading Babel; babelTypes.test.ts fails
 * while the file is out of date.
 *
 *   node scripts/generate-babel-types-data.mjs
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const t = require("@babel/types");

/** The aliases babelTypes.ts checks against, and the node types it builds. */
const ALIASES = [
  "Class",
  "Expression",
  "FlowType",
  "For",
  "Function",
  "ImportOrExportDeclaration",
  "Literal",
  "Pattern",
  "Statement",
  "TSType",
];
const BUILT = [
  "ArrayExpression",
  "AssignmentExpression",
  "AwaitExpression",
  "BinaryExpression",
  "BlockStatement",
  "BooleanLiteral",
  "CallExpression",
  "ClassExpression",
  "EmptyStatement",
  "ExpressionStatement",
  "FunctionExpression",
  "Identifier",
  "LogicalExpression",
  "MemberExpression",
  "NullLiteral",
  "NumericLiteral",
  "ObjectExpression",
  "ObjectProperty",
  "ReturnStatement",
  "SequenceExpression",
  "SpreadElement",
  "StringLiteral",
  "ThisExpression",
  "UnaryExpression",
  "VariableDeclaration",
  "VariableDeclarator",
];

/** Flow nodes never reach the realm: it parses with the `typescript` and `jsx` plugins only. */
const isFlow = (type) => t.FLIPPED_ALIAS_KEYS.Flow.includes(type);

export function babelTypesData() {
  const visitorKeys = {};
  for (const [type, keys] of Object.entries(t.VISITOR_KEYS)) if (!isFlow(type)) visitorKeys[type] = keys;
  const aliases = {};
  for (const alias of ALIASES) aliases[alias] = t.FLIPPED_ALIAS_KEYS[alias].filter((type) => !isFlow(type));
  const builders = {};
  for (const type of BUILT) {
    const fields = t.NODE_FIELDS[type];
    builders[type] = t.BUILDER_KEYS[type].map((key) => [key, fields[key]?.default ?? null]);
  }
  return { version: require("@babel/types/package.json").version, visitorKeys, aliases, builders };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = fileURLToPath(new URL("../workers/realm/executor/babelTypesData.json", import.meta.url));
  writeFileSync(file, JSON.stringify(babelTypesData()) + "\n");
  console.log(`wrote ${file}`);
}
