/**
 * Declaration conversion, after the walk: program-level declarations become
 * calls on the session scope (`const x = 1` → `$$r.d($$s, "x", KIND.const, 1)`;
 * patterns stage into `$$t` first so a failing initializer leaves the scope
 * untouched; function declarations are hoisted to the front).
 */
import { t } from "./babel";
import type * as T from "@babel/types";

import { identifier, runtimeCall, toMember, withLoc, type PassState, type Placement } from "./passState";
import { KIND, SCOPE, TEMP, type DeclarationKind } from "./transformNames";

export function convertDeclarations(program: T.Program, state: PassState): void {
  const declared = new Map<string, DeclarationKind>();

  for (const path of state.variableDeclarations) {
    const node = path.node;
    if (node.kind === "var") {
      const forHead =
        (path.parent.type === "ForInStatement" || path.parent.type === "ForOfStatement") && path.key === "left";
      const assignments: T.Expression[] = [];
      for (const declarator of node.declarations) {
        for (const name of Object.keys(t.getBindingIdentifiers(declarator.id))) declared.set(name, "var");
        if (forHead) continue;
        if (declarator.init) {
          const init =
            declarator.id.type === "Identifier" ? named(declarator.init, declarator.id.name) : declarator.init;
          const target = retargetPattern(declarator.id, SCOPE, undefined, state);
          assignments.push(withLoc(t.assignmentExpression("=", target as T.LVal, init), declarator));
        }
      }
      if (forHead) {
        replaceAt(path, retargetPattern(node.declarations[0].id, SCOPE, undefined, state));
      } else if (path.parent.type === "ForStatement" && path.key === "init") {
        replaceAt(path, assignments.length === 0 ? null : sequence(assignments, node));
      } else {
        replaceAt(
          path,
          assignments.length === 0
            ? t.emptyStatement()
            : withLoc(t.expressionStatement(sequence(assignments, node)), node),
        );
      }
      continue;
    }
    const kind: DeclarationKind = node.kind === "const" ? "const" : "let";
    const calls: T.Expression[] = [];
    for (const declarator of node.declarations) {
      const init = declarator.init ?? t.unaryExpression("void", t.numericLiteral(0));
      if (declarator.id.type === "Identifier") {
        declared.set(declarator.id.name, kind);
        calls.push(
          runtimeCall(
            "d",
            [identifier(SCOPE, state), t.stringLiteral(declarator.id.name), t.numericLiteral(KIND[kind]), init],
            state,
            declarator,
          ),
        );
        continue;
      }
      const names = new Set(Object.keys(t.getBindingIdentifiers(declarator.id)));
      for (const name of names) declared.set(name, kind);
      state.usesTemp = true;
      const pattern = retargetPattern(declarator.id, TEMP, names, state);
      const staged = t.sequenceExpression([
        t.assignmentExpression("=", identifier(TEMP, state), t.objectExpression([])),
        t.assignmentExpression("=", pattern as T.LVal, init),
        identifier(TEMP, state),
      ]);
      calls.push(runtimeCall("m", [identifier(SCOPE, state), t.numericLiteral(KIND[kind]), staged], state, declarator));
    }
    replaceAt(path, withLoc(t.expressionStatement(sequence(calls, node)), node));
  }

  for (const path of state.classDeclarations) {
    const node = path.node;
    const name = node.id!.name;
    declared.set(name, "class");
    const expression = withLoc(t.classExpression(node.id, node.superClass, node.body, node.decorators ?? []), node);
    replaceAt(
      path,
      withLoc(
        t.expressionStatement(
          runtimeCall(
            "d",
            [identifier(SCOPE, state), t.stringLiteral(name), t.numericLiteral(KIND.class), expression],
            state,
            node,
          ),
        ),
        node,
      ),
    );
  }

  if (state.functionDeclarations.length > 0) {
    const hoisted: T.Statement[] = [];
    const hoistedNodes = new Set<T.Node>();
    for (const path of state.functionDeclarations) {
      const node = path.node;
      const name = node.id!.name;
      declared.set(name, "function");
      const expression = withLoc(
        t.functionExpression(node.id, node.params, node.body, node.generator, node.async),
        node,
      );
      hoisted.push(
        withLoc(
          t.expressionStatement(
            runtimeCall(
              "d",
              [identifier(SCOPE, state), t.stringLiteral(name), t.numericLiteral(KIND.function), expression],
              state,
              node,
            ),
          ),
          node,
        ),
      );
      hoistedNodes.add(node);
    }
    program.body = [...hoisted, ...program.body.filter((statement) => !hoistedNodes.has(statement))];
  }

  for (const [name, kind] of declared) state.declared.push({ name, kind });
}

