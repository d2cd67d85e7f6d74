/** `sleep(ms)` in the realm: a promise that resolves after `ms` milliseconds. */
const MAX_SLEEP_MS = 2_147_483_647; // setTimeout's limit; beyond it fires at once

export function createSleep(setTimer: typeof setTimeout = setTimeout): (ms?: number) => Promise<void> {
  return function sleep(ms = 0): Promise<void> {
    const delay = Math.min(Math.max(0, Number(ms) || 0), MAX_SLEEP_MS);
    return new Promise((resolve) => void setTimer(resolve, delay));
  };
}
