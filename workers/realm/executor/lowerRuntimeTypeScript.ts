/**
 * The TypeScript that lowerSyntax.ts does not erase (it throws `NEEDS_PRESETS`):
 * enums with computed or constant-expression members, namespaces, and
 * parameter properties in a constructor whose `super(...)` call is nested.
 * These once went through babel-core with the `typescript` preset; this file
 * lowers them the way that preset does, so the realm needs only the parser and
 * the generator:
 *
 *   enum E { A = 1 << 0, B = A | 2, C = f() }
 *     → var E = function (E) { E[E["A"] = 1] = "A"; E[E["B"] = 3] = "B"; E[E["C"] = f()] = "C"; return E; }(E || {});
 *   namespace N { export const x = 1; export function f() {} }
 *     → var N; (function (_N) { const x = _N.x = 1; function f() {} _N.f = f; })(N || (N = {}));
 *   constructor(public a) { if (c) super(); }
 *     → constructor(a) { if (c) (super(), this.a = a, this); }
 *
 * Member initializers are folded when they are constant (numbers, strings,
 * operators, earlier members), otherwise earlier members they name read
 * `E.member`. Namespace members are `var`-merged, so a namespace or enum may
 * be reopened by a later statement. Then lowerSyntax runs on the result; what
 * it still cannot lower is refused with `UnsupportedSyntax`.
 */
import type * as T from "@babel/types";
import { t } from "./babel";
import { lowerSyntax, NEEDS_PRESETS, UnsupportedSyntax } from "./lowerSyntax";

/** Lower `program` in place, all the way to JavaScript. Throws `UnsupportedSyntax`. */
export function lowerRuntimeTypeScript(program: T.Program): void {
  visit(program);
  try {
    lowerSyntax(program);
  } catch (error) {
    if (error !== NEEDS_PRESETS) throw error;
    throw new UnsupportedSyntax(
      "this TypeScript construct has no JavaScript form in the realm; write it without it",
      findTypeScript(program) ?? program,
    );
  }
}

// ---------------------------------------------------------------- the walk

function visit(node: T.Node): void {
  if (node.type === "ClassMethod" && node.kind === "constructor") lowerNestedParameterProperties(node);
  if (node.type === "JSXSpreadChild")
    throw new UnsupportedSyntax(
      "spread children (`{...items}` as a JSX child) are not supported by React; use `{items}`",
      node,
    );
  const keys = t.VISITOR_KEYS[node.type];
  if (keys === undefined) return;
  const record = node as unknown as Record<string, unknown>;
  for (const key of keys) {
    const child = record[key];
    if (Array.isArray(child)) {
      if (child.some((item) => item?.type === "TSEnumDeclaration" || item?.type === "TSModuleDeclaration")) {
        record[key] = child.flatMap((item: T.Node | null) => (item === null ? [null] : lowerStatement(item)));
      }
      for (const item of record[key] as (T.Node | null)[]) if (item) visit(item);
    } else if (child && typeof (child as T.Node).type === "string") {
      visit(child as T.Node);
    }
  }
}

function lowerStatement(node: T.Node): T.Node[] {
  if (node.type === "TSEnumDeclaration" && !node.declare) return [lowerEnum(node)];
  if (node.type === "TSModuleDeclaration" && !node.declare) return lowerNamespace(node, null);
  return [node];
}

// ---------------------------------------------------------------- enums

type Constant = number | string;

