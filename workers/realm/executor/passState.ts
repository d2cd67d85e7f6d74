/**
 * The state of one transform call and the node builders both passes use
 * (rewriteReferences.ts walks, convertDeclarations.ts then replaces).
 */
import { t } from "./babel";
import type * as T from "@babel/types";

import { RUNTIME, type DeclarationKind, type TransformEnvironment } from "./transformNames";

/** A lexical scope: the names it binds. The program scope holds this statement's top-level declarations. */
export interface Scope {
  names: Set<string>;
  parent: Scope | null;
}

/** The function whose body is being walked (the statement itself at top level). */
export interface FunctionContext {
  topLevel: boolean;
  /** An async function: it has its own `$$c` that every resume restores. */
  async?: boolean;
}

/** Where a program-level declaration sits, to replace it after the walk. */
export interface Placement<N extends T.Node> {
  node: N;
  parent: T.Node;
  container: Record<string | number, unknown>;
  key: string | number;
}

export interface PassState {
  environment: TransformEnvironment;
  program: Scope;
  /** Nodes this pass created; never rewritten again. (Plain sets: they live for one call, and weak ones cost the GC more.) */
  generated: Set<T.Node>;
  /** The statement's source, for texts the compiled code quotes (`th`'s callee). */
  source: string;
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
  /** How free names resolve, asked of the environment once per name per statement (rewriteReferences.ts). */
  freeNames?: Map<string, FreeName>;
}

/** Where a name no scope of the statement binds goes: `$$g.name`, left alone (platform global), or `$$s.name`. */
export type FreeName = "globals" | "platform" | "scope";

export function identifier(name: string, state: PassState): T.Identifier {
  // What t.identifier(name) builds, without the generic builder's argument array (a long statement makes tens of thousands).
  const node = { type: "Identifier", name } as T.Identifier;
  state.generated.add(node);
  return node;
}

export function member(objectName: string, property: string, state: PassState): T.MemberExpression {
  const node = {
    type: "MemberExpression",
    object: identifier(objectName, state),
    property: identifier(property, state),
    computed: false,
    optional: null,
  } as T.MemberExpression;
  state.generated.add(node);
  return node;
}

export function runtimeCall(method: string, args: T.Expression[], state: PassState, at?: T.Node): T.CallExpression {
  const call = t.callExpression(member(RUNTIME, method, state), args);
  state.generated.add(call);
  if (at?.loc) call.loc = at.loc;
  return call;
}

/** Turns the Identifier `node` into `object.name`, in place (keeps its position). */
export function toMember(node: T.Identifier, objectName: string, state: PassState): T.MemberExpression {
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
  // Cleared, not deleted: a delete turns the node into a slow dictionary
  // object, and a long statement has thousands of these.
  target.name = undefined;
  if (target.typeAnnotation != null) target.typeAnnotation = null;
  if (target.optional) target.optional = false;
  state.generated.add(node);
  return node as unknown as T.MemberExpression;
}

export function withLoc<N extends T.Node>(node: N, from: T.Node): N {
  node.loc = from.loc;
  return node;
}

export type Container = Record<string | number, unknown>;
