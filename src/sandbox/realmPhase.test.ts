import { describe, expect, it } from "vitest";
import { STARTING, isBooted, nextRealmPhase, type RealmPhase, type RealmPhaseEvent } from "./realmPhase";

const run = (events: RealmPhaseEvent["type"][], from: RealmPhase = STARTING): RealmPhase =>
  events.reduce((phase, type) => nextRealmPhase(phase, { type } as RealmPhaseEvent), from);

const ALL_EVENTS: RealmPhaseEvent["type"][] = ["ready", "activate", "worker-error", "abort", "stop"];

describe("nextRealmPhase", () => {
  it("walks a realm from starting through warm to active", () => {
    expect(run(["ready"])).toEqual({ name: "warm", workerError: false, stopAsked: false });
    expect(run(["ready", "activate"])).toEqual({ name: "active", workerError: false });
    expect(isBooted(run([]))).toBe(false);
    expect(isBooted(run(["ready"]))).toBe(true);
    expect(isBooted(run(["ready", "activate"]))).toBe(true);
  });

  it("activates only a warm realm: a realm still starting stays starting", () => {
    expect(run(["activate"])).toEqual(STARTING);
  });

  it("takes the first READY only", () => {
    const active = run(["ready", "activate"]);
    expect(nextRealmPhase(active, { type: "ready" })).toBe(active);
    const warm = run(["ready"]);
    expect(nextRealmPhase(warm, { type: "ready" })).toBe(warm);
  });

  it("remembers a worker error through READY and activation (silence then means a crash)", () => {
    expect(run(["worker-error", "ready", "activate"])).toEqual({ name: "active", workerError: true });
    expect(run(["ready", "activate", "worker-error"])).toEqual({ name: "active", workerError: true });
  });

  it("keeps a stop asked before the realm was active until it becomes active", () => {
    expect(run(["abort", "ready"])).toEqual({ name: "warm", workerError: false, stopAsked: true });
    // The host asks the realm to stop when it activates it; an active realm carries no such fact.
    expect(run(["abort", "ready", "activate"])).toEqual({ name: "active", workerError: false });
    const active = run(["ready", "activate"]);
    expect(nextRealmPhase(active, { type: "abort" })).toBe(active);
  });

  it("is final once stopped, from every phase", () => {
    for (const before of [run([]), run(["ready"]), run(["ready", "activate"]), run(["worker-error", "abort"])]) {
      const stopped = nextRealmPhase(before, { type: "stop" });
      expect(stopped).toEqual({ name: "stopped" });
      expect(isBooted(stopped)).toBe(false);
      for (const type of ALL_EVENTS) expect(nextRealmPhase(stopped, { type } as RealmPhaseEvent)).toBe(stopped);
    }
  });

  it("never changes the phase it is given (values, not mutation)", () => {
    const phases = [run([]), run(["ready"]), run(["ready", "activate"]), run(["stop"])];
    for (const phase of phases) {
      const copy = structuredClone(phase);
      for (const type of ALL_EVENTS) nextRealmPhase(phase, { type } as RealmPhaseEvent);
      expect(phase).toEqual(copy);
    }
    expect(Object.isFrozen(STARTING)).toBe(true);
  });

  it("reaches only the four phases, whatever the order of events", () => {
    const seen = new Set<string>();
    const visit = (phase: RealmPhase, depth: number): void => {
      seen.add(JSON.stringify(phase));
      if (depth === 0) return;
      for (const type of ALL_EVENTS) visit(nextRealmPhase(phase, { type } as RealmPhaseEvent), depth - 1);
    };
    visit(STARTING, 6);
    const names = new Set([...seen].map((text) => (JSON.parse(text) as RealmPhase).name));
    expect([...names].sort()).toEqual(["active", "starting", "stopped", "warm"]);
    // Every combination of facts before activation, and whether a worker error was seen after it.
    expect(seen.size).toBe(4 + 4 + 2 + 1);
  });
});
