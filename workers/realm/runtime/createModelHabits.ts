/**
 * Meet models where they are: the code habits models bring from millions of
 * React and browser snippets either run here or fail once with an error that
 * says what to write instead (issue 16).
 *
 * Runs:     `import … from "react"` and the other modules of realmModules.ts,
 *           `export default App` (mounted if its block mounted nothing),
 *           `ReactDOM.createRoot(anything).render(<App />)`, `ReactDOM.render`,
 *           `window` (the realm's globals, then globalThis).
 * Teaches:  `document` and DOM elements, `alert`/`confirm`/`prompt`,
 *           `localStorage`/`sessionStorage`/`indexedDB`, `require` of
 *           anything the realm does not have.
 *
 * A model's own top-level declaration of one of these names (`const prompt =
 * "…"`) simply takes the name over. So does one of the realm's conveniences
 * (`const [x, y, z] = point`), with a one-line warning: the realm's value
 * stays reachable as `zod` or `realm.<name>`.
 */
import type * as ReactTypes from "react";
import { REALM_HOOKS, type RealmHooks } from "../executor/realmHooks";
import { createRealmModules } from "./realmModules";
import { DEFAULT_EXPORT_NOTE } from "../../../src/wire/events";

/** What the realm cannot do, with the alternative: an ordinary catchable Error. */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
  readonly code = "unavailable";
}

const DOM_ALTERNATIVE =
  "there is no page DOM in the realm; show UI with mount({ ui: () => <App /> }) (ReactDOM.createRoot(…).render(<App />) works too) and keep changing values in React state or new Data({ … })";
const STORAGE_ALTERNATIVE =
  "keep app data with `await storage.set(key, value)` and `await storage.get(key)` (JSON values, kept for this session across reloads and resets), and in a mounted UI `const [items, setItems] = useStored(key, initial)`";
const DIALOG_ALTERNATIVE =
  "to tell yourself (the model) something use console.log(…); to ask the person, mount a form and await the answer: const form = mount({ outputSchema: z.object({ … }), ui }); const answer = await form.result";

/** Stand-ins for what a worker does not have: `typeof` still says "undefined", so feature detection takes the worker's path. */
const HIDDEN_FROM_TYPEOF: ReadonlySet<string> = new Set([
  "document",
  "alert",
  "confirm",
  "prompt",
  "localStorage",
  "sessionStorage",
  "require",
]);

/** Names a model's own declaration takes over without a word. */
export const HABIT_NAMES: ReadonlySet<string> = new Set([
  "window",
  "document",
  "alert",
  "confirm",
  "prompt",
  "localStorage",
  "sessionStorage",
  "indexedDB",
  "require",
  "ReactDOM",
]);

type Mount = (options: Record<string, unknown>) => { unmount?: () => void };

export interface ModelHabits {
  /** Merge into the realm's globals (after `base`: the counting `mount` replaces the original). */
  globals: Record<string | symbol, unknown>;
}

