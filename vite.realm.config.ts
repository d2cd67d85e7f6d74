import { build, defineConfig, type Plugin } from "vite";
import { fileURLToPath } from "node:url";

const ZOD_LOCALES = fileURLToPath(new URL("./workers/realm/zodLocales.ts", import.meta.url));
const BABEL_TYPES = fileURLToPath(new URL("./workers/realm/executor/babelTypes.ts", import.meta.url));
const NO_TYPESCRIPT_PRINTER = fileURLToPath(
  new URL("./workers/realm/executor/noTypeScriptPrinter.ts", import.meta.url),
);
const MIXIN_PLUGINS = "const mixinPlugins = { jsx, typescript };\n";
const ZOD_MODULE = fileURLToPath(new URL("./workers/realm/runtime/zodModule.ts", import.meta.url));
const RECONCILER_MODULE = fileURLToPath(new URL("./workers/realm/reconciler/reconcilerModule.ts", import.meta.url));
const NODE_ENV = { "process.env.NODE_ENV": JSON.stringify("production") };
const NO_INPUT_SOURCE_MAP = fileURLToPath(new URL("./workers/realm/executor/noInputSourceMap.ts", import.meta.url));
const LAZY_GEN_MAPPING = fileURLToPath(new URL("./workers/realm/executor/lazyGenMapping.cjs", import.meta.url));

/**
 * @babel/parser ships every syntax plugin in one CommonJS file, so none can
 * be tree-shaken. The realm parses with `typescript` and `jsx` only
 * (transform.ts, statementSplitter.ts): the Flow, ESTree, placeholders and
 * V8-intrinsic mixins (~15 KB gzipped) are cut out here. Each cut is located
 * by the declarations that open and close it; if a Babel update moves them,
 * the build stops and says which (test/realmParserCut.test.ts checks the cut
 * parser reads the realm's code as the whole one does).
 */
const PARSER_CUTS: { from: string; to: string; replace?: string }[] = [
  { from: "var estree = superClass => class ESTreeParserMixin extends superClass {", to: "class TokContext {" },
  { from: "class FlowScope extends Scope {", to: "const entities = {" },
  { from: "const PlaceholderErrors = ParseErrorEnum`placeholders`", to: "const PIPELINE_PROPOSALS =" },
  { from: "const mixinPlugins = {", to: "const mixinPluginNames =", replace: MIXIN_PLUGINS },
];

export function cutParserPlugins(code: string): string {
  let out = code;
  for (const cut of PARSER_CUTS) {
    const start = out.indexOf(cut.from);
    const end = start < 0 ? -1 : out.indexOf(cut.to, start);
    if (start < 0 || end < 0 || out.indexOf(cut.from, start + 1) >= 0) {
      throw new Error(
        `vite.realm.config.ts: @babel/parser changed: cannot find the one "${cut.from}" … "${cut.to}" to cut`,
      );
    }
    out = out.slice(0, start) + (cut.replace ?? "") + out.slice(end);
  }
  return out;
}

/** zod's `locales` namespace holds every language (~160 KB minified); the realm keeps English. */
function zodEnglishOnly(): Plugin {
  return {
    name: "livemark-zod-english",
    enforce: "pre",
    resolveId(source, importer) {
      if (source === "../locales/index.js" && importer && /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(importer))
        return ZOD_LOCALES;
      return null;
    },
  };
}

/**
 * zod built on its own (workers/realm/runtime/zodModule.ts as the entry),
 * minified, as a classic script that declares `LivemarkZod`, and the export
 * names of its `z`, read by evaluating that script here.
 */
export async function buildZodScript(): Promise<{ script: string; exports: string[] }> {
  const result = await build({
    configFile: false,
    logLevel: "warn",
    publicDir: false,
    plugins: [zodEnglishOnly()],
    define: NODE_ENV,
    build: {
      write: false,
      target: "es2022",
      minify: true,
      lib: { entry: ZOD_MODULE, formats: ["iife"], name: "LivemarkZod", fileName: () => "zod.js" },
    },
  });
  const outputs = Array.isArray(result) ? result : [result];
  const chunk = outputs.flatMap((each) => ("output" in each ? each.output : [])).find((each) => each.type === "chunk");
  if (!chunk || chunk.type !== "chunk") throw new Error("vite.realm.config.ts: the zod build wrote no script");
  const script = chunk.code;
  const built = new Function(`${script}\nreturn LivemarkZod;`)() as {
    ZOD_EXPORTS: string[];
    evaluateZod(): { object?: unknown };
  };
  if (typeof built.evaluateZod().object !== "function")
    throw new Error("vite.realm.config.ts: the zod build has no z.object");
  return { script, exports: [...built.ZOD_EXPORTS] };
}

