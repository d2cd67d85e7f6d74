/**
 * The schema kit the wire's tables are written in: each builder returns a
 * `Schema<T>` whose `parse` is a plain closure that checks a value from the
 * other side and rebuilds it from scratch (only the declared fields, nothing
 * of the input shared), and whose type `Infer<typeof schema>` is the
 * message's TypeScript type. Declare a message once; its type, its tag and
 * its check follow.
 *
 * Why our own and not zod: the host checks every realm message on its main
 * thread, mount batches up to once per frame per mount. bench/validate.bench.ts
 * runs the same checks as zod schemas; zod is ~10× slower on a batch of 400
 * mount ops. These closures do what the hand-written checks did before them.
 *
 * Invariants:
 * 1. `parse` returns a fresh value or throws `Invalid` (whose reason names
 *    the path, e.g. `ops[3].id is not a node id`); never anything else for
 *    any structured-clone input (cycles and depth are bounded by the
 *    recursive schemas: `json`, and the custom tree parsers).
 * 2. Objects must be plain (`Object.prototype` or `null` prototype); unknown
 *    fields are dropped; a field whose schema is `optional` is left out when
 *    absent; `__proto__` is never written as a key.
 * 3. Strings are capped, not rejected (`text`): a long console line is
 *    legitimate output. A cut string says so at its end. Names (`name`) are
 *    rejected instead when too long.
 * 4. Paths in reasons are built only on failure: a leaf's check allocates
 *    nothing on success.
 */
import { MAX_WIRE_STRING } from "./constants";

/**
 * Thrown inside `parse` only; turned into `{ ok: false, reason }` by `check`.
 * Each `parse` names its own key in what it throws (a leaf with `fail`, an
 * object or array with `within` as the error leaves it), so a path is built
 * only when something failed (invariant 4).
 */
export class Invalid extends Error {
  constructor(
    readonly problem: string,
    public path = "",
    /** The reason is whole as it is (no path before it). */
    readonly whole = false,
  ) {
    super(problem);
  }

  get reason(): string {
    return this.whole ? this.problem : `${this.path === "" ? "message" : this.path} ${this.problem}`;
  }
}

/** Reject the value at `key` of its parent: `problem` follows its path (`is not a string`). */
export function fail(problem: string, key?: Key): never {
  throw new Invalid(problem, key === undefined ? "" : segment(key));
}

/** A value's key in its parent: a field name or an index; none at the top. */
export type Key = string | number | undefined;

function segment(key: string | number): string {
  return typeof key === "number" ? `[${key}]` : key;
}

/** Reject with a reason that names no path (`snapshot has too many nodes`). */
export function failWhole(reason: string): never {
  throw new Invalid(reason, "", true);
}

/** Put `key` in front of the failed value's path, as the error leaves the object or array at `key`. */
export function within(error: unknown, key: Key): unknown {
  if (key === undefined || !(error instanceof Invalid) || error.whole) return error;
  const head = segment(key);
  const path = error.path;
  error.path = path === "" ? head : path.charCodeAt(0) === 91 /* [ */ ? head + path : `${head}.${path}`;
  return error;
}

/** Check `value`, the value at `key` of its parent (none at the top); what it throws names `key`. */
export type Parse<T> = (value: unknown, key?: Key) => T;

export interface Schema<T> {
  readonly parse: Parse<T>;
}

/** An object field that may be absent (left out of the rebuilt object then). */
export interface OptionalSchema<T> {
  readonly parse: Parse<T>;
  readonly optional: true;
}

export type Infer<S> = S extends OptionalSchema<infer T> ? T : S extends Schema<infer T> ? T : never;

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};

export type Shape = Record<string, Schema<unknown> | OptionalSchema<unknown>>;
export type InferShape<S extends Shape> = Simplify<
  { -readonly [K in keyof S as S[K] extends OptionalSchema<unknown> ? never : K]: Infer<S[K]> } & {
    -readonly [K in keyof S as S[K] extends OptionalSchema<unknown> ? K : never]?: Infer<S[K]>;
  }
>;

export type CheckResult<T> = { ok: true; message: T } | { ok: false; reason: string };

/** Run a schema on an untrusted value: a rebuilt value or a reason, never a throw. `key` names the value in reasons. */
export function check<T>(schema: Schema<T>, value: unknown, key = ""): CheckResult<T> {
  try {
    return { ok: true, message: schema.parse(value, key === "" ? undefined : key) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.reason };
    // RangeError from a pathological structure, or a bug: reject, never throw.
    return { ok: false, reason: `unreadable message: ${String(error)}` };
  }
}

export function custom<T>(parse: Parse<T>): Schema<T> {
  return { parse };
}

