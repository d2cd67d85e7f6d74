import { describe, expect, it } from "vitest";
import { createTestProbe, installTestProbe, TEST_PROBE_GLOBAL } from "./testProbe";
import { createSession } from "./store/sessions";
import { createSessionWriter } from "./store/sessionWriter";
import { openTestStore, userMessage } from "./store/testSupport";

function fakeWindow(search: string): Window {
  return { location: { search } } as unknown as Window;
}

describe("the test probe", () => {
  it("is installed only on a page opened with the test flag, frozen, read-only", () => {
    const sources = {
      realm: { activity: () => ({ running: false, flushing: 0, stopping: 0, spareScheduled: false }) },
      inbox: { pending: 0 },
    };
    const plain = fakeWindow("?x=1");
    installTestProbe(sources, plain);
    expect(TEST_PROBE_GLOBAL in plain).toBe(false);
    const flagged = fakeWindow("?livemark-probe");
    installTestProbe(sources, flagged);
    const probe = (flagged as unknown as Record<string, Record<string, unknown>>)[TEST_PROBE_GLOBAL];
    expect(Object.isFrozen(probe)).toBe(true);
    expect(probe.quiet).toBe(true);
    expect(() => {
      "use strict";
      (probe as { quiet: unknown }).quiet = false;
    }).toThrow();
    expect(() => Object.defineProperty(flagged, TEST_PROBE_GLOBAL, { value: {} })).toThrow();
    // Counts and flags only: nothing to call, nothing that holds a message or a setting.
    for (const key of Object.keys(probe)) expect(["number", "boolean"]).toContain(typeof probe[key]);
  });

  it("reads the inbox, the realm, restores and the open writers' pending changes", async () => {
    const activity = { running: true, flushing: 1, stopping: 1, spareScheduled: false };
    const inbox = { pending: 3 };
    let restoring = 2;
    const probe = createTestProbe({ realm: { activity: () => activity }, inbox, restoring: () => restoring });
    expect(probe).toMatchObject({
      inboxPending: 3,
      realmRunning: true,
      realmFlushing: 1,
      realmStopping: 1,
      restoring: 2,
      quiet: false,
    });
    Object.assign(activity, { running: false, flushing: 0, stopping: 0 });
    inbox.pending = 0;
    restoring = 0;
    expect(probe.quiet).toBe(true);

    const store = await openTestStore();
    const session = await createSession(store);
    const writer = createSessionWriter(store, session.id, { intervalMs: 60_000 });
    writer.markDirty(userMessage("m1", "hello"));
    expect(probe.writesPending).toBe(1);
    expect(probe.quiet).toBe(false);
    await writer.close();
    expect(probe.writesPending).toBe(0);
    expect(probe.quiet).toBe(true);
  });
});
