/**
 * Erases TypeScript and lowers JSX to `React.createElement` on a freshly parsed
 * statement, in place, in one walk over the AST.
 *
 * Why not `Babel.transform` with presets `typescript` and `react`: babel-core
 * resolves options and instantiates plugins on every call, ~0.3-0.8 ms before
 * any work and with long GC tails, while the whole budget for a statement to
 * start is 2 ms. Model code uses a small, stable subset of TypeScript (types,
 * generics, `as`, `satisfies`, `!`, optional parameters, class modifiers);
 * erasing it is mechanical. Anything with runtime semantics (enums,
 * namespaces, parameter properties) or that this walk does not know throws
 * `NEEDS_PRESETS`, and the caller runs the real presets instead; the output is
 * checked against the presets in lowerSyntax.test.ts.
 *
 * JSX follows @babel/plugin-transform-react-jsx (classic runtime, `useSpread`):
 * same tag, attribute and whitespace rules, object spread for spread props.
 */
import type * as T from "@babel/types";
import { t } from "./babel";

/** Thrown when the statement needs the full presets (see the file comment). */
export const NEEDS_PRESETS = Symbol("needs-presets");

/** A construct the realm refuses (`import`, `export`), with its node for the location. */
export class UnsupportedSyntax extends Error {
  constructor(
    message: string,
    readonly node: T.Node,
  ) {
    super(message);
  }
}

/** Type-only fields that may hang off any node; the generator would print them. */
const TYPE_FIELDS = [
  "typeAnnotation",
  "returnType",
  "typeParameters",
  "superTypeParameters",
  "typeArguments",
  "implements",
  "predicate",
] as const;

/** Nodes whose `optional` flag is TypeScript (`x?: T`, `m?()`); on member and call expressions it is `?.`. */
const TS_OPTIONAL = new Set([
  "Identifier",
  "ObjectPattern",
  "ArrayPattern",
  "RestElement",
  "AssignmentPattern",
  "ClassProperty",
  "ClassPrivateProperty",
  "ClassAccessorProperty",
  "ClassMethod",
  "ClassPrivateMethod",
]);

const CLASS_MEMBERS = new Set([
  "ClassProperty",
  "ClassPrivateProperty",
  "ClassAccessorProperty",
  "ClassMethod",
  "ClassPrivateMethod",
]);

const REMOVED = null;

/** Nodes that may carry `declare` (`declare const x: T`, `declare field: T`); other nodes are not asked. */
const DECLARABLE = new Set([
  "VariableDeclaration",
  "ClassDeclaration",
  "FunctionDeclaration",
  "ClassProperty",
  "ClassPrivateProperty",
  "ClassAccessorProperty",
]);

interface NodeKeys {
  /** The TYPE_FIELDS this node type can have (all of them for a type the tables do not know). */
  typeFields: readonly string[];
  /** Its visitor keys without TYPE_FIELDS: what is left to walk once the types are gone. */
  children: readonly string[] | undefined;
}

const NODE_KEYS = new Map<string, NodeKeys>();

/**
 * Per node type, computed once: a long statement has tens of thousands of
 * nodes, and asking each for seven type fields it cannot have (absent
 * properties on Babel's many node shapes) was most of this walk's time.
 */
function nodeKeys(type: string): NodeKeys {
  let keys = NODE_KEYS.get(type);
  if (keys === undefined) {
    const visitor = t.VISITOR_KEYS[type] as readonly string[] | undefined;
    const typeFields: readonly string[] = TYPE_FIELDS;
    keys = {
      typeFields: visitor ? typeFields.filter((field) => visitor.includes(field)) : typeFields,
      children: visitor?.filter((key) => !typeFields.includes(key)),
    };
    NODE_KEYS.set(type, keys);
  }
  return keys;
}

/** The child keys of a lowered node: its visitor keys less the type-only ones (lowering cleared those). */
export function loweredChildKeys(type: string): readonly string[] | undefined {
  return nodeKeys(type).children;
}

/** Lower `program` in place. Throws `NEEDS_PRESETS` or `UnsupportedSyntax`. */
export function lowerSyntax(program: T.Program): void {
  program.body = lowerList(program.body) as T.Statement[];
}

function lowerList(list: T.Node[]): T.Node[] {
  let out: T.Node[] | undefined;
  for (let index = 0; index < list.length; index += 1) {
    const node = list[index];
    const lowered = lower(node);
    if (lowered !== node && out === undefined) out = list.slice(0, index);
    if (out !== undefined && lowered !== REMOVED) out.push(lowered);
  }
  return out ?? list;
}