export function optional<T>(schema: Schema<T>): OptionalSchema<T> {
  return { parse: schema.parse, optional: true };
}

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  const inner = schema.parse;
  return { parse: (value, key) => (value === null ? null : inner(value, key)) };
}

/** A plain object (checked, not copied). */
export function plainRecord(value: unknown, key?: Key): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("is not an object", key);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) fail("is not a plain object", key);
  return value as Record<string, unknown>;
}

/** Cap a string at MAX_WIRE_STRING, saying at its end how much was cut. */
export function capText(value: string): string {
  if (value.length <= MAX_WIRE_STRING) return value;
  return `${value.slice(0, MAX_WIRE_STRING)}… [${value.length - MAX_WIRE_STRING} more characters dropped by the host]`;
}

const TEXT: Schema<string> = {
  parse(value, key) {
    if (typeof value !== "string") fail("is not a string", key);
    return capText(value);
  },
};

/** Any string, capped (invariant 3). */
export function text(): Schema<string> {
  return TEXT;
}

/** A non-empty string of at most `max` characters, matching `pattern` when given; rejected otherwise. */
export function name(max: number, pattern?: RegExp, what = "a short non-empty string"): Schema<string> {
  return {
    parse(value, key) {
      if (typeof value !== "string" || value.length === 0 || value.length > max)
        fail("is not a short non-empty string", key);
      if (pattern !== undefined && !pattern.test(value)) fail(`is not ${what}`, key);
      return value;
    },
  };
}

/** A safe integer in [min, max]; `what` names it in a reason ("a node id"). */
export function int(min = 0, max = Number.MAX_SAFE_INTEGER, what?: string): Schema<number> {
  const description =
    what ??
    (max === Number.MAX_SAFE_INTEGER && min === 0 ? "a non-negative integer" : `an integer in [${min}, ${max}]`);
  return {
    parse(value, key) {
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
        fail(`is not ${description}`, key);
      }
      return value;
    },
  };
}

const DURATION: Schema<number> = {
  parse(value, key) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) fail("is not a duration", key);
    return value;
  },
};

/** A finite number ≥ 0 (milliseconds, sizes, times). */
export function duration(): Schema<number> {
  return DURATION;
}

const BOOL: Schema<boolean> = {
  parse(value, key) {
    if (typeof value !== "boolean") fail("is not a boolean", key);
    return value;
  },
};

export function bool(): Schema<boolean> {
  return BOOL;
}

export function literal<const T extends string | number | boolean>(expected: T): Schema<T> {
  return {
    parse(value, key) {
      if (value !== expected) fail(`is not ${JSON.stringify(expected)}`, key);
      return expected;
    },
  };
}

/** One of a set of strings, given as a record so `satisfies Record<Union, true>` keeps it complete. */
export function oneOf<const T extends string>(allowed: Readonly<Record<T, true>>): Schema<T> {
  return {
    parse(value, key) {
      if (typeof value !== "string" || !Object.hasOwn(allowed, value)) fail("has an unknown value", key);
      return value as T;
    },
  };
}

/** Build the object's fields in declaration order; absent optional fields are left out. */
function compileShape<S extends Shape>(shape: S): Fill {
  const keys = Object.keys(shape);
  const parsers = keys.map((key) => shape[key].parse);
  const optionals = keys.map((key) => "optional" in shape[key]);
  const length = keys.length;
  return (input, output) => {
    for (let index = 0; index < length; index += 1) {
      const key = keys[index];
      const value = input[key];
      if (value === undefined && optionals[index]) continue;
      output[key] = parsers[index](value, key);
    }
  };
}

export interface ObjectSchema<S extends Shape> extends Schema<InferShape<S>> {
  readonly shape: S;
}

/**
 * A plain object with exactly these fields (others are dropped). `after`
 * checks what one field cannot say alone (two fields given together).
 */
export function object<S extends Shape>(shape: S, after?: (output: InferShape<S>) => void): ObjectSchema<S> {
  const fill = compileShape(shape);
  return {
    shape,
    parse(value, key) {
      const input = plainRecord(value, key);
      const output: Record<string, unknown> = {};
      try {
        fill(input, output);
        after?.(output as InferShape<S>);
      } catch (error) {
        throw within(error, key);
      }
      return output as InferShape<S>;
    },
  };
}

export interface ArrayOptions {
  /** Most entries. */
  max?: number;
  /** Past `max`: reject the array (default) or keep its first `max` entries. */
  over?: "reject" | "cut";
}

