/**
 * Reference rewriting: one recursive walk over the plain AST with its own
 * scope tracking. Babel's `traverse` does the same with NodePaths and a scope
 * crawl, at ~0.5-1 ms for a 700-character JSX statement; this walk takes a
 * tenth of that, and the transform's whole budget is a fraction of 2 ms.
 *
 * References to top-level names become `$$s.name`, realm globals `$$g.name`;
 * loops and function entries get ticks, `await` and `.then` keep the
 * statement's context; program-level declarations are recorded in the state
 * for convertDeclarations.ts.
 */
import { t } from "./babel";
import type * as T from "@babel/types";

import {
  identifier,
  member,
  runtimeCall,
  toMember,
  withLoc,
  type Container,
  type FreeName,
  type FunctionContext,
  type PassState,
  type Scope,
} from "./passState";
import { loweredChildKeys } from "./lowerSyntax";
import { lexicalNames, patternNames, resolve, scopeOf, varNames } from "./scopeNames";
import {
  CONTEXT,
  errorAt,
  GLOBALS,
  RESERVED,
  RUNTIME,
  SCOPE,
  SHADOWABLE_GLOBALS,
  type SiteKind,
} from "./transformNames";

function shadowMessage(name: string, realm: boolean): string {
  return realm
    ? `\`${name}\` is a global of the realm; declaring it would hide it from every later statement. Choose another name.`
    : `\`${name}\` is a platform global; declaring it would hide it from every later statement. Choose another name.`;
}

function line(node: T.Node): number {
  return node.loc?.start.line ?? 1;
}

function column(node: T.Node): number {
  return (node.loc?.start.column ?? 0) + 1;
}

function tickCall(kind: SiteKind, at: T.Node, state: PassState): T.CallExpression {
  // A function's source range lets `fn.toString()` give back the model's text.
  const range =
    kind === "function" && typeof at.start === "number" && typeof at.end === "number"
      ? { start: at.start, end: at.end }
      : undefined;
  const site = state.environment.site(kind, line(at), column(at), range);
  return runtimeCall("tick", [t.numericLiteral(site)], state);
}

export function rewriteProgram(program: T.Program, state: PassState): void {
  const top = new Map<string, T.Identifier>();
  varNames(program.body, top);
  lexicalNames(program.body, top);
  for (const [name, at] of top) {
    if (RESERVED.has(name)) throw errorAt("unsupported", `\`${name}\` is reserved by the realm`, at);
    if (state.environment.isRealmGlobal(name) && !(state.environment.yieldsToDeclaration?.(name) ?? false)) {
      throw errorAt("shadow-global", shadowMessage(name, true), at);
    }
    // Object.prototype's names (`constructor`, `toString`) are on globalThis
    // only through its prototype: not globals anyone means to use.
    if (state.environment.isPlatformGlobal(name) && !SHADOWABLE_GLOBALS.has(name) && !(name in Object.prototype)) {
      throw errorAt("shadow-global", shadowMessage(name, false), at);
    }
  }
  state.program.names = new Set(top.keys());
  const context: FunctionContext = { topLevel: true };
  walkList(program.body, program, state.program, context, state);
}

function walkList(
  list: (T.Node | null)[],
  parent: T.Node,
  scope: Scope,
  context: FunctionContext,
  state: PassState,
): void {
  for (let index = 0; index < list.length; index += 1) {
    const child = list[index];
    if (child) walk(child, parent, list as unknown as Container, index, scope, context, state);
  }
}

function walkKey(node: T.Node, key: string, scope: Scope, context: FunctionContext, state: PassState): void {
  const child = (node as unknown as Container)[key] as T.Node | T.Node[] | null | undefined;
  if (!child) return;
  if (Array.isArray(child)) walkList(child, node, scope, context, state);
  else walk(child, node, node as unknown as Container, key, scope, context, state);
}

/** Every child by the generic visitor keys. */
function walkChildren(node: T.Node, scope: Scope, context: FunctionContext, state: PassState): void {
  // Lowered code has no type annotations left: only the keys that can hold code.
  const keys = loweredChildKeys(node.type);
  if (keys) for (const key of keys) walkKey(node, key, scope, context, state);
}

