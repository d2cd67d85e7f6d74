/**
 * Turns console arguments into the one line of text the model reads, the way
 * browsers and Node print them: strings as they are at top level, `%s %d %i %f
 * %o %O %j %c %%` substitutions when the first argument is a string, other
 * values through object-inspect with a depth limit, errors as `Name: message`.
 * Output is capped so one runaway log cannot flood the feedback.
 */
import inspect from "object-inspect";

export const CONSOLE_DEPTH = 5;
export const CONSOLE_MAX_CHARS = 8000;

export function formatValue(value: unknown): string {
  if (typeof value === "string") return value;
  return inspectValue(value);
}

export function inspectValue(value: unknown): string {
  if (isErrorLike(value)) return formatError(value);
  try {
    return inspect(value, { depth: CONSOLE_DEPTH, maxStringLength: CONSOLE_MAX_CHARS });
  } catch (error) {
    // A hostile getter or proxy trap: say so instead of losing the line.
    return `[uninspectable: ${String((error as Error)?.message ?? error)}]`;
  }
}

/**
 * An engine message about compiled code, as it would read about the model's
 * own: `$$s.rows.forEach is not a function` → `rows.forEach is not a function`
 * (the transform reads top-level names through `$$s`, realm globals through
 * `$$g`, staged patterns through `$$t`).
 */
export function modelText(message: string): string {
  return message.includes("$$") ? message.replace(/(?<![\w$.])\$\$[sgt]\./g, "") : message;
}

export function formatError(error: { name?: unknown; message?: unknown }): string {
  const name = typeof error.name === "string" && error.name ? error.name : "Error";
  const message = typeof error.message === "string" ? modelText(error.message) : "";
  return message ? `${name}: ${message}` : name;
}

function isErrorLike(value: unknown): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
}

export function formatConsoleArguments(args: readonly unknown[]): string {
  const parts: string[] = [];
  let rest = 0;
  const first = args[0];
  if (typeof first === "string" && first.includes("%")) {
    let next = 1;
    const text = first.replace(/%[sdifoOjc%]/g, (token) => {
      if (token === "%%") return "%";
      if (next >= args.length) return token;
      const value = args[next++];
      switch (token) {
        case "%s":
          return typeof value === "string"
            ? value
            : typeof value === "object" && value !== null
              ? inspectValue(value)
              : String(value);
        case "%d":
        case "%i": {
          if (typeof value === "bigint") return `${value}n`;
          const number = token === "%d" ? Number(value) : parseInt(String(value), 10);
          return String(token === "%d" ? number : number);
        }
        case "%f":
          return String(parseFloat(String(value)));
        case "%j":
          try {
            return JSON.stringify(value) ?? "undefined";
          } catch {
            return "[Circular]";
          }
        case "%c":
          return "";
        default:
          return inspectValue(value);
      }
    });
    parts.push(text);
    rest = next;
  } else if (args.length > 0) {
    parts.push(formatValue(first));
    rest = 1;
  }
  for (let index = rest; index < args.length; index += 1) parts.push(formatValue(args[index]));
  return cap(parts.join(" "));
}

export function cap(text: string): string {
  if (text.length <= CONSOLE_MAX_CHARS) return text;
  return `${text.slice(0, CONSOLE_MAX_CHARS)}… (${text.length - CONSOLE_MAX_CHARS} more characters)`;
}
