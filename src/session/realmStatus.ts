import type { RealmPort } from "../agent/agent";
import type { RealmEvent, RealmHost } from "../sandbox";

/**
 * What the person is told about the sandbox, and what the agent is told.
 *
 * A realm that could not start is the page's state, not the session's: the
 * header, the status line and a **Retry** button show it, and the agent (whose
 * notices are saved with the session) never hears of it, so a failed start
 * does not leave an error line in every session opened meanwhile.
 */
export type RealmStatus = { state: "starting" | "ready" } | { state: "failed"; message: string };

/** `realm-error` codes that mean "no realm could start", not "this realm misbehaved". */
const START_UP_ERRORS = new Set<string>(["bundle-unavailable", "boot-failed", "version-mismatch"]);

export function isStartUpError(event: RealmEvent): boolean {
  return event.type === "realm-error" && START_UP_ERRORS.has(event.code);
}

/**
 * The realm as the agent sees it: the same object (everything else is
 * inherited, so methods added to the port later pass through), except that
 * `subscribe` leaves out start-up failures.
 */
export function withoutStartUpErrors<T extends Pick<RealmPort, "subscribe">>(realm: T): T {
  const subscribe: RealmPort["subscribe"] = (listener) =>
    realm.subscribe((event) => void (isStartUpError(event) || listener(event)));
  return Object.assign(Object.create(realm) as T, { subscribe });
}

/**
 * Follow the host's status: calls `onChange` at once and on every change.
 * `refresh()` re-reads it (after `restart()`, which emits nothing until the
 * new realm is ready or fails).
 */
export function watchRealmStatus(
  realm: Pick<RealmHost, "subscribe" | "status">,
  onChange: (status: RealmStatus) => void,
): { refresh(): void; unsubscribe(): void } {
  let lastFailure = "";
  let previous = "";
  const report = () => {
    const state = realm.status().realm;
    const status: RealmStatus =
      state === "failed"
        ? { state: "failed", message: lastFailure || "the sandbox could not start" }
        : { state: state === "ready" ? "ready" : "starting" };
    const key = JSON.stringify(status);
    if (key === previous) return;
    previous = key;
    onChange(status);
  };
  const unsubscribe = realm.subscribe((event) => {
    if (isStartUpError(event) && event.type === "realm-error") lastFailure = event.message;
    report();
  });
  report();
  return { refresh: report, unsubscribe };
}