function lowerEnum(node: T.TSEnumDeclaration): T.VariableDeclaration {
  const name = node.id.name;
  const members = (node as unknown as { body?: { members: T.TSEnumMember[] } }).body?.members ?? node.members;
  const known = new Map<string, Constant | undefined>();
  const statements: T.Statement[] = [];
  let previous: { key: string; value: Constant | undefined } | undefined;
  for (const member of members) {
    const key = member.id.type === "Identifier" ? member.id.name : (member.id as T.StringLiteral).value;
    let value: Constant | undefined;
    let expression: T.Expression;
    if (member.initializer) {
      value = evaluate(member.initializer, known);
      expression = value === undefined ? readMembers(member.initializer, name, known) : literal(value);
    } else if (previous === undefined) {
      value = 0;
      expression = literal(0);
    } else if (typeof previous.value === "number") {
      value = previous.value + 1;
      expression = literal(value);
    } else if (previous.value === undefined) {
      // After a computed member: one more than it, at run time.
      expression = t.binaryExpression(
        "+",
        t.memberExpression(t.identifier(name), t.stringLiteral(previous.key), true),
        t.numericLiteral(1),
      );
    } else {
      throw new UnsupportedSyntax(
        `enum member \`${key}\` needs an initializer: the member before it is a string`,
        member,
      );
    }
    known.set(key, value);
    previous = { key, value };
    const slot = t.memberExpression(t.identifier(name), t.stringLiteral(key), true);
    const isString = typeof value === "string" || (value === undefined && isStringExpression(expression));
    const assignment = isString
      ? t.assignmentExpression("=", slot, expression)
      : t.assignmentExpression(
          "=",
          t.memberExpression(t.identifier(name), t.assignmentExpression("=", slot, expression), true),
          t.stringLiteral(key),
        );
    statements.push(at(t.expressionStatement(assignment), member));
  }
  statements.push(t.returnStatement(t.identifier(name)));
  const body = t.functionExpression(null, [t.identifier(name)], t.blockStatement(statements));
  const call = t.callExpression(body, [t.logicalExpression("||", t.identifier(name), t.objectExpression([]))]);
  return at(t.variableDeclaration("var", [t.variableDeclarator(at(t.identifier(name), node.id), call)]), node);
}

function literal(value: Constant): T.Expression {
  if (typeof value === "string") return t.stringLiteral(value);
  if (Number.isNaN(value)) return t.identifier("NaN");
  if (!Number.isFinite(value))
    return value > 0 ? t.identifier("Infinity") : t.unaryExpression("-", t.identifier("Infinity"));
  return value < 0 || Object.is(value, -0) ? t.unaryExpression("-", t.numericLiteral(-value)) : t.numericLiteral(value);
}

function isStringExpression(node: T.Expression): boolean {
  return node.type === "StringLiteral" || node.type === "TemplateLiteral";
}

