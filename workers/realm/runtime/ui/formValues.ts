/**
 * Form values → the object `comp.result` resolves with. Pure.
 *
 * 1. `buildFormObject`: flat field names → nested object. `address.city`
 *    nests, a numeric segment (`tags.0`, `items.1.name`) makes an array,
 *    `a[0][b]` is read as `a.0.b`. A name given twice keeps both values in an
 *    array (the host sends such fields as an array already).
 * 2. `coerceBySchema`: form fields are strings; the zod schema says what each
 *    should be. Numeric strings become numbers for number fields, "on" /
 *    "true" / "1" / "yes" booleans, "" becomes absent for optional, defaulted
 *    and enum fields (so `.optional()` and `.default()` work on an empty
 *    input), a single value becomes a one-item array for array fields, a
 *    missing boolean is false (an unchecked box). Anything it cannot coerce
 *    is left for zod to reject.
 * 3. `fieldErrors`: zod issues → `{ "address.city": "message" }`, first
 *    issue per field; issues about the whole form under FORM_ERROR_KEY.
 *
 * Only zod 4 schemas are understood (`schema._zod.def`); for anything else,
 * values pass through unchanged.
 */
import { FORM_ERROR_KEY, type FormValue, type FormValues } from "../../../../src/wire/mount";

type Json = Record<string, unknown>;

const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export function splitFieldName(name: string): string[] {
  return name
    .replace(/\[([^\]]*)\]/g, ".$1")
    .split(".")
    .filter((segment) => segment !== "");
}

const INDEX = /^(0|[1-9]\d{0,5})$/;

export function buildFormObject(values: FormValues): Json {
  const root: Json = {};
  for (const name of Object.keys(values)) {
    const path = splitFieldName(name);
    if (path.length === 0 || path.some((segment) => UNSAFE_KEYS.has(segment))) continue;
    let container: Json | unknown[] = root;
    for (let index = 0; index < path.length; index += 1) {
      const segment = path[index];
      const key: string | number = Array.isArray(container) && INDEX.test(segment) ? Number(segment) : segment;
      const last = index === path.length - 1;
      const slot = container as Record<string | number, unknown>;
      if (last) {
        const value: FormValue | FormValue[] = values[name];
        slot[key] = slot[key] === undefined ? value : ([] as unknown[]).concat(slot[key], value);
        break;
      }
      let next = slot[key];
      if (typeof next !== "object" || next === null) {
        next = INDEX.test(path[index + 1]) ? [] : {};
        slot[key] = next;
      }
      container = next as Json | unknown[];
    }
  }
  return compactArrays(root) as Json;
}

/** `tags.0` and `tags.2` without `tags.1` leave a hole: drop holes, keep order. */
function compactArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((_, index) => index in value).map(compactArrays);
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) (value as Json)[key] = compactArrays((value as Json)[key]);
  }
  return value;
}

interface ZodDef {
  type: string;
  shape?: Record<string, ZodLike>;
  element?: ZodLike;
  innerType?: ZodLike;
  in?: ZodLike;
  options?: readonly ZodLike[];
  items?: readonly ZodLike[];
  valueType?: ZodLike;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  getter?: () => ZodLike;
}

export interface ZodLike {
  _zod: { def: ZodDef };
  safeParse(
    value: unknown,
    params?: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: ZodIssueLike[] } };
}

export interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

export function isZodSchema(value: unknown): value is ZodLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ZodLike).safeParse === "function" &&
    typeof (value as ZodLike)._zod?.def?.type === "string"
  );
}

const TRUE_WORDS: ReadonlySet<string> = new Set(["true", "on", "1", "yes"]);
const FALSE_WORDS: ReadonlySet<string> = new Set(["false", "off", "0", "no", ""]);

