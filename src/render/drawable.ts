/**
 * Which types the host can draw, and the report of one it cannot, without
 * the components themselves: the mount registry checks every message's
 * types when it arrives, while the catalog, the kit and MountView load only
 * when a mount is first drawn (src/ui/mounts.tsx), so they stay out of the
 * JavaScript the page needs before the composer works. `componentFor` in
 * catalog.tsx answers the same question with the component (catalog.test).
 */
import { specFor } from "./componentSpecs";
import type { MountStore } from "./mountStore";

/** True when the catalog has a component for `type` (a spec'd name or `<Name>Icon`). */
export function isDrawableType(type: string): boolean {
  return specFor(type) !== undefined;
}

/** Types refused on purpose (named in the inline error as "not allowed"). */
export const REFUSED_TYPES: ReadonlySet<string> = new Set([
  "script",
  "iframe",
  "object",
  "embed",
  "base",
  "meta",
  "link",
  "style",
  "frame",
  "frameset",
  "applet",
  "foreignObject",
  "use",
  "image",
  "animate",
  "set",
  "animateMotion",
  "animateTransform",
  "portal",
  "dialog",
  "template",
  "slot",
  "noscript",
  "video",
  "audio",
  "source",
  "track",
  "canvas",
  "math",
]);

/**
 * Report a component the host cannot draw, once per mount and type (true the
 * first time). The registry reports unknown types as soon as a message
 * arrives; drawing them later finds them reported already.
 */
export function reportUnknownComponent(
  store: MountStore,
  type: string,
  reason: "unknown" | "not-allowed" | "outside-chart",
): boolean {
  const message =
    reason === "outside-chart"
      ? `<${type}> renders only inside a chart (LineChart, BarChart, AreaChart, PieChart)`
      : reason === "not-allowed"
        ? `<${type}> is not allowed in a mount`
        : `unknown component <${type}>: use HTML elements, the kit components, Recharts parts or lucide icons`;
  return store.report({ code: "unknown-component", message, details: { type, reason } }, `unknown:${type}`);
}