function walk(
  node: T.Node,
  parent: T.Node,
  container: Container,
  key: string | number,
  scope: Scope,
  context: FunctionContext,
  state: PassState,
): void {
  if (state.generated.has(node)) return;
  switch (node.type) {
    case "Identifier":
      reference(node, scope, state);
      break;

    case "MemberExpression":
    case "OptionalMemberExpression":
      walkKey(node, "object", scope, context, state);
      if (node.computed) walkKey(node, "property", scope, context, state);
      break;

    case "ObjectProperty": {
      // In an object literal; patterns go through `pattern`.
      if (node.computed) walkKey(node, "key", scope, context, state);
      if (node.shorthand && node.key === node.value) node.key = t.cloneNode(node.key as T.Identifier);
      walkKey(node, "value", scope, context, state);
      if (node.shorthand && node.value.type !== "Identifier") node.shorthand = false;
      break;
    }

    case "ObjectMethod":
    case "ClassMethod":
    case "ClassPrivateMethod":
      if (node.computed) walkKey(node, "key", scope, context, state);
      functionNode(node, scope, state);
      break;

    case "ClassProperty":
    case "ClassPrivateProperty":
    case "ClassAccessorProperty":
      if ((node as { computed?: boolean }).computed) walkKey(node, "key", scope, context, state);
      // An initializer runs per instance, outside any await of the statement.
      walkKey(node, "value", scope, { topLevel: false }, state);
      break;

    case "ClassDeclaration":
    case "ClassExpression": {
      if (node.type === "ClassDeclaration" && parent.type === "Program") {
        state.classDeclarations.push({ node, parent, container, key });
      }
      let inner = scope;
      // A class expression's own name is visible only inside it.
      if (node.type === "ClassExpression" && node.id) inner = { names: new Set([node.id.name]), parent: scope };
      walkKey(node, "superClass", scope, context, state);
      walkKey(node, "body", inner, context, state);
      break;
    }

    case "FunctionDeclaration":
      if (parent.type === "Program") state.functionDeclarations.push({ node, parent, container, key });
      functionNode(node, scope, state);
      break;

    case "FunctionExpression":
    case "ArrowFunctionExpression":
      functionNode(node, scope, state);
      break;

    case "VariableDeclaration": {
      // `var` anywhere outside functions binds at top level; let/const only directly there.
      const programLevel = node.kind === "var" ? context.topLevel : parent.type === "Program";
      if (programLevel) state.variableDeclarations.push({ node, parent, container, key });
      for (const declarator of node.declarations) {
        pattern(declarator.id, "declare", scope, context, state);
        walkKey(declarator, "init", scope, context, state);
      }
      break;
    }

    case "AssignmentExpression":
      pattern(node.left, "assign", scope, context, state, node, "left");
      walkKey(node, "right", scope, context, state);
      break;

    case "UnaryExpression":
      if (node.operator === "typeof" && node.argument.type === "Identifier" && !state.generated.has(node.argument)) {
        typeofReference(node, scope, state);
        break;
      }
      walkChildren(node, scope, context, state);
      break;

    case "BlockStatement": {
      const names = scratchNames();
      lexicalNames(node.body, names);
      walkList(node.body, node, names.size > 0 ? scopeOf(names, scope) : scope, context, state);
      break;
    }

    case "StaticBlock": {
      // Runs like a function body: its `var`s stay inside.
      const names = new Map<string, T.Identifier>();
      varNames(node.body, names);
      lexicalNames(node.body, names);
      walkList(node.body, node, scopeOf(names, scope), { topLevel: false }, state);
      break;
    }

    case "SwitchStatement": {
      walkKey(node, "discriminant", scope, context, state);
      const names = new Map<string, T.Identifier>();
      for (const switchCase of node.cases) lexicalNames(switchCase.consequent, names);
      const inner = names.size > 0 ? scopeOf(names, scope) : scope;
      for (const switchCase of node.cases) {
        walkKey(switchCase, "test", inner, context, state);
        walkList(switchCase.consequent, switchCase, inner, context, state);
      }
      break;
    }

    case "CatchClause": {
      const names = new Map<string, T.Identifier>();
      patternNames(node.param, names);
      const inner = names.size > 0 ? scopeOf(names, scope) : scope;
      if (node.param) pattern(node.param, "declare", inner, context, state);
      walkKey(node, "body", inner, context, state);
      // `catch (error)`: the model's code reads `error.message` as plain
      // JavaScript would word it (`rows.forEach is not a function`).
      if (node.param?.type === "Identifier")
        node.body.body.unshift(t.expressionStatement(runtimeCall("ce", [t.identifier(node.param.name)], state)));
      // A rejected `await` resumes here, not in `$$r.re(...)`: restore the context first.
      if (resumesAfterAwait(context, state))
        node.body.body.unshift(t.expressionStatement(runtimeCall("re", [identifier(CONTEXT, state)], state)));
      break;
    }

    case "TryStatement":
      walkChildren(node, scope, context, state);
      if (node.finalizer && resumesAfterAwait(context, state)) {
        node.finalizer.body.unshift(t.expressionStatement(runtimeCall("re", [identifier(CONTEXT, state)], state)));
      }
      break;

    case "ForStatement":
    case "ForInStatement":
    case "ForOfStatement":
    case "WhileStatement":
    case "DoWhileStatement":
      loop(node, scope, context, state);
      break;

    case "LabeledStatement":
      walkKey(node, "body", scope, context, state);
      if (state.resumeAfter.has(node.body)) {
        state.resumeAfter.delete(node.body);
        state.resumeAfter.add(node);
      }
      break;

    case "BreakStatement":
    case "ContinueStatement":
    case "MetaProperty":
    case "PrivateName":
    case "ThisExpression":
    case "Super":
      break;

    case "AwaitExpression":
      walkKey(node, "argument", scope, context, state);
      if (context.topLevel) state.topLevelAwait = true;
      awaitNode(node, state);
      break;

    case "CallExpression":
      walkChildren(node, scope, context, state);
      thenCall(node, state);
      break;

    default:
      walkChildren(node, scope, context, state);
      break;
  }
  if (state.resumeAfter.has(node) && parent.type !== "LabeledStatement") {
    // `for await` resumes after an await when it ends: restore the context there.
    state.resumeAfter.delete(node);
    const after = t.expressionStatement(runtimeCall("re", [identifier(CONTEXT, state)], state));
    container[key] = t.blockStatement([node as T.Statement, after]);
  }
}