/** Returns the node to put in place of `node` (often `node` itself), or null to remove it. */
function lower(node: T.Node): T.Node | null {
  switch (node.type) {
    case "TSTypeAliasDeclaration":
    case "TSInterfaceDeclaration":
    case "TSDeclareFunction":
    case "TSDeclareMethod":
    case "TSIndexSignature":
      return REMOVED;
    case "TSAsExpression":
    case "TSSatisfiesExpression":
    case "TSNonNullExpression":
    case "TSTypeAssertion":
    case "TSInstantiationExpression":
      return lower(node.expression);
    case "TSEnumDeclaration":
      if (node.declare) return REMOVED;
      return lowerEnum(node);
    case "TSModuleDeclaration":
      if (node.declare) return REMOVED;
      throw NEEDS_PRESETS;
    case "ClassMethod":
      if (node.kind === "constructor" && node.params.some((param) => param.type === "TSParameterProperty")) {
        lowerParameterProperties(node);
      }
      break;
    case "TSImportEqualsDeclaration":
    case "TSExportAssignment":
    case "TSNamespaceExportDeclaration":
    case "ImportDeclaration":
    case "ExportNamedDeclaration":
    case "ExportDefaultDeclaration":
    case "ExportAllDeclaration":
      throw new UnsupportedSyntax(
        "`import` and `export` are not available in the realm: every top-level declaration is already shared by later code, and modules cannot be loaded",
        node,
      );
    case "JSXElement":
      return lowerElement(node);
    case "JSXFragment":
      return lowerFragment(node);
    default:
      break;
  }
  if (node.type.startsWith("TS")) throw NEEDS_PRESETS;

  const record = node as unknown as Record<string, unknown>;
  if (DECLARABLE.has(node.type) && record.declare === true) return REMOVED;
  const { typeFields, children } = nodeKeys(node.type);
  for (const field of typeFields) if (record[field]) record[field] = null;
  if (TS_OPTIONAL.has(node.type) && record.optional) record.optional = false;
  if (CLASS_MEMBERS.has(node.type)) {
    if (record.abstract === true && (node.type === "ClassProperty" || node.type === "ClassAccessorProperty"))
      return REMOVED;
    record.accessibility = null;
    record.abstract = false;
    record.override = false;
    record.readonly = false;
    record.definite = false;
  } else if (node.type === "ClassDeclaration" || node.type === "ClassExpression") {
    record.abstract = false;
  } else if (node.type === "VariableDeclarator") {
    record.definite = false;
  }
  if (t.isFunction(node) && node.params.length > 0) {
    const first = node.params[0];
    // `function f(this: Window, ...)`: the `this` parameter is a type.
    if (first.type === "Identifier" && first.name === "this") node.params = node.params.slice(1);
  }

  if (children === undefined) return node;
  for (const key of children) {
    const child = record[key];
    if (child === null || child === undefined) continue;
    if (Array.isArray(child)) {
      // Holes in array literals and patterns are nulls: keep them.
      record[key] = child.includes(null)
        ? lowerListWithHoles(child as (T.Node | null)[])
        : lowerList(child as T.Node[]);
    } else if (typeof (child as T.Node).type === "string") {
      const lowered = lower(child as T.Node);
      record[key] = lowered === REMOVED ? t.emptyStatement() : lowered;
    }
  }
  return node;
}

function lowerListWithHoles(list: (T.Node | null)[]): (T.Node | null)[] {
  return list.map((item) => (item === null ? null : lower(item)));
}

// ---------------------------------------------------------------- enums and parameter properties

/**
 * `enum Color { Red, Green = "g" }` →
 *   var Color = function (Color) { Color[Color["Red"] = 0] = "Red"; Color["Green"] = "g"; return Color; }(Color || {});
 * as the typescript preset emits it, for members that are literals or
 * auto-incremented; computed members (`B = A * 2`) take the presets.
 */
