/**
 * One top-level statement (TypeScript + JSX) → the body of a strict function
 * that runs it against the session scope.
 *
 * The compiled body receives four parameters:
 * - `$$s` the session scope: one object holding every top-level binding ever
 *   declared (sessionScope.ts). Every reference to a persistent name, in this
 *   statement and in its closures, reads and writes `$$s.name`, so a closure
 *   sees later assignments and a later statement sees this one's declarations.
 * - `$$g` the realm globals (React, mount, console, timers, ...), frozen.
 * - `$$r` the executor's runtime hooks (declare, loop-guard tick, await
 *   resume, promise callbacks): `ExecutorRuntime` in executor.ts.
 * - `$$c` the statement's context, restored after every top-level `await`.
 *
 * Name resolution for an identifier that no local scope binds:
 *   declared at top level by this statement → `$$s.name`
 *   realm global                            → `$$g.name`
 *   on globalThis and not yet declared      → left alone (platform global)
 *   anything else                           → `$$s.name` (a later statement may
 *     declare it; until then the scope's prototype looks on globalThis and
 *     otherwise throws the usual `ReferenceError: x is not defined`)
 *
 * Declarations become calls: `const x = 1` → `$$r.d($$s, "x", KIND.const, 1)`;
 * patterns destructure into a temporary object first (`$$t`) so a failing
 * initializer leaves the scope untouched; `var` names are hoisted into the
 * scope by the prologue; function declarations are hoisted to the front.
 *
 * Lines are retained (`retainLines`), so line L of the compiled code is line L
 * of the statement; columns are recovered on demand from a source map
 * (`sourceMaps: true`), which costs a second transform only when an error
 * needs it.
 */
import type * as T from "@babel/types";
import { generate, parser, t } from "./babel";
import { lowerRuntimeTypeScript } from "./lowerRuntimeTypeScript";
import { lowerSyntax, NEEDS_PRESETS, UnsupportedSyntax } from "./lowerSyntax";

export const SCOPE = "$$s";
export const GLOBALS = "$$g";
export const RUNTIME = "$$r";
export const CONTEXT = "$$c";
const TEMP = "$$t";
/** Parameter names of every compiled statement, in order. */
export const PARAMETERS = [SCOPE, GLOBALS, RUNTIME, CONTEXT] as const;
const RESERVED = new Set<string>([SCOPE, GLOBALS, RUNTIME, CONTEXT, TEMP]);

/** Binding kinds as compiled into `$$r.d(...)` calls. */
export const KIND = { var: 0, let: 1, const: 2, function: 3, class: 4 } as const;
export type DeclarationKind = keyof typeof KIND;

/**
 * Properties of globalThis that are instance state rather than an API; a model
 * writing `const name = "Ada"` means its own variable. Everything else on
 * globalThis is refused as a declaration name (`shadow-global`).
 */
export const SHADOWABLE_GLOBALS = new Set(["name", "status", "length", "origin", "event", "closed", "parent", "top", "frames", "opener"]);

export type SiteKind = "loop" | "function";

export interface TransformEnvironment {
  /** Provided by the realm (React, mount, console, timers, ...): read through `$$g`. */
  isRealmGlobal(name: string): boolean;
  /** A property of globalThis. */
  isPlatformGlobal(name: string): boolean;
  /** Already declared in the session scope by an earlier statement. */
  isDeclared(name: string): boolean;
  /** Allocates a loop-guard site (1-based line and column in the statement); its id is compiled in. */
  site(kind: SiteKind, line: number, column: number): number;
}

export type TransformErrorCode = "syntax" | "shadow-global" | "unsupported";

export class TransformError extends Error {
  constructor(
    readonly code: TransformErrorCode,
    message: string,
    /** 1-based, in the statement source. */
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = code === "syntax" ? "SyntaxError" : code === "shadow-global" ? "ShadowGlobalError" : "UnsupportedError";
  }
}

export interface Mapping {
  generatedLine: number;
  generatedColumn: number;
  originalLine: number;
  originalColumn: number;
}

export interface TransformResult {
  /** Function body: `"use strict";` and the prologue on the first line, the statement from the second. */
  body: string;
  /** Lines before the statement's first line in `body`. */
  bodyLineOffset: number;
  /** Contains a top-level `await` (or `for await`): compile as an async function. */
  async: boolean;
  /** Top-level names this statement declares. */
  declared: { name: string; kind: DeclarationKind }[];
  /** The statement needed the runtime TypeScript lowering (namespaces, computed enum members): the slow path. */
  usedPresets: boolean;
  /** With `sourceMaps`: generated (1-based line in the statement code, 0-based column) → original. */
  mappings?: Mapping[];
}

