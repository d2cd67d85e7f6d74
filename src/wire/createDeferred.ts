/**
 * A promise with its resolve and reject, for code on either side of the
 * boundary that settles a promise from elsewhere (ready(), `comp.result`,
 * `part.done`). `Promise.withResolvers` is not in Node 20, where the realm's
 * tests run.
 *
 * The promise never reports an unhandled rejection: nobody has to be
 * waiting for it. `settled` turns true at the first resolve or reject.
 */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function createDeferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  promise.catch(() => {});
  let settled = false;
  return {
    promise,
    get settled() {
      return settled;
    },
    resolve(value) {
      settled = true;
      resolve(value);
    },
    reject(error) {
      settled = true;
      reject(error);
    },
  };
}
