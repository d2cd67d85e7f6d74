/**
 * What the executor asks of the realm beyond its globals, for the module
 * habits of models (convertModules.ts): which imports resolve to what, which
 * realm globals a model's declaration may take over, and how to show a
 * default-exported component nobody mounted.
 *
 * The realm puts one RealmHooks object in its globals record under
 * REALM_HOOKS. A symbol key: compiled code reads globals only by identifier
 * (`$$g.name`), so model code cannot reach it. Globals without it (unit
 * tests) keep the strict behaviour: imports refused, no global yields.
 */
export const REALM_HOOKS: unique symbol = Symbol.for("livemark.realm-hooks") as never;

export type ModuleResolution = { value: unknown } | { error: string };

export interface RealmHooks {
  /** `imported` is "default", "*" or an export name. */
  resolveImport(specifier: string, imported: string): ModuleResolution;
  /** A realm global a model's top-level declaration may take over (never a platform global: fetch, console, timers). */
  yieldsToDeclaration(name: string): boolean;
  /** A teaching stand-in (`document`, `alert`, `localStorage`): `typeof` says "undefined", as in a worker. */
  hiddenFromTypeof(name: string): boolean;
  /**
   * Where the realm's own value of a global the model took over stays
   * reachable (`z` → "zod", `mount` → "realm.mount"), for the one-line
   * warning; undefined: taken over without a word (`prompt`, `document`).
   */
  aliasOf(name: string): string | undefined;
  /** Mounts made so far (the executor compares before and after a block). */
  mountCount(): number;
  /** Show `component` (a default export nobody mounted); returns the note for the model, if it mounted. */
  mountDefaultExport(component: unknown, name: string | undefined): string | undefined;
}

export function realmHooksOf(globals: Record<string | symbol, unknown>): RealmHooks | undefined {
  return Object.prototype.hasOwnProperty.call(globals, REALM_HOOKS) ? (globals[REALM_HOOKS] as RealmHooks) : undefined;
}