const PARSER_OPTIONS = {
  sourceType: "script",
  strictMode: true,
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
  errorRecovery: false,
  plugins: ["jsx", "typescript"],
} as const;

const GENERATOR_OPTIONS = { retainLines: true, comments: false, jsescOption: { minimal: true } };

export function transformStatement(
  source: string,
  environment: TransformEnvironment,
  options: { sourceMaps?: boolean } = {},
): TransformResult {
  let file = parse(source);
  let usedPresets = false;
  try {
    lowerSyntax(file.program);
  } catch (error) {
    if (error instanceof UnsupportedSyntax) throw errorAt("unsupported", error.message, error.node);
    if (error !== NEEDS_PRESETS) throw error;
    usedPresets = true;
    file = parse(source);
    try {
      lowerRuntimeTypeScript(file.program);
    } catch (inner) {
      if (inner instanceof UnsupportedSyntax) throw errorAt("unsupported", inner.message, inner.node);
      throw inner;
    }
  }

  const state: PassState = {
    environment,
    program: { names: new Set(), parent: null },
    generated: new Set(),
    scopeReferences: new Set(),
    resumeAfter: new Set(),
    topLevelAwait: false,
    usesTemp: false,
    declared: [],
    variableDeclarations: [],
    functionDeclarations: [],
    classDeclarations: [],
  };
  rewriteProgram(file.program, state);
  convertDeclarations(file.program, state);

  const generated = options.sourceMaps
    ? generate(file, { ...GENERATOR_OPTIONS, sourceMaps: true, sourceFileName: "statement" }, source)
    : generate(file, GENERATOR_OPTIONS);

  let prologue = "";
  const varNames = state.declared.filter((item) => item.kind === "var").map((item) => item.name);
  if (varNames.length > 0) prologue += `${RUNTIME}.v(${SCOPE},${JSON.stringify(varNames)});`;
  if (state.usesTemp) prologue += `let ${TEMP};`;

  const result: TransformResult = {
    body: `"use strict";${prologue}\n${generated.code}`,
    bodyLineOffset: 1,
    async: state.topLevelAwait,
    declared: state.declared,
    usedPresets,
  };
  if (options.sourceMaps) {
    const raw = (generated as unknown as { rawMappings?: { generated: { line: number; column: number }; original?: { line: number; column: number } }[] }).rawMappings ?? [];
    result.mappings = raw
      .filter((mapping) => mapping.original)
      .map((mapping) => ({
        generatedLine: mapping.generated.line,
        generatedColumn: mapping.generated.column,
        originalLine: mapping.original!.line,
        originalColumn: mapping.original!.column,
      }));
  }
  return result;
}

function parse(source: string): T.File {
  try {
    return parser.parse(source, PARSER_OPTIONS as never) as unknown as T.File;
  } catch (error) {
    const located = error as { message?: string; loc?: { line: number; column: number } };
    if (located.loc) {
      const message = String(located.message).replace(/\s*\(\d+:\d+\)$/, "");
      throw new TransformError("syntax", message, located.loc.line, located.loc.column + 1);
    }
    throw error;
  }
}

function errorAt(code: TransformErrorCode, message: string, node: T.Node | null | undefined): TransformError {
  const start = node?.loc?.start;
  return new TransformError(code, message, start?.line ?? 1, (start?.column ?? 0) + 1);
}

// ---------------------------------------------------------------- the rewrite pass
//
// One recursive walk over the plain AST with its own scope tracking. Babel's
// `traverse` does the same with NodePaths and a scope crawl, at ~0.5-1 ms
// for a 700-character JSX statement; this walk takes a tenth of that, and the
// transform's whole budget is a fraction of 2 ms.

/** A lexical scope: the names it binds. The program scope holds this statement's top-level declarations. */
interface Scope {
  names: Set<string>;
  parent: Scope | null;
}

/** The function whose body is being walked (the statement itself at top level). */
interface FunctionContext {
  topLevel: boolean;
}

/** Where a program-level declaration sits, to replace it after the walk. */
interface Placement<N extends T.Node> {
  node: N;
  parent: T.Node;
  container: Record<string | number, unknown>;
  key: string | number;
}

