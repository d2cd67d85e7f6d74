/**
 * The test probe: what the browser tests wait on instead of clocks. Pending
 * writes (src/store/sessionWriter.ts), the mount inbox's queue
 * (src/render/mountInbox.ts), the realm's running statement and unsettled
 * flushes and unanswered stops (src/sandbox/createRealmHost.ts), and mount restores still queued
 * (src/session/mountSnapshots.ts) are read through one frozen object,
 * `window.__livemarkProbe`, of getters returning numbers and booleans.
 *
 * It exists only when the page was opened with the test flag in its query
 * (`?livemark-probe`, which only e2e/ uses). It is read-only status: no
 * message, no setting, no key, nothing to call; a page script learns only
 * counts. The realm never sees it: it runs at another (opaque) origin.
 */
import type { MountInbox } from "./render/mountInbox";
import type { RealmHost } from "./sandbox/types";
import { openSessionWriters } from "./store/sessionWriter";
import { uncommittedAppDataWrites } from "./capabilities/storage/uncommittedWrites";

/** The query flag that turns the probe on. */
export const TEST_PROBE_FLAG = "livemark-probe";
/** The global the probe is installed as. */
export const TEST_PROBE_GLOBAL = "__livemarkProbe";

export interface TestProbe {
  /** Session changes not yet on disk: pending, plus one for each write under way. */
  readonly writesPending: number;
  /** App data writes (`storage.set`/`delete`) the host received and has not committed yet. */
  readonly appDataPending: number;
  /** Writes started so far by the writers now open. */
  readonly writesStarted: number;
  /** Mount messages queued in the inbox, not yet applied. */
  readonly inboxPending: number;
  /** A statement is running in the current realm. */
  readonly realmRunning: boolean;
  /** Flushes sent to the realm and not yet settled. */
  readonly realmFlushing: number;
  /** Stop requests not yet answered (a reset for not stopping may still follow). */
  readonly realmStopping: number;
  /** Saved mounts still being restored. */
  readonly restoring: number;
  /** None of the above is under way: nothing is left to write, apply, run or restore. */
  readonly quiet: boolean;
}

export interface TestProbeSources {
  realm: Pick<RealmHost, "activity">;
  inbox: Pick<MountInbox, "pending">;
  /** Restores still queued (MountSnapshots.pending); read when asked, it may be made later. */
  restoring?: () => number;
}

export function testProbeWanted(search: string): boolean {
  return new URLSearchParams(search).has(TEST_PROBE_FLAG);
}

export function createTestProbe(sources: TestProbeSources): TestProbe {
  const activity = () =>
    sources.realm.activity?.() ?? { running: false, flushing: 0, stopping: 0, spareScheduled: false };
  const probe: TestProbe = {
    get writesPending() {
      return openSessionWriters().reduce((sum, writer) => sum + writer.pendingCount + (writer.writing ? 1 : 0), 0);
    },
    get appDataPending() {
      return uncommittedAppDataWrites();
    },
    get writesStarted() {
      return openSessionWriters().reduce((sum, writer) => sum + writer.writeCount, 0);
    },
    get inboxPending() {
      return sources.inbox.pending;
    },
    get realmRunning() {
      return activity().running;
    },
    get realmFlushing() {
      return activity().flushing;
    },
    get realmStopping() {
      return activity().stopping;
    },
    get restoring() {
      return sources.restoring?.() ?? 0;
    },
    get quiet() {
      return (
        probe.writesPending === 0 &&
        probe.appDataPending === 0 &&
        probe.inboxPending === 0 &&
        !probe.realmRunning &&
        probe.realmFlushing === 0 &&
        probe.realmStopping === 0 &&
        probe.restoring === 0
      );
    },
  };
  return Object.freeze(probe);
}

/** Install the probe on `target` when its page was opened with the test flag; otherwise do nothing. */
export function installTestProbe(sources: TestProbeSources, target: Window = window): void {
  if (!testProbeWanted(target.location.search) || TEST_PROBE_GLOBAL in target) return;
  Object.defineProperty(target, TEST_PROBE_GLOBAL, {
    value: createTestProbe(sources),
    enumerable: false,
    writable: false,
    configurable: false,
  });
}
