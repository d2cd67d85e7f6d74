/**
 * Parse untrusted JSON text (an imported file, a share link) into a plain
 * value with bounded size, depth, string length and value count, and no key
 * that could pollute a prototype when the value is later spread or merged.
 * Pure: no I/O. Never throws; problems come back as `ImportProblem`s naming
 * where they are.
 *
 * `JSON.parse` itself is safe against deep nesting in V8 (iterative) and
 * creates `__proto__` as an own property, so the danger is in what code does
 * with the value afterwards; the walk below is iterative for the same reason.
 */

export type ImportErrorCode =
  /** The file is bigger than the limit. */
  | "too-large"
  | "empty"
  /** Not JSON at all, or broken in the middle. */
  | "not-json"
  /** JSON that stops early: cut off while downloading or copying. */
  | "truncated"
  | "too-deep"
  | "too-many-values"
  | "string-too-long"
  /** `__proto__`, `constructor` or `prototype` used as a key. */
  | "forbidden-key"
  /** Not a Livemark file (wrong or missing `format`). */
  | "wrong-format"
  /** A Livemark file of a version this app does not read. */
  | "unsupported-version"
  /** A field is missing, has the wrong type, or is out of range. */
  | "invalid"
  /** Two records of one session share an id. */
  | "duplicate-id"
  /** A mount names a message that is not in the file. */
  | "unknown-reference"
  /** The database refused the write (the import was rolled back). */
  | "storage"
  /** Share links only: the encoded session is bigger than a link can hold. */
  | "share-too-large"
  /** Share links only: the fragment is not a Livemark share link, or is damaged. */
  | "share-invalid";

export interface ImportProblem {
  code: ImportErrorCode;
  /** A plain sentence: what is wrong, where, and what was expected. */
  message: string;
  /** JSON path of the offending value, e.g. `$.messages[3].role`. */
  path?: string;
  /** What the field should hold, e.g. `a string` or `"user" | "assistant"`. */
  expected?: string;
  cause?: unknown;
}

export interface JsonLimits {
  /** In UTF-16 code units of the text, which never exceeds its UTF-8 bytes. */
  maxLength: number;
  maxDepth: number;
  maxStringLength: number;
  maxKeyLength: number;
  maxValues: number;
}

export const IMPORT_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxLength: 50 * 1024 * 1024,
  maxDepth: 128,
  maxStringLength: 8 * 1024 * 1024,
  maxKeyLength: 256,
  maxValues: 5_000_000,
});

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function formatPath(segments: readonly PathSegment[]): string {
  let path = "$";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

export function formatMegabytes(size: number): string {
  const megabytes = size / (1024 * 1024);
  return `${megabytes >= 10 ? Math.round(megabytes) : megabytes.toFixed(1)} MB`;
}

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    if (text.charCodeAt(index) === 10) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Where JSON text first goes wrong, and what was expected there. Engines
 * word (and position) their `JSON.parse` errors differently, and some give
 * no position at all, so this small iterative scanner runs when parsing
 * fails, to name the line and column in the same words everywhere.
 */
export function locateJsonError(text: string): { offset: number; expected: string } | undefined {
  const stack: string[] = [];
  let index = 0;
  type State = "value" | "afterValue" | "key" | "colon" | "keyOrEnd" | "valueOrEnd";
  let state: State = "value";
  const skipSpace = () => {
    while (
      index < text.length &&
      (text[index] === " " || text[index] === "\n" || text[index] === "\r" || text[index] === "\t")
    )
      index += 1;
  };
  const scanString = (): { offset: number; expected: string } | undefined => {
    index += 1;
    for (;;) {
      if (index >= text.length) return { offset: index, expected: 'a closing "' };
      const code = text.charCodeAt(index);
      if (code === 0x22) {
        index += 1;
        return undefined;
      }
      if (code < 0x20)
        return { offset: index, expected: 'a closing " (a line break inside a text must be written \\n)' };
      if (code === 0x5c) {
        const next = text[index + 1];
        if (next === undefined) return { offset: index + 1, expected: "an escape sequence" };
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6)))
            return { offset: index, expected: "\\u followed by 4 hex digits" };
          index += 6;
        } else if ('"\\/bfnrt'.includes(next)) {
          index += 2;
        } else {
          return { offset: index, expected: 'a valid escape such as \\n or \\"' };
        }
        continue;
      }
      index += 1;
    }
  };
  for (;;) {
    skipSpace();
    const char = text[index];
    // Right after "[" or "{", the container may close at once; otherwise it needs a value or a key.
    if (state === "valueOrEnd" || state === "keyOrEnd") {
      const closer = state === "valueOrEnd" ? "]" : "}";
      if (char === closer) {
        stack.pop();
        index += 1;
        state = "afterValue";
        continue;
      }
      state = state === "valueOrEnd" ? "value" : "key";
    }
    switch (state) {
      case "value": {
        if (char === "{") {
          stack.push("{");
          index += 1;
          state = "keyOrEnd";
        } else if (char === "[") {
          stack.push("[");
          index += 1;
          state = "valueOrEnd";
        } else if (char === '"') {
          const problem = scanString();
          if (problem) return problem;
          state = "afterValue";
        } else if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) {
          NUMBER.lastIndex = index;
          const match = NUMBER.exec(text);
          if (!match || match[0] === "-") return { offset: index + (match?.[0].length ?? 0), expected: "a number" };
          index += match[0].length;
          state = "afterValue";
        } else {
          const literal = ["true", "false", "null"].find((word) => text.startsWith(word, index));
          if (!literal) {
            const partial = ["true", "false", "null"].find(
              (word) => word.startsWith(text.slice(index)) && index < text.length,
            );
            return {
              offset: partial ? text.length : index,
              expected: "a value (an object, a list, a text in double quotes, a number, true, false or null)",
            };
          }
          index += literal.length;
          state = "afterValue";
        }
        continue;
      }
      case "afterValue": {
        const top = stack.at(-1);
        if (top === undefined)
          return index < text.length ? { offset: index, expected: "the end of the file" } : undefined;
        if (char === ",") {
          index += 1;
          state = top === "{" ? "key" : "value";
        } else if (char === (top === "{" ? "}" : "]")) {
          stack.pop();
          index += 1;
        } else {
          return { offset: index, expected: top === "{" ? '"," or "}"' : '"," or "]"' };
        }
        continue;
      }
      case "key": {
        if (char !== '"') return { offset: index, expected: "a field name in double quotes" };
        const problem = scanString();
        if (problem) return problem;
        state = "colon";
        continue;
      }
      case "colon":
        if (char !== ":") return { offset: index, expected: '":"' };
        index += 1;
        state = "value";
        continue;
      default:
        return undefined;
    }
  }
}

