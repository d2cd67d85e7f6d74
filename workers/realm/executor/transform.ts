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
 *   resume, promise callbacks), see executorRuntime in executor.ts.
 * - `$$c` the statement's context, restored after every top-level `await`.
 *
 * Name resolution for an identifier that no local scope binds:
 *   declared at top level by this statement → `$$s.name`
 *   realm global                            → `$$g.name`
 *   on globalThis and not yet declared      → left alone (platform global)
 *   anything else                           → `$$s.name` (a later statement may
 *     declare it; until then the scope's prototype throws the usual
 *     `ReferenceError: x is not defined`)
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
import * as Babel from "@babel/standalone";
import type * as T from "@babel/types";
import type { NodePath, Scope, Visitor } from "@babel/traverse";
import { lowerSyntax, NEEDS_PRESETS, UnsupportedSyntax } from "./lowerSyntax";

const { parser, generator, traverse: traverseModule, types: t } = Babel.packages;
const traverse = traverseModule.default;
const generate = generator.default;

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
  /** The statement needed the full Babel presets (enum, namespace, parameter properties). */
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

// One options object for the rare preset path, so babel-core's config cache
// (keyed by object identity) hits from the second call on.
const PRESET_OPTIONS = {
  presets: [
    [Babel.availablePresets.typescript, { allExtensions: true, isTSX: true, onlyRemoveTypeImports: true, allowDeclareFields: true }],
    [Babel.availablePresets.react, { runtime: "classic", useSpread: true, throwIfNamespace: false }],
  ],
  babelrc: false,
  configFile: false,
  sourceType: "script",
  ast: true,
  code: false,
  cloneInputAst: false,
} as unknown as Parameters<typeof Babel.transform>[1];

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
    for (const statement of file.program.body) {
      if (t.isImportOrExportDeclaration(statement) || statement.type.startsWith("TSExport") || statement.type === "TSImportEqualsDeclaration") {
        throw errorAt("unsupported", "`import` and `export` are not available in the realm", statement);
      }
    }
    const result = Babel.transformFromAst(file as never, source, PRESET_OPTIONS) as unknown as { ast: T.File };
    file = result.ast;
  }

  const state = newPassState(environment);
  traverse(file, rewriteVisitor, undefined, state);
  if (state.error) throw state.error;
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

interface PassState {
  environment: TransformEnvironment;
  programScope: Scope | undefined;
  /** Nodes this pass created; never rewritten again. */
  generated: WeakSet<T.Node>;
  /** `$$s.name` member expressions made from references, for pattern retargeting. */
  scopeReferences: WeakSet<T.Node>;
  topLevelAwait: boolean;
  usesTemp: boolean;
  declared: { name: string; kind: DeclarationKind }[];
  /** Program-level declarations, converted after the traversal. */
  variableDeclarations: NodePath<T.VariableDeclaration>[];
  functionDeclarations: NodePath<T.FunctionDeclaration>[];
  classDeclarations: NodePath<T.ClassDeclaration>[];
  error: TransformError | undefined;
}

function newPassState(environment: TransformEnvironment): PassState {
  return {
    environment,
    programScope: undefined,
    generated: new WeakSet(),
    scopeReferences: new WeakSet(),
    topLevelAwait: false,
    usesTemp: false,
    declared: [],
    variableDeclarations: [],
    functionDeclarations: [],
    classDeclarations: [],
    error: undefined,
  };
}

