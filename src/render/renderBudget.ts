/**
 * A page-wide budget of node views that may mount per task. A mount's first
 * draw (or a restored session's) can hold tens of thousands of nodes; React
 * renders a store-driven update in one go, so without a budget that is one
 * long task. Each NodeView claims one unit when it first renders; past the
 * budget it renders nothing and waits, and the next task (a MessageChannel
 * post, which is not clamped like timers) wakes the next BUDGET waiters, in
 * the order they asked. Updates to nodes already drawn cost nothing here.
 *
 * Outside a browser (server rendering, Node tests) there is no budget.
 */
import { useEffect, useState } from "react";

export const NODES_PER_TASK = 150;

const limited = typeof window !== "undefined" && typeof MessageChannel !== "undefined";
let remaining = NODES_PER_TASK;
let refillScheduled = false;
const waiters: (() => void)[] = [];
let channel: MessageChannel | undefined;

function scheduleRefill(): void {
  if (refillScheduled) return;
  refillScheduled = true;
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = refill;
  }
  channel.port2.postMessage(null);
}

function refill(): void {
  refillScheduled = false;
  remaining = NODES_PER_TASK;
  while (remaining > 0 && waiters.length > 0) {
    remaining -= 1;
    waiters.shift()!();
  }
  if (waiters.length > 0 || remaining < NODES_PER_TASK) scheduleRefill();
}

function claim(): boolean {
  if (!limited) return true;
  scheduleRefill();
  if (remaining <= 0) return false;
  remaining -= 1;
  return true;
}

/** True once this view may draw (at once, or in a later task). */
export function useRenderBudget(): boolean {
  const [ready, setReady] = useState(claim);
  useEffect(() => {
    if (ready) return;
    const wake = () => setReady(true);
    waiters.push(wake);
    // The refill that the failed claim asked for may have run before this
    // effect (passive effects can run late): ask again.
    scheduleRefill();
    return () => {
      const index = waiters.indexOf(wake);
      if (index >= 0) waiters.splice(index, 1);
    };
  }, [ready]);
  return ready;
}