export function coerceBySchema(value: unknown, schema: ZodLike, depth = 0): unknown {
  if (depth > 64) return value;
  const def = schema._zod.def;
  switch (def.type) {
    case "number":
    case "int":
    case "nan": {
      if (typeof value !== "string") return value;
      const trimmed = value.trim();
      if (trimmed === "") return undefined;
      const number = Number(trimmed);
      return Number.isNaN(number) ? value : number;
    }
    case "bigint": {
      if (typeof value !== "string" || value.trim() === "") return value === "" ? undefined : value;
      try {
        return BigInt(value.trim());
      } catch {
        return value;
      }
    }
    case "boolean": {
      if (value === undefined) return false;
      if (typeof value !== "string") return value;
      const word = value.trim().toLowerCase();
      return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : value;
    }
    case "date":
      if (typeof value !== "string") return value;
      return value.trim() === "" ? undefined : new Date(value);
    case "enum":
      return value === "" ? undefined : coerceLiteral(value, Object.values(def.entries ?? {}));
    case "literal":
      return value === "" ? undefined : coerceLiteral(value, def.values ?? []);
    case "optional":
    case "default":
    case "prefault":
      if (value === "" || value === undefined) return undefined;
      return coerceBySchema(value, def.innerType!, depth + 1);
    case "nullable":
      if (value === "") return null;
      return value === null ? null : coerceBySchema(value, def.innerType!, depth + 1);
    case "nonoptional":
    case "readonly":
    case "catch":
      return coerceBySchema(value, def.innerType!, depth + 1);
    case "pipe":
      return coerceBySchema(value, def.in!, depth + 1);
    case "lazy":
      return def.getter ? coerceBySchema(value, def.getter(), depth + 1) : value;
    case "object": {
      const input = value === undefined ? {} : value;
      if (typeof input !== "object" || input === null || Array.isArray(input)) return value;
      const output: Json = { ...(input as Json) };
      const shape = def.shape ?? {};
      for (const key of Object.keys(shape)) {
        const coerced = coerceBySchema(output[key], shape[key], depth + 1);
        if (coerced === undefined) delete output[key];
        else output[key] = coerced;
      }
      return output;
    }
    case "array": {
      const items = value === undefined || value === "" ? [] : Array.isArray(value) ? value : [value];
      return items.map((item) => coerceBySchema(item, def.element!, depth + 1));
    }
    case "tuple": {
      if (!Array.isArray(value)) return value;
      return value.map((item, index) =>
        def.items && index < def.items.length ? coerceBySchema(item, def.items[index], depth + 1) : item,
      );
    }
    case "record": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      const output: Json = {};
      for (const key of Object.keys(value))
        output[key] = coerceBySchema((value as Json)[key], def.valueType!, depth + 1);
      return output;
    }
    case "union": {
      // The first option the coerced value satisfies wins; otherwise leave it for zod's union error.
      for (const option of def.options ?? []) {
        const coerced = coerceBySchema(value, option, depth + 1);
        if (option.safeParse(coerced).success) return coerced;
      }
      return value;
    }
    default:
      return value;
  }
}

/** "2" for `z.literal(2)` or `z.enum` over numbers (native enums) becomes 2. */
function coerceLiteral(value: unknown, allowed: readonly unknown[]): unknown {
  if (typeof value !== "string" || allowed.includes(value)) return value;
  const number = Number(value);
  if (!Number.isNaN(number) && allowed.includes(number)) return number;
  if (allowed.includes(true) && TRUE_WORDS.has(value)) return true;
  if (allowed.includes(false) && FALSE_WORDS.has(value)) return false;
  return value;
}

export function fieldErrors(issues: readonly ZodIssueLike[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.length === 0 ? FORM_ERROR_KEY : issue.path.map((segment) => String(segment)).join(".");
    if (!(key in errors)) errors[key] = issue.message;
  }
  return errors;
}

const MISSING_CODES: ReadonlySet<string> = new Set(["invalid_type", "invalid_value", "invalid_union"]);

interface IssueInput {
  code?: string;
  input?: unknown;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  format?: string;
  expected?: string;
  values?: readonly unknown[];
}

/**
 * Messages for the person filling the form, for the common cases, in place
 * of zod's developer-facing defaults ("Too small: expected string to have
 * >=1 characters"). A message the schema sets itself always wins (zod ranks
 * schema-level messages above this per-parse map).
 */
export function friendlyMessage(issue: IssueInput): string | undefined {
  if (issue.input === undefined && MISSING_CODES.has(issue.code ?? "")) return "Required";
  switch (issue.code) {
    case "too_small":
      if (issue.origin === "string")
        return issue.input === "" ? "Required" : `Use at least ${issue.minimum} characters`;
      if (issue.origin === "number" || issue.origin === "bigint")
        return `Must be ${issue.inclusive ? "at least" : "more than"} ${issue.minimum}`;
      if (issue.origin === "array" || issue.origin === "set") return `Choose at least ${issue.minimum}`;
      return undefined;
    case "too_big":
      if (issue.origin === "string") return `Use at most ${issue.maximum} characters`;
      if (issue.origin === "number" || issue.origin === "bigint")
        return `Must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
      if (issue.origin === "array" || issue.origin === "set") return `Choose at most ${issue.maximum}`;
      return undefined;
    case "invalid_format":
      if (issue.format === "email") return "Enter a valid email address";
      if (issue.format === "url") return "Enter a valid URL";
      return undefined;
    case "invalid_type":
      if (issue.expected === "number" || issue.expected === "int") return "Enter a number";
      if (issue.expected === "date") return "Enter a valid date";
      return undefined;
    case "invalid_value":
      return issue.values && issue.values.length <= 8
        ? `Choose one of: ${issue.values.map(String).join(", ")}`
        : undefined;
    default:
      return undefined;
  }
}

export type FormParse = { ok: true; value: unknown } | { ok: false; errors: Record<string, string> };

/** Coerce and validate; messages from `friendlyMessage` unless the schema sets its own. */
export function parseForm(value: unknown, schema: ZodLike): FormParse {
  const coerced = coerceBySchema(value, schema);
  const result = schema.safeParse(coerced, {
    error: (issue: IssueInput) => friendlyMessage(issue),
  });
  return result.success ? { ok: true, value: result.data } : { ok: false, errors: fieldErrors(result.error.issues) };
}
