import { describe, expect, it } from "vitest";
import { createRealmFetch } from "./capabilities/network";
import { hardenGlobalScope, NESTED_WORKER_PRELUDE } from "./hardenGlobalScope";

describe("hardenGlobalScope", () => {
  it("replaces network constructors, fetch and importScripts with ones that throw CapabilityError", async () => {
    const scope = {
      XMLHttpRequest: class {},
      WebSocket: class {},
      EventSource: class {},
      fetch: () => 1,
      importScripts: () => 2,
    };
    const realmFetch = createRealmFetch(() => undefined);
    hardenGlobalScope(realmFetch, scope as unknown as typeof globalThis);
    const scoped = scope as unknown as Record<string, new () => unknown>;
    for (const name of ["XMLHttpRequest", "WebSocket", "EventSource"]) {
      expect(() => new scoped[name]()).toThrow(
        expect.objectContaining({ name: "CapabilityError", code: "capability-denied" }),
      );
    }
    expect(() => (scope.importScripts as (url: string) => void)("http://x/y.js")).toThrow(
      /network capability not granted: importScripts\(http:\/\/x\/y.js\)/,
    );
    expect(scope.fetch).toBe(realmFetch);
    await expect(scope.fetch()).rejects.toMatchObject({ code: "capability-denied" });
  });

  it("cannot be undone by assignment or redefinition", () => {
    const scope = { fetch: () => 1 } as unknown as typeof globalThis;
    const realmFetch = createRealmFetch(() => undefined);
    hardenGlobalScope(realmFetch, scope);
    expect(() => {
      "use strict";
      (scope as { fetch: unknown }).fetch = () => 3;
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(scope, "fetch", { value: () => 3 })).toThrow(TypeError);
    expect(scope.fetch).toBe(realmFetch);
  });
});

describe("hardenGlobalScope on the prototype chain", () => {
  it("replaces network primitives on every prototype of the global, not only on the global", () => {
    const platformFetch = () => "real";
    const grand = { fetch: platformFetch, importScripts: () => "loaded", XMLHttpRequest: class {} };
    const proto = Object.create(grand) as object;
    const scope = Object.create(proto) as Record<string, unknown>;
    const realmFetch = createRealmFetch(() => undefined);
    hardenGlobalScope(realmFetch, scope as unknown as typeof globalThis);
    expect(scope.fetch).toBe(realmFetch);
    expect((Object.getPrototypeOf(Object.getPrototypeOf(scope)) as typeof grand).fetch).toBe(realmFetch);
    expect(() => (grand.importScripts as () => unknown)()).toThrow(/importScripts/);
    expect(() => new grand.XMLHttpRequest()).toThrow(expect.objectContaining({ name: "CapabilityError" }));
  });

  it("lets workers start only from the realm's own blob URLs, with the prelude first", () => {
    const started: { url: string; source: string }[] = [];
    const sources = new Map<string, string>();
    let next = 0;
    class FakeBlob {
      constructor(readonly parts: string[]) {}
    }
    const FakeURL = {
      createObjectURL(blob: FakeBlob) {
        const url = `blob:null/${next++}`;
        sources.set(url, blob.parts.join(""));
        return url;
      },
    };
    class FakeWorker {
      constructor(url: string) {
        started.push({ url, source: sources.get(url) ?? "" });
      }
    }
    class Reader {
      readAsText(blob: FakeBlob) {
        return blob.parts.join("");
      }
    }
    const scope = {
      fetch: () => 1,
      Worker: FakeWorker,
      URL: FakeURL,
      Blob: FakeBlob,
      FileReaderSync: Reader,
    } as Record<string, unknown>;
    hardenGlobalScope(
      createRealmFetch(() => undefined),
      scope as unknown as typeof globalThis,
    );
    const url = (scope.URL as typeof FakeURL).createObjectURL(new FakeBlob(["postMessage(1)"]));
    new (scope.Worker as new (url: string) => unknown)(url);
    expect(started).toHaveLength(1);
    expect(started[0].source.startsWith(NESTED_WORKER_PRELUDE)).toBe(true);
    expect(started[0].source.endsWith("postMessage(1)")).toBe(true);
    expect(() => new (scope.Worker as new (url: string) => unknown)("https://example.com/w.js")).toThrow(
      /workers start only from blob: URLs made in the realm/,
    );
  });

  it("the prelude removes the network primitives in the nested worker's scope", () => {
    const grand = { fetch: () => "real", importScripts: () => "loaded", XMLHttpRequest: class {} };
    const self = Object.create(grand) as Record<string, unknown>;
    self.Worker = class {};
    new Function("self", NESTED_WORKER_PRELUDE)(self);
    expect(() => (self.fetch as () => unknown)()).toThrow(/fetch is not available/);
    expect(() => (grand.importScripts as () => unknown)()).toThrow(/importScripts is not available/);
    expect(() => (self.Worker as () => unknown)()).toThrow(/Worker is not available/);
  });
});

describe("createRealmFetch before the realm is connected", () => {
  it("names the refused request in the error", async () => {
    const stub = createRealmFetch(() => undefined);
    await expect(stub("https://example.com/data.json", { method: "post" })).rejects.toMatchObject({
      name: "CapabilityError",
      code: "capability-denied",
      capability: "network",
      message: expect.stringContaining("network capability not granted: POST https://example.com/data.json"),
    });
    await expect(stub(new URL("https://example.com/a"))).rejects.toThrow(/GET https:\/\/example.com\/a/);
  });
});
