/**
 * The realm's zod: the `z` global (DESIGN.md §2) and tool-call argument
 * checks (capabilities/tools.ts). zod is a fifth of the realm bundle and was
 * nearly half of its evaluation time, yet only code that uses `z` needs it,
 * so the bundle keeps it as text (zodModule.ts) and evaluates it on first
 * use: the worker loads the bundle ~35 ms sooner (bench/README.md, issue
 * 14). The worker evaluates it 500 ms after READY (`preloadZod`), before
 * a reply's first fence in any but the quickest start, so the first
 * statement that uses `z` does not pay for it either (one that comes
 * sooner evaluates zod itself, ~35 ms once).
 *
 * `z` itself is an object with zod's export names as getters: it exists,
 * lists its names and can be passed around before zod is evaluated; reading
 * any name evaluates zod and gives zod's own value (`z.object`, `z.ZodError`).
 */
import type { z as ZodNamespace } from "zod";
import { evaluateZod, ZOD_EXPORTS } from "./zodModule";

export type Zod = typeof ZodNamespace;

let loaded: Zod | undefined;

/** zod's namespace, evaluated now if it was not yet. */
export function loadZod(): Zod {
  return (loaded ??= evaluateZod());
}

/** Whether zod has been evaluated (for tests). */
export function isZodLoaded(): boolean {
  return loaded !== undefined;
}

/** `z` as model code sees it. */
export const z: Zod = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(
      ZOD_EXPORTS.map((name) => [
        name,
        { enumerable: true, get: () => (loadZod() as unknown as Record<string, unknown>)[name] },
      ]),
    ),
  ),
) as Zod;

/** How long after READY the worker evaluates zod on its own: after the app's start-up, which it would otherwise compete with. */
export const ZOD_PRELOAD_DELAY_MS = 500;

/** Evaluate zod once the worker is idle, unless something used it first. */
export function preloadZod(schedule: (callback: () => void, ms: number) => unknown = setTimeout): void {
  schedule(() => void loadZod(), ZOD_PRELOAD_DELAY_MS);
}
