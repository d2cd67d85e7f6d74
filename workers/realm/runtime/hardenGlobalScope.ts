/**
 * Defence in depth for the realm worker's global scope, applied before any
 * model code runs. The sandbox CSP (connect-src 'none', no script sources
 * but eval) is the real wall: even with these originals restored nothing
 * could leave. Replacing them turns silent CSP failures into errors that say
 * what happened, and removes ways around the realm's own `fetch`, which
 * stays the only network entry point.
 *
 * - Network primitives are replaced on the global object *and on every
 *   prototype of it* (`Object.getPrototypeOf(self).fetch` must not be the
 *   platform's), non-writable and non-configurable.
 * - `Worker` starts only blob: workers whose blob the realm made
 *   (`URL.createObjectURL`), and runs a prelude in them first that removes
 *   the same primitives there (a nested worker would otherwise get the
 *   platform's `fetch`, `XMLHttpRequest` and `importScripts`).
 * - The objects the runtime's port relies on (`MessagePort.prototype`,
 *   `MessageEvent.prototype`) are frozen, so redefining
 *   `MessageEvent.prototype.data` to catch the runtime's event (and through
 *   it the port) fails; serveRealm also reads messages through getters it
 *   captured first (captureIntrinsics.ts).
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

function tryDefine(scope: object, name: string, value: unknown): void {
  try {
    define(scope, name, value);
  } catch {
    // Already locked by the platform: then at least it cannot be read as the original.
    try {
      delete (scope as Record<string, unknown>)[name];
    } catch {
      // Nothing more to do; the CSP remains.
    }
  }
}

/**
 * Runs first in every worker the realm starts: the same primitives go, on
 * the whole prototype chain, and such a worker may not start workers itself.
 * Plain ES5 in a string: it runs in a scope where nothing of ours exists.
 */
export const NESTED_WORKER_PRELUDE = `(function () {
  "use strict";
  var names = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker", "SharedWorker"];
  var refuse = function (name) { return function () { throw new Error(name + " is not available in a worker started by the realm (network capability not granted)"); }; };
  for (var o = self; o; o = Object.getPrototypeOf(o)) {
    for (var i = 0; i < names.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(o, names[i])) continue;
      try { Object.defineProperty(o, names[i], { value: refuse(names[i]), writable: false, configurable: false }); }
      catch (e) { try { delete o[names[i]]; } catch (e2) {} }
    }
  }
})();
`;

interface WorkerPlatform {
  Worker?: new (url: string | URL, options?: WorkerOptions) => Worker;
  URL?: typeof URL;
  Blob?: typeof Blob;
  FileReaderSync?: new () => { readAsText(blob: Blob): string };
}

function hardenWorkers(scope: typeof globalThis): void {
  const platform = scope as unknown as WorkerPlatform;
  const RealWorker = platform.Worker;
  const RealURL = platform.URL;
  const RealBlob = platform.Blob;
  const Reader = platform.FileReaderSync;
  if (!RealWorker) return;
  if (!RealURL || !RealBlob || !Reader || typeof RealURL.createObjectURL !== "function") {
    define(scope, "Worker", refusingConstructor("Worker"));
    return;
  }
  const createObjectURL = RealURL.createObjectURL.bind(RealURL);
  const apply = Reflect.apply;
  const blobs = new Map<string, Blob>();
  const isBlob = (value: unknown): value is Blob => value instanceof RealBlob;
  tryDefine(RealURL, "createObjectURL", function createObjectURLInRealm(object: Blob | MediaSource): string {
    const url = createObjectURL(object);
    if (isBlob(object)) blobs.set(url, object);
    return url;
  });
  const Hardened = function Worker(this: unknown, url: string | URL, options?: WorkerOptions): Worker {
    if (!new.target) throw new TypeError("Failed to construct 'Worker': Please use the 'new' operator");
    const key = String(url);
    const blob = blobs.get(key);
    if (!blob)
      throw new CapabilityError(
        "network",
        `new Worker(${key.slice(0, 200)})`,
        "workers start only from blob: URLs made in the realm",
      );
    const source = apply(Reader.prototype.readAsText, new Reader(), [blob]) as string;
    const hardened = createObjectURL(new RealBlob([NESTED_WORKER_PRELUDE, source], { type: "text/javascript" }));
    return new RealWorker(hardened, options);
  };
  define(scope, "Worker", Hardened);
}

/** `realmFetch`: the realm's own fetch (the same one its globals hold), so there is only one. */
export function hardenGlobalScope(realmFetch: typeof fetch, scope: typeof globalThis = globalThis): void {
  const refuseImportScripts = function importScripts(...urls: unknown[]): never {
    throw new CapabilityError(
      "network",
      `importScripts(${urls.map(String).join(", ")})`,
      "the realm cannot load scripts",
    );
  };
  // The global object and every prototype above it: a copy left on
  // WorkerGlobalScope.prototype is as good as the global to model code.
  for (
    let target: object | null = scope;
    target && target !== Object.prototype;
    target = Object.getPrototypeOf(target)
  ) {
    const own = (name: string) => target === scope || Object.hasOwn(target as object, name);
    for (const name of NETWORK_CONSTRUCTORS) {
      if (target === scope ? name in scope : own(name)) tryDefine(target, name, refusingConstructor(name));
    }
    if (own("fetch")) tryDefine(target, "fetch", realmFetch);
    if (own("importScripts")) tryDefine(target, "importScripts", refuseImportScripts);
  }
  hardenWorkers(scope);
  const frozen = scope as unknown as { MessagePort?: { prototype: object }; MessageEvent?: { prototype: object } };
  if (frozen.MessagePort) Object.freeze(frozen.MessagePort.prototype);
  if (frozen.MessageEvent) Object.freeze(frozen.MessageEvent.prototype);
}