export function array<T>(item: Schema<T>, options: ArrayOptions = {}): Schema<T[]> {
  const parseItem = item.parse;
  const max = options.max ?? Infinity;
  const cut = options.over === "cut";
  return {
    parse(value, key) {
      if (!Array.isArray(value)) fail("is not an array", key);
      let length = value.length;
      if (length > max) {
        if (!cut) fail("has too many entries", key);
        length = max;
      }
      const output = new Array<T>(length);
      try {
        for (let index = 0; index < length; index += 1) output[index] = parseItem(value[index], index);
      } catch (error) {
        throw within(error, key);
      }
      return output;
    },
  };
}

/** Sets a key without ever touching a prototype (`__proto__` is dropped). */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") return;
  target[key] = value;
}

/** A string-keyed record: keys capped, `__proto__` dropped, each value checked. */
export function record<T>(item: Schema<T>): Schema<Record<string, T>> {
  const parseItem = item.parse;
  return {
    parse(value, key) {
      const input = plainRecord(value, key);
      const output: Record<string, T> = {};
      try {
        for (const entry of Object.keys(input)) put(output, capText(entry), parseItem(input[entry], entry));
      } catch (error) {
        throw within(error, key);
      }
      return output;
    },
  };
}

/** Fills `output` with the checked fields of `input`; each field's check names its key (`schema.parse(input.id, "id")`). */
export type Fill = (input: Record<string, unknown>, output: Record<string, unknown>) => void;

/**
 * The fields of a variant that a shape cannot say (one field decides
 * another): a hand-written fill, typed by `T`. Used only inside `variants`.
 */
export interface Fields<T> {
  readonly fill: Fill;
  /** Type only. */
  readonly _type?: T;
}

export function fields<T extends object>(fill: Fill): Fields<T> {
  return { fill };
}

type VariantEntry = Shape | Fields<object> | Schema<object>;
type VariantEntries = Record<string, VariantEntry>;
type InferVariant<K extends string, Tag extends string, E> =
  E extends Fields<infer T>
    ? Simplify<{ [P in K]: Tag } & T>
    : E extends Schema<infer T>
      ? T extends unknown
        ? Simplify<{ [P in K]: Tag } & T>
        : never
      : E extends Shape
        ? Simplify<{ [P in K]: Tag } & InferShape<E>>
        : never;
export type InferVariants<K extends string, E extends VariantEntries> = {
  [Tag in keyof E & string]: InferVariant<K, Tag, E[Tag]>;
}[keyof E & string];

export interface VariantsSchema<K extends string, E extends VariantEntries> extends Schema<InferVariants<K, E>> {
  readonly key: K;
  readonly entries: E;
  /** The tags, in declaration order. */
  readonly tags: readonly (keyof E & string)[];
  /** True when `tag` names one of the variants. */
  has(tag: unknown): tag is keyof E & string;
  /**
   * Fill `output` with the checked variant of `input` (`key` included): how an
   * outer `variants` takes this one as an entry without building it twice.
   */
  readonly fillInto: Fill;
}

function fillOf(entry: VariantEntry): Fill {
  const nested = (entry as Partial<VariantsSchema<string, VariantEntries>>).fillInto;
  if (typeof nested === "function") return nested;
  if (typeof (entry as Fields<object>).fill === "function") return (entry as Fields<object>).fill;
  if (typeof (entry as Schema<object>).parse === "function") {
    const inner = (entry as Schema<object>).parse;
    return (input, output) => Object.assign(output, inner(input));
  }
  return compileShape(entry as Shape);
}

/**
 * A discriminated union: `key` names the variant; each entry gives the rest
 * of its fields as a shape, as `fields` (hand-written), or as a schema (a
 * union on another key). The rebuilt value carries `key` first.
 */
export function variants<const K extends string, const E extends VariantEntries>(
  key: K,
  entries: E,
  /** The reason for an unknown tag, after its path. */
  unknown = "has an unknown value",
): VariantsSchema<K, E> {
  // A null-prototype object, not a Map: no intrinsic that realm code could
  // patch stands between a tag and its fill (`toString`, `__proto__` find nothing).
  const fills: Record<string, Fill | undefined> = Object.create(null);
  for (const tag of Object.keys(entries)) fills[tag] = fillOf(entries[tag]);
  const has = (tag: unknown): tag is keyof E & string => typeof tag === "string" && fills[tag] !== undefined;
  const fillInto: Fill = (input, output) => {
    const tag = input[key];
    const fill = typeof tag === "string" ? fills[tag] : undefined;
    if (fill === undefined) fail(unknown, key);
    output[key] = tag;
    fill(input, output);
  };
  return {
    key,
    entries,
    tags: Object.keys(entries) as (keyof E & string)[],
    has,
    fillInto,
    parse(value, at) {
      const input = plainRecord(value, at);
      const output: Record<string, unknown> = {};
      try {
        fillInto(input, output);
      } catch (error) {
        throw within(error, at);
      }
      return output as InferVariants<K, E>;
    },
  };
}
