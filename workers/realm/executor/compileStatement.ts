/**
 * Compile and locate: a split statement → a compiled function (transform.ts,
 * then `new Function` with a sourceURL naming it), and an error thrown by
 * compiled code → block, reply line and column of the model's source.
 */
import type { ExecError, ExecErrorCode } from "../../../src/wire/events";
import { cap, formatValue, modelText } from "./formatConsole";
import { LoopGuardError } from "./loopGuard";
import { isDeclared, type SessionScope } from "./sessionScope";
import { parseStatementFrames, sourceUrlComment, stackOf } from "./stackFrames";
import {
  ExecutionAborted,
  type CodeItem,
  type CompiledStatement,
  type ErrorLocation,
  type Site,
  type StatementContext,
} from "./statementContext";
import type { RealmHooks } from "./realmHooks";
import { takeParsedStatement, type SplitError } from "./statementSplitter";
import {
  PARAMETERS,
  TransformError,
  transformStatement,
  type ImportResolution,
  type Mapping,
  type TransformEnvironment,
} from "./transform";

const MODULES_REFUSED =
  "`import` and `export` are not available in the realm: every top-level declaration is already shared by later code, and modules cannot be loaded";
const hasOwn = Object.prototype.hasOwnProperty;
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as FunctionConstructor;

export class StatementCompiler {
  /** Compiled statements by id (the id is in their sourceURL, so stack frames find them). */
  private readonly compiled = new Map<number, CompiledStatement>();
  private statementIds = 0;

  constructor(
    private readonly scope: SessionScope,
    /** Loop-guard sites, shared with the runtime hooks; the transform allocates them. */
    private readonly sites: Site[],
    /** The realm's globals (frozen, read at compile time only to compare import values). */
    private readonly globals: () => Record<string, unknown>,
    private readonly hooks: RealmHooks | undefined,
  ) {}

  private readonly isRealmGlobal = (name: string): boolean => hasOwn.call(this.globals(), name);

  /** The environment parts that do not depend on the statement. */
  private resolution(): Pick<
    TransformEnvironment,
    "isRealmGlobal" | "isPlatformGlobal" | "isDeclared" | "yieldsToDeclaration" | "hiddenFromTypeof" | "resolveImport"
  > {
    const hooks = this.hooks;
    return {
      isRealmGlobal: this.isRealmGlobal,
      isPlatformGlobal: (name) => name in globalThis,
      isDeclared: (name) => isDeclared(this.scope, name),
      yieldsToDeclaration: hooks && ((name) => hooks.yieldsToDeclaration(name)),
      hiddenFromTypeof: hooks && ((name) => hooks.hiddenFromTypeof(name)),
      resolveImport: hooks && ((specifier, imported, local) => this.resolveImport(hooks, specifier, imported, local)),
    };
  }

  private resolveImport(hooks: RealmHooks, specifier: string, imported: string, local: string): ImportResolution {
    const resolved = hooks.resolveImport(specifier, imported || "*");
    if ("error" in resolved) return { kind: "error", message: resolved.error };
    if (!imported) return { kind: "global" };
    // `import { useState } from "react"`: the name already is that global, and
    // reads of it stay `$$g.useState` unless the model declared its own.
    const globals = this.globals();
    if (hasOwn.call(globals, local) && globals[local] === resolved.value && !isDeclared(this.scope, local))
      return { kind: "global" };
    return { kind: "bind" };
  }

  compile(context: StatementContext): CompiledStatement {
    const id = ++this.statementIds;
    const sites: number[] = [];
    const environment: TransformEnvironment = {
      ...this.resolution(),
      site: (kind, line, column, range) => {
        const site = this.sites.length;
        const { split } = context;
        this.sites.push({
          kind,
          line: context.line + line - 1,
          bodyLine: split.line + line - 1,
          column: line === 1 ? split.column - 1 + column : column,
          context,
          range,
        });
        sites.push(site);
        return site;
      },
    };
    // The splitter's tree of this statement, when it has one: no second parse.
    const result = transformStatement(context.split.source, environment, {
      parsed: takeParsedStatement(context.split),
    });
    const body = result.body + sourceUrlComment(id);
    let run: (...parameters: unknown[]) => unknown;
    try {
      run = (result.async ? new AsyncFunction(...PARAMETERS, body) : new Function(...PARAMETERS, body)) as typeof run;
    } catch (error) {
      // The parser accepted what the engine refuses: report it on the statement.
      throw new TransformError("syntax", describeThrown(error).message, 1, 1);
    }
    const takesOver = result.declared
      .filter((declared) => this.isRealmGlobal(declared.name))
      .map((declared) => declared.name);
    const compiled: CompiledStatement = {
      id,
      context,
      run,
      async: result.async,
      sites,
      mappings: undefined,
      takesOver,
    };
    this.compiled.set(id, compiled);
    return compiled;
  }

  transformError(context: StatementContext, error: TransformError): ExecError {
    const { item, split } = context;
    const bodyLine = split.line + error.line - 1;
    return {
      code: error.code,
      name: error.name,
      message: error.message,
      block: item.block,
      line: item.line + bodyLine - 1,
      column: error.line === 1 ? split.column - 1 + error.column : error.column,
      lineText: lineOf(item.body, bodyLine),
    };
  }

