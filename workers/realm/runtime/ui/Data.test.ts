import { describe, expect, test } from "vitest";
import { currentProxy, Data, isDataProxy, sourceOf, toRaw } from "./Data";
import { setRenderingSubscriber, subscribe, type ReactiveSource, type Subscriber } from "./tracking";

function subscriber() {
  const sources = new Set<ReactiveSource>();
  let invalidations = 0;
  const value: Subscriber = { invalidate: () => void invalidations++, addSource: (source) => void sources.add(source) };
  return { value, sources, count: () => invalidations };
}

describe("Data", () => {
  test("is the state itself: reads and writes like the object", () => {
    const state = new Data({ count: 0, items: [1, 2], nested: { a: { b: 1 } } });
    state.count++;
    state.items.push(3);
    state.nested.a.b = 2;
    expect(JSON.parse(JSON.stringify(state))).toEqual({ count: 1, items: [1, 2, 3], nested: { a: { b: 2 } } });
    expect(Array.isArray(state.items)).toBe(true);
    expect(state instanceof Data).toBe(true);
    expect({} instanceof Data).toBe(false);
    expect(Object.keys(state)).toEqual(["count", "items", "nested"]);
    expect([...state.items]).toEqual([1, 2, 3]);
  });

  test("needs an object or array", () => {
    expect(() => new Data(3 as unknown as object)).toThrow(TypeError);
    expect(() => (Data as unknown as (x: object) => object)({})).toThrow(TypeError);
  });

  test("every mutation kind notifies subscribers: set, nested set, push, splice, delete", () => {
    const state = new Data({ a: 1, list: [{ done: false }], map: { x: 1 } as Record<string, number> });
    const watcher = subscriber();
    subscribe(sourceOf(state)!, watcher.value);
    state.a = 2;
    state.list[0].done = true;
    state.list.push({ done: false });
    state.list.splice(0, 1);
    delete state.map.x;
    expect(watcher.count()).toBeGreaterThanOrEqual(5);
    const before = watcher.count();
    state.a = 2; // unchanged
    delete state.map.missing;
    expect(watcher.count()).toBe(before);
  });

  test("reads during a render subscribe the rendering mount; reads elsewhere do not", () => {
    const state = new Data({ a: { b: 1 } });
    const mount = subscriber();
    void state.a.b; // outside a render
    expect(mount.sources.size).toBe(0);
    setRenderingSubscriber(mount.value);
    void state.a.b;
    setRenderingSubscriber(null);
    expect(mount.sources.has(sourceOf(state)!)).toBe(true);
  });

  test("identity follows changes: changed objects and their ancestors get new proxies", () => {
    const state = new Data({ items: [{ n: 1 }, { n: 2 }], other: { x: 1 } });
    const items = state.items;
    const first = state.items[0];
    const other = state.other;
    expect(state.items).toBe(items); // stable without changes
    state.items[1].n = 3;
    expect(state.items).not.toBe(items);
    expect(state.items[0]).toBe(first); // untouched sibling keeps its identity
    expect(state.other).toBe(other);
    expect(currentProxy(state)).not.toBe(state); // the root changed too
    items.push({ n: 4 }); // writes through an older proxy still land
    expect(state.items.length).toBe(3);
  });

  test("stores raw values, not proxies; toRaw unwraps", () => {
    const state = new Data({ a: { v: 1 }, b: null as unknown });
    state.b = state.a;
    expect(isDataProxy(toRaw(state).b)).toBe(false);
    expect(toRaw(state).b).toBe(toRaw(state).a);
  });

  test("frozen members are returned as they are (proxy invariants)", () => {
    const frozen = Object.freeze({ x: 1 });
    const state = new Data(Object.freeze({ frozen }));
    expect(state.frozen).toBe(frozen);
  });
});