/** `base`: the realm's other globals (React, mount, z, the kit, …). */
export function createModelHabits(base: Record<string, unknown>): ModelHabits {
  const React = base.React as typeof ReactTypes | undefined;
  const realMount = base.mount as Mount | undefined;
  let mountCount = 0;
  const mount: Mount | undefined =
    realMount &&
    function mount(options) {
      mountCount += 1;
      return realMount(options);
    };

  const globals: Record<string | symbol, unknown> = {};
  const all = () => ({ ...base, ...globals }) as Record<string, unknown>;
  const modules = createRealmModules(all);

  if (mount) globals.mount = mount;
  if (React && mount) globals.ReactDOM = createReactDom(React, mount);
  globals.document = createDocument();
  globals.alert = dialog("alert");
  globals.confirm = dialog("confirm");
  globals.prompt = dialog("prompt");
  globals.localStorage = unavailableObject("localStorage", STORAGE_ALTERNATIVE);
  globals.sessionStorage = unavailableObject("sessionStorage", STORAGE_ALTERNATIVE);
  globals.indexedDB = platformStandIn("indexedDB", STORAGE_ALTERNATIVE);
  globals.require = function require(specifier: unknown): unknown {
    const resolved = modules(String(specifier), "*");
    if ("error" in resolved) throw new UnavailableError(resolved.error);
    return resolved.value;
  };
  globals.window = createWindow(all);

  // A model's own `z`, `mount` or `Card` wins in its code; the realm's stay
  // reachable here. Platform names (fetch, console, timers) stay protected.
  globals.zod = base.z;
  globals.realm = Object.freeze({ ...base, ...(mount ? { mount } : {}) });

  const hooks: RealmHooks = {
    resolveImport: modules,
    yieldsToDeclaration: (name) => HABIT_NAMES.has(name) || !(name in globalThis),
    hiddenFromTypeof: (name) => HIDDEN_FROM_TYPEOF.has(name),
    aliasOf: (name) =>
      HABIT_NAMES.has(name) || name === "realm"
        ? undefined
        : name === "z"
          ? "zod"
          : name === "zod"
            ? "realm.z"
            : `realm.${name}`,
    mountCount: () => mountCount,
    mountDefaultExport: (component, name) => {
      if (!mount || !React) return undefined;
      let ui: (() => unknown) | undefined;
      if (typeof component === "function") ui = () => React.createElement(component as ReactTypes.FunctionComponent);
      else if (React.isValidElement(component)) ui = () => component;
      if (!ui) return undefined;
      mount(name ? { ui, title: name } : { ui });
      const shown = name ?? "the default export";
      return (
        `${DEFAULT_EXPORT_NOTE}${name ?? "…"}\` was not mounted by its block, so the realm mounted ${shown}` +
        `${name ? ` titled "${name}"` : ""}. Imports and exports are not needed here; call mount({ ui: ${name ?? "App"} }) to choose when it shows.`
      );
    },
  };
  globals[REALM_HOOKS] = hooks;
  return { globals };
}

function dialog(name: string): (...args: unknown[]) => never {
  const refuse = (..._: unknown[]): never => {
    throw new UnavailableError(`${name}() is not available in the realm: ${DIALOG_ALTERNATIVE}`);
  };
  Object.defineProperty(refuse, "name", { value: name });
  return refuse;
}

/** An object whose every use throws `name …` with the alternative. */
function unavailableObject(name: string, alternative: string): object {
  const refuse = (what: string): never => {
    throw new UnavailableError(`${what} is not available in the realm: ${alternative}`);
  };
  return new Proxy(Object.freeze({}), {
    get: (_, property) => (typeof property === "symbol" ? undefined : refuse(`${name}.${property}`)),
    set: (_, property) => refuse(`${name}.${String(property)}`),
    has: () => false,
    deleteProperty: (_, property) => refuse(`${name}.${String(property)}`),
  });
}

/**
 * A platform object the realm has but cannot use (the worker's `indexedDB`
 * throws SecurityError at an opaque origin): calls go through, and what they
 * throw keeps its name and gains the alternative. Without it: like
 * unavailableObject.
 */
function platformStandIn(name: string, alternative: string): object {
  const platform = (globalThis as Record<string, unknown>)[name] as object | undefined;
  if (platform === undefined || platform === null) return unavailableObject(name, alternative);
  return new Proxy(Object.freeze({}), {
    get: (_, property) => {
      const value: unknown = Reflect.get(platform, property, platform);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          return (value as (...a: unknown[]) => unknown).apply(platform, args);
        } catch (error) {
          const thrown = error as { name?: unknown; message?: unknown };
          const taught = new UnavailableError(
            `${String(thrown?.message ?? error)} (${name} is not available in the realm: ${alternative})`,
          );
          Object.defineProperty(taught, "name", {
            value: typeof thrown?.name === "string" ? thrown.name : "UnavailableError",
          });
          throw taught;
        }
      };
    },
  });
}

