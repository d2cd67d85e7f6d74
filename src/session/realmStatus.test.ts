import { describe, expect, it } from "vitest";
import type { RealmEvent, RealmHost } from "../sandbox";
import { watchRealmStatus, withoutStartUpErrors, type RealmStatus } from "./realmStatus";

function fakeHost() {
  const listeners = new Set<(event: RealmEvent) => void>();
  let state: ReturnType<RealmHost["status"]>["realm"] = "starting";
  return {
    subscribe: (listener: (event: RealmEvent) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    status: () => ({ realm: state, spare: "none" as const }),
    flush: () => Promise.resolve(),
    set(next: typeof state) {
      state = next;
    },
    emit(event: RealmEvent) {
      for (const listener of listeners) listener(event);
    },
  };
}

describe("realm status for the page", () => {
  it("the agent never hears of a failed start; other realm errors and events pass", async () => {
    const host = fakeHost();
    const seen: RealmEvent[] = [];
    const port = withoutStartUpErrors(host);
    port.subscribe((event) => void seen.push(event));
    host.emit({ type: "realm-error", code: "bundle-unavailable", message: "could not load" });
    host.emit({ type: "realm-error", code: "boot-failed", message: "no" });
    host.emit({ type: "realm-error", code: "malformed-message", message: "dropped" });
    host.emit({ type: "realm-reset", reason: "crashed" });
    expect(seen.map((event) => (event.type === "realm-error" ? event.code : event.type))).toEqual([
      "malformed-message",
      "realm-reset",
    ]);
    // Everything else is the host's own.
    await expect(port.flush()).resolves.toBeUndefined();
  });

  it("follows starting → failed (with the reason) → starting → ready", () => {
    const host = fakeHost();
    const seen: RealmStatus[] = [];
    const watch = watchRealmStatus(host, (status) => void seen.push(status));
    host.set("failed");
    host.emit({ type: "realm-error", code: "bundle-unavailable", message: "could not load the realm" });
    host.set("starting");
    watch.refresh();
    host.set("ready");
    host.emit({ type: "ready", startMs: 1, loadMs: 1, setupMs: 1 });
    expect(seen).toEqual([
      { state: "starting" },
      { state: "failed", message: "could not load the realm" },
      { state: "starting" },
      { state: "ready" },
    ]);
    watch.unsubscribe();
  });
});
