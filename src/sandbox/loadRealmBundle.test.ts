import { describe, expect, it } from "vitest";
import { loadRealmBundle } from "./loadRealmBundle";
import { isRealmHostError } from "./RealmHostError";

const URL_ = "https://app.example/generated/realm.js";

/** A fetch whose responses are scripted: "ok", "cut" (200, then the body fails), "network", or a status. */
function scriptedFetch(script: (string | number)[]) {
  const calls: RequestInit[] = [];
  const fetch = async (_url: string, init: RequestInit): Promise<Response> => {
    calls.push(init);
    const step = script.shift() ?? "ok";
    if (step === "network") throw new TypeError("Failed to fetch");
    if (step === "cut") {
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("var half"));
          controller.error(new TypeError("Failed to fetch"));
        },
      });
      return new Response(body, { status: 200, headers: { "content-type": "text/javascript" } });
    }
    if (typeof step === "number")
      return new Response("nope", { status: step, headers: { "content-type": "text/plain" } });
    return new Response("self.realm = 1;", { status: 200, headers: { "content-type": "text/javascript" } });
  };
  return { fetch, calls };
}

const noSleep = { sleep: async () => {} };

describe("loadRealmBundle", () => {
  it("takes the bundle of a fetch already under way (index.html's head script) without fetching again", async () => {
    const { fetch, calls } = scriptedFetch([]);
    const blob = await loadRealmBundle(URL_, { fetch, ...noSleep, first: Promise.resolve(new Blob(["early"])) });
    expect(await blob.text()).toBe("early");
    expect(calls).toHaveLength(0);
  });

  it("fetches with its own retries when the fetch already under way failed", async () => {
    const { fetch, calls } = scriptedFetch(["network", "ok"]);
    const blob = await loadRealmBundle(URL_, { fetch, ...noSleep, first: Promise.reject(new TypeError("Failed")) });
    expect(await blob.text()).toBe("self.realm = 1;");
    expect(calls.map((init) => init.cache)).toEqual(["default", "reload"]);
  });

  it("retries a body that fails after a 200 (fetch resolved, blob() rejected) and returns the bundle", async () => {
    const { fetch, calls } = scriptedFetch(["cut", "network", "ok"]);
    const waits: number[] = [];
    const blob = await loadRealmBundle(URL_, {
      fetch,
      sleep: async (ms) => void waits.push(ms),
      delaysMs: [10, 20, 40],
    });
    expect(await blob.text()).toBe("self.realm = 1;");
    expect(calls).toHaveLength(3);
    // Backoff grows; retries bypass the cache entry that just failed.
    expect(waits).toEqual([10, 20]);
    expect(calls.map((init) => init.cache)).toEqual(["default", "reload", "reload"]);
  });

  it("retries a 5xx", async () => {
    const { fetch, calls } = scriptedFetch([503, "ok"]);
    await loadRealmBundle(URL_, { fetch, ...noSleep });
    expect(calls).toHaveLength(2);
  });

  it("gives up after the last delay with bundle-unavailable, naming the cause", async () => {
    const { fetch, calls } = scriptedFetch(["cut", "cut", "cut", "cut", "ok"]);
    const error = await loadRealmBundle(URL_, { fetch, ...noSleep, delaysMs: [1, 1, 1] }).catch(
      (caught: unknown) => caught,
    );
    expect(isRealmHostError(error, "bundle-unavailable")).toBe(true);
    expect((error as Error).message).toContain("4 attempts");
    expect(calls).toHaveLength(4);
  });

  it("does not retry a missing bundle or an HTML fallback page", async () => {
    for (const step of [404, "html"] as const) {
      const calls: number[] = [];
      const fetch = async () => {
        calls.push(1);
        return step === 404
          ? new Response("missing", { status: 404 })
          : new Response("<!doctype html>", { status: 200, headers: { "content-type": "text/html" } });
      };
      const error = await loadRealmBundle(URL_, { fetch, ...noSleep }).catch((caught: unknown) => caught);
      expect(isRealmHostError(error, "bundle-unavailable")).toBe(true);
      expect(calls).toHaveLength(1);
    }
  });
});
