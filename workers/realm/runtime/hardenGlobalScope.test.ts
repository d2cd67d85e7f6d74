import { describe, expect, it } from "vitest";
import { createRealmFetch } from "./createRealmFetch";
import { hardenGlobalScope } from "./hardenGlobalScope";

describe("hardenGlobalScope", () => {
  it("replaces network constructors, fetch and importScripts with ones that throw CapabilityError", async () => {
    const scope = { XMLHttpRequest: class {}, WebSocket: class {}, EventSource: class {}, fetch: () => 1, importScripts: () => 2 };
    const realmFetch = createRealmFetch(() => undefined);
    hardenGlobalScope(realmFetch, scope as unknown as typeof globalThis);
    const scoped = scope as unknown as Record<string, new () => unknown>;
    for (const name of ["XMLHttpRequest", "WebSocket", "EventSource"]) {
      expect(() => new scoped[name]()).toThrow(expect.objectContaining({ name: "CapabilityError", code: "capability-denied" }));
    }
    expect(() => (scope.importScripts as (url: string) => void)("http://x/y.js")).toThrow(/network capability not granted: importScripts\(http:\/\/x\/y.js\)/);
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
