/**
 * A macrotask scheduler for the executor's loop guard: a private
 * MessageChannel, which runs callbacks as soon as the event loop is free
 * (setTimeout(0) is clamped to 4 ms after nesting).
 *
 * The channel is held only here and posted to through a function bound at
 * creation, so model code patching MessagePort.prototype cannot reach it.
 */
export function createMacrotaskScheduler(): (callback: () => void) => void {
  const channel = new MessageChannel();
  const post = MessagePort.prototype.postMessage.bind(channel.port2) as (message: null) => void;
  const queue: (() => void)[] = [];
  channel.port1.onmessage = () => {
    const callback = queue.shift();
    callback?.();
  };
  return (callback) => {
    queue.push(callback);
    post(null);
  };
}