function lowerEnum(node: T.TSEnumDeclaration): T.VariableDeclaration {
  const name = node.id.name;
  const members = (node as unknown as { body?: { members: T.TSEnumMember[] } }).body?.members ?? node.members;
  const statements: T.Statement[] = [];
  let next: number | undefined = 0;
  for (const member of members) {
    const key = member.id.type === "Identifier" ? member.id.name : member.id.value;
    let value: number | string;
    const init = member.initializer;
    if (!init) {
      if (next === undefined) throw NEEDS_PRESETS;
      value = next;
    } else if (init.type === "NumericLiteral") {
      value = init.value;
    } else if (init.type === "StringLiteral") {
      value = init.value;
    } else if (init.type === "UnaryExpression" && init.operator === "-" && init.argument.type === "NumericLiteral") {
      value = -init.argument.value;
    } else {
      throw NEEDS_PRESETS;
    }
    next = typeof value === "number" ? value + 1 : undefined;
    const slot = t.memberExpression(t.identifier(name), t.stringLiteral(key), true);
    const literal =
      typeof value === "string"
        ? t.stringLiteral(value)
        : value < 0
          ? t.unaryExpression("-", t.numericLiteral(-value))
          : t.numericLiteral(value);
    const assignment =
      typeof value === "string"
        ? t.assignmentExpression("=", slot, literal)
        : t.assignmentExpression(
            "=",
            t.memberExpression(t.identifier(name), t.assignmentExpression("=", slot, literal), true),
            t.stringLiteral(key),
          );
    statements.push(withPosition(t.expressionStatement(assignment), member));
  }
  statements.push(t.returnStatement(t.identifier(name)));
  const body = t.functionExpression(null, [t.identifier(name)], t.blockStatement(statements));
  const call = t.callExpression(body, [t.logicalExpression("||", t.identifier(name), t.objectExpression([]))]);
  const declaration = t.variableDeclaration("var", [
    t.variableDeclarator(withPosition(t.identifier(name), node.id), call),
  ]);
  return withPosition(declaration, node);
}

/** `constructor(public a: number)` → `constructor(a) { this.a = a; ... }`, after `super(...)` in a derived class. */
function lowerParameterProperties(node: T.ClassMethod): void {
  const assignments: T.Statement[] = [];
  node.params = node.params.map((param) => {
    if (param.type !== "TSParameterProperty") return param;
    const inner = param.parameter;
    const id = inner.type === "AssignmentPattern" ? inner.left : inner;
    if (id.type !== "Identifier") throw NEEDS_PRESETS;
    assignments.push(
      t.expressionStatement(
        t.assignmentExpression(
          "=",
          t.memberExpression(t.thisExpression(), t.identifier(id.name)),
          t.identifier(id.name),
        ),
      ),
    );
    return inner;
  });
  const body = node.body.body;
  const superIndex = body.findIndex(
    (statement) =>
      statement.type === "ExpressionStatement" &&
      statement.expression.type === "CallExpression" &&
      statement.expression.callee.type === "Super",
  );
  if (superIndex < 0 && hasSuperCall(node.body)) throw NEEDS_PRESETS;
  body.splice(superIndex + 1, 0, ...assignments);
}

function hasSuperCall(node: T.Node): boolean {
  let found = false;
  t.traverseFast(node, (inner) => {
    if (inner.type === "CallExpression" && inner.callee.type === "Super") found = true;
  });
  return found;
}

// ---------------------------------------------------------------- JSX

function createElementCallee(at: T.Node): T.MemberExpression {
  const callee = t.memberExpression(t.identifier("React"), t.identifier("createElement"));
  callee.loc = at.loc;
  return callee;
}

function lowerElement(node: T.JSXElement): T.CallExpression {
  const opening = node.openingElement;
  const tag = convertTag(opening.name, opening);
  const props = convertAttributes(opening.attributes);
  lowerChildren(node.children);
  const call = t.callExpression(createElementCallee(node), [
    tag,
    props,
    ...(t.react.buildChildren(node) as T.Expression[]),
  ]);
  inheritPosition(call, node);
  return call;
}

function lowerFragment(node: T.JSXFragment): T.CallExpression {
  lowerChildren(node.children);
  const fragment = t.memberExpression(t.identifier("React"), t.identifier("Fragment"));
  const call = t.callExpression(createElementCallee(node), [
    fragment,
    t.nullLiteral(),
    ...(t.react.buildChildren(node as unknown as T.JSXElement) as T.Expression[]),
  ]);
  inheritPosition(call, node);
  return call;
}

