/**
 * The life of one realm on the host (createRealmHost.ts), as one value. Pure:
 * `nextRealmPhase` is the only way the host changes it, and it is tested
 * alone (realmPhase.test.ts).
 *
 * ```
 *   starting ──ready──▶ warm ──activate──▶ active
 *       │                │                   │
 *       └──────stop──────┴───────stop────────┴──▶ stopped
 * ```
 *
 * - `starting`: its frame and worker are loading; READY has not come.
 * - `warm`: READY came (Babel is warm); it has run nothing. A spare waits
 *   here until a reset makes it current; the current realm passes through
 *   at once.
 * - `active`: the current realm, watched by the heartbeat; `ready` was
 *   emitted for it.
 * - `stopped`: its port is closed and its frame removed; nothing it sends
 *   counts any more.
 *
 * Facts a phase carries along, instead of flags beside it:
 * - `workerError`: the worker fired `error`. Model code can fire it at
 *   will, so it decides nothing by itself; only a realm that then stays
 *   silent counts as crashed rather than stuck.
 * - `stopAsked`: abort() came before the realm was active; its stop
 *   deadline starts when it becomes active.
 *
 * An event a phase does not expect leaves it as it is (a second READY, a
 * late worker error after the stop): the host's handlers may be reached by
 * a realm that has moved on, and ignoring is their answer.
 */
export type RealmPhase =
  | { name: "starting"; workerError: boolean; stopAsked: boolean }
  | { name: "warm"; workerError: boolean; stopAsked: boolean }
  | { name: "active"; workerError: boolean }
  | { name: "stopped" };

export type RealmPhaseEvent =
  /** READY with the app's wire version. */
  | { type: "ready" }
  /** The realm is current and warm: the heartbeat starts, `ready` is emitted. */
  | { type: "activate" }
  /** The sandbox document reported an `error` event of the worker. */
  | { type: "worker-error" }
  /** abort() on the current realm. */
  | { type: "abort" }
  /** Port closed, frame removed (a reset, a failed start, dispose). */
  | { type: "stop" };

export const STARTING: RealmPhase = Object.freeze({ name: "starting", workerError: false, stopAsked: false });

export function nextRealmPhase(phase: RealmPhase, event: RealmPhaseEvent): RealmPhase {
  if (phase.name === "stopped") return phase;
  switch (event.type) {
    case "ready":
      return phase.name === "starting" ? { ...phase, name: "warm" } : phase;
    case "activate":
      return phase.name === "warm" ? { name: "active", workerError: phase.workerError } : phase;
    case "worker-error":
      return phase.workerError ? phase : { ...phase, workerError: true };
    case "abort":
      // An active realm is asked to stop at once (the host's requestStop); nothing to remember.
      return phase.name === "active" || phase.stopAsked ? phase : { ...phase, stopAsked: true };
    case "stop":
      return { name: "stopped" };
    default:
      return event satisfies never;
  }
}

/** READY came and the realm was not stopped since. */
export function isBooted(phase: RealmPhase): boolean {
  return phase.name === "warm" || phase.name === "active";
}