interface PassState {
  environment: TransformEnvironment;
  program: Scope;
  /** Nodes this pass created; never rewritten again. (Plain sets: they live for one call, and weak ones cost the GC more.) */
  generated: Set<T.Node>;
  /** `$$s.name` member expressions made from references, for pattern retargeting. */
  scopeReferences: Set<T.Node>;
  /** `for await` loops (or their labels) that need a context restore after them. */
  resumeAfter: Set<T.Node>;
  topLevelAwait: boolean;
  usesTemp: boolean;
  declared: { name: string; kind: DeclarationKind }[];
  variableDeclarations: Placement<T.VariableDeclaration>[];
  functionDeclarations: Placement<T.FunctionDeclaration>[];
  classDeclarations: Placement<T.ClassDeclaration>[];
}

function identifier(name: string, state: PassState): T.Identifier {
  const node = t.identifier(name);
  state.generated.add(node);
  return node;
}

function member(objectName: string, property: string, state: PassState): T.MemberExpression {
  const node = t.memberExpression(identifier(objectName, state), identifier(property, state));
  state.generated.add(node);
  return node;
}

function runtimeCall(method: string, args: T.Expression[], state: PassState, at?: T.Node): T.CallExpression {
  const call = t.callExpression(member(RUNTIME, method, state), args);
  state.generated.add(call);
  if (at?.loc) call.loc = at.loc;
  return call;
}

/** Turns the Identifier `node` into `object.name`, in place (keeps its position). */
function toMember(node: T.Identifier, objectName: string, state: PassState): T.MemberExpression {
  const name = node.name;
  const target = node as unknown as Record<string, unknown>;
  // Both parts keep the identifier's position, so an error anywhere in
  // `$$s.name` maps back to the name.
  const object = identifier(objectName, state);
  const property = identifier(name, state);
  object.loc = property.loc = node.loc;
  target.type = "MemberExpression";
  target.object = object;
  target.property = property;
  target.computed = false;
  delete target.name;
  delete target.typeAnnotation;
  delete target.optional;
  state.generated.add(node);
  return node as unknown as T.MemberExpression;
}

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
  const site = state.environment.site(kind, line(at), column(at));
  return runtimeCall("tick", [t.numericLiteral(site)], state);
}

// ------------------------------------------------------------ declarations in a scope

/** Names bound by a pattern, with the identifier nodes (first one wins). */
function patternNames(pattern: T.Node | null | undefined, into: Map<string, T.Identifier>): void {
  if (!pattern) return;
  switch (pattern.type) {
    case "Identifier":
      if (!into.has(pattern.name)) into.set(pattern.name, pattern);
      return;
    case "ObjectPattern":
      for (const property of pattern.properties) patternNames(property.type === "RestElement" ? property.argument : property.value, into);
      return;
    case "ArrayPattern":
      for (const element of pattern.elements) patternNames(element, into);
      return;
    case "AssignmentPattern":
      patternNames(pattern.left, into);
      return;
    case "RestElement":
      patternNames(pattern.argument, into);
      return;
    default:
      return;
  }
}

/** `var` declarations hoisted to the enclosing function (or program) from `statements`, not entering functions. */
function varNames(statements: readonly (T.Node | null | undefined)[], into: Map<string, T.Identifier>): void {
  for (const statement of statements) {
    if (!statement) continue;
    switch (statement.type) {
      case "VariableDeclaration":
        if (statement.kind === "var") for (const declarator of statement.declarations) patternNames(declarator.id, into);
        break;
      case "BlockStatement":
        varNames(statement.body, into);
        break;
      case "IfStatement":
        varNames([statement.consequent, statement.alternate], into);
        break;
      case "ForStatement":
        varNames([statement.init as T.Node | null, statement.body], into);
        break;
      case "ForInStatement":
      case "ForOfStatement":
        varNames([statement.left, statement.body], into);
        break;
      case "WhileStatement":
      case "DoWhileStatement":
      case "LabeledStatement":
        varNames([statement.body], into);
        break;
      case "TryStatement":
        varNames([statement.block, statement.handler?.body, statement.finalizer], into);
        break;
      case "SwitchStatement":
        for (const switchCase of statement.cases) varNames(switchCase.consequent, into);
        break;
      default:
        break;
    }
  }
}

