/**
 * What the realm's runtime needs of the platform, captured when the bundle
 * starts, before any model code runs. Model code may later patch
 * prototypes (`MessageEvent.prototype.data`, `Function.prototype.call`,
 * `JSON.stringify`); the runtime keeps using these originals, so such
 * patches never see the runtime's objects (the port above all).
 */
const apply = Reflect.apply;
const dataGetter =
  typeof MessageEvent === "undefined"
    ? undefined
    : Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data")?.get;
const parse = JSON.parse;
const stringify = JSON.stringify;

/** `event.data` without going through MessageEvent.prototype as it is now. */
export function messageData(event: MessageEvent): unknown {
  return dataGetter ? apply(dataGetter, event, []) : event.data;
}

/** A JSON round trip with the original JSON functions. */
export function jsonCopy<T>(value: T): T {
  return parse(stringify(value)) as T;
}
