/**
 * Defence in depth for the realm worker's global scope, applied before any
 * model code runs. The sandbox CSP (connect-src 'none', no script sources
 * but eval) is the real wall: even with these originals restored nothing
 * could leave. Replacing them turns silent CSP failures into errors that say
 * what happened, and removes ways around the realm's own `fetch`.
 */
import { CapabilityError } from "./CapabilityError";

/** Network constructors that have no place in the realm. */
const NETWORK_CONSTRUCTORS = ["XMLHttpRequest", "WebSocket", "EventSource", "WebTransport"] as const;

function refusingConstructor(name: string): unknown {
  // A class so `new X()` and `X()` both throw, and `instanceof X` is false.
  return class {
    constructor() {
      throw new CapabilityError("network", `${name} is not available in the realm`, "use fetch()");
    }
    static toString() {
      return `function ${name}() { [not available] }`;
    }
  };
}

function define(scope: object, name: string, value: unknown): void {
  // Non-configurable and non-writable: model code cannot swap in its own
  // version for later code (or the runtime) to pick up.
  Object.defineProperty(scope, name, { value, writable: false, configurable: false, enumerable: false });
}

/** `realmFetch`: the realm's own fetch (the same one its globals hold), so there is only one. */
export function hardenGlobalScope(realmFetch: typeof fetch, scope: typeof globalThis = globalThis): void {
  for (const name of NETWORK_CONSTRUCTORS) {
    if (name in scope) define(scope, name, refusingConstructor(name));
  }
  define(scope, "fetch", realmFetch);
  define(scope, "importScripts", function importScripts(...urls: unknown[]): never {
    throw new CapabilityError("network", `importScripts(${urls.map(String).join(", ")})`, "the realm cannot load scripts");
  });
}