/** The constant value of an enum initializer, or undefined when it is computed at run time. */
function evaluate(node: T.Node, known: Map<string, Constant | undefined>): Constant | undefined {
  switch (node.type) {
    case "NumericLiteral":
    case "StringLiteral":
      return node.value;
    case "TemplateLiteral":
      if (node.expressions.length > 0) return undefined;
      return node.quasis[0].value.cooked ?? undefined;
    case "Identifier":
      return known.get(node.name);
    case "TSAsExpression":
    case "TSSatisfiesExpression":
    case "TSNonNullExpression":
    case "TSTypeAssertion":
      return evaluate(node.expression, known);
    case "UnaryExpression": {
      const value = evaluate(node.argument, known);
      if (typeof value !== "number") return undefined;
      if (node.operator === "-") return -value;
      if (node.operator === "+") return value;
      if (node.operator === "~") return ~value;
      return undefined;
    }
    case "BinaryExpression": {
      if (node.left.type === "PrivateName") return undefined;
      const left = evaluate(node.left, known);
      const right = evaluate(node.right, known);
      if (left === undefined || right === undefined) return undefined;
      if (node.operator === "+") return (left as number) + (right as number);
      if (typeof left !== "number" || typeof right !== "number") return undefined;
      switch (node.operator) {
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return left / right;
        case "%":
          return left % right;
        case "**":
          return left ** right;
        case "<<":
          return left << right;
        case ">>":
          return left >> right;
        case ">>>":
          return left >>> right;
        case "&":
          return left & right;
        case "|":
          return left | right;
        case "^":
          return left ^ right;
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/** A computed initializer: earlier members it names (`A`) read `E.A`, as in TypeScript. */
function readMembers(node: T.Expression, enumName: string, known: Map<string, Constant | undefined>): T.Expression {
  const replace = (inner: T.Node): T.Node => {
    if (inner.type === "Identifier" && known.has(inner.name)) {
      return at(t.memberExpression(t.identifier(enumName), t.identifier(inner.name)), inner);
    }
    const keys = t.VISITOR_KEYS[inner.type] ?? [];
    const record = inner as unknown as Record<string, unknown>;
    for (const key of keys) {
      const child = record[key];
      // Not property names (`a.A`, `{ A: 1 }`), not nested functions' own parameters: only plain reads.
      if (
        (inner.type === "MemberExpression" || inner.type === "OptionalMemberExpression") &&
        key === "property" &&
        !inner.computed
      )
        continue;
      if ((inner.type === "ObjectProperty" || inner.type === "ObjectMethod") && key === "key" && !inner.computed)
        continue;
      if (t.isFunction(inner)) continue;
      if (Array.isArray(child))
        record[key] = child.map((item) => (item && typeof item.type === "string" ? replace(item) : item));
      else if (child && typeof (child as T.Node).type === "string") record[key] = replace(child as T.Node);
    }
    return inner;
  };
  return replace(node) as T.Expression;
}

// ---------------------------------------------------------------- namespaces

/**
 * `namespace N { ... }` → `var N; (function (_N) { ... })(N || (N = {}));`.
 * Inside an enclosing namespace (`outer` is its parameter), an exported one
 * also lands on it: `(N || (N = _outer.N || (_outer.N = {})))`.
 */
function lowerNamespace(
  node: T.TSModuleDeclaration,
  outer: { parameter: string; exported: boolean } | null,
): T.Statement[] {
  if (node.id.type !== "Identifier") {
    throw new UnsupportedSyntax(
      "`declare module` and `global` blocks describe types of modules the realm cannot load",
      node,
    );
  }
  const name = node.id.name;
  const parameter = `_${name}`;
  let inner: T.Statement[];
  if (node.body.type === "TSModuleDeclaration") {
    // `namespace A.B { }`: B is exported from A.
    inner = lowerNamespace(node.body, { parameter, exported: true });
  } else {
    inner = lowerNamespaceBody((node.body as T.TSModuleBlock).body, parameter);
  }
  const target =
    outer?.exported === true
      ? t.logicalExpression(
          "||",
          t.memberExpression(t.identifier(outer.parameter), t.identifier(name)),
          t.assignmentExpression(
            "=",
            t.memberExpression(t.identifier(outer.parameter), t.identifier(name)),
            t.objectExpression([]),
          ),
        )
      : t.objectExpression([]);
  const argument = t.logicalExpression(
    "||",
    t.identifier(name),
    t.assignmentExpression("=", t.identifier(name), target),
  );
  const call = t.callExpression(t.functionExpression(null, [t.identifier(parameter)], t.blockStatement(inner)), [
    argument,
  ]);
  const declaration = at(t.variableDeclaration("var", [t.variableDeclarator(at(t.identifier(name), node.id))]), node);
  return [declaration, at(t.expressionStatement(call), node)];
}

function lowerNamespaceBody(body: T.Statement[], parameter: string): T.Statement[] {
  const out: T.Statement[] = [];
  const exportName = (name: string, from: T.Node) =>
    at(
      t.expressionStatement(
        t.assignmentExpression(
          "=",
          t.memberExpression(t.identifier(parameter), t.identifier(name)),
          t.identifier(name),
        ),
      ),
      from,
    );
  for (const statement of body) {
    if (statement.type === "TSModuleDeclaration") {
      if (!statement.declare) out.push(...lowerNamespace(statement, { parameter, exported: false }));
      continue;
    }
    if (statement.type === "TSEnumDeclaration") {
      if (!statement.declare) out.push(lowerEnum(statement));
      continue;
    }
    if (statement.type !== "ExportNamedDeclaration") {
      out.push(statement);
      continue;
    }
    const declaration = statement.declaration;
    if (!declaration || statement.specifiers.length > 0 || statement.source) {
      throw new UnsupportedSyntax(
        "inside a namespace, export declarations only (`export const x = 1`, `export function f() {}`)",
        statement,
      );
    }
    switch (declaration.type) {
      case "VariableDeclaration": {
        if (declaration.declare) break;
        if (declaration.kind !== "const") {
          // TypeScript rewrites every later use of an exported `let` to `N.x`; like Babel, refuse rather than copy.
          throw new UnsupportedSyntax(
            `a namespace can export \`const\` only, not \`${declaration.kind}\`: use a const, or an object you change`,
            declaration,
          );
        }
        const names: string[] = [];
        for (const declarator of declaration.declarations) {
          if (declarator.id.type === "Identifier" && declarator.init) {
            // `export const x = 1` → `const x = _N.x = 1`
            declarator.init = t.assignmentExpression(
              "=",
              t.memberExpression(t.identifier(parameter), t.identifier(declarator.id.name)),
              declarator.init,
            );
          } else {
            names.push(...Object.keys(t.getBindingIdentifiers(declarator.id)));
          }
        }
        out.push(declaration);
        for (const name of names) out.push(exportName(name, declaration));
        break;
      }
      case "FunctionDeclaration":
      case "ClassDeclaration":
        if ((declaration as { declare?: boolean }).declare) break;
        out.push(declaration);
        if (declaration.id) out.push(exportName(declaration.id.name, declaration));
        break;
      case "TSEnumDeclaration":
        if (declaration.declare) break;
        out.push(lowerEnum(declaration), exportName(declaration.id.name, declaration));
        break;
      case "TSModuleDeclaration":
        if (declaration.declare) break;
        out.push(...lowerNamespace(declaration, { parameter, exported: true }));
        break;
      default:
        // Types (`export type`, `export interface`, `export declare ...`): erased.
        if (!declaration.type.startsWith("TS")) out.push(declaration);
        break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- parameter properties

/** `constructor(public a)` whose `super(...)` is not a top-level statement: assign right after every `super(...)`. */
function lowerNestedParameterProperties(node: T.ClassMethod): void {
  if (!node.params.some((param) => param.type === "TSParameterProperty")) return;
  const names: string[] = [];
  const params = node.params.map((param) => {
    if (param.type !== "TSParameterProperty") return param;
    const inner = param.parameter;
    const id = inner.type === "AssignmentPattern" ? inner.left : inner;
    if (id.type !== "Identifier")
      throw new UnsupportedSyntax("a parameter property cannot be a destructuring pattern", param);
    names.push(id.name);
    return inner;
  });
  const body = node.body.body;
  const topLevelSuper = body.some(
    (statement) =>
      statement.type === "ExpressionStatement" &&
      statement.expression.type === "CallExpression" &&
      statement.expression.callee.type === "Super",
  );
  let nested = false;
  if (!topLevelSuper) {
    const rewrite = (inner: T.Node): T.Node => {
      if (inner.type === "CallExpression" && inner.callee.type === "Super") {
        nested = true;
        const assignments = names.map((name) =>
          t.assignmentExpression("=", t.memberExpression(t.thisExpression(), t.identifier(name)), t.identifier(name)),
        );
        return at(t.sequenceExpression([inner, ...assignments, t.thisExpression()]), inner);
      }
      // A nested class or non-arrow function has its own `super`.
      if (
        inner !== node.body &&
        (t.isClass(inner) || (t.isFunction(inner) && inner.type !== "ArrowFunctionExpression"))
      )
        return inner;
      const record = inner as unknown as Record<string, unknown>;
      for (const key of t.VISITOR_KEYS[inner.type] ?? []) {
        const child = record[key];
        if (Array.isArray(child))
          record[key] = child.map((item) => (item && typeof item.type === "string" ? rewrite(item) : item));
        else if (child && typeof (child as T.Node).type === "string") record[key] = rewrite(child as T.Node);
      }
      return inner;
    };
    rewrite(node.body);
  }
  // Without a nested super, lowerSyntax's own lowering applies (assignments first, or after the top-level super).
  if (nested) node.params = params;
}

// ---------------------------------------------------------------- helpers

function findTypeScript(node: T.Node): T.Node | undefined {
  let found: T.Node | undefined;
  t.traverseFast(node, (inner) => {
    if (
      found === undefined &&
      inner.type.startsWith("TS") &&
      !inner.type.startsWith("TSType") &&
      inner.type !== "TSTypeAnnotation"
    )
      found = inner;
  });
  return found;
}

function at<N extends T.Node>(node: N, from: T.Node): N {
  node.loc = from.loc;
  node.start = from.start;
  node.end = from.end;
  return node;
}