/** Stands for zod's script in the minified bundle until `generateBundle` puts the string there. */
const ZOD_SCRIPT_PLACEHOLDER = "LIVEMARK_ZOD_SCRIPT";

/**
 * The realm bundle's zodModule.ts: zod's script as a string, compiled with
 * `Function` on the first call (the realm's policy allows eval). A string
 * costs the bundle's load next to nothing: zod is neither compiled nor
 * evaluated until `z` is used.
 */
export function zodModuleCode(exports: readonly string[]): string {
  return [
    `const compile = Function;`,
    `export const ZOD_EXPORTS = Object.freeze(${JSON.stringify(exports)});`,
    `export function evaluateZod() { return compile(${ZOD_SCRIPT_PLACEHOLDER})(); }`,
  ].join("\n");
}

/** The body `evaluateZod` compiles: zod's script, then its namespace as the result. */
function zodFunctionBody(script: string): string {
  return `${script}\nreturn LivemarkZod.evaluateZod();\n//# sourceURL=livemark-zod.js`;
}

/**
 * Puts a script kept as text (a function body), as a string literal, where
 * its placeholder is in the minified bundle (after the minifier, which would
 * re-quote a 190 KB string and cost ~10 KB gzipped).
 */
function insertScriptText(code: string, placeholder: string, body: string): string {
  const first = code.indexOf(placeholder);
  if (first < 0 || code.indexOf(placeholder, first + 1) >= 0) {
    throw new Error(`vite.realm.config.ts: expected exactly one ${placeholder} in the realm bundle`);
  }
  return code.slice(0, first) + JSON.stringify(body) + code.slice(first + placeholder.length);
}

/** zod's script in the minified bundle, as the string `evaluateZod` compiles. */
export function insertZodScript(code: string, script: string): string {
  return insertScriptText(code, ZOD_SCRIPT_PLACEHOLDER, zodFunctionBody(script));
}

/**
 * react-reconciler (with its scheduler) built on its own
 * (workers/realm/reconciler/reconcilerModule.ts as the entry), minified, as
 * a classic script that declares `LivemarkReconciler` and reads React from a
 * variable `React` (the realm's one React, passed in when it is compiled).
 */
export async function buildReconcilerScript(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: "warn",
    publicDir: false,
    define: NODE_ENV,
    plugins: [
      {
        // Its `require("react")` is the realm's React: the variable the script is compiled with.
        name: "livemark-reconciler-react",
        enforce: "pre",
        resolveId: (source) => (source === "react" ? REALM_REACT : null),
        load: (id) => (id === REALM_REACT ? { code: "module.exports = React;", map: null } : null),
      },
    ],
    build: {
      write: false,
      target: "es2022",
      minify: true,
      lib: {
        entry: RECONCILER_MODULE,
        formats: ["iife"],
        name: "LivemarkReconciler",
        fileName: () => "reconciler.js",
      },
    },
  });
  const outputs = Array.isArray(result) ? result : [result];
  const chunk = outputs.flatMap((each) => ("output" in each ? each.output : [])).find((each) => each.type === "chunk");
  if (!chunk || chunk.type !== "chunk") throw new Error("vite.realm.config.ts: the reconciler build wrote no script");
  // A second React (or a `require` left for a bundler) would break hooks or the worker.
  if (/\brequire\(|react\.production|useState=/.test(chunk.code))
    throw new Error("vite.realm.config.ts: the reconciler build holds React or a require");
  return chunk.code;
}

/** The module the reconciler build reads React from. */
const REALM_REACT = "\0livemark-realm-react";

/** Stands for the reconciler's script in the minified bundle until `generateBundle` puts the string there. */
const RECONCILER_SCRIPT_PLACEHOLDER = "LIVEMARK_RECONCILER_SCRIPT";

