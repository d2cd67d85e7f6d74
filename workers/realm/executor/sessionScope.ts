/**
 * The session scope: one object whose properties are the session's top-level
 * bindings. Compiled statements read and write `$$s.name` (transform.ts).
 *
 * - `let`/`var`/function/class bindings are writable data properties.
 * - `const` bindings are accessors whose setter throws the engine's own
 *   `TypeError: Assignment to constant variable.`, so `x = 1`, `x += 1` and
 *   `x++` on a const fail exactly as in JS, from any statement or closure.
 * - The prototype is a proxy that reads and writes globalThis for names that
 *   are there by now, and otherwise throws `ReferenceError: x is not defined`
 *   as an unresolvable reference does in strict code. `typeof x` is compiled
 *   to `typeOf` instead.
 *
 * Re-declaring a name in a later statement replaces the binding (as a REPL
 * does): the new kind and value win, and closures that read `$$s.name` see the
 * new one. A failing initializer leaves the old binding in place, because the
 * value is computed before `declare` runs.
 */
import { KIND } from "./transform";

export type SessionScope = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

// A name compiled as `$$s.name` because nothing declared it yet may have
// become a global since (`globalThis.answer = 42`): look there last, as a
// script's scope chain would.
const UNDECLARED: object = new Proxy(Object.create(null) as object, {
  get(_target, key) {
    if (typeof key === "symbol") return undefined;
    if (key in globalThis) return (globalThis as Record<string, unknown>)[key];
    throw new ReferenceError(`${key} is not defined`);
  },
  set(_target, key, value) {
    if (typeof key === "string" && key in globalThis) {
      (globalThis as Record<string, unknown>)[key] = value;
      return true;
    }
    throw new ReferenceError(`${String(key)} is not defined`);
  },
  has() {
    return false;
  },
});

export function createSessionScope(): SessionScope {
  return Object.create(UNDECLARED) as SessionScope;
}

export function isDeclared(scope: SessionScope, name: string): boolean {
  return hasOwn.call(scope, name);
}

function assignToConstant(): never {
  throw new TypeError("Assignment to constant variable.");
}

/** `kind` is a `KIND` value. Anonymous functions and classes take the name, as `const f = () => {}` does. */
export function declare(scope: SessionScope, name: string, kind: number, value: unknown): void {
  if (typeof value === "function" && value.name === "") {
    Object.defineProperty(value, "name", { value: name, configurable: true });
  }
  if (kind === KIND.const) {
    Object.defineProperty(scope, name, {
      get: () => value,
      set: assignToConstant,
      enumerable: true,
      configurable: true,
    });
  } else {
    Object.defineProperty(scope, name, { value, writable: true, enumerable: true, configurable: true });
  }
}

/** Declares each own property of `staged` (a destructured declaration). */
export function declareAll(scope: SessionScope, kind: number, staged: Record<string, unknown>): void {
  for (const name of Object.keys(staged)) declare(scope, name, kind, staged[name]);
}

/** `var` hoisting: a new name starts `undefined`; an existing binding keeps its value but becomes writable. */
export function hoistVars(scope: SessionScope, names: readonly string[]): void {
  for (const name of names) {
    if (!hasOwn.call(scope, name)) {
      declare(scope, name, KIND.var, undefined);
      continue;
    }
    const descriptor = Object.getOwnPropertyDescriptor(scope, name)!;
    if (descriptor.get) declare(scope, name, KIND.var, descriptor.get());
  }
}

/** `typeof name` for a name that may not be declared yet. */
export function typeOf(scope: SessionScope, name: string): string {
  if (hasOwn.call(scope, name)) return typeof scope[name];
  return name in globalThis ? typeof (globalThis as Record<string, unknown>)[name] : "undefined";
}
