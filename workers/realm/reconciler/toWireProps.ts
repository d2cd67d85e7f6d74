/**
 * Realm props → wire props (src/wire/mount.ts "Props"). Pure.
 *
 * - `children`, `key`, `ref` are dropped (children are nodes; refs stay in the realm).
 * - A top-level function becomes HANDLER_MARKER. One whose name is not an
 *   event (`on` + capital) is also reported: Recharts formatters and render
 *   props cannot run synchronously on the other side.
 * - A React element anywhere in a prop value is dropped and reported.
 * - Nested values become JSON the way JSON.stringify would (toJSON, Dates,
 *   non-finite numbers → null, undefined/functions/symbols omitted), except
 *   that cycles and depth beyond MAX_PROP_DEPTH are cut to null instead of
 *   throwing.
 */
import { HANDLER_MARKER, MAX_PROP_DEPTH, type JsonValue, type WireProps } from "../../../src/wire/mount";

export type PropIssue =
  { kind: "function-prop"; type: string; prop: string } | { kind: "element-prop"; type: string; prop: string };

export interface WirePropsOptions {
  /**
   * Realm objects that stand for a value (a StreamedData stands for its
   * current value, a Data proxy for its raw target). Return `undefined` to
   * treat `value` as an ordinary object.
   */
  unwrap?(value: object): { value: unknown } | undefined;
  report?(issue: PropIssue): void;
}

const EVENT_PROP = /^on[A-Z]/;
const SKIPPED_PROPS: ReadonlySet<string> = new Set(["children", "key", "ref"]);

export function isReactElement(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { $$typeof?: unknown }).$$typeof === "symbol";
}

export function toWireProps(type: string, props: Record<string, unknown>, options: WirePropsOptions = {}): WireProps {
  const output: WireProps = {};
  for (const key of Object.keys(props)) {
    if (SKIPPED_PROPS.has(key) || key === "__proto__") continue;
    const value = props[key];
    if (typeof value === "function") {
      output[key] = HANDLER_MARKER;
      if (!EVENT_PROP.test(key)) options.report?.({ kind: "function-prop", type, prop: key });
      continue;
    }
    const converted = toJson(value, options, 1, [], () => options.report?.({ kind: "element-prop", type, prop: key }));
    if (converted !== undefined) output[key] = converted;
  }
  return output;
}

/** `undefined`: omit (as JSON.stringify omits undefined, functions and symbols in objects). */
function toJson(
  value: unknown,
  options: WirePropsOptions,
  depth: number,
  stack: object[],
  onElement: () => void,
): JsonValue | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  let object = value as object;
  if (isReactElement(object)) {
    onElement();
    return undefined;
  }
  const unwrapped = options.unwrap?.(object);
  if (unwrapped) return toJson(unwrapped.value, { ...options, unwrap: undefined }, depth, stack, onElement);
  if (depth > MAX_PROP_DEPTH || stack.includes(object)) return null;
  if (typeof (object as { toJSON?: unknown }).toJSON === "function" && !Array.isArray(object)) {
    const replaced = (object as { toJSON(): unknown }).toJSON();
    if (typeof replaced !== "object" || replaced === null) return toJson(replaced, options, depth, stack, onElement);
    object = replaced;
  }
  stack.push(object);
  try {
    if (Array.isArray(object)) {
      const items: JsonValue[] = new Array(object.length);
      for (let index = 0; index < object.length; index += 1) {
        items[index] = toJson(object[index], options, depth + 1, stack, onElement) ?? null;
      }
      return items;
    }
    const output: Record<string, JsonValue> = {};
    for (const key of Object.keys(object)) {
      if (key === "__proto__") continue;
      const converted = toJson((object as Record<string, unknown>)[key], options, depth + 1, stack, onElement);
      if (converted !== undefined) output[key] = converted;
    }
    return output;
  } finally {
    stack.pop();
  }
}

/** Structural equality of two JSON values (props are compared before sending an update). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index += 1) if (!jsonEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key) || !jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}
