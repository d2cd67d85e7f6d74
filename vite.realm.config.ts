import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

const ZOD_LOCALES = fileURLToPath(new URL("./workers/realm/zodLocales.ts", import.meta.url));
const BABEL_TYPES = fileURLToPath(new URL("./workers/realm/executor/babelTypes.ts", import.meta.url));
const NO_TYPESCRIPT_PRINTER = fileURLToPath(new URL("./workers/realm/executor/noTypeScriptPrinter.ts", import.meta.url));
const MIXIN_PLUGINS = "const mixinPlugins = { jsx, typescript };\n";
const NO_INPUT_SOURCE_MAP = fileURLToPath(new URL("./workers/realm/executor/noInputSourceMap.ts", import.meta.url));

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
      throw new Error(`vite.realm.config.ts: @babel/parser changed: cannot find the one "${cut.from}" … "${cut.to}" to cut`);
    }
    out = out.slice(0, start) + (cut.replace ?? "") + out.slice(end);
  }
  return out;
}

// The realm runs in a classic Worker started from a blob URL inside the
// opaque-origin sandbox (module workers fail there in Chromium), so it is one
// self-contained IIFE with Babel inside.
export default defineConfig({
  publicDir: false,
  plugins: [
    {
      // zod's `locales` namespace holds every language (~160 KB minified); the realm keeps English.
      // @babel/types is CommonJS and cannot be tree-shaken (~250 KB minified).
      name: "livemark-realm-slim",
      enforce: "pre",
      resolveId(source, importer) {
        // @babel/generator's view of @babel/types: the realm's small stand-in (babelTypes.ts).
        if (source === "@babel/types") return BABEL_TYPES;
        // @babel/generator reads input source maps, which the realm never passes (~4 KB gzipped).
        if (source === "@jridgewell/trace-mapping") return NO_INPUT_SOURCE_MAP;
        // Its TypeScript printers: the realm prints only JavaScript, every TypeScript
        // node lowered or removed first (~3 KB gzipped). (Its Flow printers stay: without
        // them the generator wrapped blocks and for-heads in parentheses.)
        const generators = importer !== undefined && /[\\/]@babel[\\/]generator[\\/]lib[\\/]generators[\\/]/.test(importer);
        if (generators && source === "./typescript.js") return NO_TYPESCRIPT_PRINTER;
        if (source === "../locales/index.js" && importer && /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(importer)) return ZOD_LOCALES;
        return null;
      },
      transform(code, id) {
        if (/[\\/]@babel[\\/]parser[\\/]lib[\\/]index\.js$/.test(id)) return { code: cutParserPlugins(code), map: null };
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
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
