/**
 * Props from the realm → props the host renders. Pure; runs on every node
 * whose props change (the node's version guards repeats).
 *
 * Rules (the spec of each type lists what it accepts; everything else drops):
 * - no `dangerouslySetInnerHTML`, `children`, `key`, `ref`;
 * - `on*`: only handler markers named in the spec survive, as handler kinds
 *   the view turns into real functions; strings and unknown handlers drop;
 * - ids are namespaced per mount (no clash with, or clobbering of, app ids);
 * - URLs by sanitizeUrl, styles and classes by sanitizeCss;
 * - a value of the wrong type drops rather than being coerced.
 */
import { isHandlerMarker, type WireProps } from "./contract";
import type { ComponentSpec, HandlerKind, PropRule } from "./componentSpecs";
import { sanitizeClassName, sanitizeStyle } from "./sanitizeCss";
import { sanitizeUrl } from "./sanitizeUrl";

export const MAX_ATTRIBUTE_LENGTH = 10_000;

export type DropReason =
  | "raw-html"
  | "string-handler"
  | "unsupported-handler"
  | "unsafe-url"
  | "unsafe-style"
  | "invalid-value"
  | "unknown-prop";

/** Reasons worth telling the model about: it wrote something the host refuses on purpose. */
export const REPORTED_DROP_REASONS: ReadonlySet<DropReason> = new Set([
  "raw-html",
  "string-handler",
  "unsafe-url",
  "unsafe-style",
]);

export interface DroppedProp {
  prop: string;
  reason: DropReason;
}

export interface SanitizedProps {
  /** Ready for React: no functions, no markers. */
  props: Record<string, unknown>;
  /** Handler name → payload kind, for each allowed handler marker present. */
  handlers: Record<string, HandlerKind>;
  /** Class tokens to generate CSS for. */
  classTokens: string[];
  dropped: DroppedProp[];
}

export interface SanitizeOptions {
  /** Prefix for ids in this mount, e.g. `lm-m3-`. */
  idPrefix: string;
}

const ID = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const ARIA_NAME = /^aria-[a-z]{2,24}$/;
const DATA_NAME = /^data-[a-z0-9][a-z0-9_.-]{0,39}$/;
const ARIA_IDREFS = new Set([
  "aria-labelledby",
  "aria-describedby",
  "aria-controls",
  "aria-owns",
  "aria-activedescendant",
  "aria-details",
  "aria-errormessage",
  "aria-flowto",
]);
const SILENT_DROPS = new Set(["children", "key", "ref", "asChild", "xmlns", "xmlnsXlink"]);
const RAW_HTML = new Set(["dangerouslySetInnerHTML", "innerHTML", "outerHTML", "srcDoc", "srcdoc"]);
const URL_PROPS = new Set([
  "href",
  "src",
  "srcSet",
  "srcset",
  "xlinkHref",
  "xlink:href",
  "action",
  "formAction",
  "poster",
  "background",
  "ping",
  "cite",
  "data",
  "codebase",
  "manifest",
]);
const PAINT_DENIED = /url\s*\(|javascript:|vbscript:|expression\s*\(|[\\<>{};]/i;
const JSON_DENIED_KEYS = new Set([...RAW_HTML, ...URL_PROPS, "children", "ref", "key", "is"]);

/** Namespace one id. */
export function namespaceId(value: unknown, prefix: string): string | null {
  const text = typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? `n${value}` : value;
  if (typeof text !== "string" || !ID.test(text)) return null;
  return prefix + text;
}

function namespaceIds(value: unknown, prefix: string): string | null {
  if (typeof value !== "string") return null;
  const ids = value
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => namespaceId(id, prefix));
  if (ids.length === 0 || ids.length > 32 || ids.some((id) => id === null)) return null;
  return ids.join(" ");
}

function text(value: unknown): string | number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || value.length > MAX_ATTRIBUTE_LENGTH) return null;
  return value;
}

