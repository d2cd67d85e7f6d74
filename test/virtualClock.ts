/**
 * A clock for the realm's timers (RealmOptions.timers) that runs ahead of
 * real time: each timer fires, in due order, one event-loop turn after the
 * previous one, so the work a callback queues runs before the next fires.
 * A script's `await sleep(800)` keeps its place among the script's other
 * timers and costs a turn, not 800 ms. Only the model's timers run on it;
 * the agent's and the UI runtime's keep real time.
 */
import type { RealmTimers } from "../workers/realm/createRealm";

interface Timer {
  at: number;
  run: () => void;
  every?: number;
}

export function createVirtualClock(): RealmTimers & { now(): number } {
  let now = 0;
  let nextId = 1;
  let pumping = false;
  const due = new Map<number, Timer>();

  const step = () => {
    pumping = false;
    let next: [number, Timer] | undefined;
    for (const entry of due) if (!next || entry[1].at < next[1].at) next = entry;
    if (!next) return;
    const [id, timer] = next;
    now = Math.max(now, timer.at);
    if (timer.every) timer.at = now + timer.every;
    else due.delete(id);
    pump();
    timer.run();
  };
  const pump = () => {
    if (pumping || due.size === 0) return;
    pumping = true;
    setImmediate(step);
  };
  const schedule = (run: () => void, ms: number | undefined, every?: number) => {
    const id = nextId++;
    due.set(id, { at: now + Math.max(0, Number(ms) || 0), run, every });
    pump();
    return id;
  };
  const clear = (handle: unknown) => void due.delete(handle as number);

  return {
    setTimeout: (run, ms) => schedule(run, ms),
    setInterval: (run, ms) => {
      const every = Math.max(1, Number(ms) || 0);
      return schedule(run, every, every);
    },
    clearTimeout: clear,
    clearInterval: clear,
    now: () => now,
  };
}

/**
 * Real timers, each delay cut to at most `maxMs`: a script's `await sleep(500)`
 * still lets real time pass (mount frames, MOUNT_FRAME_MS apart, go out in
 * between), in order, but costs `maxMs`, not 500 ms.
 */
export function createShortClock(maxMs: number): RealmTimers {
  const cut = (ms: number | undefined) => Math.min(maxMs, Math.max(0, Number(ms) || 0));
  return {
    setTimeout: (run, ms) => setTimeout(run, cut(ms)),
    setInterval: (run, ms) => setInterval(run, Math.max(1, cut(ms))),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
  };
}