  syntaxError(item: CodeItem, error: SplitError): ExecError {
    // The splitter parses as a script, where Babel calls modules a syntax
    // error; for the realm they are a refused feature.
    const module = error.code === "ImportOutsideModule";
    return {
      code: module ? "unsupported" : "syntax",
      name: module ? "UnsupportedError" : "SyntaxError",
      message: module ? MODULES_REFUSED : error.message,
      block: item.block,
      line: item.line + error.line - 1,
      column: error.column,
      lineText: error.lineText,
    };
  }

  /** `Name: message` located at the innermost frame of `context`'s reply, else at the statement. */
  mapError(error: unknown, context: StatementContext): ExecError {
    const code: ExecErrorCode =
      error instanceof LoopGuardError ? "loop-guard" : error instanceof ExecutionAborted ? "aborted" : "runtime";
    const { name, message } = describeThrown(error);
    if (error instanceof LoopGuardError) {
      // Thrown from the tick: the loop (or function) it names is the place.
      const site = this.sites[error.site];
      if (site && site.context.reply === context.reply) {
        const { item } = site.context;
        return {
          code,
          name,
          message,
          block: item.block,
          line: site.line,
          column: site.column,
          lineText: lineOf(item.body, site.bodyLine),
        };
      }
    }
    for (const frame of parseStatementFrames(stackOf(error))) {
      const compiled = this.compiled.get(frame.id);
      if (!compiled || compiled.context.reply !== context.reply) continue;
      const position = this.position(compiled, frame.bodyLine, frame.column);
      if (position) return { code, name, message, ...position };
    }
    const { item, split } = context;
    return {
      code,
      name,
      message,
      block: item.block,
      line: context.line,
      column: split.column,
      lineText: lineOf(item.body, split.line),
    };
  }

  private position(
    compiled: CompiledStatement,
    bodyLine: number,
    column: number,
  ): Omit<ExecError, "code" | "name" | "message"> | undefined {
    const { item, split } = compiled.context;
    const codeLine = bodyLine - 1;
    const statementLines = split.endLine - split.line + 1;
    if (codeLine < 1 || codeLine > statementLines) return undefined;
    let originalLine = codeLine;
    let originalColumn: number | undefined;
    const mapping = this.lookupMapping(compiled, codeLine, column - 1);
    if (mapping) {
      originalLine = mapping.originalLine;
      originalColumn = mapping.originalColumn + 1;
    }
    const blockLine = split.line + originalLine - 1;
    return {
      block: item.block,
      line: item.line + blockLine - 1,
      column:
        originalColumn === undefined
          ? undefined
          : originalLine === 1
            ? split.column - 1 + originalColumn
            : originalColumn,
      lineText: lineOf(item.body, blockLine),
    };
  }

  /** Columns need a source map: made on the first error of a statement, by compiling it again. */
  private lookupMapping(compiled: CompiledStatement, line: number, column: number): Mapping | undefined {
    if (compiled.mappings === undefined) {
      compiled.mappings = null;
      try {
        let next = 0;
        const replay: TransformEnvironment = {
          // Same resolution as when compiled: names it declared count as declared.
          ...this.resolution(),
          site: () => compiled.sites[next++] ?? 0,
        };
        compiled.mappings =
          transformStatement(compiled.context.split.source, replay, { sourceMaps: true }).mappings ?? null;
      } catch {
        compiled.mappings = null;
      }
    }
    let best: Mapping | undefined;
    for (const mapping of compiled.mappings ?? []) {
      if (mapping.generatedLine !== line || mapping.generatedColumn > column) continue;
      if (!best || mapping.generatedColumn >= best.generatedColumn) best = mapping;
    }
    return best;
  }

  /** The context of the innermost compiled frame of `error`'s stack, if any. */
  contextOf(error: unknown): StatementContext | undefined {
    const frame = parseStatementFrames(stackOf(error)).find((candidate) => this.compiled.has(candidate.id));
    return frame && this.compiled.get(frame.id)!.context;
  }

  locate(error: unknown): ErrorLocation | undefined {
    for (const frame of parseStatementFrames(stackOf(error))) {
      const compiled = this.compiled.get(frame.id);
      if (!compiled) continue;
      const position = this.position(compiled, frame.bodyLine, frame.column);
      if (!position || position.line === undefined) continue;
      const { context } = compiled;
      return {
        reply: context.reply.id,
        block: position.block,
        statement: context.statement,
        line: position.line,
        column: position.column,
        lineText: position.lineText,
      };
    }
    return undefined;
  }
}

export function lineOf(text: string, line: number): string | undefined {
  let start = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf("\n", start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Name and message of anything thrown; `throw "x"` becomes `Uncaught: x`. */
export function describeThrown(error: unknown): { name: string; message: string } {
  try {
    if (error !== null && typeof error === "object" && "message" in error) {
      const name = (error as { name?: unknown }).name;
      return {
        name: typeof name === "string" && name ? name : "Error",
        message: cap(modelText(String((error as { message: unknown }).message))),
      };
    }
  } catch {
    // A hostile getter: fall through to inspecting the value.
  }
  return { name: "Uncaught", message: cap(formatValue(error)) };
}
