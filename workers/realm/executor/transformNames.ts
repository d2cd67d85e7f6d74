/**
 * Names and types shared by the transform's passes (transform.ts is the entry):
 * the compiled parameters, binding kinds, the environment, the error type.
 */
import type * as T from "@babel/types";

export const SCOPE = "$$s";
export const GLOBALS = "$$g";
export const RUNTIME = "$$r";
export const CONTEXT = "$$c";
export const TEMP = "$$t";
/** Parameter names of every compiled statement, in order. */
export const PARAMETERS = [SCOPE, GLOBALS, RUNTIME, CONTEXT] as const;
export const RESERVED = new Set<string>([SCOPE, GLOBALS, RUNTIME, CONTEXT, TEMP]);

/** Binding kinds as compiled into `$$r.d(...)` calls. */
export const KIND = { var: 0, let: 1, const: 2, function: 3, class: 4 } as const;
export type DeclarationKind = keyof typeof KIND;

/**
 * Properties of globalThis that are instance state rather than an API; a model
 * writing `const name = "Ada"` means its own variable. Everything else on
 * globalThis is refused as a declaration name (`shadow-global`).
 */
export const SHADOWABLE_GLOBALS = new Set([
  "name",
  "status",
  "length",
  "origin",
  "event",
  "closed",
  "parent",
  "top",
  "frames",
  "opener",
]);

export type SiteKind = "loop" | "function";

export interface TransformEnvironment {
  /** Provided by the realm (React, mount, console, timers, ...): read through `$$g`. */
  isRealmGlobal(name: string): boolean;
  /**
   * A realm global that a top-level declaration of the model may take over
   * (later code reads the model's binding). Absent: none may.
   */
  yieldsToDeclaration?(name: string): boolean;
  /** A realm global that stands in for what the realm lacks (`document`): `typeof` says "undefined", as in a worker. */
  hiddenFromTypeof?(name: string): boolean;
  /** A property of globalThis. */
  isPlatformGlobal(name: string): boolean;
  /** Already declared in the session scope by an earlier statement. */
  isDeclared(name: string): boolean;
  /**
   * Allocates a loop-guard site (1-based line and column in the statement); its id is compiled in.
   * Function sites also get the function's source offsets in the statement (for `toString`).
   */
  site(kind: SiteKind, line: number, column: number, range?: { start: number; end: number }): number;
  /**
   * How `import { imported as local } from "specifier"` binds (`imported` is
   * "default" or "*" for those forms, "" for a bare `import "x"`). Absent:
   * every import is refused.
   */
  resolveImport?(specifier: string, imported: string, local: string): ImportResolution;
}

/**
 * `global`: `local` already names that very value as a realm global (nothing
 * to declare); `bind`: declare `local` as `$$r.im(specifier, imported)`;
 * `error`: the message for the model.
 */
export type ImportResolution = { kind: "global" } | { kind: "bind" } | { kind: "error"; message: string };

/** What the realm says about `import` when it has no module table (and about forms it never takes). */
export const MODULES_REFUSED =
  "`import` and `export` are not available in the realm: every top-level declaration is already shared by later code, and modules cannot be loaded";

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

export function errorAt(code: TransformErrorCode, message: string, node: T.Node | null | undefined): TransformError {
  const start = node?.loc?.start;
  return new TransformError(code, message, start?.line ?? 1, (start?.column ?? 0) + 1);
}