function fail(path: NodePath, state: PassState, error: TransformError): void {
  state.error ??= error;
  path.stop();
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

/** Turns the Identifier `node` into `object.name`, in place (no requeue, keeps its position). */
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

/** Shorthand `{ x }` / `{ x = 1 }` must print as `{ x: $$s.x }` once `x` is rewritten. */
function unshorthand(path: NodePath<T.Identifier>): void {
  const parent = path.parent;
  if (parent.type === "ObjectProperty" && parent.shorthand && parent.value === path.node) {
    parent.shorthand = false;
    if (parent.key === path.node) parent.key = t.identifier(path.node.name);
    return;
  }
  if (parent.type === "AssignmentPattern" && parent.left === path.node) {
    const grand = path.parentPath?.parent;
    if (grand?.type === "ObjectProperty" && grand.shorthand) grand.shorthand = false;
  }
}

/** Is this binding identifier where a program-level declaration names its binding? */
function isDeclarationSite(path: NodePath): boolean {
  let child: NodePath = path;
  let parent = path.parentPath;
  while (parent) {
    const node = parent.node;
    switch (node.type) {
      case "VariableDeclarator":
      case "FunctionDeclaration":
      case "ClassDeclaration":
        return child.key === "id";
      case "ArrayPattern":
      case "ObjectPattern":
      case "RestElement":
        break;
      case "ObjectProperty":
        if (child.key !== "value" || parent.parent.type !== "ObjectPattern") return false;
        break;
      case "AssignmentPattern":
        if (child.key !== "left") return false;
        break;
      default:
        return false;
    }
    child = parent;
    parent = parent.parentPath;
  }
  return false;
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

function tickStatement(kind: SiteKind, at: T.Node, state: PassState): T.ExpressionStatement {
  const site = state.environment.site(kind, line(at), column(at));
  const statement = t.expressionStatement(runtimeCall("tick", [t.numericLiteral(site)], state));
  return statement;
}

const rewriteVisitor: Visitor<PassState> = {
  Program: {
    enter(path, state) {
      state.programScope = path.scope;
      for (const [name, binding] of Object.entries(path.scope.bindings)) {
        const at = binding.identifier;
        if (RESERVED.has(name)) {
          return fail(path, state, errorAt("unsupported", `\`${name}\` is reserved by the realm`, at));
        }
        if (state.environment.isRealmGlobal(name)) {
          return fail(path, state, errorAt("shadow-global", shadowMessage(name, true), at));
        }
        if (state.environment.isPlatformGlobal(name) && !SHADOWABLE_GLOBALS.has(name)) {
          return fail(path, state, errorAt("shadow-global", shadowMessage(name, false), at));
        }
      }
    },
  },

  Identifier(path, state) {
    const node = path.node;
    if (state.generated.has(node)) return;
    const name = node.name;
    // `arguments` belongs to the enclosing function (at top level it is the compiled function's own).
    if (name === "arguments") return;
    const parentType = path.parent.type;
    if (parentType === "LabeledStatement" || parentType === "BreakStatement" || parentType === "ContinueStatement") return;
    const referenced = (path as NodePath).isReferencedIdentifier();
    if (!referenced && !(path as NodePath).isBindingIdentifier()) return;
    if (RESERVED.has(name)) return fail(path, state, errorAt("unsupported", `\`${name}\` is reserved by the realm`, node));
    const binding = path.scope.getBinding(name);
    if (binding !== undefined) {
      if (binding.scope !== state.programScope) return;
      if (!referenced && isDeclarationSite(path)) return;
      unshorthand(path);
      state.scopeReferences.add(toMember(node, SCOPE, state));
      return;
    }
    const environment = state.environment;
    if (environment.isRealmGlobal(name)) {
      unshorthand(path);
      toMember(node, GLOBALS, state);
      return;
    }
    if (environment.isPlatformGlobal(name) && !environment.isDeclared(name)) return;
    unshorthand(path);
    state.scopeReferences.add(toMember(node, SCOPE, state));
  },

  UnaryExpression(path, state) {
    // `typeof later` must not throw for a name nobody declared yet.
    const node = path.node;
    if (node.operator !== "typeof" || node.argument.type !== "Identifier") return;
    const name = node.argument.name;
    const environment = state.environment;
    if (path.scope.getBinding(name) || environment.isRealmGlobal(name) || environment.isDeclared(name)) return;
    if (environment.isPlatformGlobal(name)) return;
    const target = node as unknown as Record<string, unknown>;
    target.type = "CallExpression";
    target.callee = member(RUNTIME, "ty", state);
    target.arguments = [identifier(SCOPE, state), t.stringLiteral(name)];
    delete target.operator;
    delete target.argument;
    delete target.prefix;
  },

  VariableDeclaration(path, state) {
    const node = path.node;
    if (node.kind === "var" ? path.getFunctionParent() === null : path.parent.type === "Program") {
      state.variableDeclarations.push(path);
    }
  },

  FunctionDeclaration(path, state) {
    if (path.parent.type === "Program") state.functionDeclarations.push(path);
  },

  ClassDeclaration(path, state) {
    if (path.parent.type === "Program") state.classDeclarations.push(path);
  },

  Loop: {
    exit(path, state) {
      const node = path.node;
      const tick = tickStatement("loop", node, state);
      const statements: T.Statement[] = [tick];
      if (node.type === "ForOfStatement" && node.await) {
        // Each iteration resumes after an await: restore the context first.
        statements.push(t.expressionStatement(runtimeCall("re", [contextFor(path, state)], state)));
        if (path.getFunctionParent() === null) state.topLevelAwait = true;
      }
      if (node.body.type === "BlockStatement") node.body.body.unshift(...statements);
      else node.body = t.blockStatement([...statements, node.body]);
      if (node.type === "ForOfStatement" && node.await) {
        // ... and after the loop, which also resumes after an await.
        const holder = path.parentPath.isLabeledStatement() ? path.parentPath : path;
        const after = t.expressionStatement(runtimeCall("re", [contextFor(path, state)], state));
        const block = t.blockStatement([holder.node as T.Statement, after]);
        (holder.container as unknown as Record<string | number, T.Node>)[holder.key as string | number] = block;
      }
    },
  },

  Function: {
    exit(path, state) {
      const node = path.node;
      const entry = tickStatement("function", node, state);
      if (node.async) {
        // Capture the caller's context at entry; every await inside restores it.
        const capture = t.variableDeclaration("const", [
          t.variableDeclarator(identifier(CONTEXT, state), runtimeCall("ea", [(entry.expression as T.CallExpression).arguments[0] as T.Expression], state)),
        ]);
        if (node.body.type === "BlockStatement") node.body.body.unshift(capture);
        else node.body = t.blockStatement([capture, withLoc(t.returnStatement(node.body), node.body)]);
        return;
      }
      if (node.body.type === "BlockStatement") node.body.body.unshift(entry);
      else node.body = withLoc(t.sequenceExpression([entry.expression, node.body]), node.body);
    },
  },

  AwaitExpression: {
    exit(path, state) {
      const node = path.node;
      if (state.generated.has(node)) return;
      if (path.getFunctionParent() === null) state.topLevelAwait = true;
      const inner = t.awaitExpression(node.argument);
      state.generated.add(inner);
      const target = node as unknown as Record<string, unknown>;
      target.type = "CallExpression";
      target.callee = member(RUNTIME, "re", state);
      target.arguments = [contextFor(path, state), inner];
      delete target.argument;
    },
  },

  CallExpression: {
    exit(path, state) {
      // `p.then(f)`: run `f` in the context that called `then` (console attribution).
      const node = path.node;
      const callee = node.callee;
      if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier") return;
      const method = callee.property.name;
      if (method !== "then" && method !== "catch" && method !== "finally") return;
      if (callee.object.type === "Super") return;
      node.arguments = [callee.object, t.stringLiteral(method), ...node.arguments];
      node.callee = member(RUNTIME, "th", state);
    },
  },
};

function contextFor(_path: NodePath, state: PassState): T.Identifier {
  // The nearest async function declares its own `$$c`; at top level it is the parameter.
  return identifier(CONTEXT, state);
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
      const assignments: T.Expression[] = [];
      for (const declarator of node.declarations) {
        for (const name of Object.keys(t.getBindingIdentifiers(declarator.id))) declared.set(name, "var");
        if (path.parent.type === "ForInStatement" || path.parent.type === "ForOfStatement") continue;
        if (declarator.init) {
          const target = retargetPattern(declarator.id, SCOPE, undefined, state);
          assignments.push(withLoc(t.assignmentExpression("=", target as T.LVal, declarator.init), declarator));
        }
      }
      if (path.parent.type === "ForInStatement" || path.parent.type === "ForOfStatement") {
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

function replaceAt(path: NodePath, node: T.Node | null): void {
  (path.container as unknown as Record<string | number, T.Node | null>)[path.key as string | number] = node;
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
