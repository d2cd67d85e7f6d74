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
import { convertDeclarations } from "./convertDeclarations";
import { convertModules } from "./convertModules";
import { lowerSyntax, NEEDS_PRESETS, UnsupportedSyntax } from "./lowerSyntax";
import type { PassState } from "./passState";
import { rewriteProgram } from "./rewriteReferences";
import {
  errorAt,
  MODULES_REFUSED,
  RUNTIME,
  SCOPE,
  TEMP,
  TransformError,
  type DeclarationKind,
  type Mapping,
  type TransformEnvironment,
} from "./transformNames";

export {
  CONTEXT,
  GLOBALS,
  KIND,
  PARAMETERS,
  RUNTIME,
  SCOPE,
  SHADOWABLE_GLOBALS,
  TransformError,
  type DeclarationKind,
  type ImportResolution,
  type Mapping,
  type SiteKind,
  type TransformEnvironment,
  type TransformErrorCode,
} from "./transformNames";

export interface TransformResult {
  /** Function body: `"use strict";` and the prologue on the first line, the statement from the second. */
  body: string;
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
  options: { sourceMaps?: boolean; parsed?: object } = {},
): TransformResult {
  let file = options.parsed ? fileOf(options.parsed as T.Statement, source) : parse(source);
  let usedPresets = false;
  let moduleNodes = convertModules(file.program, environment);
  try {
    lowerSyntax(file.program);
  } catch (error) {
    if (error instanceof UnsupportedSyntax) throw errorAt("unsupported", error.message, error.node);
    if (error !== NEEDS_PRESETS) throw error;
    usedPresets = true;
    file = parse(source);
    moduleNodes = convertModules(file.program, environment);
    for (const statement of file.program.body) {
      if (
        t.isImportOrExportDeclaration(statement) ||
        statement.type.startsWith("TSExport") ||
        statement.type === "TSImportEqualsDeclaration"
      ) {
        throw errorAt("unsupported", MODULES_REFUSED, statement);
      }
    }
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
    generated: new Set(moduleNodes),
    source,
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
    async: state.topLevelAwait,
    declared: state.declared,
    usedPresets,
  };
  if (options.sourceMaps) {
    const raw =
      (
        generated as unknown as {
          rawMappings?: { generated: { line: number; column: number }; original?: { line: number; column: number } }[];
        }
      ).rawMappings ?? [];
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

/**
 * The File a strict parse of `source` alone gives, around a statement the
 * splitter already parsed that way (positions rebased onto `source`).
 */
function fileOf(statement: T.Statement, source: string): T.File {
  const loc = statement.loc!;
  const end = { line: loc.end.line, column: loc.end.column, index: source.length };
  const start = { line: 1, column: 0, index: 0 };
  const location = { start, end, filename: undefined, identifierName: undefined } as unknown as T.SourceLocation;
  const program = {
    type: "Program",
    body: [statement],
    directives: [],
    sourceType: "script",
    interpreter: null,
    start: 0,
    end: source.length,
    loc: location,
  } as unknown as T.Program;
  return { type: "File", program, comments: [], start: 0, end: source.length, loc: location } as unknown as T.File;
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

/**
 * The statement the realm's warm-up transforms once before READY: what a
 * first fence is made of (a typed declaration, JSX with a template literal,
 * an arrow in a `map`, `as`, `await`), so Babel's parser with its TypeScript
 * and JSX paths, the generator and the transform's passes have all run and
 * the first statement of the first reply does not pay for lazy compilation
 * and a cold JIT.
 *
 * One sample, not one per construct (issue 14): in a blank page's worker,
 * the five samples and a source-mapped pass took 47-50 ms and this one
 * 25-32 ms, while a first fence ran within ~2 ms of the same time after
 * either (11.8 vs 14.1 ms for typed declarations and a template; 20.1 vs
 * 22.4 ms for an enum, a class with a parameter property and `for await`,
 * which this sample does not cover; medians of 8-10 fresh workers each).
 */
export const WARM_UP_SAMPLE =
  'const view: unknown = <div className={`n${await a}`} key="k">{[1, 2].map((n: number) => <b key={n}>{n as number}</b>)}</div>';

/** The realm's warm-up, before READY: transforms WARM_UP_SAMPLE once. */
export function warmUpTransform(): void {
  const environment: TransformEnvironment = {
    isRealmGlobal: (name) => name === "React" || name === "console",
    isPlatformGlobal: (name) => name in globalThis,
    isDeclared: () => false,
    site: () => 0,
  };
  transformStatement(WARM_UP_SAMPLE, environment);
}
