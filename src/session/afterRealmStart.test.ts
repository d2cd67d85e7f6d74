import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterRealmStart } from "./afterRealmStart";

function realmStub() {
  let settle!: { resolve: () => void; reject: (error: Error) => void };
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  return { realm: { ready: () => ready }, settle };
}

/** Whether the promise has settled, after the microtasks now queued have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("afterRealmStart", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("waits for the realm's READY", async () => {
    const { realm, settle } = realmStub();
    const started = afterRealmStart(realm, 1_500);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await settled(started)).toBe(false);
    settle.resolve();
    expect(await settled(started)).toBe(true);
  });

  it("goes on when the realm failed to start", async () => {
    const { realm, settle } = realmStub();
    const started = afterRealmStart(realm, 1_500);
    settle.reject(new Error("no realm"));
    expect(await settled(started)).toBe(true);
  });

  it("goes on after the cap when the realm is still starting", async () => {
    const { realm } = realmStub();
    const started = afterRealmStart(realm, 1_500);
    await vi.advanceTimersByTimeAsync(1_499);
    expect(await settled(started)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(started)).toBe(true);
  });
});
