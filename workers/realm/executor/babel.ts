/**
 * The realm's only view of Babel: the parser, the code generator and a small
 * stand-in for the AST helpers of `@babel/types` (babelTypes.ts), without
 * babel-core, its plugins or presets (which made `@babel/standalone` most of
 * the realm bundle). What the presets did for the executor is done by
 * lowerSyntax.ts and lowerRuntimeTypeScript.ts.
 */
import { parse, type ParserOptions } from "@babel/parser";
import generatorModule from "@babel/generator";
import type * as Types from "@babel/types";
import * as babelTypes from "./babelTypes";

/** The subset of `@babel/parser` the executor uses (the shape `Babel.packages.parser` had). */
export const parser = { parse };
export type { ParserOptions };

// @babel/generator is CommonJS: its default export arrives wrapped or not, depending on the bundler.
type Generate = typeof import("@babel/generator").default;
export const generate: Generate =
  (generatorModule as unknown as { default?: Generate }).default ?? (generatorModule as unknown as Generate);

/** Typed as the real package, limited to what babelTypes.ts provides: using anything else does not compile. */
export const t = babelTypes as unknown as Pick<typeof Types, keyof typeof babelTypes & keyof typeof Types>;
