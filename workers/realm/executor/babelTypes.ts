/**
 * The part of `@babel/types` the realm uses, small: the executor's AST
 * builders and checks, and what `@babel/generator` imports from it (the realm
 * build resolves `@babel/types` here, see vite.realm.config.ts).
 *
 * The real package is CommonJS and cannot be tree-shaken: its field
 * validators, asserts and Flow definitions were ~250 KB of the realm bundle.
 * This one is built from babelTypesData.json (the node tables, generated from
 * the installed @babel/types by scripts/generate-babel-types-data.mjs) and
 * skips validation: every node it builds comes from code the executor wrote.
 * babelTypes.test.ts checks it against the real package, including
 * `@babel/generator` running on it.
 */
import data from "./babelTypesData.json";

type Node = { type: string; [key: string]: unknown };
type Builder = (...args: unknown[]) => Node;

export const VISITOR_KEYS: Record<string, string[]> = data.visitorKeys;
const ALIASES: Record<string, string[]> = data.aliases;
const BUILDERS = data.builders as unknown as Record<string, [string, unknown][]>;

// ---------------------------------------------------------------- checks

function shallowEqual(actual: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  for (const key of Object.keys(expected)) if (actual[key] !== expected[key]) return false;
  return true;
}

/** `isX(node, opts)` for a node type or an alias, as @babel/types' generated validators. */
function checker(name: string): (node: unknown, opts?: Record<string, unknown> | null) => boolean {
  const types = new Set(ALIASES[name] ?? [name]);
  return (node, opts) => {
    if (!node || !types.has((node as Node).type)) return false;
    return opts == null || shallowEqual(node as Record<string, unknown>, opts);
  };
}

// What @babel/generator imports (babelTypes.test.ts keeps this list complete) and what the executor checks.
export const isAssignmentPattern = checker("AssignmentPattern");
export const isClass = checker("Class");
export const isClassBody = checker("ClassBody");
export const isClassDeclaration = checker("ClassDeclaration");
export const isDeclareExportDeclaration = checker("DeclareExportDeclaration");
export const isExportDefaultDeclaration = checker("ExportDefaultDeclaration");
export const isExportDefaultSpecifier = checker("ExportDefaultSpecifier");
export const isExportNamedDeclaration = checker("ExportNamedDeclaration");
export const isExportNamespaceSpecifier = checker("ExportNamespaceSpecifier");
export const isExpression = checker("Expression");
export const isFlowType = checker("FlowType");
export const isFor = checker("For");
export const isFunction = checker("Function");
export const isFunctionDeclaration = checker("FunctionDeclaration");
export const isIdentifier = checker("Identifier");
export const isIfStatement = checker("IfStatement");
export const isImportDefaultSpecifier = checker("ImportDefaultSpecifier");
export const isImportNamespaceSpecifier = checker("ImportNamespaceSpecifier");
export const isImportOrExportDeclaration = checker("ImportOrExportDeclaration");
export const isLiteral = checker("Literal");
export const isMemberExpression = checker("MemberExpression");
export const isOptionalMemberExpression = checker("OptionalMemberExpression");
export const isPattern = checker("Pattern");
export const isStatement = checker("Statement");
export const isTSEnumMember = checker("TSEnumMember");
export const isTSInterfaceBody = checker("TSInterfaceBody");
export const isTSType = checker("TSType");
export const isYieldExpression = checker("YieldExpression");

/** ECMAScript keywords and strict-mode reserved words, as @babel/helper-validator-identifier lists them. */
const RESERVED = new Set(
  (
    "break case catch continue debugger default do else finally for function if return switch throw try var const while with new this " +
    "super class extends export import null true false in instanceof typeof void delete " +
    "implements interface let package private protected public static yield enum await"
  ).split(" "),
);
const IDENTIFIER_NAME = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

export function isValidIdentifier(name: unknown, reserved = true): boolean {
  if (typeof name !== "string") return false;
  if (reserved && RESERVED.has(name)) return false;
  return IDENTIFIER_NAME.test(name);
}