function scalarValue(value: unknown): unknown {
  if (typeof value === "string") return value.length <= MAX_ATTRIBUTE_LENGTH ? value : null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "boolean") return value;
  return null;
}

/**
 * A config object for a chart prop (`dot`, `tick`, `label`, `margin`):
 * Recharts spreads such objects onto SVG elements, so keys follow attribute
 * rules (no handlers, no URLs, no raw HTML) and strings follow paint rules.
 */
function configValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string")
    return value.length <= MAX_ATTRIBUTE_LENGTH && !PAINT_DENIED.test(value) ? value : undefined;
  if (depth > 4 || typeof value !== "object" || isHandlerMarker(value)) return undefined;
  if (Array.isArray(value)) {
    if (value.length > 64) return undefined;
    const items = value.map((item) => configValue(item, depth + 1));
    return items.some((item) => item === undefined) ? undefined : items;
  }
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (JSON_DENIED_KEYS.has(key) || /^on/i.test(key) || !/^[A-Za-z][A-Za-z0-9_-]{0,47}$/.test(key)) continue;
    if (key === "style") {
      const style = sanitizeStyle(item).style;
      if (style) result.style = style;
      continue;
    }
    const clean = configValue(item, depth + 1);
    if (clean !== undefined) result[key] = clean;
  }
  return result;
}

/**
 * Sane ranges for numeric props that size or multiply work: `<YAxis
 * tickCount={50000000} />` asks Recharts for fifty million ticks, a width of
 * ten million for a canvas to match. Values outside are clamped, not
 * dropped (the model meant "many", not "none"). Props that carry data
 * (`value`, `min`, `max`, `step`, `start`) are not listed and pass as they are.
 */
export const NUMBER_RANGES: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  tickCount: [0, 30],
  width: [0, 2000],
  height: [0, 2000],
  minWidth: [0, 4000],
  minHeight: [0, 4000],
  maxHeight: [0, 4000],
  aspect: [0.05, 20],
  strokeWidth: [0, 100],
  barSize: [0, 1000],
  maxBarSize: [0, 1000],
  fontSize: [0, 200],
  iconSize: [0, 200],
  tickMargin: [-1000, 1000],
  minTickGap: [0, 1000],
  angle: [-360, 360],
  startAngle: [-720, 720],
  endAngle: [-720, 720],
  paddingAngle: [0, 360],
  cornerRadius: [0, 1000],
  offset: [-1000, 1000],
  fillOpacity: [0, 1],
  pathLength: [0, 1_000_000],
  size: [0, 1000],
  rows: [0, 1000],
  cols: [0, 1000],
  colSpan: [0, 1000],
  rowSpan: [0, 1000],
  minLength: [0, 1_000_000],
  maxLength: [0, 1_000_000],
});

export function clampNumber(prop: string, value: number): number {
  const range = Object.hasOwn(NUMBER_RANGES, prop) ? NUMBER_RANGES[prop] : undefined;
  return range ? Math.min(range[1], Math.max(range[0], value)) : value;
}