/** Lexical declarations directly in `statements` (let, const, class, and function declarations of a block). */
function lexicalNames(statements: readonly T.Node[], into: Map<string, T.Identifier>): void {
  for (const statement of statements) {
    if (statement.type === "VariableDeclaration" && statement.kind !== "var") {
      for (const declarator of statement.declarations) patternNames(declarator.id, into);
    } else if ((statement.type === "ClassDeclaration" || statement.type === "FunctionDeclaration") && statement.id) {
      if (!into.has(statement.id.name)) into.set(statement.id.name, statement.id);
    }
  }
}

function scopeOf(names: Map<string, T.Identifier>, parent: Scope): Scope {
  return { names: new Set(names.keys()), parent };
}

/** Where does `name` resolve from `scope`: a local binding, this statement's top level, or nothing here. */
function resolve(name: string, scope: Scope, state: PassState): "local" | "program" | "free" {
  for (let current: Scope | null = scope; current !== null; current = current.parent) {
    if (current.names.has(name)) return current === state.program ? "program" : "local";
  }
  return "free";
}

// ------------------------------------------------------------ the walk

type Container = Record<string | number, unknown>;

function rewriteProgram(program: T.Program, state: PassState): void {
  const top = new Map<string, T.Identifier>();
  varNames(program.body, top);
  lexicalNames(program.body, top);
  for (const [name, at] of top) {
    if (RESERVED.has(name)) throw errorAt("unsupported", `\`${name}\` is reserved by the realm`, at);
    if (state.environment.isRealmGlobal(name)) throw errorAt("shadow-global", shadowMessage(name, true), at);
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

function walkList(list: (T.Node | null)[], parent: T.Node, scope: Scope, context: FunctionContext, state: PassState): void {
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
  const keys = t.VISITOR_KEYS[node.type];
  if (keys) for (const key of keys) walkKey(node, key, scope, context, state);
}

function walk(node: T.Node, parent: T.Node, container: Container, key: string | number, scope: Scope, context: FunctionContext, state: PassState): void {
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
      const names = new Map<string, T.Identifier>();
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
      break;
    }

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
  const environment = state.environment;
  if (environment.isRealmGlobal(name)) {
    toMember(node, GLOBALS, state);
    return;
  }
  if (environment.isPlatformGlobal(name) && !environment.isDeclared(name)) return;
  state.scopeReferences.add(toMember(node, SCOPE, state));
}

/** `typeof later` must not throw for a name nobody declared yet. */
function typeofReference(node: T.UnaryExpression, scope: Scope, state: PassState): void {
  const argument = node.argument as T.Identifier;
  const name = argument.name;
  const environment = state.environment;
  if (
    resolve(name, scope, state) !== "free" ||
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
        if (property.shorthand && property.key === property.value) property.key = t.cloneNode(property.key as T.Identifier);
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

type FunctionLike = T.FunctionDeclaration | T.FunctionExpression | T.ArrowFunctionExpression | T.ObjectMethod | T.ClassMethod | T.ClassPrivateMethod;

function functionNode(node: FunctionLike, scope: Scope, state: PassState): void {
  let outer = scope;
  // A function expression's own name is visible only inside it.
  if (node.type === "FunctionExpression" && node.id) outer = { names: new Set([node.id.name]), parent: scope };
  const names = new Map<string, T.Identifier>();
  for (const param of node.params) patternNames(param, names);
  // Arrows see their enclosing function's `arguments`; at top level there is
  // none, and `$$s.arguments` throws as a script's would.
  if (node.type !== "ArrowFunctionExpression") names.set("arguments", t.identifier("arguments"));
  const body = node.body;
  if (body.type === "BlockStatement") {
    varNames(body.body, names);
    lexicalNames(body.body, names);
  }
  const inner: Scope = { names: new Set(names.keys()), parent: outer };
  const context: FunctionContext = { topLevel: false };
  for (let index = 0; index < node.params.length; index += 1) pattern(node.params[index], "declare", inner, context, state);
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
  const head = node.type === "ForStatement" ? node.init : node.type === "ForInStatement" || node.type === "ForOfStatement" ? node.left : null;
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
      if (node.left.type === "VariableDeclaration") walk(node.left, node, node as unknown as Container, "left", inner, context, state);
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

/** `p.then(f)` → `$$r.th(p, "then", f)`: `f` runs in the context that called `then` (console attribution). */
function thenCall(node: T.CallExpression, state: PassState): void {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier") return;
  const method = callee.property.name;
  if (method !== "then" && method !== "catch" && method !== "finally") return;
  if (callee.object.type === "Super") return;
  node.arguments = [callee.object as T.Expression, t.stringLiteral(method), ...node.arguments];
  node.callee = member(RUNTIME, "th", state);
}

function withLoc<N extends T.Node>(node: N, from: T.Node): N {
  node.loc = from.loc;
  return node;
}

// ---------------------------------------------------------------- declarations

function convertDeclarations(program: T.Program, state: PassState): void {
  const declared = new Map<string, DeclarationKind>();

  for (const path of state.variableDeclarations) {
    const node = path.node;
    if (node.kind === "var") {
      const forHead = (path.parent.type === "ForInStatement" || path.parent.type === "ForOfStatement") && path.key === "left";
      const assignments: T.Expression[] = [];
      for (const declarator of node.declarations) {
        for (const name of Object.keys(t.getBindingIdentifiers(declarator.id))) declared.set(name, "var");
        if (forHead) continue;
        if (declarator.init) {
          const target = retargetPattern(declarator.id, SCOPE, undefined, state);
          assignments.push(withLoc(t.assignmentExpression("=", target as T.LVal, declarator.init), declarator));
        }
      }
      if (forHead) {
        replaceAt(path, retargetPattern(node.declarations[0].id, SCOPE, undefined, state));
      } else if (path.parent.type === "ForStatement" && path.key === "init") {
        replaceAt(path, assignments.length === 0 ? null : sequence(assignments, node));
      } else {
        replaceAt(path, assignments.length === 0 ? t.emptyStatement() : withLoc(t.expressionStatement(sequence(assignments, node)), node));
      }
      continue;
    }
    const kind: DeclarationKind = node.kind === "const" ? "const" : "let";
    const calls: T.Expression[] = [];
    for (const declarator of node.declarations) {
      const init = declarator.init ?? t.unaryExpression("void", t.numericLiteral(0));
      if (declarator.id.type === "Identifier") {
        declared.set(declarator.id.name, kind);
        calls.push(runtimeCall("d", [identifier(SCOPE, state), t.stringLiteral(declarator.id.name), t.numericLiteral(KIND[kind]), init], state, declarator));
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
    replaceAt(path, withLoc(t.expressionStatement(
      runtimeCall("d", [identifier(SCOPE, state), t.stringLiteral(name), t.numericLiteral(KIND.class), expression], state, node),
    ), node));
  }

  if (state.functionDeclarations.length > 0) {
    const hoisted: T.Statement[] = [];
    const hoistedNodes = new Set<T.Node>();
    for (const path of state.functionDeclarations) {
      const node = path.node;
      const name = node.id!.name;
      declared.set(name, "function");
      const expression = withLoc(t.functionExpression(node.id, node.params, node.body, node.generator, node.async), node);
      hoisted.push(withLoc(t.expressionStatement(
        runtimeCall("d", [identifier(SCOPE, state), t.stringLiteral(name), t.numericLiteral(KIND.function), expression], state, node),
      ), node));
      hoistedNodes.add(node);
    }
    program.body = [...hoisted, ...program.body.filter((statement) => !hoistedNodes.has(statement))];
  }

  for (const [name, kind] of declared) state.declared.push({ name, kind });
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
function retargetPattern(pattern: T.Node, objectName: string, names: Set<string> | undefined, state: PassState): T.Node {
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

/**
 * Runs the transform once on a sample that takes every path (TSX, an enum,
 * a class with parameter properties, destructuring, await), so that the first
 * statement of the first reply does not pay for lazy initialisation and a
 * cold JIT. For the realm's warm-up, before READY.
 */
export function warmUpTransform(): void {
  const environment: TransformEnvironment = {
    isRealmGlobal: (name) => name === "React" || name === "console",
    isPlatformGlobal: (name) => name in globalThis,
    isDeclared: () => false,
    site: () => 0,
  };
  const samples = [
    "const { a, b: [c = 1] = [] }: { a: number; b?: number[] } = { a: 1 };",
    "const view = <div className={`n${a}`} key=\"k\">{[1, 2].map((n) => <b key={n}>{n}</b>)}</div>",
    "enum Color { Red, Green = 'g' }",
    "class Box<T> { constructor(public value: T) {} get(): T { return this.value } }",
    "for await (const item of source) { if (item) console.log(item as string) }",
  ];
  for (const sample of samples) transformStatement(sample, environment);
  transformStatement(samples[1], environment, { sourceMaps: true });
}
