/**
 * CSS rules for mounts: `style` props, Tailwind class tokens, and a check of
 * the CSS generated from those tokens. Pure.
 *
 * Goals: nothing inside a mount draws outside its panel, and nothing a mount
 * says changes the app's own look or loads a resource. The panel itself
 * (`contain: layout paint`, `isolation: isolate`) is the first wall; these
 * rules are the second:
 * - `position: fixed` becomes `absolute` (the panel is the containing block);
 * - z-index is clamped into [MIN_Z_INDEX, MAX_Z_INDEX];
 * - values are judged token by token (cssValue.ts, a CSS Syntax tokenizer),
 *   so a string cannot hide what follows it; functions come from an
 *   allowlist, url() only with data:/blob:, nothing else that fetches or
 *   runs (`image-set`, `image()`, `src()`, `element()`, `attr()`,
 *   `expression()`, `@import`); properties come from an allowlist of
 *   families (`behavior`, `-moz-binding` are not in it);
 * - backslashes are refused outright: CSS escapes can spell `url(` (`\75 rl(`)
 *   past any text check;
 * - generated rules must select only inside `.lm-mount`, at-rules other than
 *   @media/@supports/@container/@keyframes are dropped, keyframes are renamed
 *   into our own namespace.
 */
import { isAllowedCssProperty, isSafeCssValue } from "./cssValue";

export const MIN_Z_INDEX = -10;
export const MAX_Z_INDEX = 100;
/** Longest single CSS value kept (a data: background fits; a novel does not). */
export const MAX_CSS_VALUE_LENGTH = 64 * 1024;
/** Class attribute limits. */
export const MAX_CLASS_TOKENS = 200;
export const MAX_CLASS_TOKEN_LENGTH = 120;
/** Class of every mount panel; generated CSS is scoped under it. */
export const MOUNT_SCOPE_CLASS = "lm-mount";
/** Prefix given to keyframes defined by generated CSS. */
export const KEYFRAMES_PREFIX = "lm-mount-";

const DENIED_PROPERTIES = new Set(["behavior", "-moz-binding", "mozbinding", "-ms-behavior"]);

/** React style keys (camelCase or vendor) and custom properties. */
const PROPERTY_NAME = /^(?:--[A-Za-z0-9_-]{1,64}|[A-Za-z]{1,48})$/;

/** `backgroundColor` → `background-color`, `WebkitBoxShadow` → `-webkit-box-shadow`. */
export function cssPropertyName(key: string): string {
  if (key.startsWith("--")) return key;
  const kebab = key.replace(/[A-Z]/g, (letter) => "-" + letter.toLowerCase());
  return /^(webkit|moz|ms|o)-/.test(kebab) ? "-" + kebab : kebab;
}

/**
 * One declaration, by CSS property name (kebab-case or custom property).
 * Returns the value to use, or null to drop the declaration.
 */
export function sanitizeCssDeclaration(property: string, value: unknown): string | number | null {
  const name = property.toLowerCase();
  if (DENIED_PROPERTIES.has(name) || !isAllowedCssProperty(name)) return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    if (name === "z-index") return clampZIndex(value);
    return value;
  }
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (trimmed.length > MAX_CSS_VALUE_LENGTH) return null;
  // Judged token by token (cssValue.ts): a string holding `url("` cannot
  // hide what follows it. `!important` is split off generated CSS before
  // this; style props never need it (inline styles already win).
  if (!isSafeCssValue(trimmed)) return null;
  if (name === "position") return /^fixed$/i.test(trimmed) ? "absolute" : trimmed;
  if (name === "z-index") {
    if (/^auto$/i.test(trimmed)) return "auto";
    const number = Number(trimmed);
    return Number.isFinite(number) && /^[+-]?\d+$/.test(trimmed) ? clampZIndex(number) : null;
  }
  return trimmed;
}

function clampZIndex(value: number): number {
  return Math.min(MAX_Z_INDEX, Math.max(MIN_Z_INDEX, Math.trunc(value)));
}

export interface StyleResult {
  style: Record<string, string | number> | undefined;
  /** Keys dropped, for reporting. */
  dropped: string[];
}

/** A React `style` object: plain object of property → string | number. */
export function sanitizeStyle(style: unknown): StyleResult {
  if (typeof style !== "object" || style === null || Array.isArray(style)) {
    return { style: undefined, dropped: style === undefined ? [] : ["style"] };
  }
  const result: Record<string, string | number> = {};
  const dropped: string[] = [];
  let count = 0;
  for (const [key, value] of Object.entries(style)) {
    if (++count > 200) {
      dropped.push(key);
      continue;
    }
    if (!PROPERTY_NAME.test(key)) {
      dropped.push(key);
      continue;
    }
    const clean = sanitizeCssDeclaration(cssPropertyName(key), value);
    if (clean === null) dropped.push(key);
    else result[key] = clean;
  }
  return { style: Object.keys(result).length > 0 ? result : undefined, dropped };
}

