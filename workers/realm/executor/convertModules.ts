/**
 * Module syntax, the way models write it, before anything else sees the
 * statement: every top-level `import` and `export` becomes plain code.
 *
 *   import React, { useState } from "react"     → (nothing: both are realm globals)
 *   import { Card as Box } from "@/components/ui/card"
 *                                               → const Box = $$r.im("@/components/ui/card", "Card")
 *   import type { Props } from "./types"        → (nothing)
 *   export const x = 1 / export function f() {} → the declaration
 *   export { a, b }                             → (nothing)
 *   export default function App() {}            → function App() {} $$r.xd(App, "App")
 *   export default <expression>                 → $$r.xd(<expression>)
 *
 * What a module resolves to is the environment's (`resolveImport`); without
 * it every import is refused as before. `$$r.xd` records the default export
 * so the executor can mount a component nobody mounted (executor.ts).
 * Imports and exports nested in blocks stay for lowerSyntax to refuse.
 */
import { t } from "./babel";
import type * as T from "@babel/types";
import { errorAt, MODULES_REFUSED, RUNTIME, type TransformEnvironment } from "./transformNames";

const RE_EXPORT_REFUSED =
  "re-exporting from another module (`export … from`) is not available in the realm: nothing can be loaded; declare what you need (realm globals need no import)";

/** The statement's module syntax replaced; returns the nodes the walk must leave alone (`$$r.…` callees). */
export function convertModules(program: T.Program, environment: TransformEnvironment): T.Node[] {
  const generated: T.Node[] = [];
  let changed = false;
  const body: T.Statement[] = [];
  for (const statement of program.body) {
    switch (statement.type) {
      case "ImportDeclaration":
        changed = true;
        body.push(...importDeclaration(statement, environment, generated));
        break;
      case "ExportNamedDeclaration":
        changed = true;
        if (statement.source) throw errorAt("unsupported", RE_EXPORT_REFUSED, statement);
        // `export { a, b }` and `export type { T }` name what is declared anyway.
        if (statement.declaration) body.push(withLoc(statement.declaration, statement));
        break;
      case "ExportDefaultDeclaration":
        changed = true;
        body.push(...exportDefault(statement, generated));
        break;
      case "ExportAllDeclaration":
        throw errorAt("unsupported", RE_EXPORT_REFUSED, statement);
      case "TSExportAssignment":
      case "TSImportEqualsDeclaration":
        throw errorAt("unsupported", MODULES_REFUSED, statement);
      case "TSNamespaceExportDeclaration":
        changed = true;
        break;
      default:
        body.push(statement);
    }
  }
  if (changed) program.body = body;
  return generated;
}

function importDeclaration(
  node: T.ImportDeclaration,
  environment: TransformEnvironment,
  generated: T.Node[],
): T.Statement[] {
  if (node.importKind === "type" || node.importKind === "typeof") return [];
  const resolveImport = environment.resolveImport;
  if (!resolveImport) throw errorAt("unsupported", MODULES_REFUSED, node);
  const source = node.source.value;
  const declarators: T.VariableDeclarator[] = [];
  const check = (imported: string, local: string, at: T.Node) => {
    const resolution = resolveImport(source, imported, local);
    if (resolution.kind === "error") throw errorAt("unsupported", resolution.message, at);
    return resolution.kind;
  };
  if (node.specifiers.length === 0) check("", "", node.source);
  for (const specifier of node.specifiers) {
    let imported: string;
    if (specifier.type === "ImportDefaultSpecifier") imported = "default";
    else if (specifier.type === "ImportNamespaceSpecifier") imported = "*";
    else {
      if (specifier.importKind === "type" || specifier.importKind === "typeof") continue;
      imported = specifier.imported.type === "Identifier" ? specifier.imported.name : specifier.imported.value;
    }
    const local = specifier.local.name;
    if (check(imported, local, specifier) === "global") continue;
    const callee = t.memberExpression(t.identifier(RUNTIME), t.identifier("im"));
    generated.push(callee);
    const value = withLoc(t.callExpression(callee, [t.stringLiteral(source), t.stringLiteral(imported)]), specifier);
    declarators.push(withLoc(t.variableDeclarator(withLoc(t.identifier(local), specifier.local), value), specifier));
  }
  return declarators.length > 0 ? [withLoc(t.variableDeclaration("const", declarators), node)] : [];
}

function exportDefault(node: T.ExportDefaultDeclaration, generated: T.Node[]): T.Statement[] {
  const declaration = node.declaration;
  const record = (value: T.Expression, name: string | undefined, at: T.Node): T.Statement => {
    const callee = t.memberExpression(t.identifier(RUNTIME), t.identifier("xd"));
    generated.push(callee);
    const args: T.Expression[] = [value];
    if (name) args.push(t.stringLiteral(name));
    return withLoc(t.expressionStatement(withLoc(t.callExpression(callee, args), at)), at);
  };
  if (t.isFunctionDeclaration(declaration)) {
    if (declaration.id)
      return [withLoc(declaration, node), record(t.identifier(declaration.id.name), declaration.id.name, node)];
    const expression = t.functionExpression(
      null,
      declaration.params,
      declaration.body,
      declaration.generator,
      declaration.async,
    );
    return [record(withLoc(expression, declaration), undefined, node)];
  }
  if (t.isClassDeclaration(declaration)) {
    if (declaration.id)
      return [withLoc(declaration, node), record(t.identifier(declaration.id.name), declaration.id.name, node)];
    const expression = t.classExpression(null, declaration.superClass, declaration.body, declaration.decorators ?? []);
    return [record(withLoc(expression, declaration), undefined, node)];
  }
  // `export default interface …` and overload signatures are types only.
  if ((declaration.type as string) === "TSInterfaceDeclaration" || declaration.type === "TSDeclareFunction") return [];
  const expression = declaration as T.Expression;
  return [record(expression, expression.type === "Identifier" ? expression.name : undefined, node)];
}

function withLoc<N extends T.Node>(node: N, from: T.Node): N {
  if (!node.loc) node.loc = from.loc;
  if (node.start == null) {
    node.start = from.start;
    node.end = from.end;
  }
  return node;
}