/** A reference or assignment target. */
function reference(node: T.Identifier, scope: Scope, state: PassState): void {
  const name = node.name;
  if (name === "undefined") return;
  if (RESERVED.has(name)) throw errorAt("unsupported", `\`${name}\` is reserved by the realm`, node);
  const resolved = resolve(name, scope, state);
  if (resolved === "local") return;
  if (resolved === "program") {
    state.scopeReferences.add(toMember(node, SCOPE, state));
    return;
  }
  const freeNames = (state.freeNames ??= new Map());
  let free = freeNames.get(name);
  if (free === undefined) {
    free = freeName(name, state.environment);
    freeNames.set(name, free);
  }
  if (free === "globals") toMember(node, GLOBALS, state);
  else if (free === "scope") state.scopeReferences.add(toMember(node, SCOPE, state));
}

/** The environment does not change while a statement is transformed: asked once per name (a long statement repeats its names). */
function freeName(name: string, environment: PassState["environment"]): FreeName {
  // A realm global the model declared itself is the model's from then on.
  if (environment.isRealmGlobal(name) && !environment.isDeclared(name)) return "globals";
  if (environment.isPlatformGlobal(name) && !environment.isDeclared(name)) return "platform";
  return "scope";
}

/** `typeof later` must not throw for a name nobody declared yet. */
function typeofReference(node: T.UnaryExpression, scope: Scope, state: PassState): void {
  const argument = node.argument as T.Identifier;
  const name = argument.name;
  const environment = state.environment;
  const resolved = resolve(name, scope, state);
  if (
    resolved === "free" &&
    environment.isRealmGlobal(name) &&
    !environment.isDeclared(name) &&
    environment.hiddenFromTypeof?.(name)
  ) {
    // A stand-in for what the realm does not have (`document`): feature
    // detection sees what a worker has, direct use gets the lesson.
    const target = node as unknown as Record<string, unknown>;
    target.type = "StringLiteral";
    target.value = "undefined";
    delete target.operator;
    delete target.argument;
    delete target.prefix;
    state.generated.add(node);
    return;
  }
  if (
    resolved !== "free" ||
    environment.isRealmGlobal(name) ||
    environment.isDeclared(name) ||
    environment.isPlatformGlobal(name)
  ) {
    reference(argument, scope, state);
    return;
  }
  if (RESERVED.has(name)) throw errorAt("unsupported", `\`${name}\` is reserved by the realm`, argument);
  const target = node as unknown as Record<string, unknown>;
  target.type = "CallExpression";
  target.callee = member(RUNTIME, "ty", state);
  target.arguments = [identifier(SCOPE, state), t.stringLiteral(name)];
  delete target.operator;
  delete target.argument;
  delete target.prefix;
}

