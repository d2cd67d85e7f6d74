/**
 * `new Data(initial)`: reactive state. The result *is* the state — a deep
 * proxy over `initial` — so code reads and writes it like the object itself:
 *
 *   const state = new Data({ count: 0, items: [] });
 *   state.count++; state.items.push({ id: 1 }); delete state.items[0].done;
 *
 * Every mount whose render read any part of this Data re-renders at the next
 * frame after a mutation (tracking.ts), however many mutations there were.
 *
 * Identity follows changes, like immutable state: after a mutation the
 * changed object and all its ancestors read as new proxies (`state.items
 * !== itemsBefore` after a push), untouched ones keep theirs. So
 * `useMemo(..., [state.items])`, `React.memo` and effect dependencies see
 * changes. Writes through an older proxy still reach the same object.
 *
 * Plain objects and arrays are reactive; other objects (Date, Map, class
 * instances) are stored as they are and their inner mutations go unseen —
 * replace them (`state.when = new Date()`). Mutating the original `initial`
 * object directly bypasses the proxy and re-renders nothing.
 */
import { notify, trackRead, type ReactiveSource, type Subscriber } from "./tracking";

interface Store extends ReactiveSource {
  readonly handler: ProxyHandler<object>;
  /** Per target: the proxy handed out for the target's current version. */
  readonly proxies: WeakMap<object, { version: number; proxy: object }>;
}

/** proxy → its target and store. */
const proxies = new WeakMap<object, { target: object; store: Store }>();
/** target → version, bumped when it or anything below it changes. */
const versions = new WeakMap<object, number>();
/** target → the targets it was read from (a node may have several parents). */
const parents = new WeakMap<object, Set<object>>();

export function isDataProxy(value: unknown): value is object {
  return typeof value === "object" && value !== null && proxies.has(value);
}

/** The raw object behind a Data proxy (for serialization); other values unchanged. */
export function toRaw<T>(value: T): T {
  return (typeof value === "object" && value !== null && (proxies.get(value)?.target as T)) || value;
}

/** The Data tree a proxy belongs to, as a reactive source. */
export function sourceOf(value: unknown): ReactiveSource | undefined {
  return typeof value === "object" && value !== null ? proxies.get(value)?.store : undefined;
}

/** The proxy for the current version of the object `value` proxies (so a root passed to `ui` changes identity too). */
export function currentProxy<T>(value: T): T {
  const entry = typeof value === "object" && value !== null ? proxies.get(value) : undefined;
  return entry ? (proxyOf(entry.store, entry.target) as T) : value;
}

function isReactiveObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function proxyOf(store: Store, target: object): object {
  const version = versions.get(target) ?? 0;
  const cached = store.proxies.get(target);
  if (cached && cached.version === version) return cached.proxy;
  const proxy = new Proxy(target, store.handler);
  proxies.set(proxy, { target, store });
  store.proxies.set(target, { version, proxy });
  return proxy;
}

function link(child: object, parent: object): void {
  let set = parents.get(child);
  if (!set) parents.set(child, (set = new Set()));
  set.add(parent);
}

function bump(target: object): void {
  const pending = [target];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    versions.set(current, (versions.get(current) ?? 0) + 1);
    const above = parents.get(current);
    if (above) for (const parent of above) pending.push(parent);
  }
}

function createStore(): Store {
  const store: Store = {
    subscribers: new Set<Subscriber>(),
    isStreaming: () => false,
    proxies: new WeakMap(),
    handler: {
      get(target, key, receiver) {
        if (typeof key === "symbol") return Reflect.get(target, key, receiver);
        trackRead(store);
        const value = Reflect.get(target, key, receiver);
        if (!isReactiveObject(value)) return value;
        // A proxy must return the very value of a non-writable, non-configurable property.
        const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
        if (descriptor && descriptor.configurable === false && descriptor.writable === false) return value;
        link(value, target);
        return proxyOf(store, value);
      },
      set(target, key, value) {
        const raw = toRaw(value);
        const had = Object.hasOwn(target, key);
        const previous = (target as Record<PropertyKey, unknown>)[key];
        const ok = Reflect.set(target, key, raw);
        if (ok && (!had || !Object.is(previous, raw))) changed(target);
        return ok;
      },
      deleteProperty(target, key) {
        const had = Object.hasOwn(target, key);
        const ok = Reflect.deleteProperty(target, key);
        if (ok && had) changed(target);
        return ok;
      },
      defineProperty(target, key, descriptor) {
        const ok = Reflect.defineProperty(
          target,
          key,
          "value" in descriptor ? { ...descriptor, value: toRaw(descriptor.value) } : descriptor,
        );
        if (ok) changed(target);
        return ok;
      },
      has(target, key) {
        if (typeof key !== "symbol") trackRead(store);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        trackRead(store);
        return Reflect.ownKeys(target);
      },
    },
  };
  function changed(target: object): void {
    bump(target);
    notify(store);
  }
  return store;
}

export function createData(initial: unknown): object {
  if (!isReactiveObject(initial)) {
    throw new TypeError("new Data(initial) needs a plain object or an array, e.g. new Data({ count: 0 })");
  }
  return proxyOf(createStore(), toRaw(initial));
}

/**
 * The global: `new Data(initial)` returns the proxy (a constructor may return
 * an object). `value instanceof Data` is true for any Data proxy.
 */
export const Data = function Data(this: unknown, initial: unknown) {
  if (!new.target) throw new TypeError("Data is a class: write new Data(initial)");
  return createData(initial);
} as unknown as { new <T extends object>(initial: T): T };

Object.defineProperty(Data, Symbol.hasInstance, { value: (value: unknown) => isDataProxy(value) });