function applyRule(
  rule: PropRule,
  value: unknown,
  options: SanitizeOptions,
): { value: unknown } | { drop: DropReason } {
  const invalid = { drop: "invalid-value" as const };
  if (typeof rule !== "string") {
    return typeof value === "string" && rule.includes(value) ? { value } : invalid;
  }
  switch (rule) {
    case "text": {
      const clean = text(value);
      return clean === null ? invalid : { value: clean };
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? { value } : invalid;
    case "boolean":
      return typeof value === "boolean" ? { value } : invalid;
    case "tabindex":
      return typeof value === "number" && Number.isFinite(value) ? { value: value < 0 ? -1 : 0 } : invalid;
    case "id": {
      const clean = namespaceId(value, options.idPrefix);
      return clean === null ? invalid : { value: clean };
    }
    case "idrefs": {
      const clean = namespaceIds(value, options.idPrefix);
      return clean === null ? invalid : { value: clean };
    }
    case "link":
    case "resource": {
      const clean = sanitizeUrl(value, rule);
      return clean === null ? { drop: "unsafe-url" } : { value: clean };
    }
    case "value": {
      if (Array.isArray(value)) {
        if (value.length > 1000) return invalid;
        const items = value.map(scalarValue);
        return items.some((item) => item === null || typeof item === "boolean") ? invalid : { value: items };
      }
      const clean = scalarValue(value);
      return clean === null ? invalid : { value: clean };
    }
    case "data":
      // The receiver already proved it plain JSON within the size budget.
      return Array.isArray(value) ? { value } : invalid;
    case "json": {
      const clean = configValue(value, 0);
      return clean === undefined ? invalid : { value: clean };
    }
    case "paint": {
      if (typeof value === "number") return Number.isFinite(value) ? { value } : invalid;
      if (typeof value !== "string" || value.length > MAX_ATTRIBUTE_LENGTH) return invalid;
      return PAINT_DENIED.test(value) ? { drop: "unsafe-url" } : { value };
    }
    default: {
      const exhaustive: never = rule;
      return exhaustive;
    }
  }
}

/**
 * Sanitize `props` for a node of the given spec. Never throws; every prop that
 * does not make it is listed in `dropped` with a reason.
 */
export function sanitizeProps(
  spec: ComponentSpec,
  props: WireProps | Record<string, unknown> | undefined,
  options: SanitizeOptions,
): SanitizedProps {
  const result: SanitizedProps = { props: {}, handlers: {}, classTokens: [], dropped: [] };
  if (!props) return result;
  const drop = (prop: string, reason: DropReason) => void result.dropped.push({ prop, reason });
  for (const [rawKey, value] of Object.entries(props)) {
    const key = rawKey === "class" ? "className" : rawKey === "for" ? "htmlFor" : rawKey;
    if (value === undefined) continue;
    if (SILENT_DROPS.has(key)) continue;
    if (RAW_HTML.has(key)) {
      drop(key, "raw-html");
      continue;
    }
    if (/^on/i.test(key)) {
      if (!isHandlerMarker(value)) drop(key, "string-handler");
      else if (Object.hasOwn(spec.handlers, key)) result.handlers[key] = spec.handlers[key];
      else drop(key, "unsupported-handler");
      continue;
    }
    if (isHandlerMarker(value)) {
      // A function passed as a non-event prop (a render prop, a formatter):
      // the host cannot call the realm synchronously, so it cannot render it.
      drop(key, "unsupported-handler");
      continue;
    }
    if (key === "className") {
      const clean = sanitizeClassName(value);
      if (clean.className !== undefined) result.props.className = clean.className;
      result.classTokens.push(...clean.tokens);
      continue;
    }
    if (key === "style") {
      const clean = sanitizeStyle(value);
      if (clean.style) result.props.style = clean.style;
      for (const property of clean.dropped) drop(`style.${property}`, "unsafe-style");
      continue;
    }
    if (spec.kind !== "chart" && ARIA_NAME.test(key)) {
      const clean = ARIA_IDREFS.has(key) ? namespaceIds(value, options.idPrefix) : scalarValue(value);
      if (clean === null) drop(key, "invalid-value");
      else result.props[key] = clean;
      continue;
    }
    if (spec.kind !== "chart" && DATA_NAME.test(key) && !key.startsWith("data-mount")) {
      const clean = scalarValue(value);
      if (clean === null) drop(key, "invalid-value");
      else result.props[key] = clean;
      continue;
    }
    if (!Object.hasOwn(spec.props, key)) {
      drop(key, URL_PROPS.has(key) ? "unsafe-url" : "unknown-prop");
      continue;
    }
    const outcome = applyRule(spec.props[key], value, options);
    if ("drop" in outcome) drop(key, outcome.drop);
    else result.props[key] = typeof outcome.value === "number" ? clampNumber(key, outcome.value) : outcome.value;
  }
  return result;
}