/**
 * A pattern: in `declare` mode its names are bindings (left alone; program
 * ones are converted afterwards), in `assign` mode they are targets resolved
 * like references. Defaults and computed keys are expressions either way.
 */
function pattern(
  node: T.Node,
  mode: "declare" | "assign",
  scope: Scope,
  context: FunctionContext,
  state: PassState,
  parent?: T.Node,
  key?: string,
): void {
  switch (node.type) {
    case "Identifier":
      if (mode === "assign") reference(node, scope, state);
      return;
    case "ObjectPattern":
      for (const property of node.properties) {
        if (property.type === "RestElement") {
          pattern(property.argument, mode, scope, context, state);
          continue;
        }
        if (property.computed) walkKey(property, "key", scope, context, state);
        if (property.shorthand && property.key === property.value)
          property.key = t.cloneNode(property.key as T.Identifier);
        pattern(property.value, mode, scope, context, state);
        const inner = property.value.type === "AssignmentPattern" ? property.value.left : property.value;
        if (property.shorthand && inner.type !== "Identifier") property.shorthand = false;
      }
      return;
    case "ArrayPattern":
      for (const element of node.elements) if (element) pattern(element, mode, scope, context, state);
      return;
    case "AssignmentPattern":
      pattern(node.left, mode, scope, context, state);
      walkKey(node, "right", scope, context, state);
      return;
    case "RestElement":
      pattern(node.argument, mode, scope, context, state);
      return;
    default:
      // A member expression (`obj.x = 1`) or anything else: an expression.
      if (parent && key) walk(node, parent, parent as unknown as Container, key, scope, context, state);
      else walkChildren(node, scope, context, state);
      return;
  }
}

/** The contexts of function bodies (never mutated: shared). */
const SYNC_FUNCTION: FunctionContext = { topLevel: false, async: false };
const ASYNC_FUNCTION: FunctionContext = { topLevel: false, async: true };

/**
 * One map for the names a block or function binds, emptied for each: the
 * names are copied into the scope's Set before anything inside is walked,
 * and most blocks and arrows bind nothing (a 2,000-entry statement made 4,000
 * maps for that).
 */
const SCRATCH_NAMES = new Map<string, T.Identifier>();

function scratchNames(): Map<string, T.Identifier> {
  if (SCRATCH_NAMES.size > 0) SCRATCH_NAMES.clear();
  return SCRATCH_NAMES;
}

type FunctionLike =
  | T.FunctionDeclaration
  | T.FunctionExpression
  | T.ArrowFunctionExpression
  | T.ObjectMethod
  | T.ClassMethod
  | T.ClassPrivateMethod;

function functionNode(node: FunctionLike, scope: Scope, state: PassState): void {
  let outer = scope;
  // A function expression's own name is visible only inside it.
  if (node.type === "FunctionExpression" && node.id) outer = { names: new Set([node.id.name]), parent: scope };
  const names = scratchNames();
  for (const param of node.params) patternNames(param, names);
  // Arrows see their enclosing function's `arguments`; at top level there is
  // none, and `$$s.arguments` throws as a script's would.
  if (node.type !== "ArrowFunctionExpression") names.set("arguments", t.identifier("arguments"));
  const body = node.body;
  if (body.type === "BlockStatement") {
    varNames(body.body, names);
    lexicalNames(body.body, names);
  }
  // An arrow that binds nothing (`() => { a(); }`) resolves every name as its outer scope does.
  const inner: Scope = names.size === 0 ? outer : { names: new Set(names.keys()), parent: outer };
  const context = node.async ? ASYNC_FUNCTION : SYNC_FUNCTION;
  for (let index = 0; index < node.params.length; index += 1)
    pattern(node.params[index], "declare", inner, context, state);
  if (body.type === "BlockStatement") walkList(body.body, body, inner, context, state);
  else walk(body, node, node as unknown as Container, "body", inner, context, state);

  const entry = tickCall("function", node, state);
  if (node.async) {
    // Capture the caller's context at entry; every await inside restores it.
    const capture = t.variableDeclaration("const", [
      t.variableDeclarator(identifier(CONTEXT, state), runtimeCall("ea", [entry.arguments[0] as T.Expression], state)),
    ]);
    if (node.body.type === "BlockStatement") node.body.body.unshift(capture);
    else node.body = t.blockStatement([capture, withLoc(t.returnStatement(node.body), node.body)]);
    return;
  }
  if (node.body.type === "BlockStatement") node.body.body.unshift(t.expressionStatement(entry));
  else node.body = withLoc(t.sequenceExpression([entry, node.body]), node.body);
}