/**
 * `document`: only what it takes to hand a container to ReactDOM
 * (`getElementById`, `querySelector`, `body`); the container itself and
 * everything else throw the DOM lesson.
 */
function createDocument(): object {
  const containers = new Map<string, object>();
  const container = (description: string) => {
    let found = containers.get(description);
    if (!found) {
      found = unavailableObject(description, DOM_ALTERNATIVE);
      containers.set(description, found);
    }
    return found;
  };
  const lookups: Record<string, unknown> = {
    getElementById: (id: unknown) => container(`document.getElementById(${JSON.stringify(String(id))})`),
    querySelector: (selector: unknown) => container(`document.querySelector(${JSON.stringify(String(selector))})`),
  };
  return new Proxy(Object.freeze({}), {
    get: (_, property) => {
      if (typeof property === "symbol") return undefined;
      if (Object.prototype.hasOwnProperty.call(lookups, property)) return lookups[property];
      if (property === "body" || property === "documentElement") return container(`document.${property}`);
      throw new UnavailableError(`document.${property} is not available: ${DOM_ALTERNATIVE}`);
    },
    set: (_, property) => {
      throw new UnavailableError(`document.${String(property)} is not available: ${DOM_ALTERNATIVE}`);
    },
    has: (_, property) =>
      property === "body" || property === "documentElement" || (typeof property === "string" && property in lookups),
  });
}

/** `window.x`: the realm's global `x` (so `window.document` teaches too), else globalThis's. */
function createWindow(globals: () => Record<string, unknown>): object {
  const proxy: object = new Proxy(globalThis, {
    get: (target, property) => {
      if (property === "window" || property === "self") return proxy;
      const realm = globals();
      if (typeof property === "string" && Object.prototype.hasOwnProperty.call(realm, property)) return realm[property];
      return Reflect.get(target, property, target);
    },
    has: (target, property) => (typeof property === "string" && property in globals()) || Reflect.has(target, property),
  });
  return proxy;
}

/**
 * ReactDOM as far as it makes sense in the realm: a root is a mount. The
 * first `render` mounts the element (titled by its component's name), a later
 * one on the same root updates that mount.
 */
function createReactDom(React: typeof ReactTypes, mount: Mount): object {
  function createRoot(_container?: unknown) {
    let element: unknown = null;
    let handle: { unmount?: () => void } | undefined;
    const listeners = new Set<() => void>();
    const subscribe = (listener: () => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    };
    const Root = () => React.useSyncExternalStore(subscribe, () => element) as ReactTypes.ReactNode;
    return Object.freeze({
      render(next: unknown) {
        element = next;
        if (handle) {
          for (const listener of [...listeners]) listener();
          return;
        }
        const title = titleOf(next);
        handle = mount(title ? { ui: Root, title } : { ui: Root });
      },
      unmount() {
        handle?.unmount?.();
        handle = undefined;
      },
    });
  }
  const roots = new Map<unknown, ReturnType<typeof createRoot>>();
  const rootFor = (container: unknown) => {
    let root = roots.get(container);
    if (!root) {
      root = createRoot(container);
      roots.set(container, root);
    }
    return root;
  };
  return Object.freeze({
    createRoot,
    hydrateRoot: (container: unknown, element: unknown) => {
      const root = createRoot(container);
      root.render(element);
      return root;
    },
    render: (element: unknown, container: unknown) => rootFor(container).render(element),
    unmountComponentAtNode: (container: unknown) => {
      const root = roots.get(container);
      roots.delete(container);
      root?.unmount();
      return root !== undefined;
    },
    flushSync: <R>(callback: () => R) => callback(),
    createPortal: (children: unknown) => children,
  });
}

function titleOf(element: unknown): string | undefined {
  const type = (element as { type?: unknown } | null)?.type;
  if (typeof type !== "function") return undefined;
  const named = type as { displayName?: unknown; name?: unknown };
  const name = typeof named.displayName === "string" ? named.displayName : named.name;
  return typeof name === "string" && name ? name : undefined;
}
