/**
 * What the realm bundle keeps out of the worker's start (vite.realm.config.ts):
 * - react-reconciler (with its scheduler) is built on its own and sits in the
 *   bundle as a string, compiled with the realm's React when the first mount
 *   needs it (workers/realm/reconciler/reconcilerModule.ts). The contracts:
 *   the script holds no React of its own (one React: the model's hooks and the
 *   renderer's must be the same) and, compiled, it is react-reconciler;
 * - @babel/generator's source-map writer (`@jridgewell/gen-mapping`) is read
 *   through getters that evaluate it on first use
 *   (workers/realm/executor/lazyGenMapping.cjs): every name the generator
 *   reads is there, and each is the package's own.
 */
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type * as React from "react";
import type { Reconciler } from "react-reconciler";
import { NoEventPriority } from "react-reconciler/constants";
import { buildReconcilerScript, insertReconcilerScript, reconcilerModuleCode } from "../vite.realm.config";
import { printSnapshot } from "../workers/realm/reconciler/applyOps";
import { createHostConfig, type MountContainer } from "../workers/realm/reconciler/hostConfig";
import { createNodeTable } from "../workers/realm/reconciler/nodeTable";
import { toWireProps } from "../workers/realm/reconciler/toWireProps";

const require = createRequire(import.meta.url);

describe("the realm bundle's react-reconciler", () => {
  it("is a script without React of its own that, compiled with the realm's React, renders with its hooks", async () => {
    const script = await buildReconcilerScript();
    // No second React, and nothing left for a bundler to resolve.
    expect(script).not.toMatch(/\brequire\(/);
    expect(script).not.toContain("useState=");

    // The module as the bundle has it (the string put in after minifying), compiled with the React the bundle has:
    // production, as the realm's (Node's `react` is its development build, which a production reconciler cannot drive).
    const code = insertReconcilerScript(reconcilerModuleCode(), script).replace(/^export function /m, "function ");
    const loadCreateReconciler = new Function(`${code}\nreturn loadCreateReconciler;`)() as (
      react: typeof React,
    ) => (config: object) => Reconciler<MountContainer>;
    const react = require(
      join(dirname(require.resolve("react/package.json")), "cjs", "react.production.js"),
    ) as typeof React;
    const reconciler = loadCreateReconciler(react)(createHostConfig({ current: NoEventPriority }));

    const table = createNodeTable({ serialize: (type, props) => toWireProps(type, props) });
    const errors: unknown[] = [];
    const container: MountContainer = { table, onRenderStart() {}, onRenderEnd() {}, onCommit() {} };
    const root = reconciler.createContainer(
      container,
      1,
      null,
      false,
      null,
      "t-",
      (error) => errors.push(error),
      () => {},
      () => {},
      () => {},
    );
    function Counter() {
      const [count] = react.useState(42);
      return react.createElement("b", { id: "count" }, String(count));
    }
    reconciler.updateContainerSync(react.createElement(Counter), root, null, null);
    reconciler.flushSyncWork();
    expect(errors).toEqual([]);
    expect(printSnapshot(table.snapshot())).toBe('<b id="count">42</b>');
  }, 60_000);
});

describe("the realm bundle's source-map writer", () => {
  const standIn = require("../workers/realm/executor/lazyGenMapping.cjs") as Record<string, unknown> & {
    GEN_MAPPING_NAMES: string[];
  };

  it("has every name @babel/generator reads, each the package's own", () => {
    const generatorLib = join(require.resolve("@babel/generator/package.json"), "..", "lib");
    const read = new Set<string>();
    for (const file of readdirSync(generatorLib, { recursive: true }) as string[]) {
      if (!file.endsWith(".js")) continue;
      const text = readFileSync(join(generatorLib, file), "utf8");
      for (const match of text.matchAll(/_genMapping\.(\w+)/g)) read.add(match[1]);
    }
    expect(read.size).toBeGreaterThan(0);
    for (const name of read) expect(standIn.GEN_MAPPING_NAMES).toContain(name);
    // The package as the generator requires it (CommonJS).
    const genMapping = require("@jridgewell/gen-mapping") as Record<string, unknown>;
    for (const name of standIn.GEN_MAPPING_NAMES) {
      expect(typeof genMapping[name]).toBe("function");
      expect(standIn[name]).toBe(genMapping[name]);
    }
  });
});