function loop(node: T.Loop, scope: Scope, context: FunctionContext, state: PassState): void {
  let inner = scope;
  const head =
    node.type === "ForStatement"
      ? node.init
      : node.type === "ForInStatement" || node.type === "ForOfStatement"
        ? node.left
        : null;
  if (head?.type === "VariableDeclaration" && head.kind !== "var") {
    const names = new Map<string, T.Identifier>();
    for (const declarator of head.declarations) patternNames(declarator.id, names);
    inner = scopeOf(names, scope);
  }
  switch (node.type) {
    case "ForStatement":
      walkKey(node, "init", inner, context, state);
      walkKey(node, "test", inner, context, state);
      walkKey(node, "update", inner, context, state);
      break;
    case "ForInStatement":
    case "ForOfStatement":
      walkKey(node, "right", scope, context, state);
      if (node.left.type === "VariableDeclaration")
        walk(node.left, node, node as unknown as Container, "left", inner, context, state);
      else pattern(node.left, "assign", inner, context, state, node, "left");
      break;
    case "WhileStatement":
    case "DoWhileStatement":
      walkKey(node, "test", scope, context, state);
      break;
    default:
      break;
  }
  walkKey(node, "body", inner, context, state);

  const statements: T.Statement[] = [t.expressionStatement(tickCall("loop", node, state))];
  if (node.type === "ForOfStatement" && node.await) {
    // Each iteration resumes after an await: restore the context first.
    statements.push(t.expressionStatement(runtimeCall("re", [identifier(CONTEXT, state)], state)));
    if (context.topLevel) state.topLevelAwait = true;
    state.resumeAfter.add(node);
  }
  if (node.body.type === "BlockStatement") node.body.body.unshift(...statements);
  else node.body = t.blockStatement([...statements, node.body]);
}

/** Code here may run right after an `await` rejected (an async function, or a statement with a top-level await). */
function resumesAfterAwait(context: FunctionContext, state: PassState): boolean {
  return context.async === true || (context.topLevel && state.topLevelAwait === true);
}

/** `await x` → `$$r.re($$c, await x)`: back in the statement's context when it resumes. */
function awaitNode(node: T.AwaitExpression, state: PassState): void {
  const inner = t.awaitExpression(node.argument);
  state.generated.add(inner);
  const target = node as unknown as Record<string, unknown>;
  target.type = "CallExpression";
  target.callee = member(RUNTIME, "re", state);
  target.arguments = [identifier(CONTEXT, state), inner];
  delete target.argument;
}

/**
 * `p.then(f)` → `$$r.th(p, "then", "p.then", f)`: `f` runs in the context
 * that called `then` (console attribution). The third argument is the callee
 * as the engine would name it, for `p.then is not a function`.
 */
function thenCall(node: T.CallExpression, state: PassState): void {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier") return;
  const method = callee.property.name;
  if (method !== "then" && method !== "catch" && method !== "finally") return;
  if (callee.object.type === "Super") return;
  node.arguments = [
    callee.object as T.Expression,
    t.stringLiteral(method),
    t.stringLiteral(calleeText(callee)),
    ...node.arguments,
  ];
  node.callee = member(RUNTIME, "th", state);
}

/** An expression as V8 names it in `… is not a function`: `rows.data.then`, `load(...).then`, `(intermediate value).then`. */
function calleeText(node: T.Node): string {
  switch (node.type) {
    case "Identifier":
      return node.name;
    case "ThisExpression":
      return "this";
    case "MemberExpression":
    case "OptionalMemberExpression": {
      const object = node.object;
      // `$$s.rows` / `$$g.z` were references: the model wrote `rows`, `z`.
      if (object.type === "Identifier" && (object.name === SCOPE || object.name === GLOBALS))
        return calleeText(node.property);
      const property = node.property;
      if (!node.computed) return `${calleeText(object)}.${property.type === "Identifier" ? property.name : "#private"}`;
      const key =
        property.type === "NumericLiteral"
          ? String(property.value)
          : property.type === "StringLiteral"
            ? JSON.stringify(property.value)
            : calleeText(property);
      return `${calleeText(object)}[${key}]`;
    }
    case "CallExpression":
    case "OptionalCallExpression":
      return `${calleeText(node.callee)}(...)`;
    default:
      return "(intermediate value)";
  }
}