// ---------------------------------------------------------------- builders

/** A builder as @babel/types generates them: positional fields in BUILDER_KEYS order, defaults for the rest; no validation. */
function builder(type: string): Builder {
  const fields = BUILDERS[type];
  if (!fields) throw new Error(`no builder for ${type}`);
  return (...args) => {
    const node: Node = { type };
    fields.forEach(([key, fallback], index) => {
      const value = args[index];
      node[key] = value !== undefined ? value : Array.isArray(fallback) ? [] : fallback;
    });
    return node;
  };
}

export const arrayExpression = builder("ArrayExpression");
export const assignmentExpression = builder("AssignmentExpression");
export const awaitExpression = builder("AwaitExpression");
export const binaryExpression = builder("BinaryExpression");
export const blockStatement = builder("BlockStatement");
export const booleanLiteral = builder("BooleanLiteral");
export const callExpression = builder("CallExpression");
export const classExpression = builder("ClassExpression");
export const emptyStatement = builder("EmptyStatement");
export const expressionStatement = builder("ExpressionStatement");
export const functionExpression = builder("FunctionExpression");
export const identifier = builder("Identifier");
export const logicalExpression = builder("LogicalExpression");
export const memberExpression = builder("MemberExpression");
export const nullLiteral = builder("NullLiteral");
export const numericLiteral = builder("NumericLiteral");
export const objectExpression = builder("ObjectExpression");
export const objectProperty = builder("ObjectProperty");
export const returnStatement = builder("ReturnStatement");
export const sequenceExpression = builder("SequenceExpression");
export const spreadElement = builder("SpreadElement");
export const stringLiteral = builder("StringLiteral");
export const thisExpression = builder("ThisExpression");
export const unaryExpression = builder("UnaryExpression");
export const variableDeclaration = builder("VariableDeclaration");
export const variableDeclarator = builder("VariableDeclarator");

// ---------------------------------------------------------------- walking and copying

const SKIP = Symbol("skip");
const STOP = Symbol("stop");

export function traverseFast(node: unknown, enter: (node: Node, opts: object) => unknown, opts?: object): boolean {
  if (!node) return false;
  const keys = VISITOR_KEYS[(node as Node).type];
  if (!keys) return false;
  opts = opts || {};
  const result = enter(node as Node, opts);
  if (result === SKIP) return false;
  if (result === STOP) return true;
  for (const key of keys) {
    const child = (node as Node)[key];
    if (!child) continue;
    if (Array.isArray(child)) {
      for (const item of child) if (traverseFast(item, enter, opts)) return true;
    } else if (traverseFast(child, enter, opts)) {
      return true;
    }
  }
  return false;
}
traverseFast.skip = SKIP;
traverseFast.stop = STOP;

/** A deep copy of an AST (positions shared, as @babel/types does). */
export function cloneNode<N>(node: N, deep = true, withoutLoc = false): N {
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((item) => cloneNode(item, deep, withoutLoc)) as N;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === "loc") copy.loc = withoutLoc ? null : value;
    else if (key === "extra" && value && typeof value === "object") copy.extra = { ...value };
    else
      copy[key] =
        deep &&
        value &&
        typeof value === "object" &&
        key !== "leadingComments" &&
        key !== "trailingComments" &&
        key !== "innerComments"
          ? cloneNode(value, deep, withoutLoc)
          : value;
  }
  return copy as N;
}