/** The realm bundle's reconcilerModule.ts: the reconciler's script as a string, compiled with `Function("React", …)` on the call. */
export function reconcilerModuleCode(): string {
  return [
    `const compile = Function;`,
    `export function loadCreateReconciler(react) { return compile("React", ${RECONCILER_SCRIPT_PLACEHOLDER})(react); }`,
  ].join("\n");
}

/** The body `loadCreateReconciler` compiles: the reconciler's script, then its factory as the result. */
function reconcilerFunctionBody(script: string): string {
  return `${script}\nreturn LivemarkReconciler.loadCreateReconciler(React);\n//# sourceURL=livemark-reconciler.js`;
}

/** The reconciler's script in the minified bundle, as the string `loadCreateReconciler` compiles. */
export function insertReconcilerScript(code: string, script: string): string {
  return insertScriptText(code, RECONCILER_SCRIPT_PLACEHOLDER, reconcilerFunctionBody(script));
}

/** The zod build of this realm build (its `load` hook makes it, `generateBundle` puts it in). */
let zod: { script: string; exports: string[] } | undefined;
/** The reconciler build of this realm build (made by `load`, put in by `generateBundle`). */
let reconciler: string | undefined;

// The realm runs in a classic Worker started from a blob URL inside the
// opaque-origin sandbox (module workers fail there in Chromium), so it is one
// self-contained IIFE with Babel inside.
export default defineConfig({
  publicDir: false,
  plugins: [
    {
      // @babel/types is CommonJS and cannot be tree-shaken (~250 KB minified).
      name: "livemark-realm-slim",
      enforce: "pre",
      resolveId(source, importer) {
        // @babel/generator's view of @babel/types: the realm's small stand-in (babelTypes.ts).
        if (source === "@babel/types") return BABEL_TYPES;
        // @babel/generator reads input source maps, which the realm never passes (~4 KB gzipped).
        if (source === "@jridgewell/trace-mapping") return NO_INPUT_SOURCE_MAP;
        // Its source-map writer: the same, evaluated when an error first needs a map, not before READY.
        if (source === "@jridgewell/gen-mapping" && importer !== LAZY_GEN_MAPPING) return LAZY_GEN_MAPPING;
        // Its TypeScript printers: the realm prints only JavaScript, every TypeScript
        // node lowered or removed first (~3 KB gzipped). (Its Flow printers stay: without
        // them the generator wrapped blocks and for-heads in parentheses.)
        const generators =
          importer !== undefined && /[\\/]@babel[\\/]generator[\\/]lib[\\/]generators[\\/]/.test(importer);
        if (generators && source === "./typescript.js") return NO_TYPESCRIPT_PRINTER;
        return null;
      },
      // zod: a string in the bundle, evaluated on first use (workers/realm/runtime/zod.ts).
      // react-reconciler: a string too, compiled when the first mount needs it (workers/realm/reconciler/reconcilerModule.ts).
      async load(id) {
        if (id === RECONCILER_MODULE) {
          reconciler = await buildReconcilerScript();
          return { code: reconcilerModuleCode(), map: null };
        }
        if (id !== ZOD_MODULE) return null;
        zod = await buildZodScript();
        return { code: zodModuleCode(zod.exports), map: null };
      },
      generateBundle(_options, bundle) {
        if (!zod) throw new Error("vite.realm.config.ts: the realm bundle does not use zod's module");
        if (!reconciler) throw new Error("vite.realm.config.ts: the realm bundle does not use the reconciler's module");
        for (const chunk of Object.values(bundle))
          if (chunk.type === "chunk")
            chunk.code = insertReconcilerScript(insertZodScript(chunk.code, zod.script), reconciler);
      },
      transform(code, id) {
        if (/[\\/]@babel[\\/]parser[\\/]lib[\\/]index\.js$/.test(id))
          return { code: cutParserPlugins(code), map: null };
        return null;
      },
    },
  ],
  build: {
    target: "es2022",
    outDir: "public/generated",
    emptyOutDir: true,
    minify: true,
    lib: {
      entry: fileURLToPath(new URL("./workers/realm/index.ts", import.meta.url)),
      formats: ["iife"],
      name: "LivemarkRealm",
      fileName: () => "realm.js",
    },
  },
  define: NODE_ENV,
});