function describeParseError(text: string, error: unknown): ImportProblem {
  const located = locateJsonError(text);
  if (!located) {
    const detail = error instanceof Error ? error.message : String(error);
    return { code: "not-json", message: `The file is not valid JSON: ${detail}.`, cause: error };
  }
  if (located.offset >= text.length) {
    const { line } = lineAndColumn(text, text.length);
    return {
      code: "truncated",
      message: `The file ends in the middle of its data (line ${line}): it was probably cut off while downloading or copying. Export the session again.`,
      cause: error,
    };
  }
  const { line, column } = lineAndColumn(text, located.offset);
  const found = JSON.stringify(String.fromCodePoint(text.codePointAt(located.offset)!));
  return {
    code: "not-json",
    message: `The file is not valid JSON: at line ${line}, column ${column}, expected ${located.expected}, found ${found}. A Livemark session file is the JSON document made by Export.`,
    expected: located.expected,
    cause: error,
  };
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: PathSegment | undefined;
}

function framePath(frame: Frame | undefined, extra?: PathSegment): string {
  const segments: PathSegment[] = extra === undefined ? [] : [extra];
  for (let current = frame; current && current.key !== undefined; current = current.parent) segments.push(current.key);
  return formatPath(segments.reverse());
}

/** Check an already-parsed value against the limits; `undefined` when it passes. */
export function checkJsonValue(root: unknown, limits: JsonLimits = IMPORT_LIMITS): ImportProblem | undefined {
  const stack: Frame[] = [{ value: root, depth: 0, parent: undefined, key: undefined }];
  let count = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    count += 1;
    if (count > limits.maxValues) {
      return {
        code: "too-many-values",
        message: `The file holds more than ${limits.maxValues.toLocaleString("en-US")} values; Livemark reads at most that many.`,
        path: framePath(frame),
      };
    }
    const { value } = frame;
    if (typeof value === "string") {
      if (value.length > limits.maxStringLength) {
        const path = framePath(frame);
        return {
          code: "string-too-long",
          message: `${path} is a text of ${value.length.toLocaleString("en-US")} characters; the limit is ${limits.maxStringLength.toLocaleString("en-US")}.`,
          path,
          expected: `at most ${limits.maxStringLength} characters`,
        };
      }
      continue;
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value)) {
        const path = framePath(frame);
        return {
          code: "invalid",
          message: `${path} is a number too large to represent.`,
          path,
          expected: "a finite number",
        };
      }
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (frame.depth >= limits.maxDepth) {
      const path = framePath(frame);
      return {
        code: "too-deep",
        message: `The data is nested more than ${limits.maxDepth} levels deep at ${path}; Livemark reads at most ${limits.maxDepth}.`,
        path,
        expected: `at most ${limits.maxDepth} levels of nesting`,
      };
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        stack.push({ value: value[index], depth: frame.depth + 1, parent: frame, key: index });
      }
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key)) {
        const path = framePath(frame, key);
        return {
          code: "forbidden-key",
          message: `${path}: the key "${key}" is not allowed in a Livemark file (it can be used to tamper with the page's objects).`,
          path,
        };
      }
      if (key.length > limits.maxKeyLength) {
        const path = framePath(frame);
        return {
          code: "invalid",
          message: `${path} has a field name of ${key.length} characters; the limit is ${limits.maxKeyLength}.`,
          path,
          expected: `field names of at most ${limits.maxKeyLength} characters`,
        };
      }
    }
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      stack.push({
        value: (value as Record<string, unknown>)[keys[index]],
        depth: frame.depth + 1,
        parent: frame,
        key: keys[index],
      });
    }
  }
  return undefined;
}

export type SafeJsonResult = { ok: true; value: unknown } | { ok: false; error: ImportProblem };

export function parseJsonSafely(text: string, limits: JsonLimits = IMPORT_LIMITS): SafeJsonResult {
  if (typeof text !== "string")
    return { ok: false, error: { code: "not-json", message: "The file could not be read as text." } };
  if (text.length > limits.maxLength) {
    return {
      ok: false,
      error: {
        code: "too-large",
        message: `The file is ${formatMegabytes(text.length)}; Livemark imports files up to ${formatMegabytes(limits.maxLength)}.`,
      },
    };
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === "") return { ok: false, error: { code: "empty", message: "The file is empty." } };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, error: describeParseError(body, error) };
  }
  const problem = checkJsonValue(value, limits);
  return problem ? { ok: false, error: problem } : { ok: true, value };
}
