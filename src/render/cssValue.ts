/**
 * CSS values judged by their tokens, not by their text (pure).
 *
 * A text check cannot know where a string ends: `'url("data:,' image-set(
 * "http://HOST/x" 1x)` holds `url("` inside a string, and a check that
 * blanked every `url(…)` also blanked the `image-set(` that follows and is
 * real. Here the value is cut into tokens the way the browser does (CSS
 * Syntax Level 3, §4: strings, url tokens, function tokens, comments), and
 * then every token must be of an allowed form:
 * - functions only from FUNCTIONS (colours, maths, gradients, transforms,
 *   filters, shapes, grid, timing); `url()` only with a data:/blob: URL;
 *   nothing that fetches, runs or reads the document (`image-set`, `image`,
 *   `cross-fade`, `element`, `src`, `paint`, `attr`, `expression`, `env`);
 * - no escapes (a backslash anywhere), comments, `{ } ; !`, at-keywords,
 *   `<!--`/`-->`, bad strings or bad urls;
 * - strings are inert text and may hold anything else.
 *
 * Property names come from an allowlist of families (PROPERTY).
 */
import { sanitizeUrl } from "./sanitizeUrl";

export type CssToken =
  | { type: "ws" | "comma" | "colon" | "(" | ")" | "[" | "]" | "{" | "}" | ";" | "cdo" | "cdc" | "comment" }
  | { type: "ident" | "function" | "at" | "hash"; value: string }
  | { type: "string"; value: string; bad: boolean }
  | { type: "url"; value: string; bad: boolean }
  | { type: "number"; value: string }
  | { type: "delim"; value: string };

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isNameStart = (c: string | undefined) => c !== undefined && (/[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80);
const isName = (c: string | undefined) => c !== undefined && (isNameStart(c) || isDigit(c) || c === "-");
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";

/**
 * Tokens of `input`. Escapes (`\`) are not decoded: callers refuse any value
 * with a backslash before tokenizing, so a name is exactly its text.
 */
export function tokenizeCss(input: string): CssToken[] {
  const tokens: CssToken[] = [];
  let index = 0;
  const at = (offset = 0) => input[index + offset];
  const startsIdent = (offset = 0) =>
    isNameStart(at(offset)) || (at(offset) === "-" && (isNameStart(at(offset + 1)) || at(offset + 1) === "-"));
  const name = () => {
    const start = index;
    while (isName(at())) index++;
    return input.slice(start, index);
  };
  const number = () => {
    const start = index;
    if (at() === "+" || at() === "-") index++;
    while (isDigit(at())) index++;
    if (at() === "." && isDigit(at(1))) {
      index++;
      while (isDigit(at())) index++;
    }
    if ((at() === "e" || at() === "E") && (isDigit(at(1)) || ((at(1) === "+" || at(1) === "-") && isDigit(at(2))))) {
      index += 2;
      while (isDigit(at())) index++;
    }
    if (at() === "%") index++;
    else if (startsIdent()) name();
    return input.slice(start, index);
  };
  const string = (quote: string): CssToken => {
    index++;
    const start = index;
    while (index < input.length) {
      const c = at();
      if (c === quote) {
        const value = input.slice(start, index);
        index++;
        return { type: "string", value, bad: false };
      }
      if (c === "\n" || c === "\r" || c === "\f")
        return { type: "string", value: input.slice(start, index), bad: true };
      index++;
    }
    return { type: "string", value: input.slice(start), bad: false };
  };
  const unquotedUrl = (): CssToken => {
    while (isSpace(at())) index++;
    const start = index;
    while (index < input.length && at() !== ")") {
      const c = at()!;
      if (isSpace(c)) {
        const end = index;
        while (isSpace(at())) index++;
        if (at() === ")" || index >= input.length) {
          if (at() === ")") index++;
          return { type: "url", value: input.slice(start, end), bad: false };
        }
        return badUrl(start);
      }
      if (c === '"' || c === "'" || c === "(" || c.charCodeAt(0) < 0x20 || c === "\u007f") return badUrl(start);
      index++;
    }
    const value = input.slice(start, index);
    if (at() === ")") index++;
    return { type: "url", value, bad: false };
  };
  const badUrl = (start: number): CssToken => {
    while (index < input.length && at() !== ")") index++;
    const value = input.slice(start, index);
    if (at() === ")") index++;
    return { type: "url", value, bad: true };
  };

  while (index < input.length) {
    const c = at()!;
    if (isSpace(c)) {
      while (isSpace(at())) index++;
      tokens.push({ type: "ws" });
    } else if (c === "/" && at(1) === "*") {
      const end = input.indexOf("*/", index + 2);
      index = end < 0 ? input.length : end + 2;
      tokens.push({ type: "comment" });
    } else if (c === '"' || c === "'") {
      tokens.push(string(c));
    } else if (c === "#" && isName(at(1))) {
      index++;
      tokens.push({ type: "hash", value: name() });
    } else if (
      isDigit(c) ||
      ((c === "+" || c === "-" || c === ".") && (isDigit(at(1)) || (at(1) === "." && isDigit(at(2))))) ||
      (c === "." && isDigit(at(1)))
    ) {
      tokens.push({ type: "number", value: number() });
    } else if (c === "<" && input.startsWith("<!--", index)) {
      index += 4;
      tokens.push({ type: "cdo" });
    } else if (c === "-" && input.startsWith("-->", index)) {
      index += 3;
      tokens.push({ type: "cdc" });
    } else if (startsIdent()) {
      const value = name();
      if (at() === "(") {
        index++;
        if (value.toLowerCase() === "url") {
          let look = index;
          while (isSpace(input[look])) look++;
          if (input[look] === '"' || input[look] === "'") {
            tokens.push({ type: "function", value });
          } else {
            tokens.push(unquotedUrl());
          }
        } else {
          tokens.push({ type: "function", value });
        }
      } else {
        tokens.push({ type: "ident", value });
      }
    } else if (c === "@" && startsIdent(1)) {
      index++;
      tokens.push({ type: "at", value: name() });
    } else {
      index++;
      const simple: Record<string, CssToken["type"]> = {
        ",": "comma",
        ":": "colon",
        "(": "(",
        ")": ")",
        "[": "[",
        "]": "]",
        "{": "{",
        "}": "}",
        ";": ";",
      };
      tokens.push(simple[c] ? ({ type: simple[c] } as CssToken) : { type: "delim", value: c });
    }
  }
  return tokens;
}

/** Functions a value may call (lower case; vendor prefixes are stripped before the lookup). */
const FUNCTIONS = new Set([
  // colours
  "rgb",
  "rgba",
  "hsl",
  "hsla",
  "hwb",
  "lab",
  "lch",
  "oklab",
  "oklch",
  "color",
  "color-mix",
  "light-dark",
  // maths and references
  "calc",
  "min",
  "max",
  "clamp",
  "var",
  "round",
  "mod",
  "rem",
  "abs",
  "sign",
  "sin",
  "cos",
  "tan",
  "asin",
  "acos",
  "atan",
  "atan2",
  "pow",
  "sqrt",
  "hypot",
  "log",
  "exp",
  // gradients (images drawn by the browser, nothing fetched)
  "linear-gradient",
  "radial-gradient",
  "conic-gradient",
  "repeating-linear-gradient",
  "repeating-radial-gradient",
  "repeating-conic-gradient",
  // transforms
  "translate",
  "translatex",
  "translatey",
  "translatez",
  "translate3d",
  "rotate",
  "rotatex",
  "rotatey",
  "rotatez",
  "rotate3d",
  "scale",
  "scalex",
  "scaley",
  "scalez",
  "scale3d",
  "skew",
  "skewx",
  "skewy",
  "matrix",
  "matrix3d",
  "perspective",
  // filters
  "blur",
  "brightness",
  "contrast",
  "drop-shadow",
  "grayscale",
  "hue-rotate",
  "invert",
  "opacity",
  "saturate",
  "sepia",
  // shapes and clipping
  "inset",
  "circle",
  "ellipse",
  "polygon",
  "rect",
  "xywh",
  "path",
  // grid, sizing, timing, generated content
  "repeat",
  "minmax",
  "fit-content",
  "cubic-bezier",
  "steps",
  "linear",
  "counter",
  "counters",
]);

/** Property families a style may set (kebab-case, vendor prefix stripped), and custom properties. */
const PROPERTY = new RegExp(
  "^(?:--[A-Za-z0-9_-]{1,64}|(?:" +
    [
      "accent-color",
      "align-[a-z-]+",
      "all",
      "animation(?:-[a-z-]+)?",
      "appearance",
      "aspect-ratio",
      "backdrop-filter",
      "backface-visibility",
      "background(?:-[a-z-]+)?",
      "block-size",
      "border(?:-[a-z-]+)?",
      "bottom",
      "box-(?:decoration-break|shadow|sizing)",
      "break-[a-z-]+",
      "caption-side",
      "caret-color",
      "clear",
      "clip(?:-path|-rule)?",
      "color(?:-scheme|-interpolation)?",
      "column(?:s|-[a-z-]+)?",
      "contain(?:-[a-z-]+)?",
      "container(?:-[a-z-]+)?",
      "content",
      "content-visibility",
      "counter-(?:increment|reset|set)",
      "cursor",
      "cx",
      "cy",
      "d",
      "direction",
      "display",
      "dominant-baseline",
      "empty-cells",
      "fill(?:-opacity|-rule)?",
      "filter",
      "flex(?:-[a-z-]+)?",
      "float",
      "font(?:-[a-z-]+)?",
      "gap",
      "grid(?:-[a-z-]+)?",
      "height",
      "hyphens",
      "image-rendering",
      "inline-size",
      "inset(?:-[a-z-]+)?",
      "isolation",
      "justify-[a-z-]+",
      "left",
      "letter-spacing",
      "line-(?:break|clamp|height)",
      "list-style(?:-[a-z-]+)?",
      "margin(?:-[a-z-]+)?",
      "mask(?:-[a-z-]+)?",
      "max-(?:block-size|height|inline-size|width)",
      "min-(?:block-size|height|inline-size|width)",
      "mix-blend-mode",
      "object-(?:fit|position)",
      "opacity",
      "order",
      "orphans",
      "outline(?:-[a-z-]+)?",
      "overflow(?:-[a-z-]+)?",
      "overscroll-behavior(?:-[a-z-]+)?",
      "padding(?:-[a-z-]+)?",
      "paint-order",
      "perspective(?:-origin)?",
      "place-[a-z-]+",
      "pointer-events",
      "position",
      "quotes",
      "r",
      "resize",
      "right",
      "rotate",
      "row-gap",
      "rx",
      "ry",
      "scale",
      "scroll-[a-z-]+",
      "scrollbar-[a-z-]+",
      "shape-[a-z-]+",
      "stop-(?:color|opacity)",
      "stroke(?:-[a-z-]+)?",
      "tab-size",
      "table-layout",
      "text-[a-z-]+",
      "top",
      "touch-action",
      "transform(?:-[a-z-]+)?",
      "transition(?:-[a-z-]+)?",
      "translate",
      "unicode-bidi",
      "user-select",
      "vector-effect",
      "vertical-align",
      "visibility",
      "white-space(?:-collapse)?",
      "widows",
      "width",
      "will-change",
      "word-(?:break|spacing|wrap)",
      "writing-mode",
      "x",
      "y",
      "z-index",
      "zoom",
    ].join("|") +
    "))$",
);

const stripVendor = (name: string) => name.replace(/^-(?:webkit|moz|ms|o)-/, "");

/**
 * In the families above but never allowed: `text-security` draws a text
 * field's characters as discs, which makes a plain field (one whose key
 * events and value no password rule covers) look like a password prompt.
 */
const DENIED_PROPERTIES: ReadonlySet<string> = new Set(["text-security"]);

/** A property name (kebab-case) a style may set. */
export function isAllowedCssProperty(name: string): boolean {
  const bare = stripVendor(name.toLowerCase());
  return PROPERTY.test(bare) && !DENIED_PROPERTIES.has(bare);
}

/**
 * True when every token of `value` is an allowed form (see the file's
 * header). `value` must not hold a backslash (checked here too).
 */
export function isSafeCssValue(value: string): boolean {
  if (value.includes("\\")) return false;
  const tokens = tokenizeCss(value);
  let depth = 0;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    switch (token.type) {
      case "comment":
      case "cdo":
      case "cdc":
      case "{":
      case "}":
      case ";":
      case "at":
        return false;
      case "string":
        if (token.bad) return false;
        break;
      case "url":
        if (token.bad || sanitizeUrl(token.value.trim(), "resource") === null) return false;
        break;
      case "function": {
        const name = stripVendor(token.value.toLowerCase());
        if (name === "url") {
          // url("…"): exactly one string, then ")".
          let next = index + 1;
          while (tokens[next]?.type === "ws") next++;
          const argument = tokens[next];
          if (argument?.type !== "string" || argument.bad || sanitizeUrl(argument.value.trim(), "resource") === null)
            return false;
          next++;
          while (tokens[next]?.type === "ws") next++;
          if (tokens[next]?.type !== ")") return false;
          index = next;
          break;
        }
        if (!FUNCTIONS.has(name)) return false;
        depth++;
        break;
      }
      case "(":
        depth++;
        break;
      case ")":
        if (--depth < 0) return false;
        break;
      case "delim":
        if (token.value === "!" || token.value === "<" || token.value === ">" || token.value === "@") return false;
        break;
      case "ident":
        // A scheme-like identifier outside a url() (`javascript:`) has no use in a value.
        if (/^(?:javascript|vbscript|expression)$/i.test(token.value) && tokens[index + 1]?.type === "colon")
          return false;
        break;
      default:
        break;
    }
  }
  return depth === 0;
}