const BINDING_KEYS: Record<string, string[]> = {
  CatchClause: ["param"],
  LabeledStatement: ["label"],
  UnaryExpression: ["argument"],
  AssignmentExpression: ["left"],
  ImportSpecifier: ["local"],
  ImportNamespaceSpecifier: ["local"],
  ImportDefaultSpecifier: ["local"],
  ImportDeclaration: ["specifiers"],
  TSImportEqualsDeclaration: ["id"],
  ExportSpecifier: ["exported"],
  ExportNamespaceSpecifier: ["exported"],
  ExportDefaultSpecifier: ["exported"],
  FunctionDeclaration: ["id", "params"],
  FunctionExpression: ["id", "params"],
  ArrowFunctionExpression: ["params"],
  ObjectMethod: ["params"],
  ClassMethod: ["params"],
  ClassPrivateMethod: ["params"],
  ForInStatement: ["left"],
  ForOfStatement: ["left"],
  ClassDeclaration: ["id"],
  ClassExpression: ["id"],
  RestElement: ["argument"],
  UpdateExpression: ["argument"],
  ObjectProperty: ["value"],
  AssignmentPattern: ["left"],
  ArrayPattern: ["elements"],
  ObjectPattern: ["properties"],
  VariableDeclaration: ["declarations"],
  VariableDeclarator: ["id"],
};

/** The names a declaration or pattern binds, as @babel/types' getBindingIdentifiers (without its Flow and export cases). */
export function getBindingIdentifiers(node: unknown): Record<string, Node> {
  const search: unknown[] = [node];
  const ids: Record<string, Node> = Object.create(null);
  while (search.length) {
    const id = search.shift() as Node | null | undefined;
    if (!id) continue;
    if (id.type === "Identifier") {
      ids[id.name as string] = id;
      continue;
    }
    if ((id.type === "ExportNamedDeclaration" || id.type === "ExportDefaultDeclaration") && id.declaration) {
      search.push(id.declaration);
      continue;
    }
    for (const key of BINDING_KEYS[id.type] ?? []) {
      const nodes = id[key];
      if (Array.isArray(nodes)) search.push(...nodes);
      else if (nodes) search.push(nodes);
    }
  }
  return ids;
}

// ---------------------------------------------------------------- JSX helpers (@babel/types' `react`)

function inherit(key: string, child: Node, parent: Node): void {
  if (child && parent) child[key] = Array.from(new Set([...[child[key], parent[key]].flat()].filter(Boolean)));
}

function inherits(child: Node, parent: Node): Node {
  for (const key of ["typeAnnotation", "typeParameters", "returnType"])
    if (child[key] == null) child[key] = parent[key];
  for (const key of Object.keys(parent)) if (key.startsWith("_") && key !== "__clone") child[key] = parent[key];
  for (const key of ["start", "loc", "end"]) child[key] = parent[key];
  inherit("trailingComments", child, parent);
  inherit("leadingComments", child, parent);
  inherit("innerComments", child, parent);
  return child;
}

function cleanJSXElementLiteralChild(child: Node, args: Node[]): void {
  const lines = (child.value as string).split(/\r\n|\n|\r/);
  let lastNonEmptyLine = 0;
  for (let index = 0; index < lines.length; index++) if (/[^ \t]/.exec(lines[index])) lastNonEmptyLine = index;
  let text = "";
  for (let index = 0; index < lines.length; index++) {
    let trimmed = lines[index].replace(/\t/g, " ");
    if (index !== 0) trimmed = trimmed.replace(/^ +/, "");
    if (index !== lines.length - 1) trimmed = trimmed.replace(/ +$/, "");
    if (trimmed) {
      if (index !== lastNonEmptyLine) trimmed += " ";
      text += trimmed;
    }
  }
  if (text) args.push(inherits(stringLiteral(text), child));
}

export const react = {
  isCompatTag(tagName: unknown): boolean {
    return !!tagName && /^[a-z]/.test(tagName as string);
  },
  buildChildren(node: { children: Node[] }): Node[] {
    const elements: Node[] = [];
    for (let child of node.children) {
      if (child.type === "JSXText") {
        cleanJSXElementLiteralChild(child, elements);
        continue;
      }
      if (child.type === "JSXExpressionContainer") child = child.expression as Node;
      if (child.type === "JSXEmptyExpression") continue;
      elements.push(child);
    }
    return elements;
  },
};
