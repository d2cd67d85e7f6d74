/**
 * Where the realm's zod comes from. In Node (unit tests) it is the zod
 * package itself; the realm bundle replaces this file (vite.realm.config.ts,
 * `zodModuleCode`) with zod built on its own and kept as text, which
 * `evaluateZod` compiles on first use. Same two exports either way.
 */
import { z } from "zod";

/** zod's export names (`object`, `string`, `ZodError`, …): what `z` has before zod is evaluated. */
export const ZOD_EXPORTS: readonly string[] = Object.keys(z);

/** zod's namespace (`z`). The bundle's version evaluates zod here, once per call: call it once. */
export function evaluateZod(): typeof z {
  return z;
}