/**
 * `var app = () => …` names the function `app`; assigned to `$$s.app` it
 * would have no name (let and const get theirs in `declare`):
 * `({ "app": () => … })["app"]` gets the name the declaration would give.
 */
function named(init: T.Expression, name: string): T.Expression {
  const anonymous =
    init.type === "ArrowFunctionExpression" ||
    ((init.type === "FunctionExpression" || init.type === "ClassExpression") && !init.id);
  if (!anonymous) return init;
  return withLoc(
    t.memberExpression(
      t.objectExpression([t.objectProperty(t.stringLiteral(name), init)]),
      t.stringLiteral(name),
      true,
    ),
    init,
  );
}

function sequence(expressions: T.Expression[], at: T.Node): T.Expression {
  return expressions.length === 1 ? expressions[0] : withLoc(t.sequenceExpression(expressions), at);
}

/**
 * Puts `replacement` where the placement's node is now: ticks unshifted into a
 * block move it down, and a loop body that was a lone statement is wrapped in
 * a block since the walk recorded it.
 */
function replaceAt(placement: Placement<T.Node>, replacement: T.Node | null): void {
  const { container, key, node } = placement;
  if (Array.isArray(container)) {
    container[container.indexOf(node)] = replacement;
    return;
  }
  const current = container[key] as T.Node | null;
  if (current === node) {
    container[key] = replacement;
    return;
  }
  if (current?.type === "BlockStatement") {
    const index = current.body.indexOf(node as T.Statement);
    if (index >= 0) {
      current.body[index] = replacement as T.Statement;
      return;
    }
  }
  throw new Error("transform: lost track of a declaration");
}

/**
 * The declaration pattern with each bound name turned into `object.name`; with
 * `names`, references to those names in defaults (outside nested functions)
 * also read the staged `object.name`, as `const { a, b = a } = x` requires.
 */
function retargetPattern(
  pattern: T.Node,
  objectName: string,
  names: Set<string> | undefined,
  state: PassState,
): T.Node {
  const visit = (node: T.Node, inFunction: boolean): T.Node => {
    if (names && !inFunction && state.scopeReferences.has(node)) {
      const reference = node as T.MemberExpression;
      if (names.has((reference.property as T.Identifier).name)) reference.object = identifier(objectName, state);
      return node;
    }
    const record = node as unknown as Record<string, unknown>;
    const keys = t.VISITOR_KEYS[node.type] ?? [];
    const nested = inFunction || t.isFunction(node) || t.isClass(node);
    for (const key of keys) {
      const child = record[key];
      if (Array.isArray(child)) {
        for (let index = 0; index < child.length; index += 1) {
          if (child[index]) child[index] = visitChild(node, key, child[index] as T.Node, nested);
        }
      } else if (child && typeof (child as T.Node).type === "string") {
        record[key] = visitChild(node, key, child as T.Node, nested);
      }
    }
    return node;
  };
  // Only binding positions of the declaration's own pattern become members:
  // keys, defaults and computed keys are expressions whose identifiers were
  // already resolved, and patterns inside nested functions bind locals.
  const visitChild = (parent: T.Node, key: string, child: T.Node, inFunction: boolean): T.Node => {
    if (child.type === "Identifier") {
      const bindingPosition =
        (parent.type === "ObjectProperty" && key === "value") ||
        parent.type === "ArrayPattern" ||
        parent.type === "RestElement" ||
        (parent.type === "AssignmentPattern" && key === "left");
      if (!bindingPosition || inFunction || state.generated.has(child)) return child;
      return toMember(child, objectName, state);
    }
    if (parent.type === "ObjectProperty" && key === "key") return child;
    return visit(child, inFunction);
  };
  if (pattern.type === "Identifier") return toMember(pattern, objectName, state);
  clearShorthands(pattern);
  return visit(pattern, false);
}

function clearShorthands(pattern: T.Node): void {
  if (pattern.type === "ObjectPattern") {
    for (const property of pattern.properties) {
      if (property.type === "ObjectProperty") {
        if (property.shorthand) {
          property.shorthand = false;
          if (property.key === property.value) property.key = t.identifier((property.key as T.Identifier).name);
          if (property.value.type === "AssignmentPattern" && property.value.left === property.key) {
            property.key = t.identifier((property.key as T.Identifier).name);
          }
        }
        clearShorthands(property.value);
      } else {
        clearShorthands(property.argument);
      }
    }
  } else if (pattern.type === "ArrayPattern") {
    for (const element of pattern.elements) if (element) clearShorthands(element);
  } else if (pattern.type === "AssignmentPattern") {
    clearShorthands(pattern.left);
  } else if (pattern.type === "RestElement") {
    clearShorthands(pattern.argument);
  }
}
