/**
 * The realm bundle keeps zod out of its start-up (vite.realm.config.ts,
 * workers/realm/runtime/zod.ts): zod is built on its own and sits in the
 * bundle as a string, compiled and run on first use. The contracts: loading the module does
 * not evaluate zod, calling it gives zod itself (English messages only), and
 * the `z` model code sees lists zod's names before zod has run.
 */
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import * as zodPackage from "zod";
import { buildZodScript, insertZodScript, zodModuleCode } from "../vite.realm.config";
import { isZodLoaded, loadZod, preloadZod, z, ZOD_PRELOAD_DELAY_MS } from "../workers/realm/runtime/zod";

type Zod = typeof zodPackage.z;

describe("the realm bundle's zod", () => {
  it("is not evaluated when the module loads, and is zod when called", async () => {
    const built = await buildZodScript();
    expect([...built.exports].sort()).toEqual(Object.keys(zodPackage.z).sort());

    // The module as the bundle has it (the string put in after minifying), as a script in a fresh
    // global: zod's registry global appears only once zod runs.
    const code = insertZodScript(zodModuleCode(built.exports), built.script).replace(
      /^export (const|function) /gm,
      "$1 ",
    );
    const global = runInNewContext(
      `${code}\n({ ZOD_EXPORTS, evaluateZod, registryBefore: typeof globalThis.__zod_globalRegistry })`,
      {},
    ) as {
      ZOD_EXPORTS: string[];
      evaluateZod(): Zod;
      registryBefore: string;
    };
    expect(global.registryBefore).toBe("undefined");
    expect(global.ZOD_EXPORTS).toContain("object");

    const zod = global.evaluateZod();
    const Person = zod.object({ name: zod.string(), age: zod.number().min(18) });
    expect(Person.parse({ name: "Ada", age: 36 })).toEqual({ name: "Ada", age: 36 });
    const failed = Person.safeParse({ name: "Ada", age: "x" });
    expect(failed.success).toBe(false);
    expect(failed.error?.issues[0].message).toBe("Invalid input: expected number, received string");
    // English only: the other languages are not in the bundle.
    expect(Object.keys(zod.locales)).toEqual(["en"]);
    expect(
      zod.fromJSONSchema({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] }).safeParse({})
        .success,
    ).toBe(false);
  }, 60_000);

  it("puts zod's script in once, as a string literal, where the bundle has the one placeholder", () => {
    const bundle = "var a=1;function b(){return Function(LIVEMARK_ZOD_SCRIPT)()}";
    const script = 'var LivemarkZod=(function(e){return e.evaluateZod=()=>"$& \\\\d \u2028",e})({});';
    const out = insertZodScript(bundle, script);
    const body = new Function(`${out.replace("var a=1;", "")}; return b;`)() as () => string;
    expect(body()).toBe("$& \\d \u2028");
    expect(() => insertZodScript("var a=1", script)).toThrow(/exactly one LIVEMARK_ZOD_SCRIPT/);
    expect(() => insertZodScript(`${bundle}${bundle}`, script)).toThrow(/exactly one LIVEMARK_ZOD_SCRIPT/);
  }, 60_000);
});

describe("the realm's `z`", () => {
  it("lists zod's names before zod runs; the worker evaluates it on its own a moment after READY", () => {
    expect(Object.keys(z).sort()).toEqual(Object.keys(zodPackage.z).sort());
    expect(isZodLoaded()).toBe(false);
    const scheduled: { callback: () => void; ms: number }[] = [];
    preloadZod((callback, ms) => scheduled.push({ callback, ms }));
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].ms).toBe(ZOD_PRELOAD_DELAY_MS);
    expect(isZodLoaded()).toBe(false);
    scheduled[0].callback();
    expect(isZodLoaded()).toBe(true);
  });

  it("gives zod's own values, read-only", () => {
    expect(z.object).toBe(zodPackage.z.object);
    expect(z.ZodError).toBe(zodPackage.z.ZodError);
    expect(loadZod()).toBe(zodPackage.z);
    expect(Object.isFrozen(z)).toBe(true);
    expect(() => {
      (z as unknown as Record<string, unknown>).object = () => "mine";
    }).toThrow(TypeError);
  });
});