function lowerChildren(children: T.JSXElement["children"]): void {
  for (let index = 0; index < children.length; index += 1) {
    const child = children[index];
    switch (child.type) {
      case "JSXText":
        break;
      case "JSXExpressionContainer":
        if (child.expression.type !== "JSXEmptyExpression") child.expression = lower(child.expression) as T.Expression;
        break;
      case "JSXElement":
      case "JSXFragment":
        children[index] = lower(child) as unknown as T.JSXElement;
        break;
      case "JSXSpreadChild":
        throw NEEDS_PRESETS;
      default: {
        const never: never = child;
        return never;
      }
    }
  }
}

function convertTag(name: T.JSXOpeningElement["name"], parent: T.Node): T.Expression {
  const expression = convertJsxName(name, parent);
  const tagName =
    expression.type === "Identifier"
      ? expression.name
      : expression.type === "StringLiteral"
        ? expression.value
        : undefined;
  if (tagName !== undefined && t.react.isCompatTag(tagName)) {
    const literal = t.stringLiteral(tagName);
    literal.loc = name.loc;
    return literal;
  }
  return expression;
}

function convertJsxName(
  name: T.JSXIdentifier | T.JSXMemberExpression | T.JSXNamespacedName,
  parent: T.Node,
): T.Expression {
  switch (name.type) {
    case "JSXIdentifier":
      // `<this.Item>`: `this` is the object; as a property (`<a.this>`) it is a name.
      if (name.name === "this" && !(parent.type === "JSXMemberExpression" && parent.property === name)) {
        return withPosition(t.thisExpression(), name);
      }
      if (t.isValidIdentifier(name.name, false)) return withPosition(t.identifier(name.name), name);
      return withPosition(t.stringLiteral(name.name), name);
    case "JSXMemberExpression":
      return withPosition(
        t.memberExpression(convertJsxName(name.object, name), convertJsxName(name.property, name) as T.Identifier),
        name,
      );
    case "JSXNamespacedName":
      return withPosition(t.stringLiteral(`${name.namespace.name}:${name.name.name}`), name);
    default: {
      const never: never = name;
      return never;
    }
  }
}

function convertAttributes(attributes: T.JSXOpeningElement["attributes"]): T.Expression {
  if (attributes.length === 0) return t.nullLiteral();
  const properties: (T.ObjectProperty | T.SpreadElement)[] = [];
  for (const attribute of attributes) {
    if (attribute.type === "JSXSpreadAttribute") {
      const argument = lower(attribute.argument) as T.Expression;
      if (argument.type === "ObjectExpression" && !hasProto(argument)) {
        properties.push(...(argument.properties as (T.ObjectProperty | T.SpreadElement)[]));
      } else {
        properties.push(withPosition(t.spreadElement(argument), attribute));
      }
      continue;
    }
    const name = attribute.name;
    const key: T.Identifier | T.StringLiteral =
      name.type === "JSXNamespacedName"
        ? t.stringLiteral(`${name.namespace.name}:${name.name.name}`)
        : t.isValidIdentifier(name.name, false)
          ? t.identifier(name.name)
          : t.stringLiteral(name.name);
    withPosition(key, name);
    let value: T.Expression;
    const raw = attribute.value;
    if (raw === null || raw === undefined) {
      value = t.booleanLiteral(true);
    } else if (raw.type === "JSXExpressionContainer") {
      if (raw.expression.type === "JSXEmptyExpression") throw NEEDS_PRESETS;
      value = lower(raw.expression) as T.Expression;
    } else if (raw.type === "StringLiteral") {
      value = t.stringLiteral(raw.value.replace(/\n\s+/g, " "));
      withPosition(value, raw);
    } else {
      value = lower(raw) as T.Expression;
    }
    properties.push(withPosition(t.objectProperty(key, value), attribute));
  }
  const object = t.objectExpression(properties);
  return object;
}

function hasProto(object: T.ObjectExpression): boolean {
  return object.properties.some(
    (property) =>
      property.type === "ObjectProperty" &&
      ((property.key.type === "Identifier" && property.key.name === "__proto__") ||
        (property.key.type === "StringLiteral" && property.key.value === "__proto__")),
  );
}

function withPosition<N extends T.Node>(node: N, from: T.Node): N {
  node.loc = from.loc;
  node.start = from.start;
  node.end = from.end;
  return node;
}

function inheritPosition(node: T.Node, from: T.Node): void {
  withPosition(node, from);
  if (from.leadingComments) node.leadingComments = from.leadingComments;
  if (from.extra?.parenthesized) node.extra = { ...node.extra, parenthesized: true };
}
