"use strict";
/**
 * The realm build's `@jridgewell/gen-mapping` for @babel/generator (see
 * vite.realm.config.ts): the same functions, read from the real package
 * the first time one is used. The generator makes a source map only when
 * an error needs one (compileStatement.ts), yet requires the package, and
 * with it its codec, when it loads: behind these getters, neither is
 * evaluated before READY. CommonJS so that the `require` stays where it is
 * (a bundler hoists an ES import). GEN_MAPPING_NAMES is every name the
 * generator reads (test/realmLazyGenMapping.test.ts).
 */
const GEN_MAPPING_NAMES = [
  "GenMapping",
  "allMappings",
  "maybeAddMapping",
  "setSourceContent",
  "toDecodedMap",
  "toEncodedMap",
];
let real;
for (const name of GEN_MAPPING_NAMES) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    get: () => (real ??= require("@jridgewell/gen-mapping"))[name],
  });
}
Object.defineProperty(exports, "GEN_MAPPING_NAMES", { value: GEN_MAPPING_NAMES });
