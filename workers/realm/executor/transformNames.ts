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

export function errorAt(code: TransformErrorCode, message: string, node: T.Node | null | undefined): TransformError {
  const start = node?.loc?.start;
  return new TransformError(code, message, start?.line ?? 1, (start?.column ?? 0) + 1);
}
