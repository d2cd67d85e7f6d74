/**
 * Scope names: which names a pattern, a function body or a block binds, and
 * where a reference resolves (a local, this statement's top level, or free).
 */
import type * as T from "@babel/types";
import type { PassState, Scope } from "./passState";

/** Names bound by a pattern, with the identifier nodes (first one wins). */
export function patternNames(pattern: T.Node | null | undefined, into: Map<string, T.Identifier>): void {
  if (!pattern) return;
  switch (pattern.type) {
    case "Identifier":
      if (!into.has(pattern.name)) into.set(pattern.name, pattern);
      return;
    case "ObjectPattern":
      for (const property of pattern.properties)
        patternNames(property.type === "RestElement" ? property.argument : property.value, into);
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
export function varNames(statements: readonly (T.Node | null | undefined)[], into: Map<string, T.Identifier>): void {
  for (const statement of statements) {
    if (!statement) continue;
    switch (statement.type) {
      case "VariableDeclaration":
        if (statement.kind === "var")
          for (const declarator of statement.declarations) patternNames(declarator.id, into);
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
export function lexicalNames(statements: readonly T.Node[], into: Map<string, T.Identifier>): void {
  for (const statement of statements) {
    if (statement.type === "VariableDeclaration" && statement.kind !== "var") {
      for (const declarator of statement.declarations) patternNames(declarator.id, into);
    } else if ((statement.type === "ClassDeclaration" || statement.type === "FunctionDeclaration") && statement.id) {
      if (!into.has(statement.id.name)) into.set(statement.id.name, statement.id);
    }
  }
}

export function scopeOf(names: Map<string, T.Identifier>, parent: Scope): Scope {
  return { names: new Set(names.keys()), parent };
}

/** Where does `name` resolve from `scope`: a local binding, this statement's top level, or nothing here. */
export function resolve(name: string, scope: Scope, state: PassState): "local" | "program" | "free" {
  for (let current: Scope | null = scope; current !== null; current = current.parent) {
    if (current.names.has(name)) return current === state.program ? "program" : "local";
  }
  return "free";
}