// Characters a Tailwind token may hold. Arbitrary values keep [ ] ( ) , % # '
// and `_` for spaces; selector syntax (& > ~ = | ^ $ and quotes) is what an
// arbitrary *variant* needs, and those are refused: `[&_body]:hidden` is how
// a token would reach outside its element.
const TOKEN_CHARACTERS = /^[A-Za-z0-9_\-:./%#[\]()',+*@!]+$/;
const TOKEN_DENIED = /url\(|image-set|expression\(|attr\(|src\(|element\(|image\(|@import|\]:|^\[[^\]]*&/i;
/**
 * The app's own class namespace (`lm-ask`, `lm-button--primary`, the panel's
 * `lm-mount`): a mount wearing them would be drawn with the app's real ask
 * and button CSS, a look-alike no style check can tell apart. (The kit's
 * `lmk-` classes are the mount's own.)
 */
const APP_NAMESPACE = /^lm-/i;

/** A single class token may be handed to the CSS generator and the class attribute. */
export function isSafeClassToken(token: string): boolean {
  return (
    token.length > 0 &&
    token.length <= MAX_CLASS_TOKEN_LENGTH &&
    TOKEN_CHARACTERS.test(token) &&
    !TOKEN_DENIED.test(token) &&
    !APP_NAMESPACE.test(token)
  );
}

export interface ClassNameResult {
  /** The class attribute to render (every token, safe or not, is harmless as a class name). */
  className: string | undefined;
  /** Tokens to generate CSS for. */
  tokens: string[];
}

/**
 * A `className` prop. Unsafe tokens stay out of the class attribute too, so
 * what renders is exactly what got CSS.
 */
export function sanitizeClassName(value: unknown): ClassNameResult {
  if (typeof value !== "string") return { className: undefined, tokens: [] };
  const tokens: string[] = [];
  const seen = new Set<string>();
  for (const token of value.split(/\s+/)) {
    if (token === "" || seen.has(token)) continue;
    seen.add(token);
    if (!isSafeClassToken(token)) continue;
    tokens.push(token);
    if (tokens.length >= MAX_CLASS_TOKENS) break;
  }
  return { className: tokens.length > 0 ? tokens.join(" ") : undefined, tokens };
}

// --- Generated CSS ---------------------------------------------------------

interface CssStatement {
  /** Text before the block: a selector list or an at-rule prelude. */
  prelude: string;
  /** Block content; undefined for a statement without a block (`@import x;`). */
  block: string | undefined;
}

/** Split CSS into top-level statements, respecting strings, comments and nesting. */
function splitStatements(css: string): CssStatement[] | null {
  const statements: CssStatement[] = [];
  let start = 0;
  let index = 0;
  while (index < css.length) {
    const character = css[index];
    if (character === "/" && css[index + 1] === "*") {
      const end = css.indexOf("*/", index + 2);
      if (end < 0) return null;
      // Comments are dropped: splice them out of the prelude.
      css = css.slice(0, index) + css.slice(end + 2);
      continue;
    }
    if (character === '"' || character === "'") {
      const end = css.indexOf(character, index + 1);
      if (end < 0) return null;
      index = end + 1;
      continue;
    }
    if (character === ";") {
      statements.push({ prelude: css.slice(start, index).trim(), block: undefined });
      start = ++index;
      continue;
    }
    if (character === "{") {
      const open = index;
      let depth = 1;
      index++;
      while (index < css.length && depth > 0) {
        const inner = css[index];
        if (inner === '"' || inner === "'") {
          const end = css.indexOf(inner, index + 1);
          if (end < 0) return null;
          index = end + 1;
          continue;
        }
        if (inner === "{") depth++;
        else if (inner === "}") depth--;
        index++;
      }
      if (depth !== 0) return null;
      statements.push({ prelude: css.slice(start, open).trim(), block: css.slice(open + 1, index - 1) });
      start = index;
      continue;
    }
    if (character === "}") return null;
    index++;
  }
  if (css.slice(start).trim() !== "") return null;
  return statements.filter((statement) => statement.prelude !== "" || statement.block !== undefined);
}

/** Split on top-level commas (not inside parentheses, brackets or strings). */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (quote) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === "(" || character === "[") depth++;
    else if (character === ")" || character === "]") depth--;
    else if (character === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

// A selector is inside the panel when it starts with the scope class as an
// ancestor, optionally below a theme/direction ancestor the generator adds.
const SCOPED_SELECTOR = new RegExp(
  `^(?:(?:\\.dark|\\[dir="(?:rtl|ltr)"\\]|\\.light) )?\\.${MOUNT_SCOPE_CLASS} (?![~+])[^,{}]+$`,
);

/**
 * The subject of `A .lm-mount X` is always a descendant of a panel, whatever
 * X holds, as long as X does not start with a sibling combinator. (The panel
 * itself is not a target: only its descendants carry utility classes.)
 */
export function selectorInScope(selector: string): boolean {
  return SCOPED_SELECTOR.test(selector.trim().replace(/\s+/g, " "));
}

function sanitizeDeclarations(block: string, keyframes: Map<string, string>): string {
  const kept: string[] = [];
  for (const part of splitTopLevel(block, ";")) {
    const colon = part.indexOf(":");
    if (colon < 0) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    let value = part.slice(colon + 1).trim();
    if (!/^(?:--[a-z0-9_-]+|-?[a-z][a-z-]*)$/.test(property)) continue;
    let important = "";
    const importantMatch = /\s*!important$/i.exec(value);
    if (importantMatch) {
      important = " !important";
      value = value.slice(0, importantMatch.index);
    }
    if ((property === "animation" || property === "animation-name") && keyframes.size > 0) {
      value = value.replace(/[A-Za-z_][\w-]*/g, (word) => keyframes.get(word) ?? word);
    }
    const clean = sanitizeCssDeclaration(property, value);
    if (clean === null) continue;
    kept.push(`${property}:${clean}${important};`);
  }
  return kept.join("");
}

function sanitizeStatements(statements: CssStatement[], keyframes: Map<string, string>, out: string[]): void {
  for (const { prelude, block } of statements) {
    if (block === undefined) continue; // @import, @charset, @layer x; — never
    if (prelude.startsWith("@")) {
      const name = /^@([a-z-]+)/i.exec(prelude)?.[1]?.toLowerCase();
      if (name === "media" || name === "supports" || name === "container") {
        if (/[\\;]|url\(/i.test(prelude)) continue;
        const inner = splitStatements(block);
        if (!inner) continue;
        const nested: string[] = [];
        sanitizeStatements(inner, keyframes, nested);
        if (nested.length > 0) out.push(`${prelude}{${nested.join("")}}`);
      } else if (name === "keyframes" || name === "-webkit-keyframes") {
        const original = prelude.slice(name.length + 1).trim();
        if (!/^[A-Za-z_][\w-]*$/.test(original)) continue;
        const renamed = keyframes.get(original) ?? KEYFRAMES_PREFIX + original;
        const frames = splitStatements(block);
        if (!frames) continue;
        const kept = frames
          .filter(
            (frame) =>
              frame.block !== undefined && /^(?:from|to|[\d.]+%)(?:\s*,\s*(?:from|to|[\d.]+%))*$/.test(frame.prelude),
          )
          .map((frame) => `${frame.prelude}{${sanitizeDeclarations(frame.block!, keyframes)}}`);
        out.push(`@keyframes ${renamed}{${kept.join("")}}`);
      }
      // Everything else (@font-face loads fonts, @property and @layer reach the
      // whole document, @page, @namespace) is dropped.
      continue;
    }
    const selectors = splitTopLevel(prelude, ",")
      .map((selector) => selector.trim())
      .filter(Boolean);
    const scoped = selectors.filter(selectorInScope);
    if (scoped.length === 0) continue;
    const declarations = sanitizeDeclarations(block, keyframes);
    if (declarations !== "") out.push(`${scoped.join(",")}{${declarations}}`);
  }
}

/**
 * Check CSS produced by the utility generator: keep only rules scoped inside
 * `.lm-mount`, safe declarations and renamed keyframes. Unparseable input
 * yields "" (the generator's output is regular; anything else is suspect).
 */
export function sanitizeGeneratedCss(css: string): string {
  const statements = splitStatements(css);
  if (!statements) return "";
  // Rename keyframes first so `animation` declarations anywhere follow them.
  const keyframes = new Map<string, string>();
  for (const { prelude } of statements) {
    const match = /^@(?:-webkit-)?keyframes\s+([A-Za-z_][\w-]*)$/i.exec(prelude);
    if (match) keyframes.set(match[1], KEYFRAMES_PREFIX + match[1]);
  }
  const out: string[] = [];
  sanitizeStatements(statements, keyframes, out);
  return out.join("\n");
}
